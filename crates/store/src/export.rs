//! The learner's record as the portable exports want it (`devcoach export`): the rows only;
//! the formats are core's (`devcoach_core::export`).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use devcoach_core::export::{Event, FeedbackEvent, LessonEvent, ReviewEvent, in_time, other_events};
use devcoach_core::lesson::Feedback;
use devcoach_core::time::iso_ms;
use devcoach_core::time::parse_timestamp;
use rusqlite::OptionalExtension;

use crate::{Result, Store, StoreError};

impl Store {
    /// Every graded review of a lesson that still exists, each marked checked when the agent
    /// graded the learner's words.
    pub fn review_events(&self) -> Result<Vec<ReviewEvent>> {
        let lessons: HashSet<String> = {
            let mut stmt = self.conn().prepare_cached("SELECT id FROM lessons")?;
            stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?
        };
        // A checked review is stored with its review's time: matched on the time as written.
        let checked: HashSet<(String, String)> = self
            .checked_answers(None)?
            .into_iter()
            .filter(|c| c.kind == devcoach_core::checked::CheckKind::Review)
            .map(|c| (c.lesson_id, iso_ms(c.at)))
            .collect();
        Ok(self
            .review_log()?
            .into_iter()
            .filter(|r| lessons.contains(&r.lesson_id))
            .filter_map(|r| {
                let at = parse_timestamp(&r.reviewed_at).ok()?;
                let checked = checked.contains(&(r.lesson_id.clone(), iso_ms(at)));
                Some(ReviewEvent { lesson_id: r.lesson_id, grade: r.grade, at, checked })
            })
            .collect())
    }

    /// What an xAPI export tells, in time order, handed to `f` as it is read. The lessons are
    /// ordered by their parsed time (stamps written elsewhere can carry an offset or a fraction,
    /// so the text's order is not time's) from their rows and times alone, and each is read whole
    /// only when its turn comes: no lesson's text is held, and no read lock is held while the
    /// caller writes. Answers, checks and reviews (as many as the learner gave) are read first
    /// and merged in. A lesson deleted meanwhile is left out; a read that fails is handed on as
    /// its error, and nothing follows it.
    pub fn xapi_events<T>(&self, f: impl FnOnce(&mut dyn Iterator<Item = Result<Event>>) -> T) -> Result<T> {
        let conn = self.conn();
        let mut known = conn.prepare_cached("SELECT topic_id FROM lessons WHERE id = ?1")?;
        let mut topic_of = |id: &str| -> rusqlite::Result<Option<String>> {
            known.query_row([id], |r| r.get::<_, String>(0)).optional()
        };
        let mut feedback = Vec::new();
        for e in self.evidence(None)? {
            if e.cause != devcoach_core::evidence::EvidenceCause::Feedback {
                continue;
            }
            let (Some(lesson_id), Some(Ok(answer)), Ok(at)) =
                (e.lesson_id, e.detail.as_deref().map(Feedback::parse), parse_timestamp(&e.at))
            else {
                continue;
            };
            // The knowledge history outlives a deleted lesson; the export does not.
            if topic_of(&lesson_id)?.is_some() {
                feedback.push(FeedbackEvent { lesson_id, topic: e.topic, feedback: answer, at });
            }
        }
        let mut reviews = Vec::new();
        for r in self.review_events()? {
            let topic = topic_of(&r.lesson_id)?.unwrap_or_default();
            reviews.push((r, topic));
        }
        let others = other_events(feedback, self.checked_answers(None)?, reviews);
        // Each lesson's place: its time, then its place in the text's order (the tie-break the
        // whole-record sort keeps), and its row (24 bytes a lesson).
        let mut places: Vec<(DateTime<Utc>, usize, i64)> = Vec::new();
        {
            let mut stmt = conn.prepare_cached("SELECT rowid, timestamp FROM lessons ORDER BY timestamp, id")?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
            for (i, row) in rows.enumerate() {
                let (rowid, at) = row?;
                if let Ok(at) = parse_timestamp(&at) {
                    places.push((at, i, rowid));
                }
            }
        }
        places.sort_unstable_by_key(|&(at, i, _)| (at, i));
        let mut one = conn.prepare_cached("SELECT id, title, topic_id, timestamp FROM lessons WHERE rowid = ?1")?;
        let lessons = places.into_iter().filter_map(move |(at, _, rowid)| {
            let row = one.query_row([rowid], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?))
            });
            match row.optional() {
                // A row that is another lesson now: the file was rebuilt (VACUUM) under the read.
                Ok(Some((id, title, topic, stamp))) => Some(if parse_timestamp(&stamp).ok() == Some(at) {
                    Ok(LessonEvent { id, title, topic, at })
                } else {
                    Err(StoreError::Changed)
                }),
                // Deleted meanwhile.
                Ok(None) => None,
                Err(e) => Some(Err(e.into())),
            }
        });
        Ok(f(&mut in_time(lessons, others)))
    }

    /// Lessons (the learner's own and shared ones), their answers as given over time, checked
    /// answers and reviews, all held at once: what the streamed [`Store::xapi_events`] is
    /// checked against.
    #[cfg(test)]
    pub(crate) fn learning_record(&self) -> Result<devcoach_core::export::Record> {
        let mut record = devcoach_core::export::Record::default();
        let mut stmt =
            self.conn().prepare_cached("SELECT id, title, topic_id, timestamp FROM lessons ORDER BY timestamp, id")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?))
        })?;
        let mut topics: std::collections::HashMap<String, String> = std::collections::HashMap::new();
        for row in rows {
            let (id, title, topic, at) = row?;
            topics.insert(id.clone(), topic.clone());
            if let Ok(at) = parse_timestamp(&at) {
                record.lessons.push(LessonEvent { id, title, topic, at });
            }
        }
        for e in self.evidence(None)? {
            if e.cause != devcoach_core::evidence::EvidenceCause::Feedback {
                continue;
            }
            let (Some(lesson_id), Some(Ok(feedback)), Ok(at)) =
                (e.lesson_id, e.detail.as_deref().map(Feedback::parse), parse_timestamp(&e.at))
            else {
                continue;
            };
            // The knowledge history outlives a deleted lesson; the export does not.
            if !topics.contains_key(&lesson_id) {
                continue;
            }
            record.feedback.push(FeedbackEvent { lesson_id, topic: e.topic, feedback, at });
        }
        record.checks = self.checked_answers(None)?;
        record.reviews = self.review_events()?;
        record.topics = topics;
        Ok(record)
    }
}

