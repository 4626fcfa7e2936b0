//! What sync carries, one entry per table, and the rule each table's records merge by. The list
//! is the backup's (everything devcoach keeps about the learner) less what belongs to one machine:
//! the pacing of this machine's agent sessions (`nudge_state`, `cue_state`), the work-insights
//! consent and its session counts (given per machine), and sync's own bookkeeping.

/// How a record is identified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// By these columns (the table's primary key).
    Columns(&'static [&'static str]),
    /// By every synced column: a log whose rows never change, only appear or go.
    Content,
}

/// A column whose concurrent moves add up instead of one replacing the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    pub column: &'static str,
    pub min: i64,
    pub max: i64,
}

impl Counter {
    pub fn clamp(&self, value: i64) -> i64 {
        value.clamp(self.min, self.max)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncTable {
    pub name: &'static str,
    pub key: Key,
    /// A surrogate id that means nothing on another machine (AUTOINCREMENT): never carried.
    pub local_id: Option<&'static str>,
    pub counters: &'static [Counter],
    /// The record exists only while the record of the other table this column names does
    /// (column, table: a review card and its lesson, a topic's group and the topic).
    pub parent: Option<(&'static str, &'static str)>,
    /// At most one record per value of this column: the one written last (a topic is in one
    /// group, however two devices moved it at once).
    pub unique: Option<&'static str>,
    /// Rows kept per machine, by the value of their first key column.
    pub local_keys: &'static [&'static str],
}

impl SyncTable {
    pub fn counter(&self, column: &str) -> Option<&Counter> {
        self.counters.iter().find(|c| c.column == column)
    }
}

const fn table(name: &'static str, key: &'static [&'static str]) -> SyncTable {
    SyncTable {
        name,
        key: Key::Columns(key),
        local_id: None,
        counters: &[],
        parent: None,
        unique: None,
        local_keys: &[],
    }
}

const fn log(name: &'static str) -> SyncTable {
    SyncTable {
        name,
        key: Key::Content,
        local_id: Some("id"),
        counters: &[],
        parent: None,
        unique: None,
        local_keys: &[],
    }
}

/// The lessons table: the one other records hang from.
pub const LESSONS: &str = "lessons";

/// Every synced table. A table missing from a device's database (an older file) is skipped there.
pub const SYNCED: &[SyncTable] = &[
    table(LESSONS, &["id"]),
    SyncTable { counters: &[Counter { column: "confidence", min: 0, max: 10 }], ..table("knowledge", &["topic"]) },
    // The schema stamps belong to this file, not to the learner.
    SyncTable { local_keys: &["schema_app_version", "schema_min_app_version"], ..table("settings", &["key"]) },
    table("knowledge_group_names", &["group_name"]),
    SyncTable {
        parent: Some(("topic", "knowledge")),
        unique: Some("topic"),
        ..table("knowledge_groups", &["group_name", "topic"])
    },
    table("courses", &["id"]),
    table("course_steps", &["course_id", "position"]),
    log("ext_evidence"),
    table("ext_topic_model", &["topic"]),
    SyncTable { parent: Some(("lesson_id", LESSONS)), ..table("ext_review_cards", &["lesson_id"]) },
    SyncTable { parent: Some(("lesson_id", LESSONS)), ..table("ext_lesson_kinds", &["lesson_id"]) },
    SyncTable { parent: Some(("lesson_id", LESSONS)), ..table("ext_handson", &["lesson_id"]) },
    SyncTable { parent: Some(("lesson_id", LESSONS)), ..log("ext_review_log") },
    log("ext_checked_answers"),
    // Consent, this machine's own pacing and a cache of its own tables stay here.
    SyncTable {
        local_keys: &[
            "work_insights",
            "cue_held_about",
            "cue_held_for_prompt",
            "cue_streak",
            "cue_times",
            "nudge_pruned_stops",
            "onboarding_asked",
            "onboarding_postponed",
            "handson_offered",
            "handson_not_now",
            "handson_looked",
            "review_last_offer",
            "cards_signature",
            "stops_counted",
        ],
        ..table("ext_settings", &["key"])
    },
];

/// The files devcoach keeps beside the database, carried as records `{name, text}`: the coaching
/// notebook (`notebook`) and each course's document (`course:<id>`). The last writer wins.
pub const DOCUMENTS: SyncTable = table("documents", &["name"]);

/// The rule for `name`, if sync carries it.
pub fn synced(name: &str) -> Option<&'static SyncTable> {
    SYNCED.iter().chain(std::iter::once(&DOCUMENTS)).find(|t| t.name == name)
}

/// Whether a record, as this device first logs it, is only what every fresh database is seeded
/// with (a default setting). Such a record is logged at the lowest clock reading, so a value the
/// learner chose on any device wins over it, whichever device set the folder up first.
pub fn is_seed(table: &str, row: &super::op::Row) -> bool {
    table == "settings"
        && crate::settings::DEFAULTS.iter().any(|(key, value)| {
            row.get("key").and_then(serde_json::Value::as_str) == Some(*key)
                && row.get("value").and_then(serde_json::Value::as_str) == Some(*value)
        })
}
