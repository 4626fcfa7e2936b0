//! The cue engine run over the pacing tables (see [`crate::cue_state`]), with the lessons'
//! rate limit and the review queue's offer.

use chrono::{DateTime, Utc};
use devcoach_core::ids::SessionId;
use devcoach_core::pacing::{self, CueDecision, CueForecast, MAX_NUDGE_SESSIONS, PacingState};
use devcoach_core::rate_limit::{Denial, RateLimit};
use devcoach_core::settings::{NudgeScope, Settings};
use devcoach_core::time::iso_ms;
use rusqlite::{Connection, OptionalExtension, params};

use crate::cue_state::{PRUNED_STOPS, read_cue_state};
use crate::error::StoreError;
use crate::{Result, Store, knowledge, lessons};

fn peek(conn: &Connection, session: &SessionId, scope: NudgeScope) -> rusqlite::Result<i64> {
    match scope {
        NudgeScope::Global => counted(conn),
        NudgeScope::Session => Ok(conn
            .prepare_cached("SELECT interactions FROM nudge_state WHERE session_id = ?1")?
            .query_row([session.as_str()], |r| r.get(0))
            .optional()?
            .unwrap_or(0)),
    }
}

/// Every session's stops since the last cue: the counters, plus what sessions pruned from them
/// had counted (unless another build cleared the counters since).
fn counted(conn: &Connection) -> rusqlite::Result<i64> {
    let (sum, rows): (i64, i64) =
        conn.query_row("SELECT COALESCE(SUM(interactions), 0), COUNT(*) FROM nudge_state", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let pruned = if rows == 0 { 0 } else { local(conn, PRUNED_STOPS).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0) };
    Ok(sum + pruned.max(0))
}

/// `ext_settings` key: the time of the cue last carried to a prompt (see
/// [`Store::take_held_cue`]).
pub(crate) const HELD_CUE_KEY: &str = "cue_held_for_prompt";
/// `ext_settings` key: what the last cue offered and to which session (`lesson <session>`).
pub(crate) const HELD_CUE_FOR: &str = "cue_held_about";
/// `ext_settings` key: cues given since the last answer (read only while `cue_state.pending`).
const CUE_STREAK: &str = "cue_streak";
/// `ext_settings` key: when the cues of the last day were given (`iso_ms` times, space-separated).
const CUE_TIMES: &str = "cue_times";
/// `ext_settings` keys: the last onboarding ask (`<iso_ms> <session>`) and the last "not now".
const ONBOARDING_ASKED: &str = "onboarding_asked";
const ONBOARDING_POSTPONED: &str = "onboarding_postponed";
/// The most cue times kept (far above any daily cap).
const MAX_CUE_TIMES: usize = 64;

/// Onboarding asks as kept: one `<iso_ms> <session>` a line, oldest first.
pub(crate) fn parse_asks(text: &str) -> Vec<(DateTime<Utc>, String)> {
    text.lines()
        .filter_map(|line| {
            let (at, whose) = line.trim().split_once(' ')?;
            Some((parse_time(at)?, whose.to_owned()))
        })
        .collect()
}

/// `kept` with one more ask line, the oldest dropped past [`MAX_NUDGE_SESSIONS`].
pub fn with_ask(kept: &str, line: &str) -> String {
    let mut lines: Vec<&str> = kept.lines().filter(|l| !l.trim().is_empty()).collect();
    lines.push(line);
    let extra = lines.len().saturating_sub(usize::try_from(MAX_NUDGE_SESSIONS).unwrap_or(50));
    lines[extra..].join("\n")
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    devcoach_core::time::parse_timestamp(text).ok()
}

/// One of pacing's own keys; a database only the TypeScript devcoach has written (no
/// `ext_settings` yet, read without our additions) reads as having none.
fn local(conn: &Connection, key: &str) -> Option<String> {
    crate::settings::read_setting(conn, key).ok().flatten()
}

/// The engine's view of the database, inside the caller's transaction (or on a plain
/// connection for the read-only forecast, which never calls the writing methods).
pub(crate) struct SqlPacing<'c> {
    pub conn: &'c Connection,
    pub now: DateTime<Utc>,
}

