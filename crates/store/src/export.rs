//! The learner's record as the portable exports want it (`devcoach export`): the rows only;
//! the formats are core's (`devcoach_core::export`).

use std::collections::HashSet;

use devcoach_core::export::{Event, FeedbackEvent, LessonEvent, ReviewEvent, in_time, other_events};
use devcoach_core::lesson::Feedback;
use devcoach_core::time::iso_ms;
use devcoach_core::time::parse_timestamp;
use rusqlite::OptionalExtension;

use crate::{Result, Store};

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

    /// What an xAPI export tells, in time order, handed to `f` as it is read: the lessons come
    /// one row at a time (a long record is never held); answers, checks and reviews (as many as
    /// the learner gave) are read first and merged in.
    pub fn xapi_events<T>(&self, f: impl FnOnce(&mut dyn Iterator<Item = Event>) -> T) -> Result<T> {
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
        let mut stmt =
            conn.prepare_cached("SELECT id, title, topic_id, timestamp FROM lessons ORDER BY timestamp, id")?;
        let mut failed = None;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?))
        })?;
        let lessons = rows.map_while(|row| match row {
            Ok(row) => Some(row),
            Err(e) => {
                failed = Some(e);
                None
            }
        });
        let lessons = lessons.filter_map(|(id, title, topic, at)| {
            parse_timestamp(&at).ok().map(|at| LessonEvent { id, title, topic, at })
        });
        let answer = f(&mut in_time(lessons, others));
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(answer),
        }
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
        let streamed: Vec<_> =
            store.xapi_events(|events| events.map(|e| xapi_statement(&actor, &e)).collect()).expect("stream");
        assert_eq!(streamed.len(), whole.len());
        assert_eq!(streamed, whole);
    }
}
