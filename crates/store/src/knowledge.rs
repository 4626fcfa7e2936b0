//! The knowledge map and its groups. Every confidence write also appends to the evidence log.

use chrono::{DateTime, Utc};
use devcoach_core::evidence::{Evidence, EvidenceCause};
use devcoach_core::knowledge::{self, Group, GroupTarget, KnowledgeEntry, Profile};
use devcoach_core::time::iso_ms;
use rusqlite::{Connection, OptionalExtension, params};

use crate::{Result, Store, evidence};

pub(crate) fn confidence(conn: &Connection, topic: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT confidence FROM knowledge WHERE topic = ?1")?
        .query_row([topic], |r| r.get(0))
        .optional()
}

pub(crate) fn is_onboarded(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row("SELECT EXISTS (SELECT 1 FROM knowledge)", [], |r| r.get(0))
}

/// Why a confidence is being written, for the evidence log.
pub(crate) struct Because<'a> {
    pub cause: EvidenceCause,
    pub lesson_id: Option<&'a str>,
    pub detail: Option<&'a str>,
}

impl Because<'_> {
    pub(crate) fn plain(cause: EvidenceCause) -> Self {
        Self { cause, lesson_id: None, detail: None }
    }
}

/// Upserts a topic's confidence (clamped) and logs the change; returns the stored value.
pub(crate) fn write_confidence(
    conn: &Connection,
    topic: &str,
    value: i64,
    why: &Because<'_>,
    now: DateTime<Utc>,
) -> rusqlite::Result<i64> {
    let before = confidence(conn, topic)?;
    let after = knowledge::clamp_confidence(value);
    let at = iso_ms(now);
    conn.prepare_cached(
        "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT(topic) DO UPDATE SET confidence = excluded.confidence, updated_at = excluded.updated_at",
    )?
    .execute(params![topic, after, at])?;
    if crate::topic_model::is_rating(why.cause) {
        crate::topic_model::observe(conn, topic, devcoach_core::knowledge_model::Observation::Assessment(after), now)?;
    }
    evidence::append(
        conn,
        &Evidence {
            topic: topic.to_owned(),
            delta: before.map(|b| after - b),
            value_after: Some(after),
            cause: why.cause,
            lesson_id: why.lesson_id.map(str::to_owned),
            detail: why.detail.map(str::to_owned),
            at,
        },
    )?;
    Ok(after)
}

/// Logs an event that leaves a topic on the map where it is (a row with delta 0); a topic not on
/// the map has no number to log.
pub(crate) fn log_unchanged(
    conn: &Connection,
    topic: &str,
    why: &Because<'_>,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let Some(current) = confidence(conn, topic)? else { return Ok(()) };
    evidence::append(
        conn,
        &Evidence {
            topic: topic.to_owned(),
            delta: Some(0),
            value_after: Some(current),
            cause: why.cause,
            lesson_id: why.lesson_id.map(str::to_owned),
            detail: why.detail.map(str::to_owned),
            at: iso_ms(now),
        },
    )
}

/// Adds `delta` to a topic (a topic not on the map starts from 5); returns the new value.
pub(crate) fn apply_delta(
    conn: &Connection,
    topic: &str,
    delta: i64,
    why: &Because<'_>,
    now: DateTime<Utc>,
) -> rusqlite::Result<i64> {
    let current = confidence(conn, topic)?;
    write_confidence(conn, topic, knowledge::apply_delta(current, delta), why, now)
}

/// The topic on the map a name means: the name as stored (a topic written before the naming
/// rule, or by the TypeScript build), else its id under the rule.
fn stored_topic(conn: &Connection, raw: &str) -> rusqlite::Result<String> {
    let trimmed = raw.trim();
    if confidence(conn, trimmed)?.is_some() {
        return Ok(trimmed.to_owned());
    }
    Ok(knowledge::topic_id(raw).unwrap_or_else(|_| trimmed.to_owned()))
}

