//! The cue engine: decides, at each agent stop, whether a lesson is due, and answers "when is
//! the next lesson?" for every front end with the same rules.
//!
//! Every eligible stop bumps a counter (per session, or summed across sessions). A stop cues when
//! the rate limit allows and one of these is reached:
//! - this session's counter reaches `nudge_every` (the counter over every session, with the
//!   global scope): a long session is paced exactly as it always was;
//! - the stops of every session since the last cue add up to twice `nudge_every` (per-session
//!   scope only), so a learner who works in short sessions is never starved;
//! - before the very first cue, the stops since onboarding reach `min(3, nudge_every)`, so the
//!   first lesson comes within the first few turns.
//!
//! A cue left unanswered arms a shorter retry (`min(3, nudge_every)` stops, once); after
//! [`BACK_OFF_AFTER`] unanswered cues in a row cues pause for [`BACK_OFF_HOURS`] (then one
//! reminder a day), and no more than [`daily_cue_cap`] cues are given in any 24 hours whatever
//! the agent does. Plan-mode stops never count. Without a profile the stop asks for onboarding
//! at most once a session, and a "not now" waits [`ONBOARDING_POSTPONE_HOURS`], then asks at
//! most once a day.
//!
//! The rules live here once; the store implements [`PacingState`] over the database so the
//! hooks, `doctor`, `stats`, the dashboard and the MCP server all run this same code.

use chrono::{DateTime, Duration, Utc};

use crate::ids::SessionId;
use crate::rate_limit::{Denial, RateLimit};
use crate::settings::{NudgeScope, Settings};

/// Stops after an unresolved cue before it is offered again (capped by `nudge_every`).
pub const NUDGE_RETRY_AFTER: i64 = 3;
/// Unanswered cues in a row after which cues pause.
pub const BACK_OFF_AFTER: i64 = 3;
/// How long cues pause after [`BACK_OFF_AFTER`] unanswered ones (then one reminder a day).
pub const BACK_OFF_HOURS: i64 = 24;
/// How long a "not now" to onboarding is kept before the stop asks again.
pub const ONBOARDING_POSTPONE_HOURS: i64 = 20;
/// The coaching notebook is refreshed every this many lessons.
pub const NOTEBOOK_UPDATE_EVERY: i64 = 10;
/// Session counters kept; older ones are pruned when a new session appears.
pub const MAX_NUDGE_SESSIONS: i64 = 50;

/// The most cues (lesson or review offers) in any 24 hours: twice the lessons a day, at least 4.
pub fn daily_cue_cap(settings: &Settings) -> i64 {
    settings.max_per_day.saturating_mul(2).max(4)
}

/// The cues given so far, as the store remembers them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CueRecord {
    /// Whether any cue was ever given (before the first, the warm-up applies).
    pub ever: bool,
    /// Cues given since the last answer (a lesson, a review graded, a skip); 0 when none waits.
    pub streak: i64,
    pub last_at: Option<DateTime<Utc>>,
    /// When each cue of the last 24 hours was given, oldest first.
    pub last_day: Vec<DateTime<Utc>>,
}

/// What the store remembers about asking for onboarding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OnboardingAsks {
    /// When stops asked, and in which sessions (the most recent [`MAX_NUDGE_SESSIONS`], oldest
    /// first): sessions run side by side, and each is asked once.
    pub asked: Vec<(DateTime<Utc>, String)>,
    /// When the learner last said "not now".
    pub postponed_at: Option<DateTime<Utc>>,
}

/// Whether a stop without a profile asks for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnboardingCall {
    Ask,
    /// This session was asked already (once a session).
    AskedThisSession,
    /// The learner said "not now": the next ask is `minutes` away.
    Postponed {
        minutes: i64,
    },
    /// Asked today after a "not now" (once a day): the next ask is `minutes` away.
    AskedToday {
        minutes: i64,
    },
}

