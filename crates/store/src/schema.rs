//! The shared schema (v6) and how older files reach it.
//!
//! `PRAGMA user_version` is the stamp every build reads first. Files stamped 0–5 are upgraded in
//! place (idempotent DDL, column additions, one-shot data migrations, seeds) and re-stamped 6.
//! Our own tables ("additions") are registered by name in `schema_migrations` and never move the
//! stamp, so the TypeScript build keeps reading and writing the same file.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::Result;

/// The schema this build reads and writes.
pub const SCHEMA_VERSION: i64 = 6;
/// The oldest release allowed to write a v6 file.
pub const SCHEMA_MIN_APP_VERSION: &str = "2.6.0";
/// The ledger name of the one-shot rewrite of old `dont_know` answers (v4 gave feedback three values).
pub const FEEDBACK_MIGRATION: &str = "v4-feedback-understood";

const DDL: &str = "
CREATE TABLE IF NOT EXISTS lessons (
    id                  TEXT PRIMARY KEY,
    timestamp           TEXT NOT NULL,
    topic_id            TEXT NOT NULL,
    categories          TEXT NOT NULL,
    title               TEXT NOT NULL,
    level               TEXT NOT NULL,
    summary             TEXT NOT NULL,
    body                TEXT,
    task_context        TEXT,
    project             TEXT,
    repository          TEXT,
    branch              TEXT,
    commit_hash         TEXT,
    folder              TEXT,
    feedback            TEXT,
    repository_platform TEXT,
    starred             INTEGER NOT NULL DEFAULT 0,
    imported            INTEGER NOT NULL DEFAULT 0,
    shared_by           TEXT
);
CREATE TABLE IF NOT EXISTS knowledge (
    topic       TEXT PRIMARY KEY,
    confidence  INTEGER NOT NULL DEFAULT 5,
    updated_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS knowledge_group_names (
    group_name TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS knowledge_groups (
    group_name TEXT NOT NULL,
    topic      TEXT NOT NULL,
    PRIMARY KEY (group_name, topic)
);
CREATE TABLE IF NOT EXISTS nudge_state (
    session_id    TEXT PRIMARY KEY,
    interactions  INTEGER NOT NULL DEFAULT 0,
    updated_at    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cue_state (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    pending          INTEGER NOT NULL DEFAULT 0,
    last_cue_at      TEXT,
    last_skip_reason TEXT
);
CREATE TABLE IF NOT EXISTS courses (
    id            TEXT PRIMARY KEY,
    lesson_id     TEXT,
    topic_id      TEXT NOT NULL,
    title         TEXT NOT NULL,
    goal          TEXT,
    prerequisites TEXT NOT NULL DEFAULT '[]',
    status        TEXT NOT NULL DEFAULT 'active',
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    completed_at  TEXT
);
CREATE TABLE IF NOT EXISTS course_steps (
    course_id TEXT NOT NULL,
    position  INTEGER NOT NULL,
    title     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    anchor    TEXT NOT NULL,
    status    TEXT NOT NULL DEFAULT 'todo',
    done_at   TEXT,
    PRIMARY KEY (course_id, position)
);
CREATE TABLE IF NOT EXISTS schema_migrations (
    name       TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_lessons_timestamp ON lessons (timestamp);
CREATE INDEX IF NOT EXISTS idx_lessons_starred_ts ON lessons (starred, timestamp);
CREATE INDEX IF NOT EXISTS idx_lessons_feedback ON lessons (feedback);
CREATE INDEX IF NOT EXISTS idx_lessons_topic_id ON lessons (topic_id);
CREATE INDEX IF NOT EXISTS idx_courses_lesson_id ON courses (lesson_id);
CREATE UNIQUE INDEX IF NOT EXISTS idx_course_steps_anchor ON course_steps (course_id, anchor);
";

/// Columns older files may lack; adding one that exists fails harmlessly.
const COLUMN_ADDITIONS: [&str; 3] = [
    "ALTER TABLE lessons ADD COLUMN body TEXT",
    "ALTER TABLE lessons ADD COLUMN imported INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE lessons ADD COLUMN shared_by TEXT",
];

/// One of our own schema additions: tables the original build ignores.
#[derive(Debug, Clone, Copy)]
pub struct Addition {
    /// The `schema_migrations` name recording it; never reused, never edited once shipped.
    pub name: &'static str,
    pub sql: &'static str,
}

/// Our additions, applied in order. Append only.
pub const ADDITIONS: &[Addition] = &[
    Addition {
        name: "rs-1-evidence",
        sql: "
CREATE TABLE IF NOT EXISTS ext_evidence (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    topic       TEXT NOT NULL,
    delta       INTEGER,
    value_after INTEGER,
    cause       TEXT NOT NULL,
    lesson_id   TEXT,
    detail      TEXT,
    at          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_ext_evidence_topic_at ON ext_evidence (topic, at);
",
    },
    Addition {
        name: "rs-2-reviews",
        sql: "
CREATE TABLE IF NOT EXISTS ext_review_cards (
    lesson_id   TEXT PRIMARY KEY,
    question    TEXT NOT NULL,
    answer      TEXT NOT NULL,
    source      TEXT NOT NULL,
    stability   REAL,
    difficulty  REAL,
    due         TEXT NOT NULL,
    last_review TEXT,
    reps        INTEGER NOT NULL DEFAULT 0,
    lapses      INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_ext_review_cards_due ON ext_review_cards (due, lesson_id);
CREATE TABLE IF NOT EXISTS ext_review_log (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    lesson_id      TEXT NOT NULL,
    grade          INTEGER NOT NULL,
    reviewed_at    TEXT NOT NULL,
    elapsed_days   INTEGER NOT NULL,
    interval_days  INTEGER NOT NULL,
    retrievability REAL,
    stability      REAL NOT NULL,
    difficulty     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_ext_review_log_lesson ON ext_review_log (lesson_id, reviewed_at);
CREATE TABLE IF NOT EXISTS ext_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
",
    },
    Addition {
        name: "rs-3-topic-model",
        sql: "
CREATE TABLE IF NOT EXISTS ext_topic_model (
    topic      TEXT PRIMARY KEY,
    learned    REAL NOT NULL,
    stability  REAL NOT NULL,
    difficulty REAL NOT NULL,
    last_at    TEXT NOT NULL,
    evidence   INTEGER NOT NULL
);
",
    },
    Addition {
        // Lessons that are not taught lessons (a practice session's card): they never count
        // against the daily limit or the gap.
        name: "rs-4-lesson-kinds",
        sql: "
CREATE TABLE IF NOT EXISTS ext_lesson_kinds (
    lesson_id TEXT PRIMARY KEY,
    kind      TEXT NOT NULL
);
",
    },
    Addition {
        // Answers in the learner's own words, graded by the agent: explain-backs and checked
        // reviews. The topic is kept so calibration outlives a deleted lesson.
        name: "rs-5-checked-answers",
        sql: "
CREATE TABLE IF NOT EXISTS ext_checked_answers (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    lesson_id TEXT NOT NULL,
    topic     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    grade     TEXT NOT NULL,
    answer    TEXT NOT NULL,
    missing   TEXT,
    at        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_ext_checked_answers_topic ON ext_checked_answers (topic, at);
",
    },
    Addition {
        // How each agent session went (work_insights, opt-in): counts and a pattern label from
        // the transcript, never its text.
        name: "rs-6-work-sessions",
        sql: "
CREATE TABLE IF NOT EXISTS ext_work_sessions (
    agent                TEXT NOT NULL,
    session_id           TEXT NOT NULL,
    first_at             TEXT NOT NULL,
    last_at              TEXT NOT NULL,
    prompts              INTEGER NOT NULL,
    questions            INTEGER NOT NULL,
    questions_after_edit INTEGER NOT NULL,
    error_reports        INTEGER NOT NULL,
    combined             INTEGER NOT NULL,
    own_code             INTEGER NOT NULL,
    agent_edits          INTEGER NOT NULL,
    pattern              TEXT,
    PRIMARY KEY (agent, session_id)
);
",
    },
    Addition {
        // Sync's bookkeeping: this device's id and clock, and which files of the shared
        // folder are applied here. Never synced, never in a backup.
        name: "rs-7-sync",
        sql: "
CREATE TABLE IF NOT EXISTS ext_sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ext_sync_files (
    device TEXT NOT NULL,
    file   TEXT NOT NULL,
    PRIMARY KEY (device, file)
);
CREATE TABLE IF NOT EXISTS ext_sync_refused (
    tbl TEXT NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (tbl, key)
);
",
    },
    Addition {
        // The day's move of each lesson, card, course step or practice card on the knowledge
        // model: the state before its first event, so that one item moves the map at most
        // once a day (a stronger event that day replaces the move, never adds to it). A
        // day's working state of this machine: never synced, never in a backup.
        name: "rs-8-model-moves",
        sql: "
CREATE TABLE IF NOT EXISTS ext_model_moves (
    item           TEXT NOT NULL,
    topic          TEXT NOT NULL,
    opened_at      TEXT NOT NULL,
    weight         INTEGER NOT NULL,
    step           INTEGER NOT NULL,
    after_evidence INTEGER NOT NULL,
    learned        REAL,
    stability      REAL,
    difficulty     REAL,
    last_at        TEXT,
    evidence       INTEGER,
    PRIMARY KEY (item, topic)
);
CREATE INDEX IF NOT EXISTS idx_ext_model_moves_opened ON ext_model_moves (opened_at);
",
    },
    Addition {
        // Sync's merge state per record, so a sync folds only what is new instead of every
        // change ever made: the record's merge state (`devcoach_core::sync::RecordState`), the
        // rowid it was last matched at (log rows, whose rowid is their own id), and the values
        // the parent and one-per-value rules look records up by. `ext_sync_dirty` is filled by
        // triggers on the synced tables while sync is on (every writer, any build), and emptied
        // by each round. Each applied file is also known by its name (`ext_sync_known`), so it is never read again, and a file that did not read is remembered as it lay (`ext_sync_failed`), so it is not read again until it changes.
        // Never synced, never in a backup.
        name: "rs-9-sync-records",
        sql: "
CREATE TABLE IF NOT EXISTS ext_sync_records (
    tbl    TEXT NOT NULL,
    key    TEXT NOT NULL,
    state  TEXT NOT NULL,
    alive  INTEGER NOT NULL DEFAULT 0,
    rid    INTEGER,
    parent TEXT,
    uniq   TEXT,
    UNIQUE (tbl, key)
);
CREATE INDEX IF NOT EXISTS idx_ext_sync_records_rid ON ext_sync_records (tbl, rid) WHERE rid IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_ext_sync_records_parent ON ext_sync_records (tbl, parent) WHERE parent IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_ext_sync_records_uniq ON ext_sync_records (tbl, uniq) WHERE uniq IS NOT NULL;
CREATE TABLE IF NOT EXISTS ext_sync_dirty (
    tbl TEXT NOT NULL,
    ref TEXT NOT NULL,
    PRIMARY KEY (tbl, ref)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ext_sync_failed (
    device   TEXT NOT NULL,
    name     TEXT NOT NULL,
    len      INTEGER NOT NULL,
    modified INTEGER NOT NULL,
    what     TEXT NOT NULL,
    retry_at INTEGER NOT NULL DEFAULT 0,
    app      TEXT NOT NULL,
    PRIMARY KEY (device, name)
);
CREATE TABLE IF NOT EXISTS ext_sync_known (
    device     TEXT NOT NULL,
    file       TEXT NOT NULL,
    name       TEXT NOT NULL,
    first      INTEGER NOT NULL,
    last       INTEGER NOT NULL,
    written_at TEXT NOT NULL,
    PRIMARY KEY (device, file)
);
",
    },
    Addition {
        // Each review card's first grade of the day: the card as it stood before it, and the
        // review log row it wrote. A later grade that day (a replay, a corrected misclick, the
        // agent grading again) replaces that grade instead of reviewing the card once more, as
        // the knowledge model's moves do. A day's working state of this machine: never synced,
        // never in a backup.
        name: "rs-10-review-replays",
        sql: "
CREATE TABLE IF NOT EXISTS ext_review_replays (
    lesson_id   TEXT PRIMARY KEY,
    opened_at   TEXT NOT NULL,
    checked     INTEGER NOT NULL,
    log_id      INTEGER NOT NULL,
    stability   REAL,
    difficulty  REAL,
    due         TEXT NOT NULL,
    last_review TEXT,
    reps        INTEGER NOT NULL,
    lapses      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_ext_review_replays_opened ON ext_review_replays (opened_at);
",
    },
    Addition {
        // The parts of each device's snapshots applied or written here: once every part of a
        // snapshot is in, that device's older files add nothing (never put back, their copies
        // and records of them dropped). Sync's bookkeeping: never synced, never in a backup.
        name: "rs-11-sync-snapshots",
        sql: "
CREATE TABLE IF NOT EXISTS ext_sync_snapshots (
    device TEXT NOT NULL,
    upto   INTEGER NOT NULL,
    part   INTEGER NOT NULL,
    parts  INTEGER NOT NULL,
    name   TEXT NOT NULL,
    PRIMARY KEY (device, upto, part, name)
);
",
    },
    Addition {
        // The records a sync round changed but left unwritten, because writes made here were
        // still waiting to be compared in a later round of the same sync (a bulk import compared
        // a round's worth at a time): the round that compares the last of them writes these too,
        // with what hangs from them (`flipped`: the record came into being or ceased to be).
        // Sync's bookkeeping: never synced, never in a backup.
        name: "rs-12-sync-unapplied",
        sql: "
CREATE TABLE IF NOT EXISTS ext_sync_unapplied (
    tbl     TEXT NOT NULL,
    key     TEXT NOT NULL,
    flipped INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tbl, key)
) WITHOUT ROWID;
",
    },
    Addition {
        // What each hands-on exercise came to, beside its lesson card: the language, the
        // outcome as the knowledge map counted it, and the checks and hints it took (the
        // progress page's hands-on figures). Synced and backed up with its card.
        name: "rs-13-handson",
        sql: "
CREATE TABLE IF NOT EXISTS ext_handson (
    lesson_id TEXT PRIMARY KEY,
    language  TEXT NOT NULL,
    result    TEXT NOT NULL,
    checks    INTEGER NOT NULL,
    hints     INTEGER NOT NULL,
    at        TEXT NOT NULL
);
",
    },
];

pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

fn table_exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", [name], |_| Ok(()))
        .optional()
        .map(|r| r.is_some())
}

fn ledger_has(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row("SELECT 1 FROM schema_migrations WHERE name = ?1", [name], |_| Ok(()))
        .optional()
        .map(|r| r.is_some())
}

/// Brings a file stamped below v6 to v6, inside the caller's IMMEDIATE transaction.
pub(crate) fn upgrade(tx: &Transaction<'_>, from_version: i64, now_ms: &str) -> Result<()> {
    // A `courses` table proves a v5+ build touched this file, even if an older build re-stamped
    // it since: the feedback rewrite must then never run again.
    let had_courses = table_exists(tx, "courses")?;
    tx.execute_batch(DDL)?;
    for alter in COLUMN_ADDITIONS {
        // "duplicate column" is the expected failure on files that have it.
        let _ = tx.execute(alter, []);
    }
    if !ledger_has(tx, FEEDBACK_MIGRATION)? {
        if from_version < 4 && !had_courses {
            tx.execute("UPDATE lessons SET feedback = 'understood' WHERE feedback = 'dont_know'", [])?;
        }
        tx.execute(
            "INSERT INTO schema_migrations (name, applied_at) VALUES (?1, ?2)",
            params![FEEDBACK_MIGRATION, now_ms],
        )?;
    }
    seed_settings(tx)?;
    tx.execute(
        "INSERT INTO settings (key, value) VALUES ('schema_app_version', ?1) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [devcoach_core::APP_VERSION],
    )?;
    tx.execute(
        "INSERT INTO settings (key, value) VALUES ('schema_min_app_version', ?1) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [SCHEMA_MIN_APP_VERSION],
    )?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(())
}

fn seed_settings(tx: &Transaction<'_>) -> Result<()> {
    // A gap stored in hours by the oldest builds becomes the minutes setting, instead of being
    // shadowed by the default.
    let legacy_hours: Option<String> = tx
        .query_row("SELECT value FROM settings WHERE key = ?1", [devcoach_core::settings::LEGACY_GAP_HOURS_KEY], |r| {
            r.get(0)
        })
        .optional()?;
    if let Some(hours) = legacy_hours.as_deref().and_then(devcoach_core::settings::parse_int_prefix) {
        tx.execute(
            "INSERT OR IGNORE INTO settings (key, value) VALUES ('min_gap_minutes', ?1)",
            [hours.saturating_mul(60).to_string()],
        )?;
    }
    let mut insert = tx.prepare("INSERT OR IGNORE INTO settings (key, value) VALUES (?1, ?2)")?;
    for (key, value) in devcoach_core::settings::DEFAULTS {
        insert.execute([key, value])?;
    }
    Ok(())
}

/// The stamp, and whether any of our additions still has to be applied: one statement, so
/// opening an up-to-date file costs one read transaction (every hook pays for it).
pub(crate) fn state(conn: &Connection) -> rusqlite::Result<(i64, bool)> {
    let Some(last) = ADDITIONS.last() else { return Ok((user_version(conn)?, false)) };
    let both = conn.query_row(
        "SELECT (SELECT user_version FROM pragma_user_version), \
                EXISTS (SELECT 1 FROM schema_migrations WHERE name = ?1)",
        [last.name],
        |r| Ok((r.get(0)?, !r.get::<_, bool>(1)?)),
    );
    match both {
        Ok(state) => Ok(state),
        // No ledger table yet (a file older than v6, or an empty one).
        Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.starts_with("no such table") => {
            Ok((user_version(conn)?, true))
        }
        Err(e) => Err(e),
    }
}

/// Applies every addition missing from the ledger, inside the caller's transaction.
pub(crate) fn apply_additions(tx: &Transaction<'_>, now_ms: &str) -> Result<()> {
    for addition in ADDITIONS {
        if !ledger_has(tx, addition.name)? {
            tx.execute_batch(addition.sql)?;
            tx.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?1, ?2)",
                params![addition.name, now_ms],
            )?;
        }
    }
    Ok(())
}
