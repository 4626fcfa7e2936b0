//! `devcoach review`: the schedule explainer against the reference, the due list, an
//! interactive session driven through stdin, grading, settings and the Anki export.

use insta::assert_snapshot;
use serde_json::Value;

use crate::{Env, fixtures};

#[test]
fn schedule_prints_the_reference_steps() {
    let env = Env::new();
    let out = env.run(&["review", "schedule", "--ratings", "3,3,1,4", "--elapsed-days", "0,1,3,10", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).expect("json");
    let vectors: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("fsrs/reference-vectors.json")).expect("vectors"),
    )
    .expect("json");
    let want = &vectors["cases"][0];
    assert_eq!(want["name"], "cli example");
    for (i, step) in want["steps"].as_array().expect("steps").iter().enumerate() {
        assert_eq!(got[i]["interval_days"], step["interval"], "review {i}");
        for key in ["stability", "difficulty", "retrievability"] {
            let (a, b) = (got[i][key].as_f64().expect("number"), step[key].as_f64().expect("number"));
            assert!((a - b).abs() < 1e-6, "review {i} {key}: {a} vs {b}");
        }
    }
    assert_snapshot!(
        "review_schedule",
        env.transcript(&["review", "schedule", "--ratings", "good,good,again,easy", "--elapsed-days", "0,1,3,10"])
    );
    assert_snapshot!(
        "review_schedule_mismatch",
        env.transcript(&["review", "schedule", "--ratings", "3,3", "--elapsed-days", "0"])
    );
    assert_snapshot!(
        "review_schedule_bad_grade",
        env.transcript(&["review", "schedule", "--ratings", "3,7", "--elapsed-days", "0,1"])
    );
}

#[test]
fn due_interactive_grade_and_export() {
    let empty = Env::new();
    assert_snapshot!("review_due_nothing", empty.transcript(&["review", "due"]));
    assert!(!empty.data().join("coaching.db").exists(), "reading never creates the database");

    let env = Env::demo();
    let due: Value =
        serde_json::from_slice(&env.run(&["review", "due", "--limit", "3", "--json"]).stdout).expect("json");
    assert_eq!(due["cards"].as_array().map(Vec::len), Some(3));
    let total = due["total_due"].as_i64().expect("total");
    assert!(total >= 25, "the demo's lessons are a day old or more: {due}");
    assert_snapshot!("review_due", env.transcript(&["review", "due", "--limit", "3"]));

    // Two cards through the interactive review: an answer then good; Enter then again; then stop.
    let out =
        env.command().arg("review").write_stdin("jitter spreads expiry\n3\n\nagain\nq\n").output().expect("review");
    assert!(out.status.success());
    assert_snapshot!("review_session", String::from_utf8_lossy(&out.stdout));
    let after: Value = serde_json::from_slice(&env.run(&["review", "due", "--json"]).stdout).expect("json");
    assert_eq!(after["total_due"].as_i64(), Some(total - 2), "graded cards leave the queue, even one graded again");

    let graded: Value =
        serde_json::from_slice(&env.run(&["review", "grade", "git-bisect", "easy", "--json"]).stdout).expect("json");
    assert_eq!((graded["grade"].as_str(), graded["next_review_in_days"].as_u64()), (Some("easy"), Some(8)));
    assert_snapshot!("review_grade_missing", env.transcript(&["review", "grade", "nope", "good"]));
    assert_snapshot!("review_grade_bad", env.transcript(&["review", "grade", "git-bisect", "meh"]));

    assert_snapshot!(
        "review_settings",
        env.transcript(&["review", "settings", "--retention", "0.85", "--mix", "reviews_first"])
    );
    assert_snapshot!("review_settings_bad", env.transcript(&["review", "settings", "--retention", "0.5"]));

    // One `export` for every format; the older `review export --anki` still works.
    let out = env.run(&["export", "--format", "anki", "-o", "cards.txt"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("(in Anki: File > Import)"));
    let anki = std::fs::read_to_string(env.tmp.path().join("cards.txt")).expect("export");
    let piped = env.run(&["export", "--format", "anki"]);
    assert_eq!(String::from_utf8_lossy(&piped.stdout), anki, "to standard output, the same text");
    let lines: Vec<&str> = anki.lines().collect();
    assert_eq!(lines[..3], ["#separator:tab", "#html:true", "#tags column:3"]);
    assert_eq!(lines.len() - 3, devcoach_store::DEMO_LESSON_COUNT);
    assert!(lines[3..].iter().all(|l| l.split('\t').count() == 3 && l.contains("\tdevcoach ")), "{anki}");
    // A card holding markup characters keeps them as text in Anki.
    rusqlite::Connection::open(env.data().join("coaching.db"))
        .expect("db")
        .execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
             VALUES ('generics', '2026-11-01T10:00:00Z', 'rust', '[]', 'Vec<T> & friends', 'mid', 'Use Vec<T> when a < b & b > c.')",
            [],
        )
        .expect("lesson");
    assert!(env.run(&["review", "export", "--anki", "cards.txt"]).status.success(), "an earlier export is replaced");
    let anki = std::fs::read_to_string(env.tmp.path().join("cards.txt")).expect("export");
    assert!(anki.contains("Use Vec&lt;T&gt; when a &lt; b &amp; b &gt; c."), "{anki}");
    assert!(anki.contains("“Vec&lt;T&gt; &amp; friends”"), "{anki}");
}