/// The rule for asking: never twice in a session; after a "not now", nothing for
/// [`ONBOARDING_POSTPONE_HOURS`], then at most once a day.
pub fn onboarding_call(asks: &OnboardingAsks, session: &SessionId, now: DateTime<Utc>) -> OnboardingCall {
    let minutes_until = |at: DateTime<Utc>| (at - now).num_minutes().max(1);
    if let Some(postponed) = asks.postponed_at {
        let until = postponed + Duration::hours(ONBOARDING_POSTPONE_HOURS);
        if now < until {
            return OnboardingCall::Postponed { minutes: minutes_until(until) };
        }
        if let Some((at, _)) = asks.asked.iter().filter(|(at, _)| *at > postponed).max_by_key(|(at, _)| *at)
            && now < *at + Duration::hours(24)
        {
            return OnboardingCall::AskedToday { minutes: minutes_until(*at + Duration::hours(24)) };
        }
    }
    if asks.asked.iter().any(|(_, whose)| whose == session.as_str()) {
        OnboardingCall::AskedThisSession
    } else {
        OnboardingCall::Ask
    }
}

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
    /// The stops counted in every session since the last cue or answer.
    fn total(&mut self) -> Result<i64, Self::Error>;
    fn cues(&mut self) -> Result<CueRecord, Self::Error>;
    /// Must fail open (see [`RateLimit::check_failed`]).
    fn rate_limit(&mut self) -> RateLimit;
    /// Minutes until the rate limit allows a lesson again (`None`: allowed, or not known).
    fn rate_wait_minutes(&mut self, rate: &RateLimit) -> Option<i64>;
    /// A cue was emitted: clear every counter, arm the retry window, remember the cue.
    fn mark_cue_pending(&mut self) -> Result<(), Self::Error>;
    fn total_lessons(&mut self) -> Result<i64, Self::Error>;
    fn onboarding_asks(&mut self) -> Result<OnboardingAsks, Self::Error>;
    /// A stop asked for onboarding in `session`.
    fn record_onboarding_ask(&mut self, session: &SessionId) -> Result<(), Self::Error>;
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

/// Where the counters stand against the thresholds in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub stops: i64,
    pub threshold: i64,
    /// The shorter threshold after an unanswered cue.
    pub retry_window: bool,
    /// The stops of every session together, against their own threshold (per-session pacing:
    /// twice `nudge_every`, or the first lesson's warm-up).
    pub across: Option<Across>,
}

/// Every session's stops since the last cue, against the threshold that keeps short sessions
/// from starving (or brings the first lesson early).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Across {
    pub stops: i64,
    pub threshold: i64,
    /// The first lesson's warm-up, not the short-sessions rule.
    pub warm_up: bool,
}

impl Count {
    pub fn reached(self) -> bool {
        self.stops >= self.threshold || self.across.is_some_and(|a| a.stops >= a.threshold)
    }

    /// Counted stops still to come before the threshold is reached (0: reached).
    pub fn to_go(self) -> i64 {
        let own = (self.threshold - self.stops).max(0);
        self.across.map_or(own, |a| own.min((a.threshold - a.stops).max(0)))
    }

    /// Whether this session's own counter is the one that will be reached first.
    pub fn by_this_session(self) -> bool {
        self.across.is_none_or(|a| self.threshold - self.stops <= a.threshold - a.stops)
    }
}

/// Why cues are held back although pacing would allow one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// `streak` cues in a row went unanswered: paused for `minutes` more.
    BackedOff { streak: i64, minutes: i64 },
    /// `cap` cues in the last 24 hours: the next may come in `minutes`.
    CueCap { cap: i64, minutes: i64 },
}

/// Why a stop cued or stayed quiet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Plan-mode stops never count.
    PlanMode,
    /// No profile: the stop asks for one (`Ask`), or stays quiet by the onboarding rule.
    NotOnboarded(OnboardingCall),
    /// A course is being taught: lesson cues wait, stops are not counted.
    CourseActive,
    /// Counted, below the threshold.
    Paced(Count),
    /// Due by pacing, but cues are held back (unanswered ones, or the day's cap).
    Held(Hold),
    /// Due by pacing, but the rate limit holds it back.
    RateLimited(RateLimit),
    /// A cue: the threshold was reached (`None`: pacing is off, every stop cues).
    Due(Option<Count>),
}

/// The threshold this session's counter must reach: `nudge_every`, or the retry window's
/// shorter one right after one unanswered cue.
pub fn threshold(nudge_every: i64, streak: i64) -> i64 {
    if streak == 1 { NUDGE_RETRY_AFTER.min(nudge_every) } else { nudge_every }
}

/// Where the counters stand, given this session's and every session's stops.
fn count_of(settings: &Settings, stops: i64, total: i64, cues: &CueRecord) -> Count {
    let n = settings.nudge_every;
    let retry_window = cues.streak == 1;
    let warm_up = !cues.ever && cues.streak == 0;
    // Short sessions add up in the retry window too: a session shorter than the retry would
    // otherwise never reach it.
    let across = if warm_up {
        Some(Across { stops: total, threshold: NUDGE_RETRY_AFTER.min(n), warm_up: true })
    } else if settings.nudge_scope == NudgeScope::Session {
        Some(Across { stops: total, threshold: n.saturating_mul(2), warm_up: false })
    } else {
        None
    };
    Count { stops, threshold: threshold(n, cues.streak), retry_window, across }
}