#[cfg(test)]
mod tests {
    use devcoach_core::export::{xapi, xapi_actor, xapi_statement};

    use crate::{DataDir, Store};

    /// The export streamed from the store says what the whole record, held and sorted, says:
    /// the same statements in the same order (the demo learner has lessons, answers, checked
    /// answers and reviews, some at the same moment).
    #[test]
    fn the_streamed_statements_are_the_whole_record_s() {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut store = Store::open(&DataDir::new(tmp.path())).expect("open");
        let now = devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("now");
        store.seed_demo(now).expect("demo");
        let record = store.learning_record().expect("record");
        assert!(!record.feedback.is_empty() && !record.reviews.is_empty() && !record.checks.is_empty(), "{record:?}");
        let whole = xapi(&record, "ada");
        let actor = xapi_actor("ada");
        let streamed: Vec<_> = store
            .xapi_events(|events| events.map(|e| e.map(|e| xapi_statement(&actor, &e))).collect::<crate::Result<_>>())
            .expect("read")
            .expect("stream");
        assert_eq!(streamed.len(), whole.len());
        assert_eq!(streamed, whole);
    }

    /// A row that holds another lesson by the time the export reaches it (another program
    /// deleted a lesson and wrote one in its row, or rebuilt the file): the export stops with an
    /// error rather than name one lesson with another's time.
    #[test]
    fn a_row_taken_by_another_lesson_under_the_export_stops_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = DataDir::new(tmp.path());
        let store = Store::open(&dir).expect("open");
        for i in 0..4 {
            store
                .conn()
                .execute(
                    "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
                     VALUES (?1, ?2, 'rust', '[\"rust\"]', ?1, 'mid', 'S')",
                    [format!("l{i}"), format!("2026-05-0{}T09:00:00Z", i + 1)],
                )
                .expect("lesson");
        }
        let outcome: Vec<Result<String, String>> = store
            .xapi_events(|events| {
                let mut seen = Vec::new();
                for (n, e) in events.enumerate() {
                    if n == 0 {
                        let other = rusqlite::Connection::open(dir.db_path()).expect("other");
                        let row: i64 =
                            other.query_row("SELECT rowid FROM lessons WHERE id = 'l2'", [], |r| r.get(0)).expect("row");
                        other.execute("DELETE FROM lessons WHERE id = 'l2'", []).expect("delete");
                        other
                            .execute(
                                "INSERT INTO lessons (rowid, id, timestamp, topic_id, categories, title, level, summary) \
                                 VALUES (?1, 'intruder', '2026-09-01T09:00:00Z', 'rust', '[\"rust\"]', 'intruder', 'mid', 'S')",
                                [row],
                            )
                            .expect("intruder");
                    }
                    seen.push(match e {
                        Ok(devcoach_core::export::Event::Lesson(l)) => Ok(l.id),
                        Ok(_) => Ok("other".into()),
                        Err(e) => Err(e.to_string()),
                    });
                }
                seen
            })
            .expect("read");
        assert_eq!(outcome[..2], [Ok("l0".to_owned()), Ok("l1".to_owned())], "{outcome:?}");
        assert!(outcome[2].as_ref().is_err_and(|e| e.contains("rewrote the database")), "{outcome:?}");
        assert_eq!(outcome.len(), 3, "nothing after the error: {outcome:?}");
    }

    /// Stamps another program or device wrote (an offset, a fraction of a second) sort by the
    /// time they name, not by their text: each answer still follows its lesson.
    #[test]
    fn lessons_go_in_the_order_of_their_time_whatever_their_stamp_looks_like() {
        let tmp = tempfile::tempdir().expect("tmp");
        let store = Store::open(&DataDir::new(tmp.path())).expect("open");
        for (id, stamp) in [
            ("at-eight", "2026-05-01T10:00:00+02:00"),
            ("at-nine", "2026-05-01T09:00:00Z"),
            ("half-past-ten", "2026-05-01T10:00:00.500Z"),
            ("at-ten", "2026-05-01T10:00:00Z"),
        ] {
            store
                .conn()
                .execute(
                    "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
                     VALUES (?1, ?2, 'rust', '[\"rust\"]', ?1, 'mid', 'S')",
                    [id, stamp],
                )
                .expect("lesson");
        }
        let ids: Vec<String> = store
            .xapi_events(|events| {
                events
                    .filter_map(|e| match e {
                        Ok(devcoach_core::export::Event::Lesson(l)) => Some(l.id),
                        _ => None,
                    })
                    .collect()
            })
            .expect("read");
        assert_eq!(ids, ["at-eight", "at-nine", "at-ten", "half-past-ten"]);
        let record = store.learning_record().expect("record");
        let whole: Vec<_> =
            xapi(&record, "ada").into_iter().map(|s| s["object"]["definition"]["name"]["en"].clone()).collect();
        assert_eq!(whole, ["at-eight", "at-nine", "at-ten", "half-past-ten"]);
    }
}
