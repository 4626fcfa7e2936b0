//! The requirements-before-code gate. A message starting `req:` is the learner's requirement
//! list, judged elsewhere; code is held until a list passed, could not be judged (the gate
//! fails open), or came back incomplete three times.

use crate::detect::code::{Verdict, classify};
use crate::log::{MessageKind, ReqVerdict};

/// Incomplete verdicts after which code goes through anyway (marked `req_incomplete`).
pub const INCOMPLETE_LIMIT: u32 = 3;

/// What kind of message the learner sent, by the rules. `None`: the rules cannot tell whether
/// it is code; ask a model, and treat no answer as prose.
pub fn message_kind(text: &str) -> Option<MessageKind> {
    if is_requirement_list(text) {
        return Some(MessageKind::Req);
    }
    match classify(text) {
        Verdict::Code => Some(MessageKind::Code),
        Verdict::NotCode => Some(MessageKind::Prose),
        Verdict::Undecided => None,
    }
}

/// `req:` (any case) at the start, after leading blanks.
pub fn is_requirement_list(text: &str) -> bool {
    text.trim_start().get(..4).is_some_and(|p| p.eq_ignore_ascii_case("req:"))
}

/// The list without its `req:` prefix.
pub fn requirement_text(text: &str) -> &str {
    let t = text.trim_start();
    if is_requirement_list(t) { t[4..].trim() } else { t.trim() }
}

/// What the gate does with a block of code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeDecision {
    /// Let it through; `req_incomplete` when it goes through after three incomplete lists.
    Pass { req_incomplete: bool },
    /// Hold it back, saying why.
    Hold { why: String },
}

#[derive(Debug, Clone, Default)]
pub struct Gate {
    passed: bool,
    unverified: bool,
    incomplete: u32,
    last_missing: Vec<String>,
    code_seen: bool,
}

impl Gate {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a judged requirement list.
    pub fn record(&mut self, verdict: ReqVerdict, missing: &[String]) {
        match verdict {
            ReqVerdict::Passed => self.passed = true,
            ReqVerdict::Unverified => self.unverified = true,
            ReqVerdict::Incomplete => {
                self.incomplete += 1;
                self.last_missing = missing.to_vec();
            }
        }
    }

    /// Whether code would pass now, and how.
    pub fn release(&self) -> Option<bool> {
        if self.passed || self.unverified {
            Some(false)
        } else if self.incomplete >= INCOMPLETE_LIMIT {
            Some(true)
        } else {
            None
        }
    }

    /// The learner sent code. `names` turns toolbox ids into display names for the reason.
    pub fn on_code(&mut self, names: impl Fn(&str) -> String) -> CodeDecision {
        match self.release() {
            Some(req_incomplete) => {
                self.code_seen = true;
                CodeDecision::Pass { req_incomplete }
            }
            None if self.incomplete == 0 => CodeDecision::Hold {
                why: "Requirements first: before any code, send your list as a message starting with `req:` \
                      (what the input guarantees, the edge cases, what to return, the time and space you aim for)."
                    .into(),
            },
            None => {
                let left = INCOMPLETE_LIMIT - self.incomplete;
                let missing = if self.last_missing.is_empty() {
                    String::from("it still misses something the problem depends on")
                } else {
                    let named: Vec<String> = self.last_missing.iter().map(|id| names(id)).collect();
                    format!("it does not yet say anything about: {}", named.join(", "))
                };
                CodeDecision::Hold {
                    why: format!(
                        "Your code is on hold: your last requirement list was judged incomplete ({missing}). \
                         Send a fuller `req:` list ({left} more {} before code goes through anyway).",
                        if left == 1 { "try" } else { "tries" }
                    ),
                }
            }
        }
    }

    /// Code went through earlier (a session rebuilt from its log).
    pub fn mark_code_seen(&mut self) {
        self.code_seen = true;
    }

    /// Whether code has gone through (the leak guard's names rule ends there).
    pub fn code_seen(&self) -> bool {
        self.code_seen
    }

    pub fn incomplete_count(&self) -> u32 {
        self.incomplete
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(id: &str) -> String {
        id.replace('-', " ")
    }

    #[test]
    fn code_waits_for_a_list_that_passed() {
        let mut gate = Gate::new();
        assert!(matches!(gate.on_code(name), CodeDecision::Hold { why } if why.contains("req:")));
        assert!(!gate.code_seen());
        gate.record(ReqVerdict::Passed, &[]);
        assert_eq!(gate.on_code(name), CodeDecision::Pass { req_incomplete: false });
        assert!(gate.code_seen());
    }

    #[test]
    fn fails_open_when_nobody_could_judge() {
        let mut gate = Gate::new();
        gate.record(ReqVerdict::Unverified, &[]);
        assert_eq!(gate.on_code(name), CodeDecision::Pass { req_incomplete: false });
    }

    #[test]
    fn three_incomplete_lists_let_code_through_marked() {
        let mut gate = Gate::new();
        for round in 1..=3 {
            gate.record(ReqVerdict::Incomplete, &["empty-input".into()]);
            if round < 3 {
                let CodeDecision::Hold { why } = gate.on_code(name) else { panic!("held in round {round}") };
                assert!(why.contains("empty input"), "{why}");
                assert!(why.contains(&format!("{} more", 3 - round)), "{why}");
            }
        }
        assert_eq!(gate.on_code(name), CodeDecision::Pass { req_incomplete: true });
    }

    #[test]
    fn messages_are_sorted_by_the_rules() {
        assert_eq!(message_kind("REQ: the array may be empty"), Some(MessageKind::Req));
        assert_eq!(message_kind("  req:- sorted"), Some(MessageKind::Req));
        assert_eq!(requirement_text("req:  sorted, may be empty "), "sorted, may be empty");
        assert_eq!(message_kind("def f(nums):\n    return sorted(nums)"), Some(MessageKind::Code));
        assert_eq!(message_kind("Could I sort the values first?"), Some(MessageKind::Prose));
    }
}
