//! The knowledge model's state per topic (`ext_topic_model`, our own table), updated by every
//! evidence source in the transaction that records the evidence.

use chrono::{DateTime, Utc};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::fsrs::{Memory, Scheduler};
use devcoach_core::knowledge_model::{self, Direction, Observation, TopicState, Weight};
use devcoach_core::time::{iso_ms, parse_timestamp};
use rusqlite::{Connection, OptionalExtension, params};

use crate::knowledge::{self, Because};
use crate::{Result, Store};

/// The model's estimate for one topic: shown beside the learner's confidence, never written
/// over it.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicEstimate {
    pub topic: String,
    /// The probability the learner recalls it now (learned, and not forgotten since).
    pub known_now: f64,
    /// `known_now` on the 0–10 scale.
    pub confidence_now: i64,
    /// Bayesian knowledge tracing's mastery: the probability it was ever learned, before
    /// forgetting.
    pub mastery: f64,
    /// Pieces of evidence behind it, as a learner counts them: `checked + self_reported + other`
    /// (a lesson once a day in each kind, so a replay is not another piece).
    pub evidence: i64,
    /// Answers the agent checked, the learner's own reports (lesson feedback, reviews they graded
    /// themselves), and the rest (ratings, course checks, practice).
    pub checked: i64,
    pub self_reported: i64,
    pub other: i64,
    pub last_evidence: String,
}

/// A topic where the model reads differently from the learner's own number.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateApart {
    /// The learner's own confidence on the map.
    pub confidence: i64,
    pub estimate: TopicEstimate,
}

fn load(conn: &Connection, topic: &str) -> rusqlite::Result<Option<TopicState>> {
    conn.prepare_cached(
        "SELECT learned, stability, difficulty, last_at, evidence FROM ext_topic_model WHERE topic = ?1",
    )?
    .query_row([topic], |r| {
        Ok((r.get::<_, f64>(0)?, r.get::<_, f64>(1)?, r.get::<_, f64>(2)?, r.get::<_, String>(3)?, r.get::<_, i64>(4)?))
    })
    .optional()
    .map(|row| {
        row.and_then(|(learned, stability, difficulty, last_at, evidence)| {
            let last_at = parse_timestamp(&last_at).ok()?;
            Some(TopicState { learned, memory: Memory { stability, difficulty }, last_at, evidence })
        })
    })
}

/// The state the topic's model starts an event from: its own, or (for a topic it has not seen)
/// its rating on the map, if it has one.
fn prior(conn: &Connection, topic: &str, now: DateTime<Utc>) -> rusqlite::Result<Option<TopicState>> {
    if let Some(state) = load(conn, topic)? {
        return Ok(Some(state));
    }
    Ok(knowledge::confidence(conn, topic)?
        .map(|rated| TopicState::start(Observation::Assessment(rated), now, &Scheduler::default())))
}

fn after(prior: Option<TopicState>, o: Observation, now: DateTime<Utc>) -> TopicState {
    let scheduler = Scheduler::default();
    match prior {
        Some(state) => state.observe(o, now, &scheduler),
        None => TopicState::start(o, now, &scheduler),
    }
}

fn save(conn: &Connection, topic: &str, state: &TopicState) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO ext_topic_model (topic, learned, stability, difficulty, last_at, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT (topic) DO UPDATE SET learned = excluded.learned, stability = excluded.stability, \
         difficulty = excluded.difficulty, last_at = excluded.last_at, evidence = excluded.evidence",
    )?
    .execute(params![topic, state.learned, state.memory.stability, state.memory.difficulty, iso_ms(state.last_at), state.evidence])?;
    Ok(())
}

/// Feeds a rating to the topic's model (a rating is no item's event: it resets the estimate,
/// and counts as one more piece of evidence).
pub(crate) fn observe(conn: &Connection, topic: &str, o: Observation, now: DateTime<Utc>) -> rusqlite::Result<()> {
    let state = after(load(conn, topic)?, o, now);
    save(conn, topic, &state)
}

/// How long one item's move on the map lasts: the daily limit's rolling day.
pub(crate) fn day_ago(now: DateTime<Utc>) -> String {
    iso_ms(devcoach_core::rate_limit::day_window_start(now))
}

/// The evidence count a move records when the topic had no model state (a withdrawn first move).
const NO_MODEL: i64 = -1;

/// One item's move of the day on a topic (`ext_model_moves`).
struct Move {
    weight: i64,
    step: i64,
    after_evidence: i64,
    before: Option<TopicState>,
}

fn weight_rank(o: Observation) -> i64 {
    match o.weight() {
        None | Some(Weight::SelfReport) => 0,
        Some(Weight::Observed) => 1,
        Some(Weight::Checked) => 2,
    }
}