fn assign(conn: &Connection, topic: &str, target: &GroupTarget) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM knowledge_groups WHERE topic = ?1", [topic])?;
    if let GroupTarget::Group(name) = target {
        conn.execute("INSERT OR IGNORE INTO knowledge_group_names (group_name) VALUES (?1)", [name])?;
        conn.execute("INSERT OR IGNORE INTO knowledge_groups (group_name, topic) VALUES (?1, ?2)", [name, topic])?;
    }
    Ok(())
}

pub(crate) fn read_profile(conn: &Connection) -> rusqlite::Result<Profile> {
    let mut stmt = conn.prepare_cached("SELECT topic, confidence FROM knowledge ORDER BY topic")?;
    let knowledge = stmt
        .query_map([], |r| Ok(KnowledgeEntry { topic: r.get(0)?, confidence: r.get(1)? }))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut names = conn.prepare_cached("SELECT group_name FROM knowledge_group_names ORDER BY group_name")?;
    let mut groups: Vec<Group> =
        names.query_map([], |r| Ok(Group { name: r.get(0)?, topics: Vec::new() }))?.collect::<rusqlite::Result<_>>()?;
    let mut members =
        conn.prepare_cached("SELECT group_name, topic FROM knowledge_groups ORDER BY group_name, topic")?;
    let pairs = members.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for pair in pairs {
        let (name, topic) = pair?;
        if let Some(g) = groups.iter_mut().find(|g| g.name == name) {
            g.topics.push(topic);
        }
    }
    Ok(Profile { knowledge, groups })
}

impl Store {
    pub fn profile(&self) -> Result<Profile> {
        Ok(read_profile(self.conn())?)
    }

    pub fn confidence(&self, topic: &str) -> Result<Option<i64>> {
        Ok(confidence(self.conn(), topic)?)
    }

    /// Onboarding has run when the map has at least one topic.
    pub fn is_onboarded(&self) -> Result<bool> {
        Ok(is_onboarded(self.conn())?)
    }

    /// Adds `delta` to a topic's confidence (an untracked topic starts at 5); returns the result.
    pub fn update_knowledge(&mut self, topic: &str, delta: i64, now: DateTime<Utc>) -> Result<i64> {
        let topic = knowledge::topic_id(topic)?;
        self.write(|tx| Ok(apply_delta(tx, &topic, delta, &Because::plain(EvidenceCause::Manual), now)?))
    }

    /// Sets a topic's confidence (clamped), creating it, and optionally moves it into a group.
    pub fn set_topic(
        &mut self,
        topic: &str,
        confidence: i64,
        group: Option<&GroupTarget>,
        now: DateTime<Utc>,
    ) -> Result<i64> {
        let topic = knowledge::topic_id(topic)?;
        self.write(|tx| {
            let value = write_confidence(tx, &topic, confidence, &Because::plain(EvidenceCause::Manual), now)?;
            if let Some(target) = group {
                assign(tx, &topic, target)?;
            }
            Ok(value)
        })
    }

    /// Removes a topic and its group assignment; true when it existed.
    pub fn remove_topic(&mut self, topic: &str) -> Result<bool> {
        self.write(|tx| {
            let topic = stored_topic(tx, topic)?;
            let n = tx.execute("DELETE FROM knowledge WHERE topic = ?1", [&topic])?;
            tx.execute("DELETE FROM knowledge_groups WHERE topic = ?1", [&topic])?;
            Ok(n > 0)
        })
    }

    /// Creates a group; false when it already existed.
    pub fn add_group(&mut self, name: &str) -> Result<bool> {
        let name = knowledge::new_group_name(name)?;
        self.write(|tx| {
            Ok(tx.execute("INSERT OR IGNORE INTO knowledge_group_names (group_name) VALUES (?1)", [&name])? > 0)
        })
    }

