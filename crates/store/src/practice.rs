//! A finished practice session as devcoach keeps it: a lesson card (category `practice`) with
//! its review card, and evidence on every topic the problem exercised, in one transaction.

use chrono::{DateTime, Utc};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::knowledge_model::{Observation, PracticeResult};
use devcoach_core::lesson::{Lesson, NewLesson};

use crate::knowledge::Because;
use crate::{Result, Store};

/// `ext_lesson_kinds` kinds of a practice session's card, finished or left to resume.
pub(crate) const PRACTICE: &str = "practice";
pub(crate) const PRACTICE_UNFINISHED: &str = "practice-unfinished";

impl Store {
    /// Saves the session's lesson and feeds `result` (if the session says anything about the
    /// learner) to the knowledge model for each of `topics`, written back to the map's
    /// confidence where the topic is on it. Only a finished session's card gets a review card:
    /// an unfinished one (kind `practice-unfinished`) holds nothing to recall yet.
    pub fn record_practice(
        &mut self,
        new: NewLesson,
        topics: &[String],
        result: Option<PracticeResult>,
        finished: bool,
        now: DateTime<Utc>,
    ) -> Result<Lesson> {
        self.write(|tx| {
            let lesson = new.into_lesson(now);
            crate::lessons::insert_or_replace(tx, &lesson)?;
            // A practice card is not a taught lesson: it spends none of the lesson budget.
            let kind = if finished { PRACTICE } else { PRACTICE_UNFINISHED };
            tx.prepare_cached("INSERT OR REPLACE INTO ext_lesson_kinds (lesson_id, kind) VALUES (?1, ?2)")?
                .execute([lesson.id.as_str(), kind])?;
            if finished {
                crate::reviews::add_derived_card(tx, &lesson, now)?;
            } else {
                // A card an older build gave it, never reviewed, goes.
                tx.prepare_cached("DELETE FROM ext_review_cards WHERE lesson_id = ?1 AND reps = 0")?
                    .execute([&lesson.id])?;
            }
            let why = Because { cause: EvidenceCause::Practice, lesson_id: Some(lesson.id.as_str()), detail: None };
            if let Some(result) = result {
                for topic in topics {
                    crate::topic_model::observe_item(
                        tx,
                        topic,
                        &lesson.id,
                        Observation::Practice(result),
                        Some(&why),
                        now,
                    )?;
                }
            }
            Ok(lesson)
        })
    }
}