fn load_move(conn: &Connection, item: &str, topic: &str, now: DateTime<Utc>) -> rusqlite::Result<Option<Move>> {
    conn.prepare_cached(
        "SELECT weight, step, after_evidence, learned, stability, difficulty, last_at, evidence FROM ext_model_moves \
         WHERE item = ?1 AND topic = ?2 AND opened_at > ?3",
    )?
    .query_row(params![item, topic, day_ago(now)], |r| {
        let before = match (
            r.get::<_, Option<f64>>(3)?,
            r.get::<_, Option<f64>>(4)?,
            r.get::<_, Option<f64>>(5)?,
            r.get::<_, Option<String>>(6)?,
            r.get::<_, Option<i64>>(7)?,
        ) {
            (Some(learned), Some(stability), Some(difficulty), Some(last_at), Some(evidence)) => {
                parse_timestamp(&last_at).ok().map(|last_at| TopicState {
                    learned,
                    memory: Memory { stability, difficulty },
                    last_at,
                    evidence,
                })
            }
            _ => None,
        };
        Ok(Move { weight: r.get(0)?, step: r.get(1)?, after_evidence: r.get(2)?, before })
    })
    .optional()
}

fn save_move(
    conn: &Connection,
    item: &str,
    topic: &str,
    m: &Move,
    opened_at: Option<DateTime<Utc>>,
) -> rusqlite::Result<()> {
    let b = m.before.as_ref();
    match opened_at {
        Some(at) => {
            // A new day's move: yesterday's rows of every item have served.
            conn.prepare_cached("DELETE FROM ext_model_moves WHERE opened_at <= ?1")?.execute([day_ago(at)])?;
            conn.prepare_cached(
                "INSERT OR REPLACE INTO ext_model_moves (item, topic, opened_at, weight, step, after_evidence, \
                 learned, stability, difficulty, last_at, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![
                item,
                topic,
                iso_ms(at),
                m.weight,
                m.step,
                m.after_evidence,
                b.map(|s| s.learned),
                b.map(|s| s.memory.stability),
                b.map(|s| s.memory.difficulty),
                b.map(|s| iso_ms(s.last_at)),
                b.map(|s| s.evidence)
            ])?;
        }
        None => {
            conn.prepare_cached(
                "UPDATE ext_model_moves SET weight = ?3, step = ?4, after_evidence = ?5 WHERE item = ?1 AND topic = ?2",
            )?
            .execute(params![item, topic, m.weight, m.step, m.after_evidence])?;
        }
    }
    Ok(())
}

/// What became of one event on the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counted {
    /// The item's first event of the day: it moved the map.
    Moved,
    /// An event at least as strong on an item that had moved the map today: its move replaced
    /// the earlier one (a checked answer after the learner's own word, a corrected misclick).
    Replaced,
    /// A weaker event on an item that had moved the map today, or one after another item moved
    /// the topic: the event is logged and changes nothing.
    Logged,
}

/// Feeds one event on `item` (a lesson or its card, a course step, a practice card) to the
/// topic's model. An item moves the map at most once a day, whatever is sent: its first event
/// moves it; a later event that day replaces that move when it is at least as strong (checked
/// over observed over self-report: the latest word of a kind counts, so a corrected misclick or
/// a second, better explanation is read, and a replay replaces a move with itself) and nothing
/// else has touched the topic since, and is only logged otherwise. With `why`, the shared confidence (for a topic on the map) moves at most one
/// step toward the model's estimate in the event's own direction
/// ([`knowledge_model::step_toward`]), and the evidence log gets a row either way.
pub(crate) fn observe_item(
    conn: &Connection,
    topic: &str,
    item: &str,
    o: Observation,
    why: Option<&Because<'_>>,
    now: DateTime<Utc>,
) -> rusqlite::Result<Counted> {
    let weight = weight_rank(o);
    let current = knowledge::confidence(conn, topic)?;
    let (counted, before, base) = match load_move(conn, item, topic, now)? {
        None => (Counted::Moved, prior(conn, topic, now)?, current),
        Some(m) => {
            let untouched = load(conn, topic)?.map_or(NO_MODEL, |s| s.evidence) == m.after_evidence;
            if weight < m.weight || !untouched {
                if let Some(why) = why {
                    knowledge::log_unchanged(conn, topic, why, now)?;
                }
                return Ok(Counted::Logged);
            }
            let before = match m.before {
                Some(state) => Some(state),
                None => {
                    current.map(|c| TopicState::start(Observation::Assessment(c - m.step), now, &Scheduler::default()))
                }
            };
            (Counted::Replaced, before, current.map(|c| c - m.step))
        }
    };
    let state = after(before, o, now);
    save(conn, topic, &state)?;
    // What this item's moves added to the number today: an event that does not move the number
    // itself (feedback keeps the original's rule) leaves an earlier event's step standing.
    let mut step = if why.is_none() && counted == Counted::Replaced { base_step(current, base) } else { 0 };
    if let Some(why) = why {
        match (current, base, o.direction()) {
            (Some(current), Some(base), Some(direction)) => {
                let estimate = knowledge_model::confidence(state.now(now, &Scheduler::default()));
                let mut next = knowledge_model::step_toward(base, estimate, direction);
                // A replacement undoes the earlier move and takes its own, but never against
                // its own direction: other writers (feedback's rule, a nudge) may have moved the
                // number since, and a replayed miss must not raise it.
                if counted == Counted::Replaced {
                    next = match direction {
                        Direction::Up => next.max(current),
                        Direction::Down => next.min(current),
                    };
                }
                step = next - base;
                if next == current {
                    knowledge::log_unchanged(conn, topic, why, now)?;
                } else {
                    knowledge::write_confidence(conn, topic, next, why, now)?;
                }
            }
            (Some(current), Some(base), None) if base != current => {
                knowledge::write_confidence(conn, topic, base, why, now)?;
            }
            _ => knowledge::log_unchanged(conn, topic, why, now)?,
        }
    }
    let m = Move { weight, step, after_evidence: state.evidence, before };
    save_move(conn, item, topic, &m, (counted == Counted::Moved).then_some(now))?;
    Ok(counted)
}

