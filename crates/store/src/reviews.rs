//! Review cards and their log (`ext_review_cards`, `ext_review_log`) and the review settings
//! (`ext_settings`): our own tables, which the TypeScript build never reads. Cards hang off
//! lessons by id and every read joins `lessons`, so a lesson the TypeScript build deleted
//! simply has no card any more (the row is cleaned up on the next write).

use chrono::{DateTime, Utc};
use devcoach_core::checked::{Check, CheckGrade, CheckKind};
use devcoach_core::fsrs::{Grade, Memory, Parameters};
use devcoach_core::fsrs_fit::History;
use devcoach_core::review::{self, CardSource, CardText, Graded, ReviewCard, ReviewMix, ReviewSettings};
use devcoach_core::time::iso_ms;
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};

use crate::settings::{read_setting, write_setting};
use crate::{Result, Store};

const CARD_COLUMNS: &str =
    "c.lesson_id, c.question, c.answer, c.source, c.stability, c.difficulty, c.due, c.last_review, c.reps, c.lapses";

fn row_to_card(row: &Row<'_>) -> rusqlite::Result<ReviewCard> {
    let stability: Option<f64> = row.get(4)?;
    let difficulty: Option<f64> = row.get(5)?;
    Ok(ReviewCard {
        lesson_id: row.get(0)?,
        question: row.get(1)?,
        answer: row.get(2)?,
        source: CardSource::parse(&row.get::<_, String>(3)?),
        memory: stability.zip(difficulty).map(|(stability, difficulty)| Memory { stability, difficulty }),
        due: row.get(6)?,
        last_review: row.get(7)?,
        reps: row.get(8)?,
        lapses: row.get(9)?,
    })
}

/// A card's first grade of the day (`ext_review_replays`): the card before it, and its log row.
struct Replay {
    opened_at: DateTime<Utc>,
    checked: bool,
    log_id: i64,
    memory: Option<devcoach_core::fsrs::Memory>,
    due: String,
    last_review: Option<String>,
    reps: i64,
    lapses: i64,
}

impl Replay {
    /// The card as it stood before the day's first grade (its question and answer as now).
    fn card_before(&self, now: &ReviewCard) -> ReviewCard {
        ReviewCard {
            memory: self.memory,
            due: self.due.clone(),
            last_review: self.last_review.clone(),
            reps: self.reps,
            lapses: self.lapses,
            ..now.clone()
        }
    }

    /// The grade standing on the day's log row.
    fn grade(&self, conn: &Connection) -> rusqlite::Result<Option<Grade>> {
        let number: Option<i64> = conn
            .prepare_cached("SELECT grade FROM ext_review_log WHERE id = ?1")?
            .query_row([self.log_id], |r| r.get(0))
            .optional()?;
        Ok(number.and_then(Grade::from_number))
    }
}

fn load_replay(conn: &Connection, lesson_id: &str, now: DateTime<Utc>) -> rusqlite::Result<Option<Replay>> {
    let row = conn
        .prepare_cached(
            "SELECT opened_at, checked, log_id, stability, difficulty, due, last_review, reps, lapses \
             FROM ext_review_replays WHERE lesson_id = ?1 AND opened_at > ?2 AND opened_at <= ?3",
        )?
        .query_row(params![lesson_id, crate::topic_model::day_ago(now), iso_ms(now)], |r| {
            let stability: Option<f64> = r.get(3)?;
            let difficulty: Option<f64> = r.get(4)?;
            Ok((
                r.get::<_, String>(0)?,
                Replay {
                    opened_at: now,
                    checked: r.get(1)?,
                    log_id: r.get(2)?,
                    memory: stability
                        .zip(difficulty)
                        .map(|(stability, difficulty)| devcoach_core::fsrs::Memory { stability, difficulty }),
                    due: r.get(5)?,
                    last_review: r.get(6)?,
                    reps: r.get(7)?,
                    lapses: r.get(8)?,
                },
            ))
        })
        .optional()?;
    Ok(row.and_then(|(opened, replay)| {
        devcoach_core::time::parse_timestamp(&opened).ok().map(|opened_at| Replay { opened_at, ..replay })
    }))
}

