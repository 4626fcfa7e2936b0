//! The evidence log (`ext_evidence`, our own table).

use std::collections::BTreeMap;

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

/// What each topic's estimate rests on, as a learner would count it: (checked answers, the
/// learner's own reports, other evidence). The map reads one event per lesson a day, the
/// strongest, so a lesson counts once a date (UTC): as checked when an answer was checked that
/// day, else as a self-report when its feedback still stood at the day's end (a cleared answer
/// is taken back) or it had a self-graded review. The third is every rating (onboarding, an edit,
/// a restore) and each course check and practice session.
pub(crate) fn basis_by_topic(conn: &Connection) -> rusqlite::Result<BTreeMap<String, (i64, i64, i64)>> {
    use std::collections::{BTreeSet, HashMap};
    // (topic, lesson, date)
    type Day = (String, String, String);
    let mut checked: BTreeSet<Day> = BTreeSet::new();
    let mut stmt = conn.prepare_cached("SELECT topic, lesson_id, substr(at, 1, 10) FROM ext_checked_answers")?;
    for row in stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))? {
        checked.insert(row?);
    }
    let mut reported: BTreeSet<Day> = BTreeSet::new();
    // Each lesson's feedback of a day, in order: the last one says whether it still stands.
    let mut last_feedback: HashMap<Day, String> = HashMap::new();
    let mut stmt = conn.prepare_cached(
        "SELECT topic, lesson_id, substr(at, 1, 10), detail FROM ext_evidence \
         WHERE cause = 'feedback' AND lesson_id IS NOT NULL ORDER BY at, id",
    )?;
    for row in stmt.query_map([], |r| Ok(((r.get(0)?, r.get(1)?, r.get(2)?), r.get::<_, Option<String>>(3)?)))? {
        let (day, detail) = row?;
        last_feedback.insert(day, detail.unwrap_or_default());
    }
    reported.extend(
        last_feedback
            .into_iter()
            .filter(|(_, d)| ["know", "understood", "dont_know"].contains(&d.as_str()))
            .map(|(k, _)| k),
    );
    let mut stmt = conn.prepare_cached(
        "SELECT l.topic_id, r.lesson_id, substr(r.reviewed_at, 1, 10) FROM ext_review_log r \
         JOIN lessons l ON l.id = r.lesson_id \
         WHERE NOT EXISTS (SELECT 1 FROM ext_checked_answers c WHERE c.kind = 'review' \
         AND c.lesson_id = r.lesson_id AND c.at = r.reviewed_at)",
    )?;
    for row in stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))? {
        reported.insert(row?);
    }
    let mut out: BTreeMap<String, (i64, i64, i64)> = BTreeMap::new();
    for (topic, _, _) in &checked {
        out.entry(topic.clone()).or_default().0 += 1;
    }
    // By lesson and date: a lesson's topic may be spelled otherwise in one table than another.
    let checked_lessons: BTreeSet<(&str, &str)> = checked.iter().map(|(_, l, d)| (l.as_str(), d.as_str())).collect();
    for day in reported.iter().filter(|(_, l, d)| !checked_lessons.contains(&(l.as_str(), d.as_str()))) {
        out.entry(day.0.clone()).or_default().1 += 1;
    }
    let mut other = conn.prepare_cached(
        "SELECT topic, COUNT(*) FROM ext_evidence \
         WHERE cause IN ('manual', 'onboarding', 'restore', 'practice', 'course') GROUP BY topic",
    )?;
    for row in other.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (topic, n) = row?;
        out.entry(topic).or_default().2 += n;
    }
    Ok(out)
}