/// Whether cues are held back now, whatever pacing says.
pub fn hold(cues: &CueRecord, settings: &Settings, now: DateTime<Utc>) -> Option<Hold> {
    let minutes_until = |at: DateTime<Utc>| (at - now).num_minutes().max(1);
    if cues.streak >= BACK_OFF_AFTER
        && let Some(last) = cues.last_at
        && now < last + Duration::hours(BACK_OFF_HOURS)
    {
        return Some(Hold::BackedOff {
            streak: cues.streak,
            minutes: minutes_until(last + Duration::hours(BACK_OFF_HOURS)),
        });
    }
    let cap = daily_cue_cap(settings);
    let recent: Vec<&DateTime<Utc>> = cues.last_day.iter().filter(|t| **t > now - Duration::hours(24)).collect();
    let over = usize::try_from(cap).ok().and_then(|cap| recent.len().checked_sub(cap));
    over.map(|extra| Hold::CueCap { cap, minutes: minutes_until(*recent[extra] + Duration::hours(24)) })
}

/// Decides one agent stop, updating the pacing state. Run it inside one write transaction.
pub fn evaluate<S: PacingState>(
    state: &mut S,
    session: &SessionId,
    plan_mode: bool,
    now: DateTime<Utc>,
) -> Result<CueDecision, S::Error> {
    if plan_mode {
        return Ok(CueDecision::silent(Reason::PlanMode));
    }
    if !state.is_onboarded()? {
        let call = onboarding_call(&state.onboarding_asks()?, session, now);
        if call == OnboardingCall::Ask {
            state.record_onboarding_ask(session)?;
        }
        return Ok(CueDecision {
            needs_onboarding: call == OnboardingCall::Ask,
            ..CueDecision::silent(Reason::NotOnboarded(call))
        });
    }
    if state.has_active_course()? {
        return Ok(CueDecision::silent(Reason::CourseActive));
    }
    let settings = state.settings()?;
    let cues = state.cues()?;
    let count = if settings.nudge_every > 0 {
        let stops = state.bump(session, settings.nudge_scope)?;
        let total = state.total()?;
        let count = count_of(&settings, stops, total, &cues);
        if !count.reached() {
            return Ok(CueDecision::silent(Reason::Paced(count)));
        }
        Some(count)
    } else {
        None
    };
    if let Some(held) = hold(&cues, &settings, now) {
        return Ok(CueDecision::silent(Reason::Held(held)));
    }
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

/// Counts a stop that could not be decided when it happened (the database was held by another
/// process, a sync most likely): it moves the counter as [`evaluate`] would have, and nothing
/// else. No cue was shown and no onboarding asked, so neither is recorded; a count it brings to
/// the cue is answered by the next stop.
pub fn count_stop<S: PacingState>(state: &mut S, session: &SessionId, plan_mode: bool) -> Result<(), S::Error> {
    if plan_mode || !state.is_onboarded()? || state.has_active_course()? {
        return Ok(());
    }
    let settings = state.settings()?;
    if settings.nudge_every > 0 {
        state.bump(session, settings.nudge_scope)?;
    }
    Ok(())
}

/// A read-only forecast of the next eligible stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CueForecast {
    pub would_cue: bool,
    pub reasons: Vec<Outlook>,
    /// When the next lesson comes, in the words every front end shows.
    pub next: NextLesson,
    /// Unanswered cues waiting (the prompt hook primes only when none waits).
    pub streak: i64,
}

/// One fact a forecast rests on, as data for the front ends to phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outlook {
    NotOnboarded(OnboardingCall),
    CourseActive,
    /// Where the counter would stand after the next stop.
    NextStop(Count),
    /// Pacing is off: every eligible stop cues.
    PacingOff,
    /// Cues are held back.
    Held(Hold),
    /// The rate limit's answer now.
    Rate(RateLimit),
}

