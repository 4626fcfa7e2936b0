//! The evidence log: every change to (or signal about) a topic's confidence, with its cause.
//!
//! The original build keeps only the current number; we also keep how it got there, so progress
//! can be plotted and the knowledge model can learn from it. Rows live in our own table, which
//! the original ignores.

/// What produced a piece of evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvidenceCause {
    /// Feedback on a lesson (know / understood / dont_know / clear).
    Feedback,
    /// A person or agent set or nudged the number by hand.
    Manual,
    /// The onboarding profile.
    Onboarding,
    /// A restored backup.
    Restore,
    /// A spaced-repetition review.
    Review,
    /// The practice coach.
    Practice,
    /// A course check.
    Course,
    /// A lesson explained back in the learner's words, graded by the agent.
    ExplainBack,
}

impl EvidenceCause {
    pub const ALL: [EvidenceCause; 8] = [
        Self::Feedback,
        Self::Manual,
        Self::Onboarding,
        Self::Restore,
        Self::Review,
        Self::Practice,
        Self::Course,
        Self::ExplainBack,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Feedback => "feedback",
            Self::Manual => "manual",
            Self::Onboarding => "onboarding",
            Self::Restore => "restore",
            Self::Review => "review",
            Self::Practice => "practice",
            Self::Course => "course",
            Self::ExplainBack => "explain_back",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == raw)
    }
}

/// One row of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub topic: String,
    /// The change applied; `None` when the topic was set for the first time.
    pub delta: Option<i64>,
    /// The confidence afterwards; `None` when the topic is not on the map.
    pub value_after: Option<i64>,
    pub cause: EvidenceCause,
    pub lesson_id: Option<String>,
    /// Extra detail, e.g. the feedback value or a review grade.
    pub detail: Option<String>,
    /// Millisecond ISO stamp.
    pub at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_round_trip() {
        for c in EvidenceCause::ALL {
            assert_eq!(EvidenceCause::parse(c.as_str()), Some(c));
        }
        assert_eq!(EvidenceCause::parse("rumour"), None);
    }
}