#[test]
fn optimize_fits_the_learners_own_log() {
    let env = Env::demo();
    assert_snapshot!("review_optimize_too_few", env.transcript(&["review", "optimize"]));
    // 60 cards with five reviews each, the learner forgetting faster than FSRS's defaults
    // expect: every second review after a long gap fails.
    assert!(env.run(&["review", "due"]).status.success(), "creates the tables and cards");
    let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    for card in 0..60 {
        let mut day = 0;
        for (i, (gap, grade)) in [(0, 3), (2, 3), (7, 1), (1, 3), (4, 3)].into_iter().enumerate() {
            day += gap;
            let grade = if i == 4 && card % 2 == 0 { 1 } else { grade };
            conn.execute(
                "INSERT INTO ext_review_log (lesson_id, grade, reviewed_at, elapsed_days, interval_days, retrievability, stability, difficulty) \
                 VALUES (?1, ?2, ?3, ?4, 1, NULL, 1.0, 5.0)",
                rusqlite::params![format!("card-{card:02}"), grade, format!("2026-09-{:02}T10:00:00.000Z", 1 + day), gap],
            )
            .expect("log row");
        }
    }
    let out: Value = serde_json::from_slice(&env.run(&["review", "optimize", "--json"]).stdout).expect("json");
    assert_eq!(out["repeat_reviews"], 240 + 3, "these and the demo's own three repeat reviews");
    assert!(out["log_loss_after"].as_f64() < out["log_loss_before"].as_f64(), "{out}");
    assert_eq!(out["kept"], true, "the gain holds on cards each fold's fit did not see: {out}");
    assert!(out["held_out_after"].as_f64() < out["held_out_before"].as_f64(), "{out}");
    let saved: Value = serde_json::from_slice(&env.run(&["review", "settings", "--json"]).stdout).expect("json");
    assert_eq!(saved["mix"], "alternate", "the other settings stay");
    let stored: String = conn
        .query_row("SELECT value FROM ext_settings WHERE key = 'review_parameters'", [], |r| r.get(0))
        .expect("parameters saved");
    assert_eq!(stored.split(',').count(), 21);
    // Fitting again from the fitted parameters gains nothing on unseen cards: they stay.
    let again = env.run(&["review", "optimize"]);
    assert!(crate::flat(&again.stdout).contains("Kept the parameters you have"), "{}", crate::flat(&again.stdout));
    assert!(env.run(&["review", "optimize", "--reset"]).status.success());
    let gone: i64 = conn
        .query_row("SELECT COUNT(*) FROM ext_settings WHERE key = 'review_parameters'", [], |r| r.get(0))
        .expect("count");
    assert_eq!(gone, 0);
}

#[test]
fn each_grade_of_a_session_is_stamped_when_it_is_given() {
    use std::io::Write as _;
    let env = Env::demo();
    let mut child = std::process::Command::new(crate::bin())
        .env_clear()
        .envs(env.vars())
        .arg("review")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("review");
    let mut stdin = child.stdin.take().expect("stdin");
    // Three cards answered a little apart, as a person does.
    for line in ["\n", "good\n", "\n", "again\n", "\n", "hard\n", "q\n"] {
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        std::thread::sleep(std::time::Duration::from_millis(40));
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    let since = "2026-11-30T12:00:00.000Z";
    let mut stmt =
        conn.prepare("SELECT reviewed_at FROM ext_review_log WHERE reviewed_at >= ?1 ORDER BY id").expect("sql");
    let stamps: Vec<String> = stmt.query_map([since], |r| r.get(0)).expect("rows").map(|r| r.expect("row")).collect();
    assert_eq!(stamps.len(), 3, "{stamps:?}");
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "each grade at its own moment: {stamps:?}");
    let evidence: Vec<String> = conn
        .prepare("SELECT at FROM ext_evidence WHERE cause = 'review' AND at >= ?1 ORDER BY id")
        .expect("sql")
        .query_map([since], |r| r.get(0))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(evidence, stamps, "the evidence log carries the same moments");
}