impl PacingState for SqlPacing<'_> {
    type Error = StoreError;

    fn is_onboarded(&mut self) -> Result<bool> {
        Ok(knowledge::is_onboarded(self.conn)?)
    }

    fn has_active_course(&mut self) -> Result<bool> {
        Ok(self.conn.query_row("SELECT EXISTS (SELECT 1 FROM courses WHERE status = 'active')", [], |r| r.get(0))?)
    }

    fn settings(&mut self) -> Result<Settings> {
        crate::settings::read(self.conn)
    }

    fn bump(&mut self, session: &SessionId, scope: NudgeScope) -> Result<i64> {
        let own: i64 = self
            .conn
            .prepare_cached(
                "INSERT INTO nudge_state (session_id, interactions, updated_at) VALUES (?1, 1, ?2) \
             ON CONFLICT(session_id) DO UPDATE SET interactions = interactions + 1, updated_at = excluded.updated_at \
             RETURNING interactions",
            )?
            .query_row(params![session.as_str(), iso_ms(self.now)], |r| r.get(0))?;
        // Only a new session row can grow the table past the cap; what the pruned sessions
        // counted still adds up across sessions.
        if own == 1 {
            let pruned: i64 = self.conn.query_row(
                "SELECT COALESCE(SUM(interactions), 0) FROM nudge_state WHERE session_id NOT IN \
                 (SELECT session_id FROM nudge_state ORDER BY updated_at DESC LIMIT ?1)",
                [MAX_NUDGE_SESSIONS],
                |r| r.get(0),
            )?;
            if pruned > 0 {
                let before = crate::settings::read_setting(self.conn, PRUNED_STOPS)?
                    .and_then(|v| v.parse::<i64>().ok())
                    .unwrap_or(0);
                crate::settings::write_setting(self.conn, PRUNED_STOPS, &(before + pruned).to_string())?;
            }
            self.conn.execute(
                "DELETE FROM nudge_state WHERE session_id NOT IN \
                 (SELECT session_id FROM nudge_state ORDER BY updated_at DESC LIMIT ?1)",
                [MAX_NUDGE_SESSIONS],
            )?;
        }
        match scope {
            NudgeScope::Session => Ok(own),
            NudgeScope::Global => Ok(peek(self.conn, session, scope)?),
        }
    }

    fn peek(&mut self, session: &SessionId, scope: NudgeScope) -> Result<i64> {
        Ok(peek(self.conn, session, scope)?)
    }

    fn total(&mut self) -> Result<i64> {
        Ok(counted(self.conn)?)
    }

    fn cues(&mut self) -> Result<pacing::CueRecord> {
        let state = read_cue_state(self.conn)?;
        // A cue the TypeScript devcoach (or an answer) resolved leaves no streak behind, and a
        // streak counts only for the cue it was written with (`<n> <last_cue_at>`): a cue given
        // since by another build starts over at one.
        let streak = if state.pending {
            local(self.conn, CUE_STREAK)
                .and_then(|v| {
                    let (n, at) = v.split_once(' ')?;
                    (Some(at) == state.last_cue_at.as_deref()).then(|| n.parse::<i64>().ok()).flatten()
                })
                .unwrap_or(1)
                .max(1)
        } else {
            0
        };
        // Our own lessons table may be read without our additions (doctor, a newer file): fail open.
        let ever = state.last_cue_at.is_some() || lessons::last_own_timestamp(self.conn).ok().flatten().is_some();
        let last_day = local(self.conn, CUE_TIMES)
            .unwrap_or_default()
            .split(' ')
            .filter_map(parse_time)
            .filter(|t| *t > self.now - chrono::Duration::hours(24))
            .collect();
        Ok(pacing::CueRecord { ever, streak, last_at: state.last_cue_at.as_deref().and_then(parse_time), last_day })
    }

    fn rate_limit(&mut self) -> RateLimit {
        lessons::current_rate_limit(self.conn, self.now)
    }

    fn rate_wait_minutes(&mut self, rate: &RateLimit) -> Option<i64> {
        match rate.denial? {
            Denial::TooSoon { remaining_minutes, .. } => Some(remaining_minutes.max(1)),
            Denial::DailyLimit { count, max } => {
                let frees = lessons::daily_window_frees_at(self.conn, self.now, count - max + 1).ok()??;
                Some((frees - self.now).num_minutes().max(1))
            }
        }
    }

    fn mark_cue_pending(&mut self) -> Result<()> {
        let streak = self.cues()?.streak + 1;
        let mut times: Vec<String> = crate::settings::read_setting(self.conn, CUE_TIMES)?
            .unwrap_or_default()
            .split(' ')
            .filter(|t| parse_time(t).is_some_and(|t| t > self.now - chrono::Duration::hours(24)))
            .map(str::to_owned)
            .collect();
        times.push(iso_ms(self.now));
        let keep = times.len().saturating_sub(MAX_CUE_TIMES);
        self.conn.execute(
            "INSERT INTO cue_state (id, pending, last_cue_at) VALUES (1, 1, ?1) \
             ON CONFLICT(id) DO UPDATE SET pending = 1, last_cue_at = excluded.last_cue_at",
            [iso_ms(self.now)],
        )?;
        crate::settings::write_setting(self.conn, CUE_STREAK, &format!("{streak} {}", iso_ms(self.now)))?;
        crate::settings::write_setting(self.conn, CUE_TIMES, &times[keep..].join(" "))?;
        crate::cue_state::clear_counters(self.conn)?;
        Ok(())
    }

    fn onboarding_asks(&mut self) -> Result<pacing::OnboardingAsks> {
        let asked = parse_asks(&local(self.conn, ONBOARDING_ASKED).unwrap_or_default());
        let postponed_at = local(self.conn, ONBOARDING_POSTPONED).as_deref().and_then(parse_time);
        Ok(pacing::OnboardingAsks { asked, postponed_at })
    }

    fn record_onboarding_ask(&mut self, session: &SessionId) -> Result<()> {
        let before = local(self.conn, ONBOARDING_ASKED).unwrap_or_default();
        let value = with_ask(&before, &format!("{} {}", iso_ms(self.now), session.as_str()));
        Ok(crate::settings::write_setting(self.conn, ONBOARDING_ASKED, &value)?)
    }

    fn total_lessons(&mut self) -> Result<i64> {
        Ok(lessons::count_all(self.conn)?)
    }
}

