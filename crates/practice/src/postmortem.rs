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
    /// Solved (or revealed): only then is there something to review later.
    pub finished: bool,
}

/// The card's id: the problem and the moment the session started, so a resumed session's
/// card replaces the one saved when it was left unfinished.
fn card_id(problem: &Problem, events: &[Stamped]) -> Option<LessonId> {
    let started = events.iter().find(|e| matches!(e.event, Event::Start { .. })).map_or("", |e| e.ts.as_str());
    let stamp: String = started.chars().take(19).filter(|c| c.is_ascii_digit() || *c == 'T').collect();
    let stamp = if stamp.is_empty() { "session".to_owned() } else { stamp };
    LessonId::new(format!("practice-{}-{stamp}", problem.slug)).ok()
}

/// The card and the evidence, or `None` when nothing happened worth a card: no coach reply shown
/// and no code sent (the learner said nothing, or no model answered — a requirement list no
/// judge read is not a session).
///
/// A session the learner left before solving it (and without the answer) is **unfinished**:
/// its card says so and how to resume, and names neither the technique nor the hints (the
/// guard still holds them back when the learner comes back), and it is no evidence yet.
pub fn build(problem: &Problem, events: &[Stamped], toolbox: &Toolbox) -> Option<Postmortem> {
    let happened = events.iter().any(|e| matches!(e.event, Event::Coach { text: Some(_), .. } | Event::Code { .. }));
    if !happened {
        return None;
    }
    let r = report::session("", events, toolbox);
    let finished = r.finished();
    let code_passed = events.iter().any(|e| matches!(e.event, Event::Code { .. }));
    let result = if finished { PracticeResult::from_session(r.revealed, code_passed, r.highest_rung) } else { None };
    let entries: Vec<&crate::toolbox::Entry> =
        if finished { problem.tags.iter().filter_map(|t| toolbox.get(t)).collect() } else { Vec::new() };
    let mut topics: Vec<String> = Vec::new();
    for entry in &entries {
        // Toolbox topics are kebab-case; the map's ids follow the one topic rule.
        let Ok(topic) = devcoach_core::knowledge::topic_id(&entry.topic) else { continue };
        if !topics.contains(&topic) {
            topics.push(topic);
        }
    }
    let topic_id = topics.first().cloned().unwrap_or_else(|| "algorithms".to_owned());
    let mut categories = vec!["practice".to_owned()];
    categories.extend(topics.iter().cloned());

    let outcome = match result {
        Some(PracticeResult::Alone) => "worked through without the answer and with small nudges at most",
        Some(PracticeResult::Helped) => "worked through without the answer, with strong hints",
        Some(PracticeResult::Revealed) => "the answer was revealed",
        None if finished => "marked solved before any code went through",
        None => "unfinished",
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
            // The gate told the learner these names already.
            let missing: Vec<String> =
                v.missing.iter().map(|id| toolbox.get(id).map_or_else(|| id.clone(), |e| e.name.clone())).collect();
            let detail =
                if missing.is_empty() { String::new() } else { format!(" — missing: {}", missing.join(", ")) };
            body.push_str(&format!("{}. {}{detail}\n", i + 1, v.verdict));
        }
        body.push('\n');
    }
    if finished {
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
            Some(PracticeResult::Alone) => {
                "Next: a harder problem on the same idea, or the same one in another language."
            }
            Some(PracticeResult::Helped) => "Next: try it again in a few days without hints; the review card will ask.",
            Some(PracticeResult::Revealed) => {
                "Next: rewrite the solution from memory tomorrow, then try a similar problem."
            }
            None => "Next: write the code for it next time; the review card will ask.",
        });
    } else {
        body.push_str(&format!(
            "Unfinished: the approach and the hints stay hidden until you solve it or ask for the answer. \
             Carry on where you stopped with `devcoach practice {} --resume`.",
            problem.slug
        ));
    }

    let level = match problem.difficulty.as_str() {
        "easy" => Level::Junior,
        "hard" => Level::Senior,
        _ => Level::Mid,
    };
    let title = if finished {
        format!("Practice: {}", problem.title)
    } else {
        format!("Practice (unfinished): {}", problem.title)
    };
    Some(Postmortem {
        lesson: NewLesson {
            id: card_id(problem, events)?,
            topic_id,
            categories,
            title,
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
        finished,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{MessageKind, ReqVerdict};

    fn at(event: Event) -> Stamped {
        Stamped { ts: "2026-11-30T12:00:00.000Z".into(), event }
    }

    fn start() -> Stamped {
        at(Event::Start {
            schema: 1,
            problem: "closest-pair-to-target".into(),
            title: None,
            tags: vec![],
            backend: "claude".into(),
            model: "sonnet".into(),
            statement: None,
        })
    }

    fn session(code: bool, end: Option<&str>) -> Vec<Stamped> {
        let mut events = vec![
            start(),
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
        if code {
            events.push(at(Event::Code { req_incomplete: false }));
        }
        if let Some(reason) = end {
            events.push(at(Event::End { reason: Some(reason.into()) }));
        }
        events
    }

    #[test]
    fn a_solved_session_names_the_technique_and_the_outcome() {
        let toolbox = Toolbox::builtin();
        let problem = Problem::shipped("closest-pair-to-target").expect("problem");
        assert!(build(&problem, &[], toolbox).is_none(), "nothing said, nothing saved");
        let unanswered = [at(Event::Learner { text: "hello".into(), kind: MessageKind::Prose })];
        assert!(build(&problem, &unanswered, toolbox).is_none(), "no model answered: no card");
        let pm = build(&problem, &session(false, Some(crate::log::SOLVED)), toolbox).expect("card");
        assert_eq!(pm.result, None, "no code went through the gate");
        let pm = build(&problem, &session(true, Some(crate::log::SOLVED)), toolbox).expect("card");
        assert_eq!(pm.result, Some(PracticeResult::Helped));
        assert_eq!(pm.lesson.categories[0], "practice");
        assert_eq!(pm.lesson.topic_id, "two_pointers", "the map's topic rule");
        assert!(pm.topics.contains(&"two_pointers".to_owned()));
        assert!(pm.lesson.body.contains("**two pointers**"), "{}", pm.lesson.body);
        assert!(pm.lesson.body.contains("The hints, for next time"));
        assert!(pm.lesson.body.contains("missing: integer overflow risk"));
        assert!(pm.lesson.summary.contains("requirements came before code"));
        assert_eq!(pm.lesson.level, Level::Junior);
        assert_eq!(pm.lesson.id.as_str(), "practice-closest-pair-to-target-20261130T120000", "from the start");
    }

    #[test]
    fn an_unfinished_session_keeps_the_answer_hidden_and_says_how_to_resume() {
        let toolbox = Toolbox::builtin();
        let problem = Problem::shipped("closest-pair-to-target").expect("problem");
        for end in [Some("quit"), Some("end of input"), None] {
            let pm = build(&problem, &session(true, end), toolbox).expect("card");
            assert_eq!(pm.result, None, "no evidence from a stub: {end:?}");
            assert!(pm.lesson.title.contains("unfinished"), "{}", pm.lesson.title);
            assert!(pm.lesson.body.contains("--resume"), "{}", pm.lesson.body);
            let card =
                format!("{} {} {} {:?}", pm.lesson.title, pm.lesson.summary, pm.lesson.body, pm.lesson.categories);
            for hint in &problem.hints {
                assert!(!card.contains(hint.as_str()), "a hint is in the card: {hint}");
            }
            let leaks = crate::detect::leak::scan(toolbox, &card, &["req: sorted", "integer overflow risk"], None);
            assert!(leaks.is_empty(), "names in the card: {leaks:?}");
            assert_eq!(pm.lesson.topic_id, "algorithms");
        }
        // Taken up again and solved, the same card is replaced (same id) with the full one.
        let mut resumed = session(true, Some("quit"));
        resumed.push(at(Event::Resume {}));
        resumed.push(at(Event::End { reason: Some(crate::log::SOLVED.into()) }));
        let done = build(&problem, &resumed, toolbox).expect("card");
        let first = build(&problem, &session(true, Some("quit")), toolbox).expect("card");
        assert_eq!(done.lesson.id, first.lesson.id);
        assert!(done.result.is_some() && !done.lesson.title.contains("unfinished"));
        // A revealed answer is finished too.
        let mut revealed = session(true, Some("quit"));
        revealed.insert(5, at(Event::Reveal {}));
        assert_eq!(build(&problem, &revealed, toolbox).expect("card").result, Some(PracticeResult::Revealed));
    }
}