/// When the next lesson comes: the one answer `stats`, `doctor`, the dashboard, the MCP
/// resources and the prompt hook give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextLesson {
    /// After onboarding (and when the next stop asks for it).
    NeedsProfile(OnboardingCall),
    /// After the course in progress.
    AfterCourse,
    /// At the end of the next agent turn.
    NextTurn,
    /// After `turns` more counted agent turns (`this_session`: in the session asked about).
    InTurns { turns: i64, this_session: bool },
    /// Not for `minutes` (`why`), then after `turns` more turns (0 or 1: the next one).
    Wait { minutes: Option<i64>, why: WaitReason, turns: i64 },
}

/// Why the next lesson waits for time rather than turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    Rate(Denial),
    Held(Hold),
}

impl std::fmt::Display for NextLesson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::time::hours_minutes;
        let turns = |n: i64| {
            if n <= 1 {
                "at the end of the next agent turn".to_owned()
            } else {
                format!("in about {n} more agent turns")
            }
        };
        match *self {
            Self::NeedsProfile(OnboardingCall::Ask) => {
                f.write_str("after onboarding: the next agent turn asks to build your profile")
            }
            Self::NeedsProfile(OnboardingCall::AskedThisSession) => {
                f.write_str("after onboarding: asked in the latest session; a new session asks again")
            }
            Self::NeedsProfile(OnboardingCall::Postponed { minutes } | OnboardingCall::AskedToday { minutes }) => {
                write!(f, "after onboarding: postponed, asked again in {}", hours_minutes(minutes))
            }
            Self::AfterCourse => f.write_str("after the course in progress (lessons wait while it runs)"),
            Self::NextTurn => f.write_str(&turns(1)),
            Self::InTurns { turns: n, this_session } => {
                write!(f, "{}{}", turns(n), if this_session && n > 1 { " in this session" } else { "" })
            }
            Self::Wait { minutes, why, turns: n } => {
                let why = match why {
                    WaitReason::Rate(Denial::DailyLimit { max, .. }) => {
                        format!("at most {max} lessons in 24 hours")
                    }
                    WaitReason::Rate(Denial::TooSoon { gap_minutes, .. }) => {
                        format!("lessons are at least {} apart", hours_minutes(gap_minutes))
                    }
                    WaitReason::Held(Hold::BackedOff { streak, .. }) => {
                        format!("the last {streak} offers went unanswered")
                    }
                    WaitReason::Held(Hold::CueCap { cap, .. }) => format!("at most {cap} offers in 24 hours"),
                };
                match minutes {
                    Some(m) => write!(f, "not for {} ({why}), then {}", hours_minutes(m), turns(n)),
                    None => write!(f, "later ({why}), then {}", turns(n)),
                }
            }
        }
    }
}