    /// Deletes a group; its topics become ungrouped. True when it existed.
    pub fn remove_group(&mut self, name: &str) -> Result<bool> {
        let name = name.trim().to_owned();
        self.write(|tx| {
            tx.execute("DELETE FROM knowledge_groups WHERE group_name = ?1", [&name])?;
            Ok(tx.execute("DELETE FROM knowledge_group_names WHERE group_name = ?1", [&name])? > 0)
        })
    }

    /// Moves a topic into a group (created when missing) or out of every group. False when the
    /// topic is not on the map.
    pub fn assign_group(&mut self, topic: &str, target: &GroupTarget) -> Result<bool> {
        self.write(|tx| {
            let topic = stored_topic(tx, topic)?;
            if confidence(tx, &topic)?.is_none() {
                return Ok(false);
            }
            assign(tx, &topic, target)?;
            Ok(true)
        })
    }

    /// Replaces the whole map with an onboarding profile (what the original's onboarding does on
    /// a learner without one). A topic joins a group only when it is in `topics`; group names are
    /// validated like any new group.
    pub fn complete_onboarding(
        &mut self,
        topics: &[(String, i64)],
        groups: &[(String, Vec<String>)],
        now: DateTime<Utc>,
    ) -> Result<Profile> {
        self.onboard(&Onboarding { topics, groups, mode: OnboardingMode::Replace, settings: &[] }, now)
    }

    /// Saves an onboarding profile in one transaction: the map (added to, or replaced) and the
    /// pacing chosen with it. Adding sets the topics given and keeps every other topic and group;
    /// a group member may be a topic given or one already on the map.
    pub fn onboard(&mut self, plan: &Onboarding<'_>, now: DateTime<Utc>) -> Result<Profile> {
        let topics: Vec<(String, i64)> =
            plan.topics.iter().map(|(t, c)| Ok((knowledge::topic_id(t)?, *c))).collect::<Result<_>>()?;
        let groups: Vec<(String, &Vec<String>)> =
            plan.groups.iter().map(|(g, ts)| Ok((knowledge::new_group_name(g)?, ts))).collect::<Result<_>>()?;
        self.write(|tx| {
            if plan.mode == OnboardingMode::Replace {
                tx.execute_batch(
                    "DELETE FROM knowledge; DELETE FROM knowledge_groups; DELETE FROM knowledge_group_names;",
                )?;
            }
            let why = Because::plain(EvidenceCause::Onboarding);
            for (topic, conf) in &topics {
                // Re-stating what the map already says is not new evidence.
                if confidence(tx, topic)? != Some(knowledge::clamp_confidence(*conf)) {
                    write_confidence(tx, topic, *conf, &why, now)?;
                }
            }
            for (name, members) in &groups {
                tx.execute("INSERT OR IGNORE INTO knowledge_group_names (group_name) VALUES (?1)", [name])?;
                for member in *members {
                    let Ok(member) = knowledge::topic_id(member) else { continue };
                    let given = topics.iter().any(|(t, _)| *t == member);
                    if given || (plan.mode == OnboardingMode::Add && confidence(tx, &member)?.is_some()) {
                        assign(tx, &member, &GroupTarget::Group(name.clone()))?;
                    }
                }
            }
            for update in plan.settings {
                crate::settings::store_setting(tx, update)?;
            }
            Ok(read_profile(tx)?)
        })
    }
}

/// What an onboarding saves: the topics `{topic: confidence}`, the groups, whether the map is
/// added to or replaced, and the pacing settings chosen with it (already validated).
#[derive(Debug, Clone, Copy)]
pub struct Onboarding<'a> {
    pub topics: &'a [(String, i64)],
    pub groups: &'a [(String, Vec<String>)],
    pub mode: OnboardingMode,
    pub settings: &'a [devcoach_core::settings::SettingUpdate],
}

/// Whether an onboarding adds to the map the learner has, or replaces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnboardingMode {
    Add,
    Replace,
}
