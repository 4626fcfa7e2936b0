//! What happened in an exercise, and what it leaves: the structural hints (no model needed),
//! the outcome, and the lesson card.

use chrono::{DateTime, Utc};
use devcoach_core::LessonId;
use devcoach_core::handson::HandsOn;
use devcoach_core::knowledge_model::PracticeResult;
use devcoach_core::lesson::{LessonContext, Level, NewLesson};
use devcoach_core::share::slug::slugify;

use crate::check::Checked;
use crate::exercise::Exercise;
use crate::leak::LeakGuard;

/// The counts of one exercise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub checks: u32,
    /// The highest hint rung given (0: none).
    pub rung: u8,
    pub revealed: bool,
    /// The last check passed.
    pub passed: bool,
    /// The learner's own list of what the function must do, before code.
    pub requirements: Vec<String>,
    /// Whether the learner wrote the requirements before the first check.
    pub requirements_first: bool,
    /// Answers a model coach gave the learner's questions (each a nudge, as a hint is).
    pub answers: u32,
}

impl Tally {
    pub fn checked(&mut self, run: &Checked) {
        self.checks += 1;
        self.passed = run.passed;
    }

    /// How the exercise went, for the knowledge map: as a practice session is counted (a pass
    /// with at most two nudges, structural hints and a coach's answers together, is unaided).
    /// `None` when it ended before a pass and without the answer: nothing to learn about the
    /// learner from it.
    pub fn result(&self) -> Option<PracticeResult> {
        match (self.revealed, self.passed) {
            (true, _) => Some(PracticeResult::Revealed),
            (false, true) if u32::from(self.rung) + self.answers <= 2 => Some(PracticeResult::Alone),
            (false, true) => Some(PracticeResult::Helped),
            (false, false) => None,
        }
    }

    pub fn finished(&self) -> bool {
        self.passed || self.revealed
    }

    /// What the exercise came to, as it is kept beside its card.
    pub fn outcome(&self, language: &str) -> HandsOn {
        HandsOn {
            language: language.to_owned(),
            result: self.result(),
            checks: self.checks,
            hints: u32::from(self.rung),
            revealed: self.revealed,
            passed: self.passed,
        }
    }
}

/// The structural hints, in order: none names what the hidden body holds.
pub const RUNGS: u8 = 4;

