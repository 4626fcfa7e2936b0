//! Storing what someone shared: one lesson (under the sender's id when free) or a legacy export.

use chrono::{DateTime, Utc};
use devcoach_core::Lesson;
use devcoach_core::share::{SharedInput, SharedLesson};
use devcoach_core::time::lesson_stamp;
use serde_json::Value;

use crate::lessons::{ImportCounts, insert_if_absent};
use crate::{Result, Store, knowledge};

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOutcome {
    /// True for a shared lesson, false for a lessons export.
    pub shared: bool,
    pub counts: ImportCounts,
    /// The stored (or already present) shared lesson.
    pub lesson: Option<Lesson>,
    /// Whether the lesson's topic is on the knowledge map (shared lessons only).
    pub topic_tracked: Option<bool>,
    /// The share is of the learner's own lesson, made in this store: nothing was imported.
    pub own: bool,
}

impl Store {
    /// Stores a shared lesson: under the sender's id when free, else the first free
    /// `-shared`/`-shared-N` id; the same share imported again is reported as a duplicate.
    /// Never touches pacing. The lesson gets its review card in the same transaction.
    pub fn import_shared(&mut self, payload: &SharedLesson, now: DateTime<Utc>) -> Result<ImportOutcome> {
        // The sender's topic read under this map's topic rule (a share from a build without it
        // may say `Rust`): the lesson then lands on the learner's own topic.
        let mut payload = payload.clone();
        if let Ok(id) = devcoach_core::knowledge::topic_id(&payload.topic_id) {
            payload.topic_id = id;
        }
        let payload = &payload;
        self.write(|tx| {
            let tracked = knowledge::confidence(tx, &payload.topic_id)?.is_some();
            let outcome = |counts: ImportCounts, lesson| ImportOutcome {
                shared: true,
                counts,
                lesson,
                topic_tracked: Some(tracked),
                own: false,
            };
            for id in payload.id_candidates() {
                match crate::lessons::lesson_by_id(tx, &id)? {
                    Some(existing) if payload.is_own(&existing) => {
                        let counts = ImportCounts { duplicated: 1, ..ImportCounts::default() };
                        return Ok(ImportOutcome { own: true, ..outcome(counts, Some(existing)) });
                    }
                    Some(existing) if payload.is_same_as(&existing) => {
                        return Ok(outcome(ImportCounts { duplicated: 1, ..ImportCounts::default() }, Some(existing)));
                    }
                    Some(_) => {}
                    None => {
                        let lesson = payload.clone().into_lesson(id, lesson_stamp(now));
                        if insert_if_absent(tx, &lesson)? {
                            // Its review card comes with it, as with a lesson taught here.
                            crate::reviews::add_derived_card(tx, &lesson, now)?;
                            return Ok(outcome(ImportCounts { inserted: 1, ..ImportCounts::default() }, Some(lesson)));
                        }
                    }
                }
            }
            Ok(outcome(ImportCounts { invalid: 1, ..ImportCounts::default() }, None))
        })
    }

    /// Imports whatever [`devcoach_core::share::parse_shared_input`] read.
    pub fn import_input(&mut self, input: SharedInput, now: DateTime<Utc>) -> Result<ImportOutcome> {
        match input {
            SharedInput::Shared(payload) => self.import_shared(&payload, now),
            SharedInput::Lessons(records) => Ok(ImportOutcome {
                shared: false,
                counts: self.import_lessons(&records as &[Value], now)?,
                lesson: None,
                topic_tracked: None,
                own: false,
            }),
        }
    }
}
