//! The cue engine: decides, at each agent stop, whether a lesson is due.
//!
//! Every eligible stop bumps a counter (per session, or summed across sessions); when the counter
//! reaches `nudge_every` and the rate limit allows, the stop cues a lesson and arms a shorter
//! retry window (`min(3, nudge_every)` stops) until the cue is resolved by `log_lesson` or
//! `skip_lesson`. Plan-mode stops never count.
//!
//! The rules live here once; the store implements [`PacingState`] over the database so the
//! hooks, `doctor` and the MCP server all run this same code.

use crate::ids::SessionId;
use crate::rate_limit::RateLimit;
use crate::settings::{NudgeScope, Settings};

/// Stops after an unresolved cue before it is offered again (capped by `nudge_every`).
pub const NUDGE_RETRY_AFTER: i64 = 3;
/// The coaching notebook is refreshed every this many lessons.
pub const NOTEBOOK_UPDATE_EVERY: i64 = 10;
/// Session counters kept; older ones are pruned when a new session appears.
pub const MAX_NUDGE_SESSIONS: i64 = 50;

/// What the engine reads and writes. Implemented by the store inside one transaction.
pub trait PacingState {
    type Error;

    fn is_onboarded(&mut self) -> Result<bool, Self::Error>;
    fn has_active_course(&mut self) -> Result<bool, Self::Error>;
    fn settings(&mut self) -> Result<Settings, Self::Error>;
    /// Counts one eligible stop and returns the counter the threshold applies to: this
    /// session's count, or the sum over all sessions for the global scope.
    fn bump(&mut self, session: &SessionId, scope: NudgeScope) -> Result<i64, Self::Error>;
    /// The same counter without counting.
    fn peek(&mut self, session: &SessionId, scope: NudgeScope) -> Result<i64, Self::Error>;
    fn cue_pending(&mut self) -> Result<bool, Self::Error>;
    /// Must fail open (see [`RateLimit::check_failed`]).
    fn rate_limit(&mut self) -> RateLimit;
    /// A cue was emitted: clear every counter and arm the retry window.
    fn mark_cue_pending(&mut self) -> Result<(), Self::Error>;
    fn total_lessons(&mut self) -> Result<i64, Self::Error>;
}

/// The outcome of one stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CueDecision {
    pub cue: bool,
    /// Why, as data: the hook trace and `doctor` phrase it.
    pub reason: Reason,
    /// The number the cued lesson will have (0 when not cueing).
    pub next_lesson_number: i64,
    /// Silent because there is no profile yet: the stop hook asks for onboarding instead.
    pub needs_onboarding: bool,
    /// Set (by the store) when this cue offers a review instead of a new lesson: how many
    /// cards are due.
    pub review_due: Option<i64>,
}

impl CueDecision {
    fn silent(reason: Reason) -> Self {
        Self { cue: false, reason, next_lesson_number: 0, needs_onboarding: false, review_due: None }
    }
}

/// Where a counter stands against the threshold in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub stops: i64,
    pub threshold: i64,
    /// The shorter threshold after an unanswered cue.
    pub retry_window: bool,
}

impl Count {
    pub fn reached(self) -> bool {
        self.stops >= self.threshold
    }
}

/// Why a stop cued or stayed quiet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Plan-mode stops never count.
    PlanMode,
    NotOnboarded,
    /// A course is being taught: lesson cues wait, stops are not counted.
    CourseActive,
    /// Counted, below the threshold.
    Paced(Count),
    /// Due by pacing, but the rate limit holds it back.
    RateLimited(RateLimit),
    /// A cue: the threshold was reached (`None`: pacing is off, every stop cues).
    Due(Option<Count>),
}

/// The counter threshold in force.
pub fn threshold(nudge_every: i64, pending: bool) -> i64 {
    if pending { NUDGE_RETRY_AFTER.min(nudge_every) } else { nudge_every }
}