#[test]
fn the_record_exports_for_the_fsrs_optimizer_and_a_learning_record_store() {
    let empty = Env::new();
    let out = empty.run(&["export", "--format", "fsrs-log"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "card_id,review_time,review_rating,review_state,review_duration\n"
    );
    assert!(!empty.data().join("coaching.db").exists(), "exporting never creates the database");

    let env = Env::demo();
    let csv = String::from_utf8(env.run(&["export", "--format", "fsrs-log"]).stdout).expect("utf-8");
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 10, "the demo's ten reviews: {csv}");
    for row in &rows {
        assert_eq!(row.len(), 5, "{row:?}");
        assert!(row[0].parse::<u32>().is_ok_and(|id| id >= 1) && row[1].parse::<i64>().is_ok(), "{row:?}");
        assert!(["1", "2", "3", "4"].contains(&row[2]) && ["0", "2", "3"].contains(&row[3]) && row[4].is_empty());
    }
    // A card's first review is new; after an again it is relearning.
    let card_of_again = rows.iter().find(|r| r[2] == "1").map(|r| r[0]).expect("an again in the demo");
    let after: Vec<&str> = rows.iter().filter(|r| r[0] == card_of_again).map(|r| r[3]).collect();
    assert_eq!(after[..2], ["0", "3"], "{csv}");

    let statements: Value = serde_json::from_slice(&env.run(&["export", "--format", "xapi"]).stdout).expect("json");
    let statements = statements.as_array().expect("an array of statements");
    let verbs = |word: &str| statements.iter().filter(|s| s["verb"]["display"]["en"] == word).count();
    assert_eq!(verbs("experienced"), 30, "one per lesson");
    assert!(verbs("responded") >= 20 && verbs("answered") == 15, "answers; 5 explain-backs and 10 reviews");
    for s in statements {
        assert!(s["verb"]["id"].as_str().is_some_and(|v| v.starts_with("http://adlnet.gov/expapi/verbs/")), "{s}");
        assert!(s["object"]["id"].as_str().is_some_and(|o| o.starts_with("https://")), "{s}");
        assert!(s["timestamp"].as_str().is_some_and(|t| devcoach_core::time::parse_timestamp(t).is_ok()), "{s}");
    }
    let checked =
        statements.iter().filter(|s| s["result"]["response"].as_str().is_some_and(|r| r.contains("context()")));
    assert_eq!(checked.count(), 1, "the learner's own words travel with their explain-back");

    // A deleted lesson leaves every export, the learner's words with it.
    assert!(env.run(&["delete", "rust-error-context", "--yes"]).status.success());
    let after: Value = serde_json::from_slice(&env.run(&["export", "--format", "xapi"]).stdout).expect("json");
    assert!(!after.to_string().contains("rust-error-context"), "nothing of the deleted lesson");
    let csv_after = String::from_utf8(env.run(&["export", "--format", "fsrs-log"]).stdout).expect("utf-8");
    assert_eq!(csv_after.lines().count(), csv.lines().count() - 2, "its two reviews left the log export");

    // To a file: a second write needs --force; a device is refused and left alone.
    let file = env.tmp.path().join("record.json");
    let path = file.to_str().expect("utf-8");
    assert!(env.run(&["export", "--format", "xapi", "-o", path]).status.success());
    let again = env.run(&["export", "--format", "xapi", "-o", path]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert!(env.run(&["export", "--format", "xapi", "-o", path, "--force"]).status.success());
    let device = env.run(&["export", "--format", "fsrs-log", "-o", "/dev/null"]);
    assert_eq!(device.status.code(), Some(1), "{device:?}");
    let wrong = env.run(&["export", "--format", "csv"]);
    assert_eq!(wrong.status.code(), Some(2));
}

/// The xAPI export of a long record is written as each statement is made, from lessons read one
/// at a time: with its data segment capped at 16 MiB (`ulimit -d`) it still writes 50,000 long-
/// titled lessons' statements. Holding the lessons as a list (the step before) needed over
/// 32 MiB for them; as one JSON value, several times that.
#[cfg(target_os = "linux")]
#[test]
fn a_long_record_exports_to_xapi_under_a_memory_cap() {
    let env = Env::demo();
    {
        let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
        let tx = conn.unchecked_transaction().expect("tx");
        let long = "a title at some length, ".repeat(12);
        let mut insert = tx
            .prepare(
                "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
                 VALUES (?1, '2026-11-01T10:00:00Z', 'rust', '[\"rust\"]', ?2, 'mid', 'S')",
            )
            .expect("prepare");
        for i in 0..50_000 {
            insert.execute(rusqlite::params![format!("long-{i:05}"), format!("Lesson {i}, {long}")]).expect("lesson");
        }
        drop(insert);
        tx.commit().expect("commit");
    }
    let script = format!("ulimit -d 16384 && exec '{}' export --format xapi", crate::bin().display());
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .env_clear()
        .envs(env.vars())
        .current_dir(env.tmp.path())
        .output()
        .expect("ran");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let statements: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("one JSON array");
    assert!(statements.len() > 50_000, "{}", statements.len());
}
