//! Writes that keep a lesson, its review card and pacing together: saving a taught lesson,
//! importing lesson records, deleting. Above `lessons` (the rows), `reviews` (the cards) and
//! `cue_state` (pacing), so none of those needs the others' writes.

use chrono::{DateTime, Utc};
use devcoach_core::git::{GitContext, UsageDefaults, resolve_context};
use devcoach_core::lesson::NewLesson;
use devcoach_core::review::CardText;
use devcoach_core::{Lesson, knowledge};
use serde_json::Value;

use crate::lessons::{ImportCounts, insert_if_absent, insert_or_replace, usage_defaults};
use crate::{Result, Store, cue_state, reviews};

impl Store {
    /// Saves a lesson the agent just taught (`log_lesson`): stamped `now`, its context filled from
    /// the arguments, then `git`, then the most-used values of the learner's own lessons; with its
    /// review card (the agent's question and answer when given, else one derived from the lesson;
    /// an existing card is kept). Saving resolves any pending cue and restarts pacing. The same
    /// id overwrites.
    pub fn log_lesson(
        &mut self,
        new: NewLesson,
        review: Option<&CardText>,
        git: &GitContext,
        now: DateTime<Utc>,
    ) -> Result<Lesson> {
        // The lesson's topic follows the map's one topic rule, so the two always match.
        let new = NewLesson { topic_id: knowledge::topic_id(&new.topic_id)?, ..new };
        self.write(|tx| {
            // Only scan for the learner's usual values when the arguments and git leave a gap.
            let c = &new.context;
            let complete = (c.git.project.is_some() || git.project.is_some())
                && (c.git.repository.is_some() || git.repository.is_some())
                && (c.git.branch.is_some() || git.branch.is_some())
                && (c.git.repository_platform.is_some() || git.repository_platform.is_some());
            let usage = if complete { UsageDefaults::default() } else { usage_defaults(tx)? };
            let context = resolve_context(new.context.clone(), git, &usage);
            let lesson = NewLesson { context, ..new }.into_lesson(now);
            insert_or_replace(tx, &lesson)?;
            match review {
                Some(text) => reviews::put_card(tx, &lesson.id, text, &lesson.timestamp, now)?,
                None => reviews::add_derived_card(tx, &lesson, now)?,
            }
            cue_state::reset_nudge(tx)?;
            Ok(lesson)
        })
    }

    /// True when a lesson was deleted.
    pub fn delete_lesson(&mut self, id: &str) -> Result<bool> {
        self.write(|tx| {
            reviews::forget_card(tx, id)?;
            Ok(tx.execute("DELETE FROM lessons WHERE id = ?1", [id])? > 0)
        })
    }

    /// Deletes several lessons in one transaction; returns how many existed.
    pub fn delete_lessons(&mut self, ids: &[String]) -> Result<usize> {
        self.write(|tx| {
            let mut stmt = tx.prepare_cached("DELETE FROM lessons WHERE id = ?1")?;
            let mut n = 0;
            for id in ids {
                reviews::forget_card(tx, id)?;
                n += stmt.execute([id])?;
            }
            Ok(n)
        })
    }

    /// Imports lesson records (a legacy JSON export or a backup's `lessons.json`): each is
    /// validated, then inserted unless its id exists. Never touches pacing.
    pub fn import_lessons(&mut self, records: &[Value], now: DateTime<Utc>) -> Result<ImportCounts> {
        self.write(|tx| {
            let mut counts = ImportCounts::default();
            for record in records {
                match Lesson::from_record(record, now) {
                    Ok(l) if insert_if_absent(tx, &l)? => {
                        reviews::add_derived_card(tx, &l, now)?;
                        counts.inserted += 1;
                    }
                    Ok(_) => counts.duplicated += 1,
                    Err(_) => counts.invalid += 1,
                }
            }
            Ok(counts)
        })
    }
}