impl Store {
    /// Decides one agent stop (the stop hook), in one IMMEDIATE transaction.
    pub fn evaluate_cue(&mut self, session: &SessionId, plan_mode: bool, now: DateTime<Utc>) -> Result<CueDecision> {
        self.evaluate_stop(session, plan_mode, None, now)
    }

    /// [`Store::evaluate_cue`] that also stores how the session went (`work_insights`), in the
    /// same transaction: a stop is one write.
    pub fn evaluate_stop(
        &mut self,
        session: &SessionId,
        plan_mode: bool,
        work: Option<&crate::WorkSession<'_>>,
        now: DateTime<Utc>,
    ) -> Result<CueDecision> {
        let dir = self.data_dir().clone();
        let (decision, taken) = self.write(|tx| {
            // Stops left waiting while another process held the database came first.
            let taken = count_waiting(tx, &dir, now)?;
            if let Some(w) = work {
                crate::work::record(tx, w, now)?;
            }
            let mut d = pacing::evaluate(&mut SqlPacing { conn: tx, now }, session, plan_mode, now)?;
            if d.cue {
                // Data, not words: the hook says in its trace that it offered a review.
                d.review_due = crate::reviews::choose_offer(tx, now)?;
                // What the cue was and whose, should it have to be carried to a prompt.
                let kind = if d.review_due.is_some() { "review" } else { "lesson" };
                crate::settings::write_setting(tx, HELD_CUE_FOR, &format!("{kind} {}", session.as_str()))?;
            }
            Ok((d, taken))
        })?;
        crate::waiting::forget(&dir, &taken);
        Ok(decision)
    }

    /// Forecasts the next stop without changing anything (doctor, the prompt hook).
    pub fn explain_cue(&self, session: &SessionId, now: DateTime<Utc>) -> Result<CueForecast> {
        pacing::explain(&mut SqlPacing { conn: self.conn(), now }, session, now)
    }

    /// Takes over an onboarding ask noted before the database existed (`<iso> <session>`), unless
    /// the database already holds one.
    pub fn adopt_onboarding_ask(&mut self, noted: &str) -> Result<()> {
        let noted = parse_asks(noted);
        if noted.is_empty() {
            return Ok(());
        }
        self.write(|tx| {
            let mut kept = crate::settings::read_setting(tx, ONBOARDING_ASKED)?.unwrap_or_default();
            for (at, session) in &noted {
                if session.len() <= 256 {
                    kept = with_ask(&kept, &format!("{} {session}", iso_ms(*at)));
                }
            }
            crate::settings::write_setting(tx, ONBOARDING_ASKED, &kept)?;
            Ok(())
        })
    }

