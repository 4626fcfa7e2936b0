//! A backup carries everything devcoach keeps: restored into an empty data folder, every table
//! is equal row for row and every practice file byte for byte; restored twice, the second adds
//! nothing; restored into a populated store, both sides stay.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::Duration;
use devcoach_core::course::{CourseId, StepKind, StepStatus};
use devcoach_core::fsrs::Grade;
use devcoach_core::ids::LessonId;
use devcoach_core::knowledge_model::PracticeResult;
use devcoach_core::lesson::{LessonContext, Level, NewLesson};
use devcoach_core::review::ReviewSettings;
use devcoach_store::{NewCourse, Store};
use rusqlite::types::Value as Sql;

use crate::{fresh, now};

/// Tables that are pacing state of one machine, not the learner's record (as in the original),
/// and the day's working state (the knowledge model's moves, each card's first grade).
const NOT_BACKED_UP: [&str; 6] =
    ["nudge_state", "cue_state", "schema_migrations", "sqlite_sequence", "ext_model_moves", "ext_review_replays"];
/// `ext_settings` keys that are caches or pacing state, and the consent to read this machine's
/// agent transcripts (given on each machine, never carried to another by a backup).
const MACHINE_KEYS: [&str; 3] = ["cards_signature", "review_last_offer", "work_insights"];

/// Every table's rows (without autoincrement ids), sorted, by table name.
fn tables(db: &Path) -> BTreeMap<String, Vec<Vec<String>>> {
    let conn = rusqlite::Connection::open(db).expect("db");
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .expect("sql")
        .query_map([], |r| r.get(0))
        .expect("rows")
        .map(|r| r.expect("name"))
        .filter(|n: &String| !NOT_BACKED_UP.contains(&n.as_str()))
        .collect();
    let mut out = BTreeMap::new();
    for table in names {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table}")).expect("select");
        let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
        let mut rows: Vec<Vec<String>> = stmt
            .query_map([], |r| {
                let mut row = Vec::new();
                for (i, c) in columns.iter().enumerate() {
                    if c == "id" && table.starts_with("ext_") {
                        continue;
                    }
                    row.push(match r.get::<_, Sql>(i)? {
                        Sql::Null => "NULL".to_owned(),
                        Sql::Integer(n) => n.to_string(),
                        Sql::Real(f) => format!("{f:?}"),
                        Sql::Text(s) => s,
                        Sql::Blob(b) => format!("{b:?}"),
                    });
                }
                Ok(row)
            })
            .expect("rows")
            .map(|r| r.expect("row"))
            .filter(|row| table != "ext_settings" || !MACHINE_KEYS.contains(&row[0].as_str()))
            .collect();
        rows.sort();
        out.insert(table, rows);
    }
    out
}

fn practice_files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for folder in ["sessions", "problems"] {
        let Ok(entries) = std::fs::read_dir(root.join("practice").join(folder)) else { continue };
        for e in entries {
            let e = e.expect("entry");
            out.insert(format!("{folder}/{}", e.file_name().to_string_lossy()), std::fs::read(e.path()).expect("read"));
        }
    }
    if let Ok(h) = std::fs::read(root.join("practice/history.txt")) {
        out.insert("history.txt".into(), h);
    }
    out
}