fn save_replay(
    conn: &Connection,
    before: &ReviewCard,
    replay: Option<&Replay>,
    checked: bool,
    log_id: i64,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    match replay {
        Some(r) => {
            conn.prepare_cached("UPDATE ext_review_replays SET checked = ?2, log_id = ?3 WHERE lesson_id = ?1")?
                .execute(params![before.lesson_id, r.checked || checked, log_id])?;
        }
        None => {
            // Yesterday's rows of every card have served.
            conn.prepare_cached("DELETE FROM ext_review_replays WHERE opened_at <= ?1 OR opened_at > ?2")?
                .execute(params![crate::topic_model::day_ago(now), iso_ms(now)])?;
            conn.prepare_cached(
                "INSERT OR REPLACE INTO ext_review_replays (lesson_id, opened_at, checked, log_id, stability, difficulty, \
                 due, last_review, reps, lapses) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                before.lesson_id,
                iso_ms(now),
                checked,
                log_id,
                before.memory.map(|m| m.stability),
                before.memory.map(|m| m.difficulty),
                before.due,
                before.last_review,
                before.reps,
                before.lapses
            ])?;
        }
    }
    Ok(())
}

/// A card that is due, with what a reviewer needs to place it.
#[derive(Debug, Clone, PartialEq)]
pub struct DueReview {
    pub card: ReviewCard,
    pub title: String,
    pub topic: String,
    /// The predicted recall now (`None` before the first review).
    pub retrievability: Option<f64>,
}

/// A graded card: the card as it is now, and what the grade did.
#[derive(Debug, Clone, PartialEq)]
pub struct GradeOutcome {
    pub card: ReviewCard,
    pub graded: Graded,
    /// The grade the card now stands on: the one given, or the day's checked grade that a
    /// learner's own grade does not replace.
    pub grade: Grade,
    pub topic: String,
    pub counts_as: CountsAs,
}

/// What a grade did to its card: a card is reviewed once a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountsAs {
    /// The card's review of the day.
    Reviewed,
    /// It replaced the day's earlier grade of the card (a correction, or the same again).
    Replaced,
    /// A learner's own grade after the day's checked one: the checked grade stands.
    Kept,
}

impl CountsAs {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reviewed => "reviewed",
            Self::Replaced => "replaced",
            Self::Kept => "kept",
        }
    }
}

/// One row of the review log.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewRecord {
    pub lesson_id: String,
    pub grade: Grade,
    pub reviewed_at: String,
    pub elapsed_days: i64,
    pub interval_days: i64,
    /// The predicted recall just before the review (`None` for a first review).
    pub retrievability: Option<f64>,
    pub stability: f64,
    pub difficulty: f64,
}

/// What goes with a deleted lesson: its card, and the learner's words about it (their checked
/// answers). The review log stays for the scheduler's fit, out of every export.
pub(crate) fn forget_card(tx: &Transaction<'_>, lesson_id: &str) -> rusqlite::Result<()> {
    tx.prepare_cached("DELETE FROM ext_review_cards WHERE lesson_id = ?1")?.execute([lesson_id])?;
    tx.prepare_cached("DELETE FROM ext_checked_answers WHERE lesson_id = ?1")?.execute([lesson_id])?;
    Ok(())
}

