//! A finished practice session as devcoach keeps it: a lesson card (category `practice`) with
//! its review card, and evidence on every topic the problem exercised, in one transaction.

use chrono::{DateTime, Utc};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::handson::{self, HandsOn, HandsOnTotals};
use devcoach_core::knowledge_model::{Observation, PracticeResult};
use devcoach_core::lesson::{Lesson, NewLesson};

use crate::knowledge::Because;
use crate::{Result, Store};

/// `ext_lesson_kinds` kinds of a practice session's card, finished or left to resume.
pub(crate) const PRACTICE: &str = "practice";
pub(crate) const PRACTICE_UNFINISHED: &str = "practice-unfinished";
/// `ext_settings` keys (this machine's pacing, not synced): the last hands-on offer, the
/// learner's last "not now" to one, and the last look at a project for one.
const HANDSON_OFFERED: &str = "handson_offered";
const HANDSON_NOT_NOW: &str = "handson_not_now";
const HANDSON_LOOKED: &str = "handson_looked";

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
        self.write(|tx| practice_in(tx, new, topics, result, finished, now))
    }

    /// A hands-on exercise's card, as [`Store::record_practice`] saves a practice session's,
    /// with what the exercise came to (`ext_handson`), in the same transaction.
    pub fn record_handson(
        &mut self,
        new: NewLesson,
        topic: &str,
        handson: &HandsOn,
        now: DateTime<Utc>,
    ) -> Result<Lesson> {
        self.write(|tx| {
            let lesson = practice_in(tx, new, &[topic.to_owned()], handson.result, handson.finished(), now)?;
            let result = handson.result.map_or("unfinished", PracticeResult::as_str);
            tx.prepare_cached(
                "INSERT OR REPLACE INTO ext_handson (lesson_id, language, result, checks, hints, at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(rusqlite::params![
                lesson.id.as_str(),
                handson.language,
                result,
                handson.checks,
                handson.hints,
                devcoach_core::time::iso_ms(now)
            ])?;
            Ok(lesson)
        })
    }

    /// Whether an exercise may be offered after a lesson now ([`handson::offer_due`]).
    pub fn handson_offer_due(&self, now: DateTime<Utc>) -> Result<bool> {
        let conn = self.conn();
        let at = |key: &str| -> Option<DateTime<Utc>> {
            let text = crate::settings::read_setting(conn, key).ok().flatten()?;
            devcoach_core::time::parse_timestamp(&text).ok()
        };
        let course: bool =
            conn.query_row("SELECT EXISTS (SELECT 1 FROM courses WHERE status = 'active')", [], |r| r.get(0))?;
        let times = handson::OfferTimes {
            offered: at(HANDSON_OFFERED),
            not_now: at(HANDSON_NOT_NOW),
            looked: at(HANDSON_LOOKED),
        };
        Ok(handson::offer_due(times, course, now))
    }

    /// The project was looked at for an exercise to offer: the next look waits an hour.
    pub fn note_handson_looked(&mut self, now: DateTime<Utc>) -> Result<()> {
        self.write(|tx| Ok(crate::settings::write_setting(tx, HANDSON_LOOKED, &devcoach_core::time::iso_ms(now))?))
    }

    /// An exercise was offered (or started) now: the next offer waits a day.
    pub fn note_handson_offered(&mut self, now: DateTime<Utc>) -> Result<()> {
        self.write(|tx| Ok(crate::settings::write_setting(tx, HANDSON_OFFERED, &devcoach_core::time::iso_ms(now))?))
    }

    /// The learner said "not now" to an offered exercise: no offer for a week.
    pub fn handson_not_now(&mut self, now: DateTime<Utc>) -> Result<()> {
        self.write(|tx| Ok(crate::settings::write_setting(tx, HANDSON_NOT_NOW, &devcoach_core::time::iso_ms(now))?))
    }

    /// The hands-on figures over the exercises whose cards are still kept.
    pub fn handson_totals(&self) -> Result<HandsOnTotals> {
        let row = self.conn().query_row(
            "SELECT count(*), \
                    coalesce(sum(h.result = 'alone'), 0), \
                    coalesce(sum(h.result = 'helped'), 0), \
                    coalesce(sum(h.result = 'revealed'), 0), \
                    coalesce(sum(h.hints), 0), \
                    coalesce(sum(h.checks), 0) \
             FROM ext_handson h JOIN lessons l ON l.id = h.lesson_id \
             WHERE h.result IN ('alone', 'helped', 'revealed', 'unfinished')",
            [],
            |r| {
                Ok(HandsOnTotals {
                    sessions: r.get(0)?,
                    alone: r.get(1)?,
                    helped: r.get(2)?,
                    revealed: r.get(3)?,
                    hints: r.get(4)?,
                    checks: r.get(5)?,
                })
            },
        );
        match row {
            Ok(totals) => Ok(totals),
            // A database only the TypeScript build has opened read-only lacks our table.
            Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.starts_with("no such table") => {
                Ok(HandsOnTotals::default())
            }
            Err(e) => Err(e.into()),
        }
    }
}

fn practice_in(
    tx: &rusqlite::Transaction<'_>,
    new: NewLesson,
    topics: &[String],
    result: Option<PracticeResult>,
    finished: bool,
    now: DateTime<Utc>,
) -> Result<Lesson> {
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
        tx.prepare_cached("DELETE FROM ext_review_cards WHERE lesson_id = ?1 AND reps = 0")?.execute([&lesson.id])?;
    }
    let why = Because { cause: EvidenceCause::Practice, lesson_id: Some(lesson.id.as_str()), detail: None };
    if let Some(result) = result {
        for topic in topics {
            crate::topic_model::observe_item(tx, topic, &lesson.id, Observation::Practice(result), Some(&why), now)?;
        }
    }
    Ok(lesson)
}