/// The demo learner after an hour of use: grades, a practice session with its log, a course
/// step done, fitted review parameters.
fn used_store() -> (tempfile::TempDir, Store) {
    let (tmp, mut store) = fresh();
    store.seed_demo(now() - Duration::hours(2)).expect("demo");
    for (id, g) in [("git-bisect", Grade::Good), ("redis-ttl-jitter", Grade::Again), ("sqlite-wal", Grade::Hard)] {
        store.grade_review(id, g, now() - Duration::minutes(50)).expect("grade").expect("lesson");
    }
    let lesson = NewLesson {
        id: LessonId::new("practice-two-sum-20261130".to_owned()).expect("id"),
        topic_id: "algorithms".into(),
        categories: vec!["practice".into(), "hash-map".into()],
        title: "Two Sum".into(),
        level: Level::Junior,
        summary: "Solved with a hash map.".into(),
        body: "Body.".into(),
        context: LessonContext::default(),
    };
    store
        .record_practice(lesson, &["rust".to_owned()], Some(PracticeResult::Alone), true, now() - Duration::minutes(30))
        .expect("practice");
    let rebuilt = NewLesson {
        id: LessonId::new("total-rebuilt-hands-on-20261130".to_owned()).expect("id"),
        topic_id: "python".into(),
        categories: vec!["practice".into(), "hands-on".into()],
        title: "total, rebuilt (hands-on)".into(),
        level: Level::Mid,
        summary: "You rebuilt `total`: 2 checks, 1 hint, no reveal.".into(),
        body: "Body.".into(),
        context: LessonContext::default(),
    };
    let handson = devcoach_core::handson::HandsOn {
        language: "python".into(),
        result: Some(PracticeResult::Alone),
        checks: 2,
        hints: 1,
        revealed: false,
        passed: true,
    };
    store.record_handson(rebuilt, "python", &handson, now() - Duration::minutes(25)).expect("hands-on");
    let sessions = store.data_dir().root().join("practice/sessions");
    std::fs::create_dir_all(&sessions).expect("dir");
    std::fs::write(
        sessions.join("2026-11-30-two-sum.jsonl"),
        "{\"ts\":\"2026-11-30T11:30:00.000Z\",\"kind\":\"start\"}\n",
    )
    .expect("log");
    let problems = store.data_dir().root().join("practice/problems");
    std::fs::create_dir_all(&problems).expect("dir");
    std::fs::write(problems.join("two-sum.md"), "# Two Sum\nFind two numbers…\n").expect("problem");
    std::fs::write(store.data_dir().root().join("practice/history.txt"), "req: inputs are ints\n/hint\n")
        .expect("history");
    let id = CourseId::parse("cache-expiry-that-never-stampedes").expect("id");
    store.set_step_status(&id, 2, StepStatus::Done, now() - Duration::minutes(20)).expect("step");
    let course = store
        .create_course(
            &NewCourse {
                title: "Checks".into(),
                topic_id: "rust".into(),
                goal: None,
                lesson_id: None,
                prerequisites: vec![],
            },
            now(),
        )
        .expect("course");
    let check = CourseId::parse(&course.id).expect("id");
    std::fs::write(store.data_dir().course_document_path(&check), "<section id=\"q\">Q</section>").expect("doc");
    store.add_course_step(&check, "Q", StepKind::Check, "q", None, now()).expect("step");
    store.set_step_status(&check, 1, StepStatus::Done, now() - Duration::minutes(10)).expect("check");
    let settings = ReviewSettings {
        retention: 0.85,
        parameters: Some(devcoach_core::fsrs::Parameters::default()),
        ..ReviewSettings::default()
    };
    store.set_review_settings(&settings).expect("settings");
    (tmp, store)
}

#[test]
fn every_table_and_file_survives_a_round_trip() {
    let (_t, store) = used_store();
    let (zip, summary) = store.backup_zip().expect("backup");
    let (_t2, mut other) = fresh();
    let out = other.restore_zip(&zip, now()).expect("restore");
    let before = tables(&store.data_dir().db_path());
    let after = tables(&other.data_dir().db_path());
    for (table, rows) in &before {
        assert_eq!(after.get(table), Some(rows), "{table} differs after the round trip");
    }
    assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>());
    assert_eq!(
        practice_files(store.data_dir().root()),
        practice_files(other.data_dir().root()),
        "practice files byte-equal"
    );
    assert_eq!(practice_files(other.data_dir().root()).len(), 3);
    for (table, n) in &summary.rows {
        assert_eq!(out.rows_of(table), *n, "{table}: every row restored");
        assert!(*n > 0, "{table} had rows to carry");
    }
    assert_eq!(
        other.review_settings().expect("settings"),
        store.review_settings().expect("settings"),
        "fitted parameters kept"
    );
    assert_eq!(other.data_dir().read_notebook().expect("nb"), store.data_dir().read_notebook().expect("nb"));
    assert!(out.previous_notebook.is_none(), "an empty folder had no notebook to keep");

    // The same backup again adds nothing, anywhere.
    let again = other.restore_zip(&zip, now()).expect("again");
    assert_eq!((again.lessons, again.courses, again.practice_files), (0, 0, 0));
    assert!(again.rows.iter().all(|(_, n)| *n == 0), "{:?}", again.rows);
    assert_eq!(tables(&other.data_dir().db_path()), after, "a second restore changes no table");
    assert!(again.previous_notebook.is_none(), "the same notebook is not copied aside");
}