/// Gives every lesson without a card a derived one, and drops cards whose lesson is gone.
fn fill_cards(tx: &Transaction<'_>, now: DateTime<Utc>) -> rusqlite::Result<usize> {
    tx.execute("DELETE FROM ext_review_cards WHERE lesson_id NOT IN (SELECT id FROM lessons)", [])?;
    let missing: Vec<(String, String, String, String, String, Option<String>)> = {
        let mut stmt = tx.prepare_cached(
            "SELECT id, timestamp, title, topic_id, summary, body FROM lessons l \
             WHERE NOT EXISTS (SELECT 1 FROM ext_review_cards c WHERE c.lesson_id = l.id) \
             AND NOT EXISTS (SELECT 1 FROM ext_lesson_kinds k WHERE k.lesson_id = l.id AND k.kind = 'practice-unfinished')",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let created = iso_ms(now);
    let mut insert = tx.prepare_cached(
        "INSERT OR IGNORE INTO ext_review_cards (lesson_id, question, answer, source, due, created_at) \
         VALUES (?1, ?2, ?3, 'derived', ?4, ?5)",
    )?;
    for (id, timestamp, title, topic, summary, body) in &missing {
        let text = CardText::derived_from(title, topic, summary, body.as_deref());
        insert.execute(params![id, text.question(), text.answer(), review::first_due(timestamp, now), created])?;
    }
    Ok(missing.len())
}

/// Sets a lesson's card text (the agent's), keeping its schedule; creates the card if needed.
pub(crate) fn put_card(
    tx: &Transaction<'_>,
    lesson_id: &str,
    text: &CardText,
    timestamp: &str,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO ext_review_cards (lesson_id, question, answer, source, due, created_at) \
         VALUES (?1, ?2, ?3, 'agent', ?4, ?5) \
         ON CONFLICT (lesson_id) DO UPDATE SET question = excluded.question, answer = excluded.answer, source = 'agent'",
    )?
    .execute(params![lesson_id, text.question(), text.answer(), review::first_due(timestamp, now), iso_ms(now)])?;
    Ok(())
}

/// A derived card for `lesson`, or its text brought up to date when it has one.
pub(crate) fn add_derived_card(
    tx: &Transaction<'_>,
    lesson: &devcoach_core::Lesson,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let text = CardText::derived(lesson);
    // A derived card's text follows its lesson (a practice card rewritten once the problem is
    // solved, a lesson logged again under its id); its schedule stays. Written cards are kept.
    tx.prepare_cached(
        "INSERT INTO ext_review_cards (lesson_id, question, answer, source, due, created_at) \
         VALUES (?1, ?2, ?3, 'derived', ?4, ?5) \
         ON CONFLICT(lesson_id) DO UPDATE SET question = excluded.question, answer = excluded.answer \
         WHERE source = 'derived' AND (question IS NOT excluded.question OR answer IS NOT excluded.answer)",
    )?
    .execute(params![
        lesson.id,
        text.question(),
        text.answer(),
        review::first_due(&lesson.timestamp, now),
        iso_ms(now)
    ])?;
    Ok(())
}

/// `ext_settings` key of the tables' signature at the last complete fill.
pub(crate) const CARDS_SIGNATURE: &str = "cards_signature";

struct Signature {
    text: String,
    top_has_card: bool,
}

fn cards_signature(conn: &Connection) -> rusqlite::Result<Signature> {
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM lessons), (SELECT COUNT(*) FROM ext_review_cards), \
         (SELECT MAX(rowid) FROM lessons), \
         COALESCE((SELECT EXISTS (SELECT 1 FROM ext_review_cards c WHERE c.lesson_id = l.id) \
                          OR EXISTS (SELECT 1 FROM ext_lesson_kinds k \
                                     WHERE k.lesson_id = l.id AND k.kind = 'practice-unfinished') \
                   FROM lessons l ORDER BY l.rowid DESC LIMIT 1), 1)",
        [],
        |r| {
            let (lessons, cards, top): (i64, i64, Option<i64>) = (r.get(0)?, r.get(1)?, r.get(2)?);
            Ok(Signature { text: format!("{lessons}:{cards}:{}", top.unwrap_or(0)), top_has_card: r.get(3)? })
        },
    )
}

