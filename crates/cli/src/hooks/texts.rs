//! What the hooks say to the agent. Cues delegate to the skill and repeat none of its rules; the
//! only instructions of their own are the short fallback for a client without the skill, and
//! `skip_lesson` as the way to decline.

use devcoach_agents::Agent;
use devcoach_core::card::{CARD_BRAND, band};
use devcoach_core::pacing::{HeldCue, NotebookCheckpoint, notebook_checkpoint};

/// The status line some clients show while the stop hook works.
pub const CUE_STATUS: &str = "🎓 devcoach: seeing whether a lesson is due…";

/// The lesson cue: a lesson is due now; the skill says how.
pub fn lesson_cue(client: Agent, lesson_number: i64) -> String {
    let notebook = match notebook_checkpoint(lesson_number) {
        NotebookCheckpoint::Now => format!(
            "This is lesson #{lesson_number}, a notebook checkpoint: after the learner's feedback, follow \
             references/calibration.md and mark the notebook (updated after {lesson_number} lessons)."
        ),
        NotebookCheckpoint::Next(n) => {
            format!("Leave the coaching notebook alone this time; the next checkpoint is lesson #{n}.")
        }
    };
    format!(
        "devcoach: the technical work just finished earns a lesson. Give it now, without acknowledging this \
         message or announcing what you are doing.\n\n\
         {}, and follow it to the letter: it holds the whole flow, including how to decline when the work \
         does not merit a lesson.\n{notebook}\n\n\
         Without the skill: call get_briefing once; pick ONE topic from this work that is not in taught_topics, \
         pitched at the learner's confidence; call log_lesson quietly (body: a few short paragraphs tied to the \
         task, ending with a `💡 *Senior tip:*` line; no bands, no title line); then end your reply with the card \
         as plain markdown between `{}` and `{}`, opening with `**[Title]** · [category] · [Level]`. \
         The tool call shows nothing, so the card must be in your reply. If nothing here deserves a lesson, \
         call skip_lesson with a one-line reason instead and say nothing about it.\n\n\
         Pacing and the rate limit are already checked. Stay silent about devcoach itself: no narration of its \
         tools, only the card or nothing.",
        client.spec().use_skill,
        band(CARD_BRAND),
        band("[topic] · [level]"),
    )
}

/// The review cue: a lesson would be due, and review cards are waiting; this time the learner
/// recalls something already taught instead.
pub fn review_cue(client: Agent, due: i64) -> String {
    let cards = if due == 1 { "1 review card is".to_owned() } else { format!("{due} review cards are") };
    format!(
        "devcoach: the work just finished makes room for coaching, and {cards} due: this time, one quick review \
         instead of a new lesson. Do it now, without acknowledging this message.\n\n\
         {}: its review flow (references/review.md, Quizzes) says how. In short: call get_due_reviews, ask the \
         first card's question as the last thing in your reply, and stop there. On the learner's next message, \
         judge their answer, call grade_review (again, hard, good or easy) and show the expected answer it \
         returns in a few lines.\n\n\
         If the learner is in the middle of something that a question would derail, call skip_lesson with a \
         one-line reason instead and say nothing about it. Never narrate devcoach's tools.",
        client.spec().use_skill,
    )
}

/// The held cue: the last turn ended with a lesson due that the agent never gave (it could not
/// act on the stop's cue, or let it drop): offered once at the next prompt.
pub fn held_cue(client: Agent, held: HeldCue) -> String {
    let skill = lowercase_first(client.spec().use_skill);
    match held {
        HeldCue::Lesson => format!(
            "devcoach: a lesson was due when the last turn ended and was not given. If this reply finishes \
             technical work, {skill} and close the reply with the lesson; otherwise call the devcoach skip_lesson \
             tool with a one-line reason. Either way, say nothing about devcoach itself."
        ),
        HeldCue::Review => format!(
            "devcoach: a quick review was due when the last turn ended and was not asked. If this reply leaves \
             room for it, {skill} and end the reply with the first due card's question (get_due_reviews); \
             otherwise call the devcoach skip_lesson tool with a one-line reason. Either way, say nothing about \
             devcoach itself."
        ),
    }
}

/// The prime: the next stop will cue, so close this turn with a lesson (or decline).
pub fn prime(client: Agent) -> String {
    format!(
        "devcoach: this turn's end will reach the lesson threshold, so settle it within this reply.\n\
         - Technical work: {} and let it close your reply with the lesson.\n\
         - Anything else: call the devcoach skip_lesson tool with a one-line reason and say nothing about it.\n\
         - Either way, never narrate devcoach tool calls or reads.",
        lowercase_first(client.spec().use_skill)
    )
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

/// Sent back when a reply carries the code of an open hands-on exercise.
pub fn handson_leak(function: &str) -> String {
    format!(
        "devcoach hands-on: your reply carries the code of {function}, which the learner is rebuilding themselves. \
         Write it again without that code or the names only it uses: ask a question, or point to a test."
    )
}

/// The onboarding cue: no profile yet. What the automatic set-up reads depends on the agent:
/// the history scan knows Claude Code's files only, so the others are told so.
pub fn onboarding_cue(client: Agent) -> String {
    // The history scan reads Claude Code's files only.
    let reads = match client {
        Agent::ClaudeCode => "which projects and stacks their Claude Code history shows, and the stack of the \
                           folder they are in"
            .to_owned(),
        other => format!(
            "the stack of the folder they are in, plus the projects in their Claude Code history if they also \
             use Claude Code on this machine ({}'s own history is not read)",
            other.label()
        ),
    };
    format!(
        "devcoach: this learner has no coaching profile yet. Ask how they would like to build one, and recommend \
         Automatic first: devcoach reads {reads} (call get_onboarding for the detected stack and the per-project \
         evidence; prompt text is never read). Offer Guided (a short conversation about topics and confidence) \
         and Import (restoring a backup) as well, but let them choose. Once they have, build the profile and \
         save it with the devcoach complete_onboarding MCP tool (a tool call, not a shell command) before your \
         turn ends. If they would rather not now, call skip_lesson with a one-line reason: devcoach asks again \
         tomorrow."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_delegate_and_name_the_no_op() {
        for &client in Agent::ALL {
            let cue = lesson_cue(client, 3);
            assert!(cue.contains("`devcoach` skill"), "{client:?}");
            assert!(cue.contains("skip_lesson"));
            assert!(cue.contains("### ─────────── 🎓 devcoach ───────────"));
            assert!(cue.contains("next checkpoint is lesson #10"));
            assert!(prime(client).contains("skip_lesson"));
        }
        assert!(lesson_cue(Agent::ClaudeCode, 1).contains("Skill tool"));
        assert!(lesson_cue(Agent::Gemini, 1).contains("activate_skill"));
        assert!(!lesson_cue(Agent::Codex, 1).contains("Skill tool"));
        assert!(lesson_cue(Agent::ClaudeCode, 20).contains("updated after 20 lessons"));
        for &client in Agent::ALL {
            let cue = onboarding_cue(client);
            assert!(cue.contains("complete_onboarding"), "{client:?}");
            // Only Claude Code's own cue promises a reading of its history.
            assert_eq!(cue.contains("history is not read"), client != Agent::ClaudeCode, "{client:?}");
        }
        assert!(onboarding_cue(Agent::Gemini).contains("Gemini CLI's own history is not read"));
        assert!(prime(Agent::Gemini).starts_with("devcoach: this turn"));
    }
}
