//! Feedback on a lesson and what it does to the knowledge map.
//!
//! `know` ("I already knew this") is the only answer that moves confidence: +1 when a lesson
//! enters `know`, −1 when it leaves it. `understood` and `dont_know` are recorded as evidence
//! without changing the number; `dont_know` marks the lesson as a course seed.

use crate::lesson::Feedback;

/// Feedback as requested: a value, or `clear` to remove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedbackChoice(pub Option<Feedback>);

impl FeedbackChoice {
    pub const NAMES: [&'static str; 4] = ["know", "understood", "dont_know", "clear"];

    pub fn parse(raw: &str) -> Option<Self> {
        if raw == "clear" {
            return Some(Self(None));
        }
        Feedback::parse(raw).ok().map(|f| Self(Some(f)))
    }
}

/// The confidence change for a lesson's topic when its feedback goes from `previous` to `next`.
pub fn confidence_delta(previous: Option<Feedback>, next: Option<Feedback>) -> i64 {
    i64::from(next == Some(Feedback::Know)) - i64::from(previous == Some(Feedback::Know))
}

/// What recording feedback did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackOutcome {
    pub topic_id: String,
    pub previous: Option<Feedback>,
    pub delta: i64,
    /// The topic's confidence before; `None` when the topic was not on the map.
    pub confidence_before: Option<i64>,
    /// The topic's confidence afterwards; `None` when the topic is not on the map.
    pub confidence: Option<i64>,
}

/// How a feedback value reads to a person.
/// A mark for each answer that every font has (no emoji, which some systems draw as empty
/// boxes); always shown beside or labelled with [`label`].
pub fn mark(feedback: Option<Feedback>) -> &'static str {
    match feedback {
        Some(Feedback::Know) => "✓",
        Some(Feedback::Understood) => "+",
        Some(Feedback::DontKnow) => "✗",
        None => "",
    }
}

pub fn label(feedback: Option<Feedback>) -> &'static str {
    match feedback {
        Some(Feedback::Know) => "knew it",
        Some(Feedback::Understood) => "understood",
        Some(Feedback::DontKnow) => "couldn't follow",
        None => "no feedback",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_know_moves_confidence() {
        use Feedback::{DontKnow, Know, Understood};
        let cases = [
            (None, Some(Know), 1),
            (Some(Know), None, -1),
            (Some(Know), Some(Understood), -1),
            (Some(Understood), Some(Know), 1),
            (Some(Know), Some(Know), 0),
            (None, Some(DontKnow), 0),
            (Some(DontKnow), Some(Understood), 0),
            (None, None, 0),
        ];
        for (prev, next, want) in cases {
            assert_eq!(confidence_delta(prev, next), want, "{prev:?} -> {next:?}");
        }
    }

    #[test]
    fn choices() {
        assert_eq!(FeedbackChoice::parse("clear"), Some(FeedbackChoice(None)));
        assert_eq!(FeedbackChoice::parse("dont_know"), Some(FeedbackChoice(Some(Feedback::DontKnow))));
        assert_eq!(FeedbackChoice::parse("maybe"), None);
        assert_eq!(label(Some(Feedback::DontKnow)), "couldn't follow");
    }
}
