//! The end of a session: a lesson card built from the log, and the evidence for the knowledge
//! map. The problem's tags name the answer, so the card is the first place they are shown.

use devcoach_core::knowledge_model::PracticeResult;
use devcoach_core::lesson::{LessonContext, NewLesson};
use devcoach_core::{LessonId, Level};

use crate::log::{Event, Stamped};
use crate::problem::Problem;
use crate::report;
use crate::toolbox::Toolbox;

/// What a session leaves behind.
#[derive(Debug, Clone, PartialEq)]
pub struct Postmortem {
    pub lesson: NewLesson,
    /// Knowledge-map topics the problem exercised (from its tags).
    pub topics: Vec<String>,
    /// The evidence for those topics; `None` when the session ended before any code went
    /// through and without the answer.
    pub result: Option<PracticeResult>,
}

/// The card and the evidence, or `None` when nothing happened worth a card (no coach reply
/// shown and no requirement list judged: the learner said nothing, or no model answered).
pub fn build(problem: &Problem, events: &[Stamped], toolbox: &Toolbox, id_stamp: &str) -> Option<Postmortem> {
    let happened =
        events.iter().any(|e| matches!(e.event, Event::Coach { text: Some(_), .. } | Event::ReqCheck { .. }));
    if !happened {
        return None;
    }
    let r = report::session("", events, toolbox);
    let code_passed = events.iter().any(|e| matches!(e.event, Event::Code { .. }));
    let result = PracticeResult::from_session(r.revealed, code_passed, r.highest_rung);
    let entries: Vec<&crate::toolbox::Entry> = problem.tags.iter().filter_map(|t| toolbox.get(t)).collect();
    let mut topics: Vec<String> = Vec::new();
    for entry in &entries {
        if !topics.contains(&entry.topic) {
            topics.push(entry.topic.clone());
        }
    }
    let topic_id = topics.first().cloned().unwrap_or_else(|| "algorithms".to_owned());
    let mut categories = vec!["practice".to_owned()];
    categories.extend(topics.iter().cloned());

    let outcome = match result {
        Some(PracticeResult::Alone) => "worked through without the answer and with small nudges at most",
        Some(PracticeResult::Helped) => "worked through without the answer, with strong hints",
        Some(PracticeResult::Revealed) => "the answer was revealed",
        None => "not finished: it ended before any code went through",
    };
    let req = match r.req_before_code {
        Some(true) => "requirements came before code",
        Some(false) => "code came before requirements",
        None => "no code was sent",
    };
    let rung = r.highest_rung.map_or_else(|| "no hints".to_owned(), |h| format!("hints up to H{h}"));
    let summary = format!("{}: {outcome}; {req}; {rung}.", problem.title);

    let mut body = format!("## {}\n\n", problem.title);
    if !problem.difficulty.is_empty() {
        body.push_str(&format!("Difficulty: {}.\n\n", problem.difficulty));
    }
    body.push_str(&format!("**How it went:** {outcome}; {req}; {rung}.\n\n"));
    if !r.verdicts.is_empty() {
        body.push_str("**Your requirement lists:**\n\n");
        for (i, v) in r.verdicts.iter().enumerate() {
            let missing: Vec<String> =
                v.missing.iter().map(|id| toolbox.get(id).map_or_else(|| id.clone(), |e| e.name.clone())).collect();
            let detail =
                if missing.is_empty() { String::new() } else { format!(" — missing: {}", missing.join(", ")) };
            body.push_str(&format!("{}. {}{detail}\n", i + 1, v.verdict));
        }
        body.push('\n');
    }
    if !entries.is_empty() {
        body.push_str("**What the problem exercises:**\n\n");
        for entry in &entries {
            body.push_str(&format!("- **{}**: {}\n", entry.name, entry.summary));
        }
        body.push('\n');
    }
    if !problem.hints.is_empty() {
        body.push_str("**The hints, for next time:**\n\n");
        for hint in &problem.hints {
            body.push_str(&format!("- {hint}\n"));
        }
        body.push('\n');
    }
    body.push_str(match result {
        Some(PracticeResult::Alone) => "Next: a harder problem on the same idea, or the same one in another language.",
        Some(PracticeResult::Helped) => "Next: try it again in a few days without hints; the review card will ask.",
        Some(PracticeResult::Revealed) => {
            "Next: rewrite the solution from memory tomorrow, then try a similar problem."
        }
        None => "Next: pick it up again from your requirement list; the session log keeps what you had.",
    });

    let level = match problem.difficulty.as_str() {
        "easy" => Level::Junior,
        "hard" => Level::Senior,
        _ => Level::Mid,
    };
    let id = LessonId::new(format!("practice-{}-{id_stamp}", problem.slug)).ok()?;
    Some(Postmortem {
        lesson: NewLesson {
            id,
            topic_id,
            categories,
            title: format!("Practice: {}", problem.title),
            level,
            summary,
            body,
            context: LessonContext {
                task_context: Some(format!("devcoach practice {}", problem.slug)),
                ..LessonContext::default()
            },
        },
        topics,
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{MessageKind, ReqVerdict};

    fn at(event: Event) -> Stamped {
        Stamped { ts: "t".into(), event }
    }

    #[test]
    fn a_card_names_the_technique_and_the_outcome() {
        let toolbox = Toolbox::builtin();
        let problem = Problem::shipped("closest-pair-to-target").expect("problem");
        assert!(build(&problem, &[], toolbox, "x").is_none(), "nothing said, nothing saved");
        let unanswered = [at(Event::Learner { text: "hello".into(), kind: MessageKind::Prose })];
        assert!(build(&problem, &unanswered, toolbox, "x").is_none(), "no model answered: no card");
        let events = vec![
            at(Event::Learner { text: "req: sorted".into(), kind: MessageKind::Req }),
            at(Event::ReqCheck {
                verdict: ReqVerdict::Incomplete,
                missing: vec!["integer-overflow-risk".into()],
                judge: crate::log::Judge::Haiku,
                dropped: 0,
            }),
            at(Event::Coach { rung: Some(3), leaked: false, drafts: 1, text: Some("Why?".into()) }),
            at(Event::Learner { text: "def f(): pass".into(), kind: MessageKind::Code }),
        ];
        let pm = build(&problem, &events, toolbox, "20261130T120000").expect("card");
        assert_eq!(pm.result, None, "no code went through the gate");
        let mut with_code = events.clone();
        with_code.push(at(Event::Code { req_incomplete: false }));
        let pm_code = build(&problem, &with_code, toolbox, "x").expect("card");
        assert_eq!(pm_code.result, Some(PracticeResult::Helped));
        assert_eq!(pm.lesson.categories[0], "practice");
        assert_eq!(pm.lesson.topic_id, "two-pointers");
        assert!(pm.topics.contains(&"two-pointers".to_owned()));
        assert!(pm.lesson.body.contains("**two pointers**"), "{}", pm.lesson.body);
        assert!(pm.lesson.body.contains("missing: integer overflow risk"));
        assert!(pm.lesson.summary.contains("requirements came before code"));
        assert_eq!(pm.lesson.level, Level::Junior);
        assert_eq!(pm.lesson.id.as_str(), "practice-closest-pair-to-target-20261130T120000");
    }
}
