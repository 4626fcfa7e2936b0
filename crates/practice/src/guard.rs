//! The TUI guard: when the learner coaches inside an agent's own interface, a Stop hook checks
//! each finished reply against the session log and sends a leaky one back. The interface has
//! already streamed the reply, so this is best effort; the print-mode REPL is what truly withholds.

use crate::detect::reply::{Giveaway, giveaway};
use crate::log::{Event, Judge, MessageKind, ReqVerdict, Stamped};
use crate::rung;
use crate::session::MAX_DRAFTS;
use crate::toolbox::Toolbox;

/// What the hook does with a finished reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardDecision {
    /// Not a practice session (no `start` in the log): stay out of the way.
    NotPractice,
    /// The reply is fine (or the guard has bounced it enough): log it as the coach's reply.
    Pass { rung: Option<u8>, leaked: bool, drafts: u32, text: String },
    /// Send it back with this reason, logging a bounce of `entry`.
    Bounce { entry: String, reason: String },
}

/// Decides on `reply` given the session so far.
pub fn check(toolbox: &Toolbox, events: &[Stamped], reply: &str) -> GuardDecision {
    if !events.iter().any(|e| matches!(e.event, Event::Start { .. })) {
        return GuardDecision::NotPractice;
    }
    let state = crate::remote::replay(events, toolbox);
    // A finished session guards nothing (the variable may outlive it in a shell).
    if state.ended {
        return GuardDecision::NotPractice;
    }
    let (rung, clean) = rung::strip(reply);
    let words: Vec<&str> = state.learner_words.iter().map(String::as_str).collect();
    let leak = giveaway(toolbox, &clean, &words, state.revealed);
    let bounced = state.bounced;
    match leak {
        Some(Giveaway { entry, why }) if bounced + 1 < MAX_DRAFTS => GuardDecision::Bounce {
            entry,
            reason: format!(
                "devcoach practice guard: that reply gives too much away ({why}). Write it again for the learner without \
                 naming a technique, data structure or property they have not named, and without code; put the \
                 <!-- rung:Hn --> marker on the first line."
            ),
        },
        leak => GuardDecision::Pass { rung, leaked: leak.is_some() || bounced > 0, drafts: bounced + 1, text: clean },
    }
}

/// What the prompt hook does with a learner's message typed into the agent's interface.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptDecision {
    NotPractice,
    /// Log these events and let the message through.
    Record(Vec<Event>),
    /// Log these events and stop the message, telling the learner why.
    Hold {
        events: Vec<Event>,
        why: String,
    },
}