    /// When the next lesson comes, for the session that stopped last (the one answer `stats`,
    /// `doctor`, the dashboard and the MCP resources give).
    pub fn next_lesson(&self, now: DateTime<Utc>) -> Result<pacing::NextLesson> {
        // The session that stopped last: its counter, or (before a profile, when nothing is
        // counted) the one last asked for onboarding.
        let latest: Option<String> = self
            .conn()
            .query_row("SELECT session_id FROM nudge_state ORDER BY updated_at DESC LIMIT 1", [], |r| r.get(0))
            .optional()?
            .or_else(|| {
                local(self.conn(), ONBOARDING_ASKED).and_then(|v| v.split_once(' ').map(|(_, s)| s.to_owned()))
            });
        let session = SessionId::from_payload(latest.as_deref());
        let mut next = self.explain_cue(&session, now)?.next;
        // Nobody asked from inside a session: "this session" would name whichever came last.
        if let pacing::NextLesson::InTurns { this_session, .. } = &mut next {
            *this_session = false;
        }
        Ok(next)
    }

    /// A cue the last stop gave that is still unanswered (no lesson, no skip since), not yet
    /// carried to a prompt: marks it carried and says so, in one IMMEDIATE transaction. The
    /// prompt hook then primes it once, so an agent that could not act on the stop's cue (or
    /// dropped it) gets it at the next prompt instead of three stops later.
    pub fn take_held_cue(&mut self, session: &SessionId, now: DateTime<Utc>) -> Result<Option<pacing::HeldCue>> {
        self.write(|tx| {
            let cue = read_cue_state(tx)?;
            let Some(at) = cue.last_cue_at.filter(|_| cue.pending) else { return Ok(None) };
            let carried = crate::settings::read_setting(tx, HELD_CUE_KEY)?.as_deref() == Some(at.as_str());
            let about = crate::settings::read_setting(tx, HELD_CUE_FOR)?.unwrap_or_default();
            let (kind, whose) = about.split_once(' ').unwrap_or(("lesson", ""));
            let last = pacing::LastCue {
                pending: true,
                carried,
                session: (!whose.is_empty()).then_some(whose),
                review: kind == "review",
            };
            let scope = crate::settings::read(tx)?.nudge_scope;
            let course = SqlPacing { conn: tx, now }.has_active_course()?;
            let held = pacing::carry_held(&last, session, scope, course);
            if held.is_some() {
                crate::settings::write_setting(tx, HELD_CUE_KEY, &at)?;
            }
            Ok(held)
        })
    }

    /// The agent declined a cue (`skip_lesson`): pacing restarts and the reason is kept. Before
    /// a profile exists, it is the learner's "not now" to onboarding, kept for
    /// [`pacing::ONBOARDING_POSTPONE_HOURS`].
    pub fn skip_lesson(&mut self, reason: &str, now: DateTime<Utc>) -> Result<Skipped> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO cue_state (id, pending, last_skip_reason) VALUES (1, 0, ?1) \
                 ON CONFLICT(id) DO UPDATE SET pending = 0, last_skip_reason = excluded.last_skip_reason",
                [reason],
            )?;
            crate::cue_state::clear_counters(tx)?;
            if knowledge::is_onboarded(tx)? {
                return Ok(Skipped::Lesson);
            }
            crate::settings::write_setting(tx, ONBOARDING_POSTPONED, &iso_ms(now))?;
            Ok(Skipped::Onboarding { hours: pacing::ONBOARDING_POSTPONE_HOURS })
        })
    }
}

/// What a skip declined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    Lesson,
    /// Onboarding, postponed for `hours`.
    Onboarding {
        hours: i64,
    },
}

/// Counts the stops left waiting (`crate::waiting`) through the engine, each at its own time.
fn count_waiting(tx: &Connection, dir: &crate::DataDir, now: DateTime<Utc>) -> Result<Vec<String>> {
    crate::waiting::count(tx, dir, now, |session, at, plan_mode| {
        pacing::count_stop(&mut SqlPacing { conn: tx, now: at }, session, plan_mode)
    })
}

impl Store {
    /// Counts the stops left waiting while another process held the database (the end of a
    /// sync calls it; every stop hook does it first).
    pub fn count_waiting_stops(&mut self, now: DateTime<Utc>) -> Result<usize> {
        let dir = self.data_dir().clone();
        let (stops, junk) = crate::waiting::look(&dir);
        crate::waiting::forget(&dir, &junk);
        if stops.is_empty() {
            return Ok(0);
        }
        let taken = self.write(|tx| count_waiting(tx, &dir, now))?;
        crate::waiting::forget(&dir, &taken);
        Ok(taken.len())
    }
}
