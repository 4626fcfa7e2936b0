//! The cue engine run over the pacing tables (see [`crate::cue_state`]), with the lessons'
//! rate limit and the review queue's offer.

use chrono::{DateTime, Utc};
use devcoach_core::ids::SessionId;
use devcoach_core::pacing::{self, CueDecision, CueForecast, MAX_NUDGE_SESSIONS, PacingState};
use devcoach_core::rate_limit::RateLimit;
use devcoach_core::settings::{NudgeScope, Settings};
use devcoach_core::time::iso_ms;
use rusqlite::{Connection, OptionalExtension, params};

use crate::cue_state::read_cue_state;
use crate::error::StoreError;
use crate::{Result, Store, knowledge, lessons};

fn peek(conn: &Connection, session: &SessionId, scope: NudgeScope) -> rusqlite::Result<i64> {
    match scope {
        NudgeScope::Global => {
            conn.query_row("SELECT COALESCE(SUM(interactions), 0) FROM nudge_state", [], |r| r.get(0))
        }
        NudgeScope::Session => Ok(conn
            .prepare_cached("SELECT interactions FROM nudge_state WHERE session_id = ?1")?
            .query_row([session.as_str()], |r| r.get(0))
            .optional()?
            .unwrap_or(0)),
    }
}

/// `ext_settings` key: the time of the cue last carried to a prompt (see
/// [`Store::take_held_cue`]).
pub(crate) const HELD_CUE_KEY: &str = "cue_held_for_prompt";
/// `ext_settings` key: what the last cue offered and to which session (`lesson <session>`).
pub(crate) const HELD_CUE_FOR: &str = "cue_held_about";

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
        // Only a new session row can grow the table past the cap.
        if own == 1 {
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

    fn cue_pending(&mut self) -> Result<bool> {
        Ok(read_cue_state(self.conn)?.pending)
    }

    fn rate_limit(&mut self) -> RateLimit {
        lessons::current_rate_limit(self.conn, self.now)
    }

    fn mark_cue_pending(&mut self) -> Result<()> {
        self.conn.execute(
            "INSERT INTO cue_state (id, pending, last_cue_at) VALUES (1, 1, ?1) \
             ON CONFLICT(id) DO UPDATE SET pending = 1, last_cue_at = excluded.last_cue_at",
            [iso_ms(self.now)],
        )?;
        self.conn.execute("DELETE FROM nudge_state", [])?;
        Ok(())
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
        self.write(|tx| {
            if let Some(w) = work {
                crate::work::record(tx, w, now)?;
            }
            let mut d = pacing::evaluate(&mut SqlPacing { conn: tx, now }, session, plan_mode)?;
            if d.cue {
                // Data, not words: the hook says in its trace that it offered a review.
                d.review_due = crate::reviews::choose_offer(tx, now)?;
                // What the cue was and whose, should it have to be carried to a prompt.
                let kind = if d.review_due.is_some() { "review" } else { "lesson" };
                crate::settings::write_setting(tx, HELD_CUE_FOR, &format!("{kind} {}", session.as_str()))?;
            }
            Ok(d)
        })
    }

    /// Forecasts the next stop without changing anything (doctor, the prompt hook).
    pub fn explain_cue(&self, session: &SessionId, now: DateTime<Utc>) -> Result<CueForecast> {
        pacing::explain(&mut SqlPacing { conn: self.conn(), now }, session)
    }

    /// A cue the last stop gave that is still unanswered (no lesson, no skip since), not yet
    /// carried to a prompt: marks it carried and says so, in one IMMEDIATE transaction. The
    /// prompt hook then primes it once, so an agent that could not act on the stop's cue (or
    /// dropped it) gets it at the next prompt instead of three stops later.
    pub fn take_held_cue(&mut self, session: &SessionId) -> Result<Option<pacing::HeldCue>> {
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
            let course = SqlPacing { conn: tx, now: chrono::Utc::now() }.has_active_course()?;
            let held = pacing::carry_held(&last, session, scope, course);
            if held.is_some() {
                crate::settings::write_setting(tx, HELD_CUE_KEY, &at)?;
            }
            Ok(held)
        })
    }

    /// The agent declined a cue (`skip_lesson`): pacing restarts and the reason is kept.
    pub fn skip_lesson(&mut self, reason: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO cue_state (id, pending, last_skip_reason) VALUES (1, 0, ?1) \
                 ON CONFLICT(id) DO UPDATE SET pending = 0, last_skip_reason = excluded.last_skip_reason",
                [reason],
            )?;
            tx.execute("DELETE FROM nudge_state", [])?;
            Ok(())
        })
    }
}