/// `ext_settings` key remembering what the last cue offered (`review` or `lesson`).
pub(crate) const LAST_OFFER: &str = "review_last_offer";

/// Cards due at `now`, counted on the due index alone (see [`Store::count_due_reviews`]).
/// The one count of due cards: the cue, the queue, the reviews page and the progress page all
/// read it. A card whose lesson another program deleted does not count.
fn count_due(conn: &Connection, now: DateTime<Utc>) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT COUNT(*) FROM ext_review_cards c WHERE c.due <= ?1 \
         AND EXISTS (SELECT 1 FROM lessons l WHERE l.id = c.lesson_id)",
    )?
    .query_row([iso_ms(now)], |r| r.get(0))
}

/// For a cue that is due anyway: whether it offers a review instead of a lesson (and how many
/// cards are due), remembering the choice for the alternation. Inside the cue's transaction.
pub(crate) fn choose_offer(tx: &Transaction<'_>, now: DateTime<Utc>) -> rusqlite::Result<Option<i64>> {
    let settings = read_review_settings(tx)?;
    if settings.mix == ReviewMix::Off {
        return Ok(None);
    }
    let due = count_due(tx, now)?;
    let last_was_review = read_setting(tx, LAST_OFFER)?.as_deref() == Some("review");
    let offer = review::offer_review(settings.mix, due, last_was_review);
    write_setting(tx, LAST_OFFER, if offer { "review" } else { "lesson" })?;
    Ok(offer.then_some(due))
}

pub(crate) fn write_review_settings(conn: &Connection, settings: &ReviewSettings) -> rusqlite::Result<()> {
    write_setting(conn, "review_retention", &settings.retention.to_string())?;
    write_setting(conn, "review_mix", settings.mix.as_str())?;
    match &settings.parameters {
        Some(w) => {
            let text: Vec<String> = w.values().iter().map(f64::to_string).collect();
            write_setting(conn, "review_parameters", &text.join(","))?;
        }
        None => {
            conn.execute("DELETE FROM ext_settings WHERE key = 'review_parameters'", [])?;
        }
    }
    Ok(())
}

pub(crate) fn read_review_settings(conn: &Connection) -> rusqlite::Result<ReviewSettings> {
    let mut s = ReviewSettings::default();
    let mut stmt = conn.prepare_cached("SELECT key, value FROM ext_settings WHERE key LIKE 'review_%'")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (key, value) = row?;
        match key.as_str() {
            "review_retention" => {
                if let Some(r) = value.parse::<f64>().ok().filter(|r| (0.7..=0.99).contains(r)) {
                    s.retention = r;
                }
            }
            "review_mix" => s.mix = ReviewMix::parse(&value).unwrap_or_default(),
            // Written by a newer build with other parameters, or by hand: unreadable means defaults.
            "review_parameters" => {
                let values: Option<Vec<f64>> = value.split(',').map(|v| v.trim().parse().ok()).collect();
                s.parameters = values.and_then(|v| Parameters::new(&v).ok());
            }
            _ => {}
        }
    }
    Ok(s)
}

impl Store {
    /// Cards for every lesson that lacks one (lessons logged without a card, imported, or
    /// written by the TypeScript build); returns how many were made. Nothing on a read-only
    /// database.
    pub fn ensure_review_cards(&mut self, now: DateTime<Utc>) -> Result<usize> {
        if self.compat().is_some() {
            return Ok(0);
        }
        // Most calls find nothing to do. A signature of the tables (counts, the newest lesson's
        // rowid, whether that lesson has a card) tells without reading every row: any lesson
        // added since the last fill moves it (a new lesson always takes the highest rowid), and
        // so does a deletion.
        let signature = cards_signature(self.conn())?;
        if signature.top_has_card
            && read_setting(self.conn(), CARDS_SIGNATURE)?.as_deref() == Some(signature.text.as_str())
        {
            return Ok(0);
        }
        self.write(|tx| {
            let made = fill_cards(tx, now)?;
            let after = cards_signature(tx)?;
            write_setting(tx, CARDS_SIGNATURE, &after.text)?;
            Ok(made)
        })
    }