/// Decides one agent stop, updating the pacing state. Run it inside one write transaction.
pub fn evaluate<S: PacingState>(state: &mut S, session: &SessionId, plan_mode: bool) -> Result<CueDecision, S::Error> {
    if plan_mode {
        return Ok(CueDecision::silent(Reason::PlanMode));
    }
    if !state.is_onboarded()? {
        return Ok(CueDecision { needs_onboarding: true, ..CueDecision::silent(Reason::NotOnboarded) });
    }
    if state.has_active_course()? {
        return Ok(CueDecision::silent(Reason::CourseActive));
    }
    let settings = state.settings()?;
    let count = if settings.nudge_every > 0 {
        let stops = state.bump(session, settings.nudge_scope)?;
        let pending = state.cue_pending()?;
        let count = Count { stops, threshold: threshold(settings.nudge_every, pending), retry_window: pending };
        if !count.reached() {
            return Ok(CueDecision::silent(Reason::Paced(count)));
        }
        Some(count)
    } else {
        None
    };
    let rate = state.rate_limit();
    if !rate.allowed {
        return Ok(CueDecision::silent(Reason::RateLimited(rate)));
    }
    state.mark_cue_pending()?;
    Ok(CueDecision {
        cue: true,
        reason: Reason::Due(count),
        next_lesson_number: state.total_lessons()? + 1,
        needs_onboarding: false,
        review_due: None,
    })
}

/// A read-only forecast of the next eligible stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CueForecast {
    pub would_cue: bool,
    pub reasons: Vec<Outlook>,
}

/// One fact a forecast rests on, as data for the front ends to phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outlook {
    NotOnboarded,
    CourseActive,
    /// Where the counter would stand after the next stop.
    NextStop(Count),
    /// Pacing is off: every eligible stop cues.
    PacingOff,
    /// The rate limit's answer now.
    Rate(RateLimit),
}

/// Forecasts the next stop without changing anything (doctor, the prompt hook).
pub fn explain<S: PacingState>(state: &mut S, session: &SessionId) -> Result<CueForecast, S::Error> {
    if !state.is_onboarded()? {
        return Ok(CueForecast { would_cue: false, reasons: vec![Outlook::NotOnboarded] });
    }
    if state.has_active_course()? {
        return Ok(CueForecast { would_cue: false, reasons: vec![Outlook::CourseActive] });
    }
    let settings = state.settings()?;
    let mut would_cue = true;
    let mut reasons = Vec::new();
    if settings.nudge_every > 0 {
        let stops = state.peek(session, settings.nudge_scope)? + 1;
        let pending = state.cue_pending()?;
        let count = Count { stops, threshold: threshold(settings.nudge_every, pending), retry_window: pending };
        would_cue = count.reached();
        reasons.push(Outlook::NextStop(count));
    } else {
        reasons.push(Outlook::PacingOff);
    }
    let rate = state.rate_limit();
    would_cue &= rate.allowed;
    reasons.push(Outlook::Rate(rate));
    Ok(CueForecast { would_cue, reasons })
}

/// What an unanswered cue asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldCue {
    Lesson,
    Review,
}

/// The last cue, as the store remembers it, for deciding whether to carry it to a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastCue<'a> {
    /// Still unanswered (no lesson, review grade or skip since).
    pub pending: bool,
    /// Carried to a prompt already (each cue once).
    pub carried: bool,
    /// The session whose stop gave it (`None`: not recorded).
    pub session: Option<&'a str>,
    pub review: bool,
}

/// Whether the prompt hook carries the last cue to this prompt: once, while unanswered, never
/// during a course (cues are paused there), and with per-session pacing only into the session
/// that earned it.
pub fn carry_held(cue: &LastCue<'_>, session: &SessionId, scope: NudgeScope, course_active: bool) -> Option<HeldCue> {
    let other_session = scope == NudgeScope::Session && cue.session.is_some_and(|s| s != session.as_str());
    if !cue.pending || cue.carried || course_active || other_session {
        return None;
    }
    Some(if cue.review { HeldCue::Review } else { HeldCue::Lesson })
}

