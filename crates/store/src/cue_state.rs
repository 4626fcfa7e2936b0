//! The pacing tables (`nudge_state`: stops counted per session; `cue_state`: whether a cue
//! waits for an answer). Below lessons, reviews and the engine, which all restart them.

use rusqlite::{Connection, OptionalExtension};

use crate::{Result, Store};

/// `ext_settings` key: stops counted in sessions pruned from `nudge_state` since the last cue.
pub(crate) const PRUNED_STOPS: &str = "nudge_pruned_stops";

/// The cue lifecycle: armed between an emitted cue and its resolution.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CueState {
    pub pending: bool,
    pub last_cue_at: Option<String>,
    pub last_skip_reason: Option<String>,
}

/// One session's stop counter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NudgeSession {
    pub session_id: String,
    pub interactions: i64,
    pub updated_at: String,
}

/// A cue was answered (a lesson saved, a review graded): every counter restarts and the retry
/// window disarms.
pub(crate) fn reset_nudge(conn: &Connection) -> rusqlite::Result<()> {
    clear_counters(conn)?;
    conn.execute("UPDATE cue_state SET pending = 0 WHERE id = 1", [])?;
    Ok(())
}

/// Every session's counter restarts (and what pruned sessions had counted).
pub(crate) fn clear_counters(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM nudge_state", [])?;
    conn.execute("DELETE FROM ext_settings WHERE key = ?1", [PRUNED_STOPS])?;
    Ok(())
}

pub(crate) fn read_cue_state(conn: &Connection) -> rusqlite::Result<CueState> {
    Ok(conn
        .prepare_cached("SELECT pending, last_cue_at, last_skip_reason FROM cue_state WHERE id = 1")?
        .query_row([], |r| {
            Ok(CueState { pending: r.get::<_, i64>(0)? == 1, last_cue_at: r.get(1)?, last_skip_reason: r.get(2)? })
        })
        .optional()?
        .unwrap_or_default())
}

impl Store {
    pub fn cue_state(&self) -> Result<CueState> {
        Ok(read_cue_state(self.conn())?)
    }

    /// Session counters, most recently active first.
    pub fn nudge_sessions(&self) -> Result<Vec<NudgeSession>> {
        let mut stmt = self
            .conn()
            .prepare("SELECT session_id, interactions, updated_at FROM nudge_state ORDER BY updated_at DESC")?;
        let rows = stmt.query_map([], |r| {
            Ok(NudgeSession { session_id: r.get(0)?, interactions: r.get(1)?, updated_at: r.get(2)? })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}