    /// Sets the card of a lesson from the agent's question and answer; `false` when there is no
    /// such lesson.
    pub fn set_review_card(&mut self, lesson_id: &str, text: &CardText, now: DateTime<Utc>) -> Result<bool> {
        self.write(|tx| {
            let Some(lesson) = crate::lessons::lesson_by_id(tx, lesson_id)? else { return Ok(false) };
            put_card(tx, lesson_id, text, &lesson.timestamp, now)?;
            Ok(true)
        })
    }

    /// A lesson's card.
    pub fn review_card(&self, lesson_id: &str) -> Result<Option<ReviewCard>> {
        Ok(self
            .conn()
            .prepare_cached(&format!(
                "SELECT {CARD_COLUMNS} FROM ext_review_cards c JOIN lessons l ON l.id = c.lesson_id WHERE c.lesson_id = ?1"
            ))?
            .query_row([lesson_id], row_to_card)
            .optional()?)
    }

    /// The cards due at `now`, most overdue first (at most `limit`), and how many are due.
    pub fn due_reviews(&self, now: DateTime<Utc>, limit: u32) -> Result<(Vec<DueReview>, i64)> {
        let at = iso_ms(now);
        let scheduler = read_review_settings(self.conn())?.scheduler();
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {CARD_COLUMNS}, l.title, l.topic_id FROM ext_review_cards c JOIN lessons l ON l.id = c.lesson_id \
             WHERE c.due <= ?1 ORDER BY c.due, c.lesson_id LIMIT ?2"
        ))?;
        let rows = stmt.query_map(params![at, limit], |r| {
            Ok((row_to_card(r)?, r.get::<_, String>(10)?, r.get::<_, String>(11)?))
        })?;
        let mut due = Vec::new();
        for row in rows {
            let (card, title, topic) = row?;
            let retrievability = review::retrievability(&scheduler, &card, now);
            due.push(DueReview { card, title, topic, retrievability });
        }
        let total = self.count_due_reviews(now)?;
        Ok((due, total))
    }

    /// How many cards are due at `now` (cards whose lesson is gone do not count).
    pub fn count_due_reviews(&self, now: DateTime<Utc>) -> Result<i64> {
        Ok(count_due(self.conn(), now)?)
    }

    /// Grades a lesson's card (made first if the lesson has none) and logs the review; `None`
    /// when there is no such lesson.
    pub fn grade_review(&mut self, lesson_id: &str, grade: Grade, now: DateTime<Utc>) -> Result<Option<GradeOutcome>> {
        self.grade(lesson_id, grade, None, now)
    }

    /// [`Store::grade_review`] for an answer the agent checked: the learner's words and the
    /// missing piece are kept beside the review log, and the knowledge model reads the grade
    /// as checked (stronger) evidence.
    pub fn grade_checked_review(
        &mut self,
        lesson_id: &str,
        grade: Grade,
        check: &Check,
        now: DateTime<Utc>,
    ) -> Result<Option<GradeOutcome>> {
        self.grade(lesson_id, grade, Some(check), now)
    }

    fn grade(
        &mut self,
        lesson_id: &str,
        grade: Grade,
        check: Option<&Check>,
        now: DateTime<Utc>,
    ) -> Result<Option<GradeOutcome>> {
        self.write(|tx| {
            let Some(lesson) = crate::lessons::lesson_by_id(tx, lesson_id)? else { return Ok(None) };
            let load = |tx: &Transaction<'_>| {
                tx.prepare_cached(&format!("SELECT {CARD_COLUMNS} FROM ext_review_cards c WHERE c.lesson_id = ?1"))?
                    .query_row([lesson_id], row_to_card)
                    .optional()
            };
            let card = match load(tx)? {
                Some(card) => card,
                None => {
                    add_derived_card(tx, &lesson, now)?;
                    load(tx)?.ok_or(rusqlite::Error::QueryReturnedNoRows)?
                }
            };
            let scheduler = read_review_settings(tx)?.scheduler();
            let checked = check.is_some();
            // A card is reviewed once a day: a later grade that day replaces the first (the
            // card regraded from where it stood before it, at that review's time, on the same
            // log row), unless it is weaker (the learner's own grade after a checked one).
            let replay = load_replay(tx, lesson_id, now)?;
            let (base, reviewed, kept) = match &replay {
                Some(r) => (r.card_before(&card), r.opened_at, !checked && r.checked),
                None => (card.clone(), now, false),
            };
            let standing = match (&replay, kept) {
                (Some(r), true) => r.grade(tx)?.unwrap_or(grade),
                _ => grade,
            };
            let graded = review::grade(&scheduler, &base, standing, reviewed);
            let at = iso_ms(reviewed);
            if !kept {
                let memory = graded.step.memory;
                tx.prepare_cached(
                    "UPDATE ext_review_cards SET stability = ?2, difficulty = ?3, due = ?4, last_review = ?5, reps = ?6, lapses = ?7 \
                     WHERE lesson_id = ?1",
                )?
                .execute(params![lesson_id, memory.stability, memory.difficulty, graded.due, at, graded.reps, graded.lapses])?;
                let retrievability = base.memory.map(|_| graded.step.retrievability);
                let values: [&dyn rusqlite::ToSql; 8] = [
                    &lesson_id,
                    &grade.number(),
                    &at,
                    &graded.elapsed_days,
                    &graded.step.interval,
                    &retrievability,
                    &memory.stability,
                    &memory.difficulty,
                ];
                let replaced = match &replay {
                    Some(r) => tx
                        .prepare_cached(
                            "UPDATE ext_review_log SET lesson_id = ?1, grade = ?2, reviewed_at = ?3, elapsed_days = ?4, \
                             interval_days = ?5, retrievability = ?6, stability = ?7, difficulty = ?8 WHERE id = ?9",
                        )?
                        .execute(rusqlite::params_from_iter(
                            values.iter().copied().chain(std::iter::once(&r.log_id as &dyn rusqlite::ToSql)),
                        ))?
                        > 0,
                    None => false,
                };
                if !replaced {
                    tx.prepare_cached(
                        "INSERT INTO ext_review_log (lesson_id, grade, reviewed_at, elapsed_days, interval_days, retrievability, stability, difficulty) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    )?
                    .execute(&values[..])?;
                }
                let log_id = if replaced { replay.as_ref().map_or(0, |r| r.log_id) } else { tx.last_insert_rowid() };
                save_replay(tx, &base, replay.as_ref(), checked, log_id, now)?;
            }
            if let Some(check) = check {
                let rubric = CheckGrade::of_review(grade);
                crate::checked::insert(tx, lesson_id, &lesson.topic_id, CheckKind::Review, rubric, check, &at)?;
            }
            crate::topic_model::observe_item(
                tx,
                &lesson.topic_id,
                lesson_id,
                devcoach_core::knowledge_model::Observation::Review { grade, checked: check.is_some() },
                Some(&crate::knowledge::Because {
                    cause: devcoach_core::evidence::EvidenceCause::Review,
                    lesson_id: Some(lesson_id),
                    detail: Some(grade.as_str()),
                }),
                now,
            )?;
            // A review answers a cue as a lesson does: pacing starts over.
            crate::cue_state::reset_nudge(tx)?;
            let card = load(tx)?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            let counts_as = match (&replay, kept) {
                (None, _) => CountsAs::Reviewed,
                (Some(_), false) => CountsAs::Replaced,
                (Some(_), true) => CountsAs::Kept,
            };
            Ok(Some(GradeOutcome { card, graded, grade: standing, topic: lesson.topic_id, counts_as }))
        })
    }

    /// Every card with its lesson's topic, in lesson order (oldest first).
    pub fn all_review_cards(&self) -> Result<Vec<(ReviewCard, String)>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {CARD_COLUMNS}, l.topic_id FROM ext_review_cards c JOIN lessons l ON l.id = c.lesson_id ORDER BY l.timestamp, l.id"
        ))?;
        let rows = stmt.query_map([], |r| Ok((row_to_card(r)?, r.get::<_, String>(10)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many cards fall due on each day (`YYYY-MM-DD`) before `until`; overdue cards count on
    /// the day they fell due.
    pub fn due_by_day(&self, until: DateTime<Utc>) -> Result<Vec<(String, i64)>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT substr(c.due, 1, 10) AS day, COUNT(*) FROM ext_review_cards c \
             WHERE c.due < ?1 AND EXISTS (SELECT 1 FROM lessons l WHERE l.id = c.lesson_id) GROUP BY day ORDER BY day",
        )?;
        let rows = stmt.query_map([iso_ms(until)], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every card's reviews in order, as the parameter fit reads them.
    pub fn review_histories(&self) -> Result<Vec<History>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT lesson_id, elapsed_days, grade FROM ext_review_log ORDER BY lesson_id, reviewed_at, id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)))?;
        let mut out: Vec<History> = Vec::new();
        let mut current: Option<String> = None;
        for row in rows {
            let (card, elapsed, grade) = row?;
            let Some(grade) = Grade::from_number(grade) else { continue };
            if current.as_deref() != Some(card.as_str()) {
                out.push(Vec::new());
                current = Some(card);
            }
            if let Some(h) = out.last_mut() {
                h.push((u32::try_from(elapsed.max(0)).unwrap_or(u32::MAX), grade));
            }
        }
        Ok(out)
    }

    /// The reviews of the thirty days around `now`, the cards coming due, and how predicted
    /// recall compared with what was recalled; `None` when there has never been a review and
    /// nothing is due.
    pub fn review_activity(&self, now: DateTime<Utc>) -> Result<Option<devcoach_core::review::ReviewActivity>> {
        let log = self.review_log()?;
        let due = self.due_by_day(now + chrono::Duration::days(30))?;
        if log.is_empty() && due.is_empty() {
            return Ok(None);
        }
        // The same count the reviews page and the cue show.
        let due_now = self.count_due_reviews(now)?;
        let marks = log.iter().map(|r| (r.reviewed_at.as_str(), r.retrievability, r.grade.recalled()));
        Ok(Some(devcoach_core::review::activity(marks, &due, due_now, now.date_naive())))
    }

    /// Every review, oldest first.
    pub fn review_log(&self) -> Result<Vec<ReviewRecord>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT lesson_id, grade, reviewed_at, elapsed_days, interval_days, retrievability, stability, difficulty \
             FROM ext_review_log ORDER BY reviewed_at, id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, Option<f64>>(5)?,
                r.get::<_, f64>(6)?,
                r.get::<_, f64>(7)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (lesson_id, grade, reviewed_at, elapsed_days, interval_days, retrievability, stability, difficulty) =
                row?;
            if let Some(grade) = Grade::from_number(grade) {
                out.push(ReviewRecord {
                    lesson_id,
                    grade,
                    reviewed_at,
                    elapsed_days,
                    interval_days,
                    retrievability,
                    stability,
                    difficulty,
                });
            }
        }
        Ok(out)
    }

    pub fn review_settings(&self) -> Result<ReviewSettings> {
        Ok(read_review_settings(self.conn())?)
    }

    /// Stores the review settings.
    pub fn set_review_settings(&mut self, settings: &ReviewSettings) -> Result<()> {
        self.write(|tx| Ok(write_review_settings(tx, settings)?))
    }
}
