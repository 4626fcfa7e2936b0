//! The knowledge model's state per topic (`ext_topic_model`, our own table), updated by every
//! evidence source in the transaction that records the evidence.

use chrono::{DateTime, Utc};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::fsrs::{Memory, Scheduler};
use devcoach_core::knowledge_model::{self, Observation, TopicState};
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
    /// Pieces of evidence behind it.
    pub evidence: i64,
    /// Of which: answers the agent checked, and the learner's own reports (lesson feedback,
    /// reviews they graded themselves). The rest are ratings, course checks and practice.
    pub checked: i64,
    pub self_reported: i64,
    pub last_evidence: String,
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

/// Feeds one observation to the topic's model; returns the new state.
pub(crate) fn observe(
    conn: &Connection,
    topic: &str,
    o: Observation,
    now: DateTime<Utc>,
) -> rusqlite::Result<TopicState> {
    let scheduler = Scheduler::default();
    let state = match load(conn, topic)? {
        Some(state) => state.observe(o, now, &scheduler),
        None => {
            // A topic the model has not seen starts from its rating on the map, if it has one.
            match (o, knowledge::confidence(conn, topic)?) {
                (Observation::Assessment(_), _) | (_, None) => TopicState::start(o, now, &scheduler),
                (_, Some(rated)) => {
                    TopicState::start(Observation::Assessment(rated), now, &scheduler).observe(o, now, &scheduler)
                }
            }
        }
    };
    conn.prepare_cached(
        "INSERT INTO ext_topic_model (topic, learned, stability, difficulty, last_at, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT (topic) DO UPDATE SET learned = excluded.learned, stability = excluded.stability, \
         difficulty = excluded.difficulty, last_at = excluded.last_at, evidence = excluded.evidence",
    )?
    .execute(params![topic, state.learned, state.memory.stability, state.memory.difficulty, iso_ms(state.last_at), state.evidence])?;
    Ok(state)
}

/// For evidence the original build does not have (reviews, course checks, practice): feeds the
/// model, then moves the shared `confidence` (when the topic is on the map) at most one step
/// toward the model's estimate and only in the event's own direction
/// ([`knowledge_model::step_toward`]). The row in the evidence log is written either way.
pub(crate) fn observe_and_write_back(
    conn: &Connection,
    topic: &str,
    o: Observation,
    why: &Because<'_>,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let state = observe(conn, topic, o, now)?;
    if let (Some(current), Some(direction)) = (knowledge::confidence(conn, topic)?, o.direction()) {
        let estimate = knowledge_model::confidence(state.now(now, &Scheduler::default()));
        knowledge::write_confidence(conn, topic, knowledge_model::step_toward(current, estimate, direction), why, now)?;
    }
    Ok(())
}

/// Whether a confidence written for `cause` is a rating (which resets the model).
pub(crate) fn is_rating(cause: EvidenceCause) -> bool {
    matches!(cause, EvidenceCause::Manual | EvidenceCause::Onboarding | EvidenceCause::Restore)
}

impl Store {
    /// The model's estimate for every topic it has evidence on, weakest first.
    pub fn topic_estimates(&self, now: DateTime<Utc>) -> Result<Vec<TopicEstimate>> {
        let scheduler = Scheduler::default();
        let mut stmt = self.conn().prepare_cached("SELECT topic FROM ext_topic_model ORDER BY topic")?;
        let topics: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        let basis = crate::checked::basis_by_topic(self.conn())?;
        let mut out = Vec::with_capacity(topics.len());
        for topic in topics {
            if let Some(state) = load(self.conn(), &topic)? {
                let known_now = state.now(now, &scheduler);
                let (checked, self_reported) = basis.get(&topic).copied().unwrap_or_default();
                out.push(TopicEstimate {
                    topic,
                    known_now,
                    confidence_now: knowledge_model::confidence(known_now),
                    mastery: state.learned,
                    evidence: state.evidence,
                    checked,
                    self_reported,
                    last_evidence: iso_ms(state.last_at),
                });
            }
        }
        out.sort_by(|a, b| a.known_now.total_cmp(&b.known_now).then_with(|| a.topic.cmp(&b.topic)));
        Ok(out)
    }
}