#[test]
fn restoring_into_a_populated_store_keeps_both_sides() {
    let (_t, store) = used_store();
    let (zip, _) = store.backup_zip().expect("backup");
    let (_t2, mut other) = fresh();
    other.seed_demo(now()).expect("demo");
    other.grade_review("git-bisect", Grade::Easy, now()).expect("grade").expect("lesson");
    let sessions = other.data_dir().root().join("practice/sessions");
    std::fs::create_dir_all(&sessions).expect("dir");
    std::fs::write(
        sessions.join("2026-11-30-two-sum.jsonl"),
        "{\"ts\":\"2026-11-30T12:00:00.000Z\",\"kind\":\"mine\"}\n",
    )
    .expect("log");
    other.data_dir().write_notebook("# My own notes\n").expect("nb");
    let log_before = other.review_log().expect("log").len();
    let evidence_before = other.evidence(None).expect("evidence").len();

    let out = other.restore_zip(&zip, now()).expect("restore");
    let log = other.review_log().expect("log");
    assert!(log.len() > log_before, "their reviews joined ours");
    assert!(log.iter().any(|r| r.lesson_id == "git-bisect" && r.grade == Grade::Easy), "ours kept");
    assert!(log.iter().any(|r| r.lesson_id == "git-bisect" && r.grade == Grade::Good), "theirs added");
    assert!(other.evidence(None).expect("evidence").len() > evidence_before);
    // Both session logs: ours in place, theirs beside it.
    let mine = std::fs::read_to_string(sessions.join("2026-11-30-two-sum.jsonl")).expect("mine");
    assert!(mine.contains("\"mine\""));
    let theirs = std::fs::read_to_string(sessions.join("2026-11-30-two-sum.restored.jsonl")).expect("theirs");
    assert!(theirs.contains("\"start\""));
    // The notebook is replaced, as the original does, but ours is kept beside it.
    let kept = out.previous_notebook.expect("the previous notebook was kept");
    assert_eq!(std::fs::read_to_string(&kept).expect("kept"), "# My own notes\n");
    assert_eq!(other.data_dir().read_notebook().expect("nb"), store.data_dir().read_notebook().expect("nb"));
    // The card keeps the later history: ours (graded at `now`) over theirs.
    let card = other.review_card("git-bisect").expect("read").expect("card");
    assert_eq!(card.last_review.as_deref(), Some(devcoach_core::time::iso_ms(now()).as_str()));
}

#[test]
fn damaged_rows_of_our_tables_are_skipped_not_stored() {
    let (_t, mut store) = fresh();
    store.seed_demo(now()).expect("demo");
    let bad_log = br#"[
      {"lesson_id": "git-bisect", "grade": 9, "reviewed_at": "2026-11-30T10:00:00.000Z", "elapsed_days": 1, "interval_days": 1, "retrievability": 0.9, "stability": 1.0, "difficulty": 5.0},
      {"lesson_id": "git-bisect", "grade": 3, "reviewed_at": "yesterday", "elapsed_days": 1, "interval_days": 1, "retrievability": 0.9, "stability": 1.0, "difficulty": 5.0},
      {"lesson_id": "git-bisect", "grade": 3, "reviewed_at": "2026-11-30T10:00:00.000Z", "elapsed_days": 1, "interval_days": 1, "retrievability": 2.5, "stability": -1.0, "difficulty": 5.0},
      {"lesson_id": "git-bisect", "grade": 3, "reviewed_at": "2026-11-30T10:00:00.000Z", "elapsed_days": 1, "interval_days": 1, "retrievability": null, "stability": 1.0, "difficulty": 5.0},
      "not a row"
    ]"#;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("lessons.json", zip::write::SimpleFileOptions::default()).expect("entry");
    std::io::Write::write_all(&mut zip, b"[]").expect("write");
    zip.start_file("ext/review_log.json", zip::write::SimpleFileOptions::default()).expect("entry");
    std::io::Write::write_all(&mut zip, bad_log).expect("write");
    let bytes = zip.finish().expect("zip").into_inner();
    let before = store.review_log().expect("log").len();
    let out = store.restore_zip(&bytes, now()).expect("restore");
    assert_eq!((out.rows_of("ext_review_log"), out.invalid), (1, 4), "only the sound row");
    assert_eq!(store.review_log().expect("log").len(), before + 1);
}

#[test]
fn restored_history_rows_follow_the_topic_rule() {
    let evidence = br#"[
      {"topic": "Git", "delta": 1, "value_after": 6, "cause": "manual", "lesson_id": null, "detail": null, "at": "2026-11-30T10:00:00.000Z"},
      {"topic": "bad\u001b[2Jtopic", "delta": 1, "value_after": 6, "cause": "manual", "lesson_id": null, "detail": null, "at": "2026-11-30T10:00:00.000Z"}
    ]"#;
    let model = br#"[
      {"topic": "Rust Lang", "learned": 0.5, "stability": 2.0, "difficulty": 5.0, "last_at": "2026-11-30T10:00:00.000Z", "evidence": 1}
    ]"#;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in
        [("lessons.json", &b"[]"[..]), ("ext/evidence.json", evidence), ("ext/topic_model.json", model)]
    {
        zip.start_file(name, zip::write::SimpleFileOptions::default()).expect("entry");
        std::io::Write::write_all(&mut zip, bytes).expect("write");
    }
    let bytes = zip.finish().expect("zip").into_inner();
    let (_t, mut store) = fresh();
    let out = store.restore_zip(&bytes, now()).expect("restore");
    assert_eq!((out.rows_of("ext_evidence"), out.rows_of("ext_topic_model"), out.invalid), (1, 1, 1));
    let topics: Vec<String> = store.evidence(None).expect("log").into_iter().map(|e| e.topic).collect();
    assert_eq!(topics, ["git"]);
    let estimates: Vec<String> = store.topic_estimates(now()).expect("model").into_iter().map(|e| e.topic).collect();
    assert_eq!(estimates, ["rust_lang"]);
}