/// Forecasts the next stop without changing anything (doctor, stats, the prompt hook).
pub fn explain<S: PacingState>(
    state: &mut S,
    session: &SessionId,
    now: DateTime<Utc>,
) -> Result<CueForecast, S::Error> {
    let quiet =
        |fact: Outlook, next: NextLesson| CueForecast { would_cue: false, reasons: vec![fact], next, streak: 0 };
    if !state.is_onboarded()? {
        let call = onboarding_call(&state.onboarding_asks()?, session, now);
        return Ok(quiet(Outlook::NotOnboarded(call), NextLesson::NeedsProfile(call)));
    }
    if state.has_active_course()? {
        return Ok(quiet(Outlook::CourseActive, NextLesson::AfterCourse));
    }
    let settings = state.settings()?;
    let cues = state.cues()?;
    let mut would_cue = true;
    let mut reasons = Vec::new();
    let mut next = NextLesson::NextTurn;
    let mut turns = 1;
    if settings.nudge_every > 0 {
        let stops = state.peek(session, settings.nudge_scope)? + 1;
        let total = state.total()? + 1;
        let count = count_of(&settings, stops, total, &cues);
        would_cue = count.reached();
        turns = count.to_go() + 1;
        if !would_cue {
            next = NextLesson::InTurns {
                turns,
                this_session: settings.nudge_scope == NudgeScope::Session && count.by_this_session(),
            };
        }
        reasons.push(Outlook::NextStop(count));
    } else {
        reasons.push(Outlook::PacingOff);
    }
    if let Some(held) = hold(&cues, &settings, now) {
        would_cue = false;
        let minutes = match held {
            Hold::BackedOff { minutes, .. } | Hold::CueCap { minutes, .. } => minutes,
        };
        next = NextLesson::Wait { minutes: Some(minutes), why: WaitReason::Held(held), turns };
        reasons.push(Outlook::Held(held));
    }
    let rate = state.rate_limit();
    if !rate.allowed {
        would_cue = false;
        if let Some(denial) = rate.denial {
            let minutes = state.rate_wait_minutes(&rate);
            let later = match &next {
                NextLesson::Wait { minutes: Some(held), .. } => minutes.is_some_and(|m| m > *held),
                _ => true,
            };
            if later {
                next = NextLesson::Wait { minutes, why: WaitReason::Rate(denial), turns };
            }
        }
    }
    reasons.push(Outlook::Rate(rate));
    Ok(CueForecast { would_cue, reasons, next, streak: cues.streak })
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

    use proptest::prelude::*;

    use super::*;

    fn t0() -> DateTime<Utc> {
        crate::time::parse_timestamp("2026-11-30T12:00:00Z").expect("time")
    }

    /// An in-memory pacing state with the same semantics as the store's, so every transition
    /// can be walked step by step. The store's own tests run the same scenarios on SQLite.
    #[derive(Default)]
    struct Mem {
        onboarded: bool,
        course_active: bool,
        settings: Settings,
        counters: HashMap<String, i64>,
        cues: CueRecord,
        allowed: bool,
        lessons: i64,
        asks: OnboardingAsks,
        now: DateTime<Utc>,
    }

    impl Mem {
        /// A learner who has had cues before (no warm-up), as most tests want.
        fn onboarded(nudge_every: i64) -> Self {
            Self {
                onboarded: true,
                allowed: true,
                settings: Settings { nudge_every, max_per_day: 20, ..Settings::default() },
                cues: CueRecord { ever: true, ..CueRecord::default() },
                now: t0(),
                ..Self::default()
            }
        }

        fn fresh(nudge_every: i64) -> Self {
            Self { cues: CueRecord::default(), ..Self::onboarded(nudge_every) }
        }

        /// A lesson, a review graded or a skip: the cue is answered.
        fn answer(&mut self) {
            self.counters.clear();
            self.cues.streak = 0;
        }

        fn log_lesson(&mut self) {
            self.answer();
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
        fn total(&mut self) -> Result<i64, Self::Error> {
            Ok(self.counters.values().sum())
        }
        fn cues(&mut self) -> Result<CueRecord, Self::Error> {
            Ok(self.cues.clone())
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
        fn rate_wait_minutes(&mut self, rate: &RateLimit) -> Option<i64> {
            (!rate.allowed).then_some(90)
        }
        fn mark_cue_pending(&mut self) -> Result<(), Self::Error> {
            self.counters.clear();
            self.cues.ever = true;
            self.cues.streak += 1;
            self.cues.last_at = Some(self.now);
            self.cues.last_day.push(self.now);
            Ok(())
        }
        fn total_lessons(&mut self) -> Result<i64, Self::Error> {
            Ok(self.lessons)
        }
        fn onboarding_asks(&mut self) -> Result<OnboardingAsks, Self::Error> {
            Ok(self.asks.clone())
        }
        fn record_onboarding_ask(&mut self, session: &SessionId) -> Result<(), Self::Error> {
            self.asks.asked.push((self.now, session.as_str().to_owned()));
            Ok(())
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

    /// A count with per-session pacing's short-sessions rule (twice the threshold across).
    fn count(stops: i64, threshold: i64, total: i64, n: i64) -> Count {
        Count {
            stops,
            threshold,
            retry_window: false,
            across: Some(Across { stops: total, threshold: 2 * n, warm_up: false }),
        }
    }

    fn retry(stops: i64, threshold: i64, n: i64) -> Count {
        Count { stops, threshold, retry_window: true, across: Some(Across { stops, threshold: 2 * n, warm_up: false }) }
    }

    fn s(id: &str) -> SessionId {
        SessionId::from_payload(Some(id))
    }

    fn stop(m: &mut Mem, session: &str) -> CueDecision {
        let now = m.now;
        match evaluate(m, &s(session), false, now) {
            Ok(d) => d,
            Err(never) => match never {},
        }
    }

    fn forecast(m: &mut Mem, session: &str) -> CueForecast {
        let now = m.now;
        match explain(m, &s(session), now) {
            Ok(d) => d,
            Err(never) => match never {},
        }
    }

    #[test]
    fn onboarding_is_asked_once_a_session_and_not_now_waits_then_once_a_day() {
        let mut m = Mem {
            settings: Settings { nudge_every: 1, ..Settings::default() },
            allowed: true,
            now: t0(),
            ..Mem::default()
        };
        let d = stop(&mut m, "a");
        assert_eq!((d.cue, d.needs_onboarding, &d.reason), (false, true, &Reason::NotOnboarded(OnboardingCall::Ask)));
        assert!(m.counters.is_empty(), "nothing counts before a profile");
        let again = stop(&mut m, "a");
        assert_eq!(
            (again.needs_onboarding, again.reason),
            (false, Reason::NotOnboarded(OnboardingCall::AskedThisSession))
        );
        assert!(stop(&mut m, "b").needs_onboarding, "a new session asks again");
        assert!(!stop(&mut m, "a").needs_onboarding && !stop(&mut m, "b").needs_onboarding, "side by side: once each");
        // Plan mode stays quiet even without a profile: no onboarding question mid-plan.
        let plan = evaluate(&mut m, &s("c"), true, t0()).unwrap();
        assert!(!plan.needs_onboarding && !plan.cue);
        // "Not now": nothing for 20 hours, whatever the session.
        m.asks.postponed_at = Some(t0());
        m.now = t0() + Duration::hours(19);
        assert_eq!(stop(&mut m, "d").reason, Reason::NotOnboarded(OnboardingCall::Postponed { minutes: 60 }));
        assert_eq!(forecast(&mut m, "d").next, NextLesson::NeedsProfile(OnboardingCall::Postponed { minutes: 60 }));
        m.now = t0() + Duration::hours(21);
        assert!(stop(&mut m, "d").needs_onboarding, "asked again the next day");
        m.now = t0() + Duration::hours(30);
        assert!(
            matches!(stop(&mut m, "e").reason, Reason::NotOnboarded(OnboardingCall::AskedToday { .. })),
            "then at most once a day"
        );
        m.now = t0() + Duration::hours(46);
        assert!(stop(&mut m, "e").needs_onboarding);
    }

    #[test]
    fn paced_until_the_threshold_then_cues() {
        let mut m = Mem::onboarded(5);
        for i in 1..5 {
            let d = stop(&mut m, "a");
            assert!(!d.cue);
            assert_eq!(d.reason, Reason::Paced(count(i, 5, i, 5)));
        }
        let d = stop(&mut m, "a");
        assert_eq!(
            d,
            CueDecision {
                cue: true,
                reason: Reason::Due(Some(count(5, 5, 5, 5))),
                next_lesson_number: 1,
                needs_onboarding: false,
                review_due: None
            }
        );
        assert!(m.cues.streak == 1 && m.counters.is_empty());
    }

    #[test]
    fn the_first_lesson_comes_within_three_stops_of_onboarding() {
        let mut m = Mem::fresh(10);
        assert!(!stop(&mut m, "a").cue);
        assert!(!stop(&mut m, "b").cue);
        let d = stop(&mut m, "c");
        assert!(d.cue, "{d:?}");
        // Then the usual pacing.
        m.log_lesson();
        assert_eq!(stop(&mut m, "c").reason, Reason::Paced(count(1, 10, 1, 10)));
    }

    #[test]
    fn short_sessions_add_up() {
        let mut m = Mem::onboarded(10);
        // Sessions of nine stops: the third's second stop makes twenty across, twice nudge_every.
        let mut cued = Vec::new();
        for session in ["a", "b", "c"] {
            for _ in 0..9 {
                let cue = stop(&mut m, session).cue;
                if cue {
                    m.log_lesson();
                }
                cued.push(cue);
            }
        }
        assert_eq!(cued.iter().filter(|c| **c).count(), 1, "{cued:?}");
        assert!(cued[19], "the 20th counted stop cues");
    }

    #[test]
    fn retry_window_once_then_back_off_after_three_unanswered() {
        let mut m = Mem::onboarded(5);
        for _ in 0..5 {
            stop(&mut m, "a");
        }
        assert_eq!(stop(&mut m, "a").reason, Reason::Paced(retry(1, 3, 5)));
        assert_eq!(stop(&mut m, "a").reason, Reason::Paced(retry(2, 3, 5)));
        assert_eq!(stop(&mut m, "a").reason, Reason::Due(Some(retry(3, 3, 5))));
        // The second unanswered cue: the full threshold again.
        for i in 1..5 {
            assert_eq!(stop(&mut m, "a").reason, Reason::Paced(count(i, 5, i, 5)));
        }
        assert!(stop(&mut m, "a").cue, "the third");
        for _ in 0..40 {
            assert!(matches!(
                stop(&mut m, "a").reason,
                Reason::Paced(_) | Reason::Held(Hold::BackedOff { streak: 3, .. })
            ));
        }
        assert!(matches!(
            forecast(&mut m, "a").next,
            NextLesson::Wait { why: WaitReason::Held(_), minutes: Some(1440), .. }
        ));
        // A day later, one reminder; an answer ends the back-off.
        m.now += Duration::hours(24);
        assert!(stop(&mut m, "a").cue);
        m.answer();
        assert_eq!(stop(&mut m, "a").reason, Reason::Paced(count(1, 5, 1, 5)));
    }

    #[test]
    fn no_more_than_the_daily_cap_of_cues_whatever_the_agent_does() {
        let mut m = Mem::onboarded(1);
        m.settings.max_per_day = 2;
        let mut cues = 0;
        for _ in 0..60 {
            if stop(&mut m, "a").cue {
                cues += 1;
                m.answer(); // skipped every time: the rate limit never sees a lesson
            }
        }
        assert_eq!(cues, daily_cue_cap(&m.settings));
        assert!(matches!(
            forecast(&mut m, "a").next,
            NextLesson::Wait { why: WaitReason::Held(Hold::CueCap { cap: 4, .. }), .. }
        ));
    }

    #[test]
    fn plan_mode_is_neither_counted_nor_cued() {
        let mut m = Mem::onboarded(1);
        let d = evaluate(&mut m, &s("a"), true, t0());
        assert_eq!(d.map(|d| d.reason).ok(), Some(Reason::PlanMode));
        assert!(m.counters.is_empty() && m.cues.streak == 0);
    }

    #[test]
    fn an_active_course_pauses_cues_without_counting() {
        let mut m = Mem::onboarded(1);
        m.course_active = true;
        assert_eq!(stop(&mut m, "a").reason, Reason::CourseActive);
        assert!(m.counters.is_empty());
        let f = forecast(&mut m, "a");
        assert!(!f.would_cue);
        assert_eq!(f.next, NextLesson::AfterCourse);
    }

    #[test]
    fn rate_limited_stops_keep_counting_without_arming() {
        let mut m = Mem::onboarded(2);
        m.allowed = false;
        stop(&mut m, "a");
        let d = stop(&mut m, "a");
        assert!(matches!(&d.reason, Reason::RateLimited(r) if !r.allowed), "{d:?}");
        assert_eq!(m.cues.streak, 0);
        assert_eq!(m.counters.get("a"), Some(&2));
        assert_eq!(stop(&mut m, "a").reason, d.reason);
        assert_eq!(
            forecast(&mut m, "a").next.to_string(),
            "not for 1h 30m (at most 2 lessons in 24 hours), then at the end of the next agent turn"
        );
        // The first allowed stop cues at once.
        m.allowed = true;
        assert_eq!(stop(&mut m, "a").reason, Reason::Due(Some(count(4, 2, 4, 2))));
    }

    #[test]
    fn nudge_every_zero_cues_every_eligible_stop() {
        let mut m = Mem::onboarded(0);
        let d = stop(&mut m, "a");
        assert_eq!(d.reason, Reason::Due(None));
        assert!(m.counters.is_empty());
        m.answer();
        assert!(stop(&mut m, "a").cue);
        m.answer();
        let f = forecast(&mut m, "a");
        assert_eq!(f.reasons, [Outlook::PacingOff, Outlook::Rate(RateLimit::allowed())]);
        assert_eq!(f.next, NextLesson::NextTurn);
    }

    #[test]
    fn session_scope_counts_each_session_alone() {
        let mut m = Mem::onboarded(3);
        stop(&mut m, "a");
        stop(&mut m, "a");
        assert_eq!(stop(&mut m, "b").reason, Reason::Paced(count(1, 3, 3, 3)));
        assert!(stop(&mut m, "a").cue);
    }

    #[test]
    fn global_scope_sums_sessions() {
        let mut m = Mem::onboarded(3);
        m.settings.nudge_scope = NudgeScope::Global;
        stop(&mut m, "a");
        let global = |stops| Count { stops, threshold: 3, retry_window: false, across: None };
        assert_eq!(stop(&mut m, "b").reason, Reason::Paced(global(2)));
        assert!(stop(&mut m, "c").cue);
    }

    #[test]
    fn the_forecast_never_counts_and_says_when() {
        let mut m = Mem::onboarded(6);
        let f = forecast(&mut m, "a");
        assert!(!f.would_cue);
        assert_eq!(f.reasons, vec![Outlook::NextStop(count(1, 6, 1, 6)), Outlook::Rate(RateLimit::allowed())]);
        assert_eq!(f.next, NextLesson::InTurns { turns: 6, this_session: true });
        assert_eq!(f.next.to_string(), "in about 6 more agent turns in this session");
        assert!(m.counters.is_empty());
        for _ in 0..5 {
            stop(&mut m, "a");
        }
        let f = forecast(&mut m, "a");
        assert!(f.would_cue);
        assert_eq!(f.next.to_string(), "at the end of the next agent turn");
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

    /// Today's rule (before short sessions added up): this session's counter alone, the retry
    /// window after every unanswered cue.
    fn old_rule_cues(n: i64, stops: i64) -> i64 {
        // An answering agent in one session: a cue every n stops.
        stops / n
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Random session lengths, an agent that answers every cue, a rate limit that allows:
        /// never more than twice nudge_every counted stops without a cue.
        #[test]
        fn no_learner_starves(n in 1i64..=30, sessions in prop::collection::vec(1i64..40, 1..30), fresh in any::<bool>()) {
            let mut m = if fresh { Mem::fresh(n) } else { Mem::onboarded(n) };
            m.settings.max_per_day = 1000;
            let mut since = 0;
            let mut first = None;
            let mut counted = 0;
            for (i, len) in sessions.iter().enumerate() {
                for _ in 0..*len {
                    m.now += Duration::minutes(1);
                    counted += 1;
                    since += 1;
                    let d = stop(&mut m, &format!("s{i}"));
                    if d.cue {
                        first.get_or_insert(counted);
                        since = 0;
                        m.log_lesson();
                    }
                    prop_assert!(since < 2 * n, "{since} stops without a cue (n = {n})");
                }
            }
            if fresh && counted >= NUDGE_RETRY_AFTER.min(n) {
                prop_assert!(first.is_some_and(|f| f <= NUDGE_RETRY_AFTER.min(n)), "first cue at {first:?}");
            }
        }

        /// Random session lengths and an agent that never answers: until cues pause (after
        /// three in a row), no more than twice nudge_every counted stops pass without one.
        #[test]
        fn an_unanswered_cue_never_starves_short_sessions(n in 1i64..=30, sessions in prop::collection::vec(1i64..8, 1..40)) {
            let mut m = Mem::onboarded(n);
            m.settings.max_per_day = 1000;
            let mut since = 0;
            for (i, len) in sessions.iter().enumerate() {
                for _ in 0..*len {
                    m.now += Duration::minutes(1);
                    since += 1;
                    if stop(&mut m, &format!("s{i}")).cue {
                        since = 0;
                    }
                    if m.cues.streak < BACK_OFF_AFTER {
                        prop_assert!(since < 2 * n, "{since} stops without a cue (n = {n}, streak {})", m.cues.streak);
                    }
                }
            }
        }

        /// One long session, an answering agent: exactly the cues today's rule gives.
        #[test]
        fn a_long_session_is_paced_as_before(n in 1i64..=30, len in 1i64..400) {
            let mut m = Mem::onboarded(n);
            m.settings.max_per_day = 1000;
            let mut cues = 0;
            for _ in 0..len {
                m.now += Duration::minutes(1);
                if stop(&mut m, "one").cue {
                    cues += 1;
                    m.log_lesson();
                }
            }
            prop_assert_eq!(cues, old_rule_cues(n, len));
        }

        /// An agent that ignores every cue: at most the cap a day, and the forecast of each stop
        /// is what the stop then does.
        #[test]
        fn an_ignoring_agent_is_bounded_and_the_forecast_holds(n in 1i64..=12, per_day in 1i64..=6, stops in 1usize..300, minutes in 1i64..30) {
            let mut m = Mem::onboarded(n);
            m.settings.max_per_day = per_day;
            let mut times = Vec::new();
            for _ in 0..stops {
                m.now += Duration::minutes(minutes);
                let predicted = forecast(&mut m, "a");
                let d = stop(&mut m, "a");
                prop_assert_eq!(predicted.would_cue, d.cue, "{:?} then {:?}", predicted, d);
                if d.cue {
                    times.push(m.now);
                }
                let day: Vec<_> = times.iter().filter(|t| **t > m.now - Duration::hours(24)).collect();
                prop_assert!(i64::try_from(day.len()).unwrap_or(i64::MAX) <= daily_cue_cap(&m.settings));
                prop_assert!(day.len() <= usize::try_from(BACK_OFF_AFTER).unwrap_or(3) + 1, "{} cues in a day while ignored", day.len());
            }
        }
    }
}