/// Hint `rung` (1-based), checked by `guard`: `None` when the rung would carry the body (it is
/// then skipped) or there are no more.
pub fn hint(ex: &Exercise, rung: u8, last: Option<&Checked>, guard: &LeakGuard) -> Option<String> {
    let piece = &ex.candidate.piece;
    let text = match rung {
        1 => format!(
            "Start from what it is given and what it returns: `{}`. Say in one line what it returns for the simplest input you can think of.",
            piece.signature.lines().last().unwrap_or_default().trim()
        ),
        2 => format!(
            "The tests that call it: {}. Read what each one expects before you write a line.",
            ex.candidate.tests.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
        ),
        3 => match last {
            None => "Run `check`: the first failing assertion says what is missing.".to_owned(),
            Some(run) => {
                let said = assertion_lines(&run.tail);
                let said = if said.is_empty() { last_lines(&run.tail, 6) } else { said };
                format!("What the last check said:\n{said}")
            }
        },
        4 => {
            let lines = piece.body_lines.1 + 1 - piece.body_lines.0;
            let lines = if lines == 1 { "one line".to_owned() } else { format!("{lines} lines") };
            format!("The version your agent wrote is {lines} long. If yours is much longer, look for a simpler way.")
        }
        _ => return None,
    };
    guard.check(&text).is_none().then_some(text)
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The lines of a test run that say what was expected.
fn assertion_lines(tail: &str) -> String {
    let keep = ["assert", "Assert", "expected", "Expected", "actual", "left", "right", "Error", "panicked", "!=", "=="];
    tail.lines()
        .filter(|l| l.chars().any(char::is_alphanumeric) && keep.iter().any(|k| l.contains(k)))
        .take(6)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The exercise's lesson card.
pub fn card(ex: &Exercise, tally: &Tally, topic: &str, now: DateTime<Utc>) -> Option<NewLesson> {
    // Nothing happened (no check, no hint, no reveal): no card to pile up.
    if tally.checks == 0 && tally.rung == 0 && !tally.revealed {
        return None;
    }
    let piece = &ex.candidate.piece;
    let minutes = (now.timestamp_millis() - ex.started_ms).max(0) / 60_000;
    let plural = |n: u32, one: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") };
    let hints = if tally.rung == 0 { "no hint".to_owned() } else { plural(u32::from(tally.rung), "hint") };
    let reveal = if tally.revealed { "the agent's code revealed" } else { "no reveal" };
    let asked =
        if tally.answers == 0 { String::new() } else { format!(", {}", plural(tally.answers, "coach's answer")) };
    let counts = format!("{}, {hints}{asked}, {reveal}, {} min", plural(tally.checks, "check"), minutes);
    let (title, summary) = match tally.result() {
        Some(PracticeResult::Revealed) => (
            format!("{} (hands-on, revealed)", piece.qualified),
            format!("You worked on `{}` and looked at your agent's version: {counts}.", piece.qualified),
        ),
        Some(_) => (
            format!("{}, rebuilt (hands-on)", piece.qualified),
            format!("You rebuilt `{}` and the project's tests pass: {counts}.", piece.qualified),
        ),
        None => (
            format!("{} (hands-on, unfinished)", piece.qualified),
            format!("You started rebuilding `{}`: {counts}. Its tests did not pass yet.", piece.qualified),
        ),
    };
    let mut body = format!(
        "**The exercise:** rebuild `{}` in `{}` (lines {}–{}) from its signature, judged by the project's tests.\n\n",
        piece.qualified,
        piece.path.display(),
        piece.lines.0,
        piece.lines.1
    );
    if !tally.requirements.is_empty() {
        let when = if tally.requirements_first { "before writing code" } else { "along the way" };
        body.push_str(&format!("**What you said it must do** ({when}):\n\n"));
        for req in &tally.requirements {
            body.push_str(&format!("- {req}\n"));
        }
        body.push('\n');
    }
    body.push_str(&format!(
        "**The tests that judged it:** {}\n\n",
        ex.candidate.tests.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
    ));
    if tally.finished() {
        let fence = match piece.lang {
            crate::Lang::Rust => "rust",
            crate::Lang::Python => "python",
            crate::Lang::TypeScript | crate::Lang::Tsx => "typescript",
            crate::Lang::JavaScript => "javascript",
            crate::Lang::Go => "go",
        };
        body.push_str(&format!(
            "**Your agent's version**, to compare with yours:\n\n```{fence}\n{}\n```\n\n",
            ex.agent_version()
        ));
    }
    body.push_str(match tally.result() {
        Some(PracticeResult::Alone) => "Next: the review card asks for the idea in a few days.",
        Some(PracticeResult::Helped) => "Next: rebuild it again in a few days with fewer hints.",
        Some(PracticeResult::Revealed) => "Next: write it again from memory tomorrow, without looking.",
        None => "Next: pick it up again with `devcoach handson` while the change is still there.",
    });
    let stamp: String = devcoach_core::time::iso_ms(now).chars().take(19).filter(char::is_ascii_alphanumeric).collect();
    let id =
        LessonId::new(format!("handson-{}-{}", slugify(&piece.name, "function"), stamp.to_ascii_lowercase())).ok()?;
    Some(NewLesson {
        id,
        topic_id: topic.to_owned(),
        categories: vec!["hands-on".to_owned(), topic.to_owned()],
        title,
        level: Level::Mid,
        summary,
        body,
        context: LessonContext { task_context: Some("devcoach handson".to_owned()), ..LessonContext::default() },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outcome_follows_the_pass_the_hints_and_the_reveal() {
        let mut t = Tally::default();
        assert_eq!(t.result(), None);
        t.passed = true;
        assert_eq!(t.result(), Some(PracticeResult::Alone));
        t.rung = 3;
        assert_eq!(t.result(), Some(PracticeResult::Helped));
        t.revealed = true;
        assert_eq!(t.result(), Some(PracticeResult::Revealed));
        t.passed = false;
        assert_eq!(t.result(), Some(PracticeResult::Revealed), "a reveal counts whether or not it passed");
        assert!(t.finished());
    }

    #[test]
    fn a_coach_s_answers_count_as_nudges_with_the_hints() {
        let mut t = Tally { passed: true, rung: 1, answers: 1, ..Tally::default() };
        assert_eq!(t.result(), Some(PracticeResult::Alone), "two nudges in all");
        t.answers = 2;
        assert_eq!(t.result(), Some(PracticeResult::Helped), "a third nudge is help");
        t.rung = 0;
        t.answers = 3;
        assert_eq!(t.result(), Some(PracticeResult::Helped), "answers alone count too");
    }

    #[test]
    fn the_lines_that_say_what_was_expected_are_kept() {
        let tail = "running 1 test\nthread 'x' panicked at src/lib.rs:9:\nassertion `left == right` failed\n  left: 2\n right: 195\nnote: run with RUST_BACKTRACE";
        assert_eq!(
            assertion_lines(tail),
            "thread 'x' panicked at src/lib.rs:9:\nassertion `left == right` failed\n  left: 2\n right: 195"
        );
    }
}
