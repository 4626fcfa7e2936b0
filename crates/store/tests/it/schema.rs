//! Opening files of every age: upgrade in place, the one-shot feedback rewrite, the read-only
//! guard for newer files, our own additions, damaged files.

use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::lesson::Feedback;
use devcoach_core::query::LessonQuery;
use devcoach_store::{DataDir, SCHEMA_VERSION, Store, StoreError};
use rusqlite::Connection;

use crate::{fixture_dir, fresh, now};

/// `(name, type, notnull, default, pk)` per column, as §B.2 of the spec lists them.
type Col = (&'static str, &'static str, i64, Option<&'static str>, i64);

const V6: &[(&str, &[Col])] = &[
    (
        "lessons",
        &[
            ("id", "TEXT", 0, None, 1),
            ("timestamp", "TEXT", 1, None, 0),
            ("topic_id", "TEXT", 1, None, 0),
            ("categories", "TEXT", 1, None, 0),
            ("title", "TEXT", 1, None, 0),
            ("level", "TEXT", 1, None, 0),
            ("summary", "TEXT", 1, None, 0),
            ("body", "TEXT", 0, None, 0),
            ("task_context", "TEXT", 0, None, 0),
            ("project", "TEXT", 0, None, 0),
            ("repository", "TEXT", 0, None, 0),
            ("branch", "TEXT", 0, None, 0),
            ("commit_hash", "TEXT", 0, None, 0),
            ("folder", "TEXT", 0, None, 0),
            ("feedback", "TEXT", 0, None, 0),
            ("repository_platform", "TEXT", 0, None, 0),
            ("starred", "INTEGER", 1, Some("0"), 0),
            ("imported", "INTEGER", 1, Some("0"), 0),
            ("shared_by", "TEXT", 0, None, 0),
        ],
    ),
    (
        "knowledge",
        &[
            ("topic", "TEXT", 0, None, 1),
            ("confidence", "INTEGER", 1, Some("5"), 0),
            ("updated_at", "TEXT", 1, None, 0),
        ],
    ),
    ("settings", &[("key", "TEXT", 0, None, 1), ("value", "TEXT", 1, None, 0)]),
    ("knowledge_group_names", &[("group_name", "TEXT", 0, None, 1)]),
    ("knowledge_groups", &[("group_name", "TEXT", 1, None, 1), ("topic", "TEXT", 1, None, 2)]),
    (
        "courses",
        &[
            ("id", "TEXT", 0, None, 1),
            ("lesson_id", "TEXT", 0, None, 0),
            ("topic_id", "TEXT", 1, None, 0),
            ("title", "TEXT", 1, None, 0),
            ("goal", "TEXT", 0, None, 0),
            ("prerequisites", "TEXT", 1, Some("'[]'"), 0),
            ("status", "TEXT", 1, Some("'active'"), 0),
            ("created_at", "TEXT", 1, None, 0),
            ("updated_at", "TEXT", 1, None, 0),
            ("completed_at", "TEXT", 0, None, 0),
        ],
    ),
    (
        "course_steps",
        &[
            ("course_id", "TEXT", 1, None, 1),
            ("position", "INTEGER", 1, None, 2),
            ("title", "TEXT", 1, None, 0),
            ("kind", "TEXT", 1, None, 0),
            ("anchor", "TEXT", 1, None, 0),
            ("status", "TEXT", 1, Some("'todo'"), 0),
            ("done_at", "TEXT", 0, None, 0),
        ],
    ),
    ("schema_migrations", &[("name", "TEXT", 0, None, 1), ("applied_at", "TEXT", 1, None, 0)]),
    (
        "nudge_state",
        &[
            ("session_id", "TEXT", 0, None, 1),
            ("interactions", "INTEGER", 1, Some("0"), 0),
            ("updated_at", "TEXT", 1, None, 0),
        ],
    ),
    (
        "cue_state",
        &[
            ("id", "INTEGER", 0, None, 1),
            ("pending", "INTEGER", 1, Some("0"), 0),
            ("last_cue_at", "TEXT", 0, None, 0),
            ("last_skip_reason", "TEXT", 0, None, 0),
        ],
    ),
];

const V6_INDEXES: &[(&str, &str, bool, &[&str])] = &[
    ("idx_lessons_timestamp", "lessons", false, &["timestamp"]),
    ("idx_lessons_starred_ts", "lessons", false, &["starred", "timestamp"]),
    ("idx_lessons_feedback", "lessons", false, &["feedback"]),
    ("idx_lessons_topic_id", "lessons", false, &["topic_id"]),
    ("idx_courses_lesson_id", "courses", false, &["lesson_id"]),
    ("idx_course_steps_anchor", "course_steps", true, &["course_id", "anchor"]),
];

/// Every migration a database upgraded by this build records, by name (names never change once
/// shipped).
const FULL_LEDGER: [&str; 14] = [
    "rs-1-evidence",
    "rs-10-review-replays",
    "rs-11-sync-snapshots",
    "rs-12-sync-unapplied",
    "rs-13-handson",
    "rs-2-reviews",
    "rs-3-topic-model",
    "rs-4-lesson-kinds",
    "rs-5-checked-answers",
    "rs-6-work-sessions",
    "rs-7-sync",
    "rs-8-model-moves",
    "rs-9-sync-records",
    "v4-feedback-understood",
];

#[track_caller]
fn assert_v6(path: &std::path::Path) {
    let conn = Connection::open(path).expect("raw open");
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).expect("stamp");
    assert_eq!(version, 6);
    for (table, want) in V6 {
        let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})")).expect("table_info");
        let got: Vec<(String, String, i64, Option<String>, i64)> = stmt
            .query_map([], |r| Ok((r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("columns");
        let want: Vec<(String, String, i64, Option<String>, i64)> =
            want.iter().map(|(n, t, nn, d, pk)| ((*n).into(), (*t).into(), *nn, d.map(Into::into), *pk)).collect();
        assert_eq!(got, want, "columns of {table}");
    }
    for (name, table, unique, cols) in V6_INDEXES {
        let (tbl, sql): (String, String) = conn
            .query_row("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'index' AND name = ?1", [name], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap_or_else(|e| panic!("index {name} missing: {e}"));
        assert_eq!(&tbl, table, "{name}");
        assert_eq!(sql.contains("UNIQUE"), *unique, "{name}: {sql}");
        let mut stmt = conn.prepare(&format!("PRAGMA index_info({name})")).expect("index_info");
        let got: Vec<String> = stmt.query_map([], |r| r.get(2)).expect("rows").collect::<Result<_, _>>().expect("cols");
        assert_eq!(got, *cols, "{name}");
    }
}

fn ledger(path: &std::path::Path) -> Vec<String> {
    let conn = Connection::open(path).expect("raw open");
    let mut stmt = conn.prepare("SELECT name FROM schema_migrations ORDER BY name").expect("ledger");
    stmt.query_map([], |r| r.get(0)).expect("rows").collect::<Result<_, _>>().expect("names")
}

#[test]
fn a_fresh_file_has_the_v6_schema() {
    let (tmp, store) = fresh();
    drop(store);
    assert_v6(&tmp.path().join("coaching.db"));
}

#[test]
fn the_ts_fixture_upgrades_in_place_and_keeps_every_row() {
    let (_tmp, dir) = fixture_dir("ts-0.9.5/coaching.db");
    let store = Store::open(&dir).expect("open fixture");
    assert!(store.compat().is_none());
    assert_eq!(store.schema_version().expect("stamp"), SCHEMA_VERSION);

    let lessons = store.lessons(&LessonQuery::default(), now()).expect("lessons");
    assert_eq!(lessons.len(), 5);
    let by_id = |id: &str| lessons.iter().find(|l| l.id == id).expect("lesson kept").clone();
    // Written before feedback had three values: `dont_know` meant "new to me", now `understood`.
    assert_eq!(by_id("seed-000").feedback, Some(Feedback::Know));
    assert_eq!(by_id("seed-001").feedback, Some(Feedback::Understood));
    assert_eq!(by_id("seed-003").feedback, Some(Feedback::Understood));
    assert!(by_id("seed-000").starred && !by_id("seed-001").starred && by_id("seed-004").starred);
    assert!(lessons.iter().all(|l| !l.imported && l.shared_by.is_none() && l.body.is_some()));
    assert_eq!(by_id("seed-002").context.git.commit_hash.as_deref(), Some("d4909c6bdf2375b9833dc83b8cfbc6b8896866c0"));

    let profile = store.profile().expect("profile");
    assert_eq!(profile.knowledge.len(), 10);
    assert_eq!(store.confidence("typescript").expect("read"), Some(8));
    let groups: Vec<(&str, usize)> = profile.groups.iter().map(|g| (g.name.as_str(), g.topics.len())).collect();
    assert_eq!(groups, [("Data", 1), ("Languages", 2), ("Runtime", 1), ("Tooling", 3)]);

    let settings = store.settings().expect("settings");
    assert_eq!((settings.max_per_day, settings.min_gap_minutes, settings.nudge_every), (2, 240, 10));
    drop(store);

    let path = dir.db_path();
    assert_v6(&path);
    assert_eq!(ledger(&path), FULL_LEDGER);
    let conn = Connection::open(&path).expect("raw");
    let value =
        |k: &str| conn.query_row("SELECT value FROM settings WHERE key = ?1", [k], |r| r.get::<_, String>(0)).expect(k);
    assert_eq!(value("schema_min_app_version"), "2.6.0");
    assert_eq!(value("schema_app_version"), devcoach_core::APP_VERSION);
    assert_eq!(value("ui_home"), "auto");
}

#[test]
fn reopening_an_upgraded_file_changes_nothing() {
    let (_tmp, dir) = fixture_dir("ts-0.9.5/coaching.db");
    drop(Store::open(&dir).expect("first open"));
    let before = std::fs::read(dir.db_path()).expect("bytes");
    let store = Store::open(&dir).expect("second open");
    let _ = store.lessons(&LessonQuery::default(), now()).expect("read");
    drop(store);
    assert_eq!(std::fs::read(dir.db_path()).expect("bytes"), before);
}

/// Builds a file as an older build left it: our schema, then `user_version` set back and the
/// ledger row removed, optionally without the v5 `courses` table.
fn older_file(stamp: i64, with_courses: bool) -> (tempfile::TempDir, DataDir) {
    let (tmp, mut store) = fresh();
    store.complete_onboarding(&[("rust".into(), 5)], &[], now()).expect("onboard");
    drop(store);
    let path = tmp.path().join("coaching.db");
    let conn = Connection::open(&path).expect("raw");
    conn.execute_batch(
        "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
         VALUES ('old', '2026-01-01T00:00:00Z', 'rust', '[]', 'Old', 'mid', 's');
         UPDATE lessons SET feedback = 'dont_know';
         DELETE FROM schema_migrations;",
    )
    .expect("old rows");
    if !with_courses {
        conn.execute_batch("DROP TABLE course_steps; DROP TABLE courses;").expect("drop v5 tables");
    }
    conn.pragma_update(None, "user_version", stamp).expect("stamp");
    drop(conn);
    let dir = DataDir::new(tmp.path());
    (tmp, dir)
}

fn feedback_of_old(dir: &DataDir) -> Option<Feedback> {
    Store::open(dir).expect("open").lesson("old").expect("read").expect("kept").feedback
}

#[test]
fn the_feedback_rewrite_runs_only_for_pre_v4_files_never_touched_by_v5() {
    let (_a, pre_v4) = older_file(3, false);
    assert_eq!(feedback_of_old(&pre_v4), Some(Feedback::Understood));

    // Re-stamped by an older build after a v5+ build created `courses`: leave answers alone.
    let (_b, restamped) = older_file(3, true);
    assert_eq!(feedback_of_old(&restamped), Some(Feedback::DontKnow));

    let (_c, v4) = older_file(4, false);
    assert_eq!(feedback_of_old(&v4), Some(Feedback::DontKnow));

    // Once recorded, the rewrite never runs again, whatever the stamp says later.
    let (_d, once) = older_file(2, false);
    assert_eq!(feedback_of_old(&once), Some(Feedback::Understood));
    let conn = Connection::open(once.db_path()).expect("raw");
    conn.execute("UPDATE lessons SET feedback = 'dont_know'", []).expect("answer again");
    conn.pragma_update(None, "user_version", 2).expect("re-stamp");
    drop(conn);
    assert_eq!(feedback_of_old(&once), Some(Feedback::DontKnow));
}

#[test]
fn a_legacy_gap_in_hours_survives_the_upgrade() {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let conn = Connection::open(tmp.path().join("coaching.db")).expect("raw");
    conn.execute_batch("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO settings VALUES ('min_hours_between', '3');")
        .expect("legacy settings");
    drop(conn);
    let store = Store::open(&DataDir::new(tmp.path())).expect("open");
    assert_eq!(store.settings().expect("settings").min_gap_minutes, 180);
}

#[test]
fn our_additions_never_raise_the_stamp() {
    let (tmp, store) = fresh();
    drop(store);
    let path = tmp.path().join("coaching.db");
    // What a file created by the TypeScript build looks like: v6 without our tables.
    let conn = Connection::open(&path).expect("raw");
    conn.execute_batch("DROP TABLE ext_evidence; DELETE FROM schema_migrations WHERE name LIKE 'rs-%';")
        .expect("ts-shaped");
    drop(conn);

    let mut store = Store::open(&DataDir::new(tmp.path())).expect("reopen");
    store.set_topic("rust", 4, None, now()).expect("write evidence");
    assert_eq!(store.evidence(Some("rust")).expect("log").len(), 1);
    drop(store);
    assert_eq!(ledger(&path), FULL_LEDGER);
    assert_v6(&path);
}

#[test]
fn a_newer_file_opens_read_only_and_is_never_written() {
    let (tmp, mut store) = fresh();
    store.complete_onboarding(&[("rust".into(), 5)], &[], now()).expect("onboard");
    store.seed_demo(now()).expect("demo");
    drop(store);
    let path = tmp.path().join("coaching.db");
    let conn = Connection::open(&path).expect("raw");
    conn.execute("UPDATE settings SET value = '9.1.0' WHERE key = 'schema_app_version'", []).expect("upgrader");
    conn.execute("UPDATE settings SET value = '9.0.0' WHERE key = 'schema_min_app_version'", []).expect("min");
    conn.pragma_update(None, "user_version", 7).expect("stamp 7");
    drop(conn);
    let before = std::fs::read(&path).expect("bytes");

    let dir = DataDir::new(tmp.path());
    let mut store = Store::open(&dir).expect("opens read-only");
    let compat = store.compat().expect("compat").clone();
    assert_eq!((compat.db_schema, compat.app_schema), (7, 6));
    assert_eq!(compat.upgraded_by.as_deref(), Some("9.1.0"));
    assert_eq!(
        compat.to_string(),
        format!(
            "The coaching database was upgraded by devcoach 9.1.0 (schema v7); this is devcoach {} (schema v6). \
             Reads work; writes need devcoach ≥ 9.0.0 — update this install, or use the newer channel.",
            devcoach_core::APP_VERSION
        )
    );

    // Reads work.
    assert_eq!(store.lessons(&LessonQuery::default(), now()).expect("read").len(), devcoach_store::DEMO_LESSON_COUNT);
    assert!(store.profile().expect("profile").is_onboarded());
    store.stats(now()).expect("stats");
    store.explain_cue(&devcoach_core::SessionId::from_payload(None), now()).expect("forecast");

    // Every write path refuses with the typed error.
    let session = devcoach_core::SessionId::from_payload(Some("s"));
    let update = devcoach_core::settings::SettingUpdate::for_agent("max_per_day", "3").expect("valid");
    let mut results: Vec<(&str, Result<(), StoreError>)> = vec![
        ("set_star", store.set_star("borrow-vs-clone", true).map(drop)),
        ("delete", store.delete_lesson("borrow-vs-clone").map(drop)),
        ("delete_many", store.delete_lessons(&["borrow-vs-clone".into()]).map(drop)),
        ("feedback", store.record_feedback("borrow-vs-clone", FeedbackChoice(Some(Feedback::Know)), now()).map(drop)),
        ("setting", store.apply_setting(&update).map(drop)),
        ("update_knowledge", store.update_knowledge("rust", 1, now()).map(drop)),
        ("set_topic", store.set_topic("go", 3, None, now()).map(drop)),
        ("remove_topic", store.remove_topic("rust").map(drop)),
        ("add_group", store.add_group("New").map(drop)),
        ("remove_group", store.remove_group("Data").map(drop)),
        ("assign", store.assign_group("rust", &devcoach_core::knowledge::GroupTarget::Ungrouped).map(drop)),
        ("onboarding", store.complete_onboarding(&[], &[], now()).map(drop)),
        ("evaluate_cue", store.evaluate_cue(&session, false, now()).map(drop)),
        ("skip", store.skip_lesson("chat", now()).map(drop)),
        ("import", store.import_lessons(&[], now()).map(drop)),
        ("demo", store.seed_demo(now())),
    ];
    let lesson = store.lesson("borrow-vs-clone").expect("read").expect("exists");
    results.push(("put_lesson", store.put_lesson(&lesson)));
    for (what, result) in results {
        match result {
            Err(StoreError::SchemaTooNew(e)) => assert_eq!(e, compat, "{what}"),
            other => panic!("{what}: expected SchemaTooNew, got {other:?}"),
        }
    }
    drop(store);
    assert!(std::fs::read(&path).expect("bytes") == before, "a newer file must never be written");
}

#[test]
fn a_damaged_file_is_refused_and_left_alone() {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let path = tmp.path().join("coaching.db");
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&path, &garbage).expect("garbage");
    match Store::open(&DataDir::new(tmp.path())) {
        Err(StoreError::Corrupt { path: p, .. }) => assert_eq!(p, path),
        Err(other) => panic!("expected Corrupt, got {other}"),
        Ok(_) => panic!("a damaged file opened"),
    }
    assert_eq!(std::fs::read(&path).expect("bytes"), garbage);
}

#[test]
fn peeking_never_creates_anything() {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let dir = DataDir::new(tmp.path().join("nested"));
    assert_eq!(Store::peek(&dir), devcoach_store::Peek::default());
    assert!(Store::open_existing(&dir).expect("no error").is_none());
    assert!(!dir.root().exists());
    drop(Store::open(&dir).expect("create"));
    let peek = Store::peek(&dir);
    assert!(peek.exists);
    assert_eq!(peek.schema, Some(6));
}

#[test]
fn concurrent_first_opens_of_an_old_file_both_succeed() {
    let (_tmp, dir) = fixture_dir("ts-0.9.5/coaching.db");
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                Store::open(&dir).map(|s| s.lessons(&LessonQuery::default(), now()).map(|l| l.len()))
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("thread").expect("open").expect("read"), 5);
    }
    assert_eq!(
        ledger(&dir.db_path()).len(),
        devcoach_store::ADDITIONS.len() + 1,
        "each addition and the feedback rewrite, once"
    );
}

#[test]
fn an_upgrade_by_a_newer_build_while_open_stops_every_write() {
    let (tmp, mut store) = crate::fresh();
    store.set_topic("rust", 5, None, now()).expect("write while v6");
    // A newer devcoach upgrades the file while this connection stays open (a server, a pool).
    let raw = rusqlite::Connection::open(tmp.path().join("coaching.db")).expect("raw");
    raw.pragma_update(None, "user_version", 7).expect("stamp");
    match store.set_topic("go", 5, None, now()) {
        Err(devcoach_store::StoreError::SchemaTooNew(c)) => assert_eq!(c.db_schema, 7),
        other => panic!("{other:?}"),
    }
    assert!(store.compat().is_some(), "the connection now knows");
    let go: i64 = raw.query_row("SELECT COUNT(*) FROM knowledge WHERE topic = 'go'", [], |r| r.get(0)).expect("count");
    assert_eq!(go, 0, "nothing was written");
}
