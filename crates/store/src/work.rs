//! How the learner works with their agents (`ext_work_sessions`, ours; opt-in through the
//! `work_insights` setting): one row per agent session, counts and a pattern, never text.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use devcoach_core::time::{iso_ms, parse_timestamp};
use devcoach_core::work_patterns::{Pattern, Signals};
use rusqlite::{Connection, params};

use crate::settings::{read_setting, write_setting};
use crate::{Result, Store};

/// `ext_settings` key of the opt-in; absent or anything but `on` means off.
pub(crate) const WORK_INSIGHTS_KEY: &str = "work_insights";

/// A finished turn's session as its transcript reads now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkSession<'a> {
    /// The hook's agent (`claude`, `codex`, `gemini`, …).
    pub agent: &'a str,
    pub session_id: &'a str,
    pub signals: Signals,
}

pub(crate) fn enabled(conn: &Connection) -> rusqlite::Result<bool> {
    Ok(read_setting(conn, WORK_INSIGHTS_KEY)?.as_deref() == Some("on"))
}

/// Stores the session's counts (the transcript holds the whole session so far, so they replace
/// what the last stop stored) and its pattern.
pub(crate) fn record(conn: &Connection, w: &WorkSession<'_>, now: DateTime<Utc>) -> rusqlite::Result<()> {
    let s = &w.signals;
    conn.prepare_cached(
        "INSERT INTO ext_work_sessions (agent, session_id, first_at, last_at, prompts, questions, questions_after_edit, \
         error_reports, combined, own_code, agent_edits, pattern) VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
         ON CONFLICT (agent, session_id) DO UPDATE SET last_at = excluded.last_at, prompts = excluded.prompts, \
         questions = excluded.questions, questions_after_edit = excluded.questions_after_edit, \
         error_reports = excluded.error_reports, combined = excluded.combined, own_code = excluded.own_code, \
         agent_edits = excluded.agent_edits, pattern = excluded.pattern",
    )?
    .execute(params![
        w.agent,
        w.session_id,
        iso_ms(now),
        s.prompts,
        s.questions,
        s.questions_after_edit,
        s.error_reports,
        s.combined,
        s.own_code,
        s.agent_edits,
        s.pattern().map(Pattern::as_str)
    ])?;
    Ok(())
}

/// Sessions per pattern in one week (Monday first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkWeek {
    pub starts: NaiveDate,
    pub counts: BTreeMap<Pattern, u32>,
    /// Sessions whose transcript told no pattern (chat, nothing asked).
    pub unclassified: u32,
}

impl Store {
    /// Whether the learner turned `work_insights` on.
    pub fn work_insights(&self) -> Result<bool> {
        Ok(enabled(self.conn())?)
    }

    /// Turns `work_insights` on or off. Off stops every reading of transcripts; the sessions
    /// already counted stay until the data folder goes (`devcoach uninstall --data`).
    pub fn set_work_insights(&mut self, on: bool) -> Result<()> {
        self.write(|tx| Ok(write_setting(tx, WORK_INSIGHTS_KEY, if on { "on" } else { "off" })?))
    }

    /// The last `weeks` weeks of sessions by pattern, oldest first, ending with the week of `now`.
    pub fn work_weeks(&self, now: DateTime<Utc>, weeks: u32) -> Result<Vec<WorkWeek>> {
        let monday = |d: NaiveDate| d - Duration::days(i64::from(chrono::Datelike::weekday(&d).num_days_from_monday()));
        let this_week = monday(now.date_naive());
        let first = this_week - Duration::weeks(i64::from(weeks.saturating_sub(1)));
        let mut out: Vec<WorkWeek> = (0..weeks)
            .map(|i| WorkWeek {
                starts: first + Duration::weeks(i64::from(i)),
                counts: BTreeMap::new(),
                unclassified: 0,
            })
            .collect();
        let mut stmt = self.conn().prepare_cached("SELECT last_at, pattern FROM ext_work_sessions")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)))?;
        for row in rows {
            let (at, pattern) = row?;
            let Ok(at) = parse_timestamp(&at) else { continue };
            let week = monday(at.date_naive());
            if week < first || week > this_week {
                continue;
            }
            let i = usize::try_from((week - first).num_weeks()).unwrap_or(0);
            let Some(slot) = out.get_mut(i) else { continue };
            match pattern.as_deref().and_then(Pattern::parse) {
                Some(p) => *slot.counts.entry(p).or_default() += 1,
                None => slot.unclassified += 1,
            }
        }
        Ok(out)
    }

    /// Sessions per pattern over the `days` days up to `now` (the briefing asks for seven).
    pub fn work_last_days(&self, now: DateTime<Utc>, days: i64) -> Result<BTreeMap<Pattern, u32>> {
        let since = iso_ms(now - Duration::days(days));
        let mut stmt = self.conn().prepare_cached(
            "SELECT pattern, COUNT(*) FROM ext_work_sessions WHERE last_at >= ?1 AND pattern IS NOT NULL GROUP BY pattern",
        )?;
        let rows = stmt.query_map([since], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))?;
        let mut out = BTreeMap::new();
        for row in rows {
            let (p, n) = row?;
            if let Some(p) = Pattern::parse(&p) {
                out.insert(p, n);
            }
        }
        Ok(out)
    }
}