/// Whether the lesson with this number refreshes the notebook, and if not, which one will.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotebookCheckpoint {
    Now,
    Next(i64),
}

pub fn notebook_checkpoint(lesson_number: i64) -> NotebookCheckpoint {
    if lesson_number > 0 && lesson_number % NOTEBOOK_UPDATE_EVERY == 0 {
        NotebookCheckpoint::Now
    } else {
        let n = lesson_number.max(1);
        NotebookCheckpoint::Next((n + NOTEBOOK_UPDATE_EVERY - 1) / NOTEBOOK_UPDATE_EVERY * NOTEBOOK_UPDATE_EVERY)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// An in-memory pacing state with the same semantics as the store's, so every transition
    /// can be walked step by step. The store's own tests run the same scenarios on SQLite.
    #[derive(Default)]
    struct Mem {
        onboarded: bool,
        course_active: bool,
        settings: Settings,
        counters: HashMap<String, i64>,
        pending: bool,
        allowed: bool,
        lessons: i64,
    }

    impl Mem {
        fn onboarded(nudge_every: i64) -> Self {
            Self {
                onboarded: true,
                allowed: true,
                settings: Settings { nudge_every, ..Settings::default() },
                ..Self::default()
            }
        }

        fn log_lesson(&mut self) {
            self.counters.clear();
            self.pending = false;
            self.lessons += 1;
        }
    }

    impl PacingState for Mem {
        type Error = std::convert::Infallible;
        fn is_onboarded(&mut self) -> Result<bool, Self::Error> {
            Ok(self.onboarded)
        }
        fn has_active_course(&mut self) -> Result<bool, Self::Error> {
            Ok(self.course_active)
        }
        fn settings(&mut self) -> Result<Settings, Self::Error> {
            Ok(self.settings.clone())
        }
        fn bump(&mut self, session: &SessionId, scope: NudgeScope) -> Result<i64, Self::Error> {
            *self.counters.entry(session.as_str().to_owned()).or_default() += 1;
            self.peek(session, scope)
        }
        fn peek(&mut self, session: &SessionId, scope: NudgeScope) -> Result<i64, Self::Error> {
            Ok(match scope {
                NudgeScope::Session => self.counters.get(session.as_str()).copied().unwrap_or(0),
                NudgeScope::Global => self.counters.values().sum(),
            })
        }
        fn cue_pending(&mut self) -> Result<bool, Self::Error> {
            Ok(self.pending)
        }
        fn rate_limit(&mut self) -> RateLimit {
            if self.allowed {
                RateLimit::allowed()
            } else {
                RateLimit {
                    allowed: false,
                    reason: Some("Daily limit reached (2/2 lessons in the last 24h)".into()),
                    denial: Some(crate::rate_limit::Denial::DailyLimit { count: 2, max: 2 }),
                }
            }
        }
        fn mark_cue_pending(&mut self) -> Result<(), Self::Error> {
            self.counters.clear();
            self.pending = true;
            Ok(())
        }
        fn total_lessons(&mut self) -> Result<i64, Self::Error> {
            Ok(self.lessons)
        }
    }

    #[test]
    fn a_held_cue_is_carried_once_to_its_own_session_outside_courses() {
        let cue = LastCue { pending: true, carried: false, session: Some("a"), review: false };
        let here = s("a");
        assert_eq!(carry_held(&cue, &here, NudgeScope::Session, false), Some(HeldCue::Lesson));
        assert_eq!(carry_held(&cue, &s("b"), NudgeScope::Session, false), None, "another session's cue");
        assert_eq!(carry_held(&cue, &s("b"), NudgeScope::Global, false), Some(HeldCue::Lesson));
        assert_eq!(carry_held(&cue, &here, NudgeScope::Session, true), None, "paused by a course");
        assert_eq!(carry_held(&LastCue { carried: true, ..cue.clone() }, &here, NudgeScope::Session, false), None);
        assert_eq!(carry_held(&LastCue { pending: false, ..cue.clone() }, &here, NudgeScope::Session, false), None);
        assert_eq!(
            carry_held(&LastCue { review: true, ..cue }, &here, NudgeScope::Session, false),
            Some(HeldCue::Review)
        );
    }

    fn count(stops: i64, threshold: i64, retry_window: bool) -> Count {
        Count { stops, threshold, retry_window }
    }

    fn s(id: &str) -> SessionId {
        SessionId::from_payload(Some(id))
    }

    fn stop(m: &mut Mem, session: &str) -> CueDecision {
        match evaluate(m, &s(session), false) {
            Ok(d) => d,
            Err(never) => match never {},
        }
    }

    fn forecast(m: &mut Mem, session: &str) -> CueForecast {
        match explain(m, &s(session)) {
            Ok(d) => d,
            Err(never) => match never {},
        }
    }

    #[test]
    fn onboarding_gate_comes_first_and_does_not_count() {
        let mut m =
            Mem { settings: Settings { nudge_every: 1, ..Settings::default() }, allowed: true, ..Mem::default() };
        let d = stop(&mut m, "a");
        assert_eq!((d.cue, d.needs_onboarding, &d.reason), (false, true, &Reason::NotOnboarded));
        assert!(m.counters.is_empty());
        // Plan mode stays quiet even without a profile: no onboarding question mid-plan.
        let plan = evaluate(&mut m, &SessionId::from_payload(Some("a")), true).unwrap();
        assert!(!plan.needs_onboarding && !plan.cue);
        assert_eq!(forecast(&mut m, "a").reasons, [Outlook::NotOnboarded]);
    }

    #[test]
    fn paced_until_the_threshold_then_cues() {
        let mut m = Mem::onboarded(5);
        for i in 1..5 {
            let d = stop(&mut m, "a");
            assert!(!d.cue);
            assert_eq!(d.reason, Reason::Paced(count(i, 5, false)));
        }
        let d = stop(&mut m, "a");
        assert_eq!(
            d,
            CueDecision {
                cue: true,
                reason: Reason::Due(Some(count(5, 5, false))),
                next_lesson_number: 1,
                needs_onboarding: false,
                review_due: None
            }
        );
        assert!(m.pending && m.counters.is_empty());
    }

    #[test]
    fn retry_window_after_an_unresolved_cue() {
        let mut m = Mem::onboarded(5);
        for _ in 0..5 {
            stop(&mut m, "a");
        }
        assert_eq!(stop(&mut m, "a").reason, Reason::Paced(count(1, 3, true)));
        assert_eq!(stop(&mut m, "a").reason, Reason::Paced(count(2, 3, true)));
        assert_eq!(stop(&mut m, "a").reason, Reason::Due(Some(count(3, 3, true))));
        // A lesson resolves the cue: the full threshold applies again.
        m.log_lesson();
        assert_eq!(stop(&mut m, "a").reason, Reason::Paced(count(1, 5, false)));
    }

    #[test]
    fn retry_window_is_capped_by_nudge_every() {
        let mut m = Mem::onboarded(2);
        stop(&mut m, "a");
        assert!(stop(&mut m, "a").cue);
        assert_eq!(stop(&mut m, "a").reason, Reason::Paced(count(1, 2, true)));
        assert!(stop(&mut m, "a").cue);
        assert_eq!(threshold(1, true), 1);
        assert_eq!(threshold(10, true), 3);
        assert_eq!(threshold(10, false), 10);
    }

    #[test]
    fn plan_mode_is_neither_counted_nor_cued() {
        let mut m = Mem::onboarded(1);
        let d = evaluate(&mut m, &s("a"), true);
        assert_eq!(d.map(|d| d.reason).ok(), Some(Reason::PlanMode));
        assert!(m.counters.is_empty() && !m.pending);
    }

    #[test]
    fn an_active_course_pauses_cues_without_counting() {
        let mut m = Mem::onboarded(1);
        m.course_active = true;
        assert_eq!(stop(&mut m, "a").reason, Reason::CourseActive);
        assert!(m.counters.is_empty());
        assert!(!forecast(&mut m, "a").would_cue);
    }

    #[test]
    fn rate_limited_stops_keep_counting_without_arming() {
        let mut m = Mem::onboarded(2);
        m.allowed = false;
        stop(&mut m, "a");
        let d = stop(&mut m, "a");
        assert!(matches!(&d.reason, Reason::RateLimited(r) if !r.allowed), "{d:?}");
        assert!(!m.pending);
        assert_eq!(m.counters.get("a"), Some(&2));
        assert_eq!(stop(&mut m, "a").reason, d.reason);
        // The first allowed stop cues at once.
        m.allowed = true;
        assert_eq!(stop(&mut m, "a").reason, Reason::Due(Some(count(4, 2, false))));
    }

    #[test]
    fn nudge_every_zero_cues_every_eligible_stop() {
        let mut m = Mem::onboarded(0);
        let d = stop(&mut m, "a");
        assert_eq!(d.reason, Reason::Due(None));
        assert!(m.counters.is_empty());
        assert!(stop(&mut m, "a").cue);
        assert_eq!(forecast(&mut m, "a").reasons, [Outlook::PacingOff, Outlook::Rate(RateLimit::allowed())]);
    }

    #[test]
    fn session_scope_counts_each_session_alone() {
        let mut m = Mem::onboarded(3);
        stop(&mut m, "a");
        stop(&mut m, "a");
        assert_eq!(stop(&mut m, "b").reason, Reason::Paced(count(1, 3, false)));
        assert!(stop(&mut m, "a").cue);
    }

    #[test]
    fn global_scope_sums_sessions() {
        let mut m = Mem::onboarded(3);
        m.settings.nudge_scope = NudgeScope::Global;
        stop(&mut m, "a");
        assert_eq!(stop(&mut m, "b").reason, Reason::Paced(count(2, 3, false)));
        assert!(stop(&mut m, "c").cue);
    }

    #[test]
    fn the_forecast_never_counts() {
        let mut m = Mem::onboarded(2);
        let f = forecast(&mut m, "a");
        assert_eq!(
            f,
            CueForecast {
                would_cue: false,
                reasons: vec![Outlook::NextStop(count(1, 2, false)), Outlook::Rate(RateLimit::allowed())]
            }
        );
        assert!(m.counters.is_empty());
        stop(&mut m, "a");
        let f = forecast(&mut m, "a");
        assert!(f.would_cue);
        assert_eq!(f.reasons[0], Outlook::NextStop(count(2, 2, false)));
        m.allowed = false;
        let f = forecast(&mut m, "a");
        assert!(!f.would_cue);
        assert!(matches!(&f.reasons[1], Outlook::Rate(r) if !r.allowed), "{f:?}");
    }

    #[test]
    fn the_next_lesson_number_counts_all_lessons() {
        let mut m = Mem::onboarded(1);
        m.lessons = 9;
        assert_eq!(stop(&mut m, "a").next_lesson_number, 10);
    }

    #[test]
    fn notebook_checkpoints_every_ten() {
        assert_eq!(notebook_checkpoint(10), NotebookCheckpoint::Now);
        assert_eq!(notebook_checkpoint(20), NotebookCheckpoint::Now);
        assert_eq!(notebook_checkpoint(1), NotebookCheckpoint::Next(10));
        assert_eq!(notebook_checkpoint(11), NotebookCheckpoint::Next(20));
        assert_eq!(notebook_checkpoint(19), NotebookCheckpoint::Next(20));
        assert_eq!(notebook_checkpoint(0), NotebookCheckpoint::Next(10));
    }
}
