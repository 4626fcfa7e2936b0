//! The learner's record as the portable exports want it (`devcoach export`): the rows only;
//! the formats are core's (`devcoach_core::export`).

use std::collections::{HashMap, HashSet};

use devcoach_core::export::{FeedbackEvent, LessonEvent, Record, ReviewEvent};
use devcoach_core::lesson::Feedback;
use devcoach_core::time::iso_ms;
use devcoach_core::time::parse_timestamp;

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

    /// Lessons (the learner's own and shared ones), their answers as given over time, checked
    /// answers and reviews.
    pub fn learning_record(&self) -> Result<Record> {
        let mut record = Record::default();
        let mut stmt =
            self.conn().prepare_cached("SELECT id, title, topic_id, timestamp FROM lessons ORDER BY timestamp, id")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?))
        })?;
        let mut topics: HashMap<String, String> = HashMap::new();
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