/// Takes back a lesson's feedback on the model: a cleared answer ("I knew that", then cleared)
/// is a word withdrawn, so when that feedback is the lesson's standing move of the day (the
/// latest of its kind, nothing stronger replaced it, nothing else touched the topic since) the
/// model goes back to where it stood before the day's first move. The number keeps what the
/// day's events did to it by their own rules. After the day, or past another event, what was
/// said stays read.
pub(crate) fn withdraw_feedback(
    conn: &Connection,
    topic: &str,
    lesson: &str,
    now: DateTime<Utc>,
) -> rusqlite::Result<bool> {
    let Some(m) = load_move(conn, lesson, topic, now)? else { return Ok(false) };
    let untouched = load(conn, topic)?.map_or(NO_MODEL, |s| s.evidence) == m.after_evidence;
    // The lesson's latest event is what stands: the feedback, not a review graded after it.
    let latest: Option<String> = conn
        .prepare_cached(
            "SELECT cause FROM ext_evidence WHERE topic = ?1 AND lesson_id = ?2 ORDER BY at DESC, id DESC LIMIT 1",
        )?
        .query_row(params![topic, lesson], |r| r.get(0))
        .optional()?;
    if m.weight != 0 || !untouched || latest.as_deref() != Some("feedback") {
        return Ok(false);
    }
    match &m.before {
        Some(state) => save(conn, topic, state)?,
        None => {
            conn.prepare_cached("DELETE FROM ext_topic_model WHERE topic = ?1")?.execute([topic])?;
        }
    }
    // The move stays, standing for nothing: the next event on the lesson today replaces it
    // (from the same state, and the number from where it stood before the day's first step).
    let evidence = m.before.as_ref().map_or(NO_MODEL, |s| s.evidence);
    conn.prepare_cached("UPDATE ext_model_moves SET weight = -1, after_evidence = ?3 WHERE item = ?1 AND topic = ?2")?
        .execute(params![lesson, topic, evidence])?;
    Ok(true)
}

/// The step an item's earlier move left on the number (`current` less where it stood before).
fn base_step(current: Option<i64>, base: Option<i64>) -> i64 {
    match (current, base) {
        (Some(c), Some(b)) => c - b,
        _ => 0,
    }
}

/// Whether a confidence written for `cause` is a rating (which resets the model).
pub(crate) fn is_rating(cause: EvidenceCause) -> bool {
    matches!(cause, EvidenceCause::Manual | EvidenceCause::Onboarding | EvidenceCause::Restore)
}

impl Store {
    /// The model's estimate for every topic it has evidence on, weakest first.
    /// The topics on the learner's map whose estimate now differs from their own number.
    pub fn estimates_apart(&self, now: DateTime<Utc>) -> Result<Vec<EstimateApart>> {
        let own: std::collections::HashMap<String, i64> =
            self.profile()?.knowledge.into_iter().map(|k| (k.topic, k.confidence)).collect();
        Ok(self
            .topic_estimates(now)?
            .into_iter()
            .filter_map(|estimate| {
                let confidence = *own.get(&estimate.topic)?;
                (confidence != estimate.confidence_now).then_some(EstimateApart { confidence, estimate })
            })
            .collect())
    }

    pub fn topic_estimates(&self, now: DateTime<Utc>) -> Result<Vec<TopicEstimate>> {
        let scheduler = Scheduler::default();
        let mut stmt = self.conn().prepare_cached("SELECT topic FROM ext_topic_model ORDER BY topic")?;
        let topics: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        let basis = crate::evidence::basis_by_topic(self.conn())?;
        let mut out = Vec::with_capacity(topics.len());
        for topic in topics {
            if let Some(state) = load(self.conn(), &topic)? {
                let known_now = state.now(now, &scheduler);
                let (checked, self_reported, other) = basis.get(&topic).copied().unwrap_or_default();
                out.push(TopicEstimate {
                    topic,
                    known_now,
                    confidence_now: knowledge_model::confidence(known_now),
                    mastery: state.learned,
                    evidence: checked + self_reported + other,
                    checked,
                    self_reported,
                    other,
                    last_evidence: iso_ms(state.last_at),
                });
            }
        }
        out.sort_by(|a, b| a.known_now.total_cmp(&b.known_now).then_with(|| a.topic.cmp(&b.topic)));
        Ok(out)
    }
}