/// The gate for a message typed into the agent's own interface. No judge answers there in
/// time, so a requirement list counts as given (`unverified`, as when no judge answers in the
/// REPL); code before any list is held.
pub fn on_prompt(toolbox: &Toolbox, events: &[Stamped], prompt: &str) -> PromptDecision {
    if !events.iter().any(|e| matches!(e.event, Event::Start { .. })) {
        return PromptDecision::NotPractice;
    }
    let mut state = crate::remote::replay(events, toolbox);
    if state.ended || prompt.trim().is_empty() {
        return PromptDecision::NotPractice;
    }
    let kind = crate::gate::message_kind(prompt).unwrap_or(MessageKind::Prose);
    let mut out = vec![Event::Learner { text: prompt.trim().to_owned(), kind }];
    match kind {
        MessageKind::Req => out.push(Event::ReqCheck {
            verdict: ReqVerdict::Unverified,
            missing: Vec::new(),
            judge: Judge::None,
            dropped: 0,
        }),
        MessageKind::Code => {
            match state.gate.on_code(|id| toolbox.get(id).map_or_else(|| id.to_owned(), |e| e.name.clone())) {
                crate::gate::CodeDecision::Pass { req_incomplete } => out.push(Event::Code { req_incomplete }),
                crate::gate::CodeDecision::Hold { why } => {
                    out.push(Event::Held { why: why.clone() });
                    return PromptDecision::Hold { events: out, why };
                }
            }
        }
        MessageKind::Prose => {}
    }
    PromptDecision::Record(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(event: Event) -> Stamped {
        Stamped { ts: "t".into(), event }
    }

    fn start() -> Stamped {
        at(Event::Start {
            schema: 1,
            problem: "p".into(),
            title: None,
            tags: vec![],
            backend: "claude".into(),
            model: "sonnet".into(),
            statement: None,
        })
    }

    #[test]
    fn leaky_replies_go_back_until_the_third_draft() {
        let toolbox = Toolbox::builtin();
        assert_eq!(check(toolbox, &[], "anything"), GuardDecision::NotPractice);
        let mut log = vec![start(), at(Event::Learner { text: "how do I start?".into(), kind: MessageKind::Prose })];
        let leaky = "<!-- rung:H2 -->\nA sliding window would do.";
        let GuardDecision::Bounce { entry, reason } = check(toolbox, &log, leaky) else { panic!("bounced") };
        assert_eq!(entry, "sliding-window");
        assert!(reason.contains("\"sliding window\""), "{reason}");
        log.push(at(Event::Bounce { entry, source: "stop-hook".into() }));
        assert!(matches!(check(toolbox, &log, leaky), GuardDecision::Bounce { .. }));
        log.push(at(Event::Bounce { entry: "sliding-window".into(), source: "stop-hook".into() }));
        // The third draft goes through (it has been on screen all along), marked.
        assert_eq!(
            check(toolbox, &log, leaky),
            GuardDecision::Pass { rung: Some(2), leaked: true, drafts: 3, text: "A sliding window would do.".into() }
        );
    }

    #[test]
    fn the_prompt_gate_holds_code_until_a_list() {
        let toolbox = Toolbox::builtin();
        let mut log = vec![start()];
        let code = "def f(a):\n    return sorted(a)[0]";
        let PromptDecision::Hold { events, why } = on_prompt(toolbox, &log, code) else { panic!("held") };
        assert!(why.contains("req:"));
        assert!(matches!(events.last(), Some(Event::Held { .. })));
        let PromptDecision::Record(events) = on_prompt(toolbox, &log, "req: may be empty") else { panic!("recorded") };
        assert!(matches!(events[1], Event::ReqCheck { verdict: ReqVerdict::Unverified, .. }));
        log.extend(events.into_iter().map(at));
        let PromptDecision::Record(events) = on_prompt(toolbox, &log, code) else { panic!("through") };
        assert_eq!(events[1], Event::Code { req_incomplete: false });
        assert_eq!(on_prompt(toolbox, &[], code), PromptDecision::NotPractice);
    }

    #[test]
    fn an_ended_session_guards_nothing() {
        let toolbox = Toolbox::builtin();
        let log = vec![start(), at(Event::End { reason: None })];
        assert_eq!(check(toolbox, &log, "Use a sliding window."), GuardDecision::NotPractice);
    }

    #[test]
    fn the_learners_names_and_the_judges_are_theirs() {
        let toolbox = Toolbox::builtin();
        let log = vec![
            start(),
            at(Event::Learner { text: "req: maybe a sliding window".into(), kind: MessageKind::Req }),
            at(Event::ReqCheck {
                verdict: ReqVerdict::Incomplete,
                missing: vec!["empty-input".into()],
                judge: crate::log::Judge::Haiku,
                dropped: 0,
            }),
        ];
        let reply = "<!-- rung:H1 -->\nWhy a sliding window? And what about empty input?";
        assert!(matches!(check(toolbox, &log, reply), GuardDecision::Pass { leaked: false, drafts: 1, .. }));
        assert!(
            matches!(check(toolbox, &log, "Try `while left < right:`"), GuardDecision::Bounce { entry, .. } if entry == "code-line")
        );
    }
}
