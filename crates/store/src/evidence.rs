//! The evidence log (`ext_evidence`, our own table).

use devcoach_core::evidence::{Evidence, EvidenceCause};
use rusqlite::{Connection, params};

use crate::{Result, Store};

pub(crate) fn append(conn: &Connection, e: &Evidence) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO ext_evidence (topic, delta, value_after, cause, lesson_id, detail, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![e.topic, e.delta, e.value_after, e.cause.as_str(), e.lesson_id, e.detail, e.at])?;
    Ok(())
}

impl Store {
    /// The log, oldest first; one topic's rows when `topic` is given. Rows with a cause this
    /// build does not know (written by a newer build) are skipped.
    pub fn evidence(&self, topic: Option<&str>) -> Result<Vec<Evidence>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT topic, delta, value_after, cause, lesson_id, detail, at FROM ext_evidence \
             WHERE ?1 IS NULL OR topic = ?1 ORDER BY at, id",
        )?;
        let rows = stmt.query_map([topic], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, String>(6)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (topic, delta, value_after, cause, lesson_id, detail, at) = row?;
            if let Some(cause) = EvidenceCause::parse(&cause) {
                out.push(Evidence { topic, delta, value_after, cause, lesson_id, detail, at });
            }
        }
        Ok(out)
    }
}
