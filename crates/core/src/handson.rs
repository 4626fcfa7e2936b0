//! What a hands-on exercise came to, as devcoach keeps it beside the exercise's lesson card,
//! and the figures the progress page sums from it.

use crate::knowledge_model::PracticeResult;

/// How an exercise's outcome is stored: a [`PracticeResult`]'s word, or `unfinished`.
pub const RESULTS: [&str; 4] = ["alone", "helped", "revealed", "unfinished"];

/// What a hands-on exercise came to, as its card is saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandsOn {
    /// The language of the rebuilt function (`rust`, `python`, …).
    pub language: String,
    /// As the knowledge map counts it; `None` when it ended unfinished.
    pub result: Option<PracticeResult>,
    pub checks: u32,
    /// The highest hint rung given.
    pub hints: u32,
    /// The agent's version was shown.
    pub revealed: bool,
    /// The last check passed.
    pub passed: bool,
}

impl HandsOn {
    /// Whether the card holds something to recall (a pass or the agent's version).
    pub fn finished(&self) -> bool {
        self.passed || self.revealed
    }
}

/// The progress page's hands-on figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandsOnTotals {
    pub sessions: i64,
    /// Passed with at most two hints, without a reveal.
    pub alone: i64,
    pub helped: i64,
    pub revealed: i64,
    pub hints: i64,
    pub checks: i64,
}

/// The least time between two offers of an exercise after a lesson.
pub const OFFER_EVERY_HOURS: i64 = 24;
/// How long the learner's "not now" keeps offers away.
pub const NOT_NOW_DAYS: i64 = 7;

/// The least time between two looks at the project for something to offer (a look costs a
/// parse of the change; one that found nothing is not repeated at every lesson).
pub const LOOK_EVERY_MINUTES: i64 = 60;
/// How long a lesson's save waits for that look before it answers without an offer.
pub const OFFER_WAIT_MS: u64 = 1500;

/// When the last offers and looks were, as kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OfferTimes {
    pub offered: Option<chrono::DateTime<chrono::Utc>>,
    pub not_now: Option<chrono::DateTime<chrono::Utc>>,
    pub looked: Option<chrono::DateTime<chrono::Utc>>,
}

/// Whether to look for an exercise to offer after the lesson just saved: never during a course,
/// at most one offer in [`OFFER_EVERY_HOURS`], none for [`NOT_NOW_DAYS`] after a "not now", and
/// one look in [`LOOK_EVERY_MINUTES`]. A time ahead of `now` (another machine's clock, a clock
/// set back) keeps offers away until it passes, which errs toward quiet.
pub fn offer_due(times: OfferTimes, course_active: bool, now: chrono::DateTime<chrono::Utc>) -> bool {
    let within =
        |at: Option<chrono::DateTime<chrono::Utc>>, span: chrono::Duration| at.is_some_and(|at| now < at + span);
    !course_active
        && !within(times.offered, chrono::Duration::hours(OFFER_EVERY_HOURS))
        && !within(times.not_now, chrono::Duration::days(NOT_NOW_DAYS))
        && !within(times.looked, chrono::Duration::minutes(LOOK_EVERY_MINUTES))
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::*;

    #[test]
    fn offers_come_once_a_day_never_in_a_course_and_not_for_a_week_after_not_now() {
        let now = Utc.with_ymd_and_hms(2026, 12, 3, 12, 0, 0).single().expect("time");
        let due = |offered: Option<i64>, not_now: Option<i64>, looked: Option<i64>, course: bool| {
            let ago = |m: Option<i64>| m.map(|m| now - Duration::minutes(m));
            offer_due(OfferTimes { offered: ago(offered), not_now: ago(not_now), looked: ago(looked) }, course, now)
        };
        assert!(due(None, None, None, false), "a first offer");
        assert!(!due(None, None, None, true), "never during a course");
        assert!(!due(Some(23 * 60), None, None, false));
        assert!(due(Some(24 * 60), None, None, false), "a day later");
        assert!(!due(Some(3 * 1440), Some(6 * 1440), None, false));
        assert!(due(Some(8 * 1440), Some(7 * 1440), None, false), "a week later");
        assert!(!due(None, None, Some(59), false), "a look that found nothing waits an hour");
        assert!(due(None, None, Some(60), false));
        assert!(!due(Some(-120), None, None, false), "a clock ahead keeps it quiet");
    }
}
