//! Every visible command's output, pinned by snapshots of the real binary.

use insta::assert_snapshot;

use crate::Env;

#[test]
fn welcome_version_and_usage_errors() {
    let env = Env::new();
    assert_snapshot!("welcome_fresh", env.transcript(&[]));
    assert_snapshot!("version", env.transcript(&["--version"]));
    assert_eq!(env.transcript(&["-v"]), env.transcript(&["--version"]));
    assert_snapshot!("unknown_command", env.transcript(&["frobnicate"]));
    assert_snapshot!("excess_argument", env.transcript(&["stats", "extra"]));
    assert_snapshot!("bad_flag_value", env.transcript(&["lessons", "--period", "decade"]));
    // Nothing was created by any of that.
    assert!(!env.data().exists());
}

#[test]
fn welcome_with_data() {
    let env = Env::demo();
    assert_snapshot!("welcome_demo", env.transcript(&[]));
}

#[test]
fn reads_on_an_empty_sandbox_create_nothing() {
    let env = Env::new();
    assert_snapshot!("empty_lessons", env.transcript(&["lessons"]));
    assert_snapshot!("empty_profile", env.transcript(&["profile"]));
    assert_snapshot!("empty_stats", env.transcript(&["stats"]));
    assert_eq!(env.transcript(&["lessons", "--json"]), "exit: 0\n--- stdout\n{\n  \"lessons\": []\n}\n");
    assert_snapshot!("empty_settings_json", env.transcript(&["settings", "--json"]));
    assert_snapshot!("missing_lesson", env.transcript(&["lesson", "nope"]));
    assert!(!env.data().exists());
}

#[test]
fn demo_learner_reads() {
    let env = Env::demo();
    assert_snapshot!("stats", env.transcript(&["stats"]));
    assert_snapshot!("stats_json", env.transcript(&["stats", "--json"]));
    assert_snapshot!("lessons", env.transcript(&["lessons"]));
    assert_snapshot!("profile", env.transcript(&["profile"]));
    assert_snapshot!("profile_json", env.transcript(&["profile", "--json"]));
    assert_snapshot!("settings", env.transcript(&["settings"]));
    assert_snapshot!("lesson_detail", env.transcript(&["lesson", "sqlite-busy-timeout"]));
    assert_snapshot!("lesson_shared_detail", env.transcript(&["lesson", "rust-newtypes"]));
    assert_snapshot!("lesson_json", env.transcript(&["lesson", "git-bisect", "--json"]));
    // The streamed list is byte for byte what a pretty-printer makes of the same array.
    let out = String::from_utf8(env.run(&["lessons", "--json"]).stdout).expect("utf-8");
    let parsed: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(parsed["lessons"].as_array().map(Vec::len), Some(devcoach_store::DEMO_LESSON_COUNT));
    assert_eq!(out, format!("{}\n", serde_json::to_string_pretty(&parsed).expect("pretty")));
}

#[test]
fn lesson_filters() {
    let env = Env::demo();
    assert_snapshot!("lessons_starred", env.transcript(&["lessons", "--starred"]));
    assert_snapshot!("lessons_from_sender", env.transcript(&["lessons", "--from", "Grace"]));
    assert_snapshot!("lessons_no_feedback", env.transcript(&["lessons", "--feedback", "none", "--own"]));
    assert_snapshot!("lessons_search", env.transcript(&["lessons", "--search", "sqlite lock"]));
    assert_snapshot!("lessons_today", env.transcript(&["lessons", "--period", "today"]));
    assert_snapshot!(
        "lessons_senior_by_title",
        env.transcript(&["lessons", "--level", "senior", "--sort", "title", "--order", "asc"])
    );
    assert_snapshot!("lessons_limit", env.transcript(&["lessons", "--limit", "3", "--category", "performance"]));
    assert_snapshot!(
        "lessons_date_range",
        env.transcript(&["lessons", "--date-from", "2026-11-20", "--date-to", "2026-11-22", "--period", "today"])
    );
    assert_snapshot!("lessons_bad_date", env.transcript(&["lessons", "--date-to", "next week"]));
    assert_snapshot!("lessons_no_match", env.transcript(&["lessons", "--search", "kubernetes"]));
    assert_snapshot!(
        "lessons_project_branch_commit",
        env.transcript(&[
            "lessons",
            "--project",
            "demo",
            "--branch",
            "main",
            "--repository",
            "example",
            "--limit",
            "1"
        ])
    );
    assert_eq!(env.transcript(&["lessons", "--imported", "--own"]).lines().next(), Some("exit: 2"));
}

#[test]
fn star_delete_and_feedback() {
    let env = Env::demo();
    assert_snapshot!("star", env.transcript(&["star", "git-bisect"]));
    assert_snapshot!("unstar", env.transcript(&["unstar", "git-bisect"]));
    assert_snapshot!("star_missing", env.transcript(&["star", "nope"]));
    assert_snapshot!("feedback_know", env.transcript(&["feedback", "redis-ttl-jitter", "know"]));
    assert_snapshot!("feedback_same_again", env.transcript(&["feedback", "redis-ttl-jitter", "know"]));
    assert_snapshot!("feedback_leave_know", env.transcript(&["feedback", "redis-ttl-jitter", "dont_know"]));
    assert_snapshot!("feedback_clear", env.transcript(&["feedback", "redis-ttl-jitter", "clear"]));
    assert_snapshot!("feedback_bad_value", env.transcript(&["feedback", "redis-ttl-jitter", "maybe"]));
    assert_snapshot!("feedback_missing", env.transcript(&["feedback", "nope", "know"]));
    // Without a terminal to ask on, deleting needs --yes; nothing is deleted meanwhile.
    assert_snapshot!("delete_unasked", env.transcript(&["delete", "git-bisect"]));
    assert_snapshot!("delete", env.transcript(&["delete", "git-bisect", "--yes"]));
    assert_snapshot!("delete_again", env.transcript(&["delete", "git-bisect", "--yes"]));
    let after = env.run(&["lessons", "--json"]);
    let lessons: serde_json::Value = serde_json::from_slice(&after.stdout).expect("json");
    assert_eq!(lessons["lessons"].as_array().map(Vec::len), Some(devcoach_store::DEMO_LESSON_COUNT - 1));
}

#[test]
fn settings_writes_are_validated() {
    let env = Env::demo();
    assert_snapshot!("set_ok", env.transcript(&["set", "nudge_every", "5"]));
    assert_snapshot!("set_scope", env.transcript(&["set", "nudge_scope", "global"]));
    assert_snapshot!("set_share_name", env.transcript(&["set", "share_name", "  Ada Lovelace  "]));
    assert_snapshot!("set_clear_share_name", env.transcript(&["set", "share_name", ""]));
    assert_snapshot!("set_out_of_range", env.transcript(&["set", "max_per_day", "0"]));
    assert_snapshot!("set_not_a_number", env.transcript(&["set", "min_gap_minutes", "soon"]));
    assert_snapshot!("set_bad_scope", env.transcript(&["set", "nudge_scope", "team"]));
    assert_snapshot!("set_unknown_key", env.transcript(&["set", "ui_theme", "dark"]));
    assert_snapshot!("set_long_name", env.transcript(&["set", "share_name", &"x".repeat(81)]));
    assert_snapshot!("settings_after", env.transcript(&["settings", "--json"]));
}

#[test]
fn knowledge_and_groups() {
    let env = Env::new();
    assert_snapshot!(
        "knowledge_add",
        env.transcript(&["knowledge-add", "rust", "--confidence", "12", "--group", "Languages"])
    );
    assert_snapshot!("knowledge_add_default", env.transcript(&["knowledge-add", "git"]));
    assert_snapshot!("knowledge_add_negative", env.transcript(&["knowledge-add", "css", "--confidence", "-2"]));
    assert_snapshot!("knowledge_add_empty", env.transcript(&["knowledge-add", "  "]));
    assert_snapshot!("group_add", env.transcript(&["group-add", "Tools"]));
    assert_snapshot!("group_add_again", env.transcript(&["group-add", "Tools"]));
    assert_snapshot!("group_add_other", env.transcript(&["group-add", "Other"]));
    assert_snapshot!("group_add_empty", env.transcript(&["group-add", ""]));
    assert_snapshot!("group_assign", env.transcript(&["group-assign", "git", "Tools"]));
    assert_snapshot!("group_assign_missing_topic", env.transcript(&["group-assign", "go", "Tools"]));
    assert_snapshot!("profile_grouped", env.transcript(&["profile"]));
    assert_snapshot!("group_assign_other", env.transcript(&["group-assign", "rust", "Other"]));
    assert_snapshot!("group_remove", env.transcript(&["group-remove", "Tools"]));
    assert_snapshot!("group_remove_missing", env.transcript(&["group-remove", "Tools"]));
    assert_snapshot!("knowledge_remove", env.transcript(&["knowledge-remove", "css"]));
    assert_snapshot!("knowledge_remove_missing", env.transcript(&["knowledge-remove", "css"]));
    assert_snapshot!("profile_json_after", env.transcript(&["profile", "--json"]));
    // One topic rule: the confidence as setup teaches it (positional), a changed name said.
    assert_snapshot!("knowledge_add_positional", env.transcript(&["knowledge-add", "Sliding Windows", "6"]));
    assert_snapshot!("knowledge_add_both", env.transcript(&["knowledge-add", "go", "6", "--confidence", "3"]));
    assert_snapshot!("group_assign_new_group", env.transcript(&["group-assign", "sliding_windows", "Nope"]));
    assert_snapshot!("knowledge_add_control", env.transcript(&["knowledge-add", "a\u{1b}[2Jb"]));
    let profile: serde_json::Value = serde_json::from_slice(&env.run(&["profile", "--json"]).stdout).expect("json");
    assert!(profile["knowledge"].as_array().expect("topics").iter().any(|t| t["topic"] == "sliding_windows"));
}

#[test]
fn demo_never_overwrites_real_data() {
    let env = Env::new();
    assert!(env.run(&["knowledge-add", "rust"]).status.success());
    let data = env.data();
    let out = env.transcript(&["demo", "--dir", data.to_str().expect("utf-8")]);
    assert_snapshot!("demo_refuses_real_data", out);
    // A folder holding only someone's notebook is somebody's data too.
    let notes = env.tmp.path().join("notes");
    std::fs::create_dir(&notes).expect("dir");
    std::fs::write(notes.join("learning-state.md"), "# My notebook\n").expect("notebook");
    let out = env.run(&["demo", "--dir", notes.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already holds devcoach data (learning-state.md)"));
    assert_eq!(std::fs::read_to_string(notes.join("learning-state.md")).expect("kept"), "# My notebook\n");
    assert!(!notes.join("coaching.db").exists());
    // Re-running the demo on a demo directory resets it.
    let demo = env.tmp.path().join("demo");
    let demo_arg = demo.to_str().expect("utf-8");
    assert!(env.run(&["demo", "--dir", demo_arg]).status.success());
    assert!(
        env.command()
            .env("DEVCOACH_DIR", &demo)
            .args(["delete", "git-bisect", "--yes"])
            .output()
            .expect("ran")
            .status
            .success()
    );
    assert_snapshot!("demo_again", env.transcript(&["demo", "--dir", demo_arg]));
    let lessons = env.command().env("DEVCOACH_DIR", &demo).args(["lessons", "--json"]).output().expect("ran");
    let lessons: serde_json::Value = serde_json::from_slice(&lessons.stdout).expect("json");
    assert_eq!(lessons["lessons"].as_array().map(Vec::len), Some(devcoach_store::DEMO_LESSON_COUNT));
}

#[test]
fn output_is_plain_when_piped_even_with_colour_wanted() {
    let env = Env::demo();
    let out = env.command().env("CLICOLOR_FORCE", "1").args(["profile"]).output().expect("ran");
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\x1b'));
}

#[test]
fn a_deleted_lesson_comes_back_with_its_review_history() {
    let env = Env::demo();
    assert!(env.run(&["review", "grade", "git-bisect", "good"]).status.success());
    let card = |env: &Env| -> serde_json::Value {
        let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
        let reps: i64 = db
            .query_row("SELECT count(*) FROM ext_review_log WHERE lesson_id = 'git-bisect'", [], |r| r.get(0))
            .expect("log");
        serde_json::json!({ "reviews": reps })
    };
    let before = card(&env);
    // Unasked, a start of an id is not enough: the whole id, or the table's cut form.
    let out = env.run(&["delete", "git-bi", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(crate::flat(&out.stderr).contains("name the lesson by its whole id"));
    // Wide enough for the undo to stay on one line (narrower, it goes on over ` \` lines).
    let out = env.command().env("COLUMNS", "1000").args(["delete", "git-bisect", "--yes"]).output().expect("ran");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let undo = said.lines().find_map(|l| l.strip_prefix("  devcoach restore ")).expect("undo line").to_owned();
    let (backup, rest) = undo.split_once(" --lesson ").expect("the undo names the lesson");
    assert_eq!(rest, "git-bisect");
    assert_eq!(env.run(&["lesson", "git-bisect"]).status.code(), Some(1), "deleted");
    // Changed since the delete: the undo leaves these alone.
    assert!(env.run(&["set", "max_per_day", "7"]).status.success());
    assert!(env.run(&["knowledge-add", "undo_check", "3"]).status.success());
    let out = env.run(&["restore", backup, "--lesson", "git-bisect"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(env.run(&["lesson", "git-bisect"]).status.success(), "restored");
    assert_eq!(card(&env), before, "its review history came back with it");
    let settings: serde_json::Value = serde_json::from_slice(&env.run(&["settings", "--json"]).stdout).expect("json");
    assert_eq!(settings["max_per_day"], 7, "the undo took back nothing but the lesson");
    assert!(String::from_utf8_lossy(&env.run(&["profile"]).stdout).contains("undo_check"));
    assert_eq!(env.run(&["restore", backup, "--lesson", "git-bisect"]).status.code(), Some(1), "already there");
    // Two ids that file under one name, deleted in the same second, keep two backups.
    let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    for id in ["a.b", "a b"] {
        db.execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) VALUES (?1, '2026-11-20T10:00:00Z', 'git', '[]', 't', 'mid', 's')",
            [id],
        )
        .expect("insert");
    }
    let undo = |id: &str| {
        let out = env.command().env("COLUMNS", "1000").args(["delete", id, "--yes"]).output().expect("ran");
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        said.lines().find_map(|l| l.strip_prefix("  devcoach restore ")).expect("undo").to_owned()
    };
    let (first, second) = (undo("a.b"), undo("a b"));
    assert_ne!(first.split(" --lesson").next(), second.split(" --lesson").next(), "{first} / {second}");
    // Only the newest ten automatic backups are kept.
    for id in ["git-rebase-onto", "rust-newtypes", "sqlite-wal", "linux-signals", "ci-fail-fast", "ts-satisfies"] {
        assert!(env.run(&["delete", id, "--yes"]).status.success());
    }
    let kept = std::fs::read_dir(env.data().join("backups")).expect("backups").count();
    assert!(kept <= 10, "{kept} backups kept");
}

#[test]
fn exit_codes_follow_one_rule_and_json_errors_are_json() {
    let env = Env::demo();
    let code = |args: &[&str]| env.run(args).status.code();
    // The command line is wrong: 2, in the flag's or setting's own words.
    let out = env.run(&["set", "max_per_day", "-3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_per_day must be between 1 and 20"));
    let out = env.run(&["set", "max_per_day", "often"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("max_per_day must be a whole number from 1 to 20, got 'often'")
    );
    assert_eq!(code(&["set", "nope", "1"]), Some(2));
    let out = env.run(&["lessons", "--date-from", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--date-from takes a date"), "the flag's own name");
    assert_eq!(code(&["lessons", "--level", "guru"]), Some(2));
    assert_eq!(code(&["knowledge-add", "a\u{7}b"]), Some(2));
    // A valid command that fails or finds nothing: 1.
    assert_eq!(code(&["lesson", "nope"]), Some(1));
    assert_eq!(code(&["knowledge-remove", "nothing"]), Some(1));
    assert_eq!(code(&["group-remove", "nothing"]), Some(1));
    assert_eq!(code(&["import", "dc1:damaged"]), Some(1));
    // Every listed setting can be set, with the dashboard's validation.
    assert_eq!(code(&["set", "ui_theme", "dark"]), Some(0));
    assert_eq!(code(&["set", "ui_home", "knowledge"]), Some(0));
    assert_eq!(code(&["set", "ui_theme", "purple"]), Some(2));
    let settings: serde_json::Value = serde_json::from_slice(&env.run(&["settings", "--json"]).stdout).expect("json");
    assert_eq!((settings["ui_theme"].as_str(), settings["ui_home"].as_str()), (Some("dark"), Some("knowledge")));
    // With --json, the error is one JSON object on stderr and stdout stays empty.
    for (args, exit) in [
        (&["lesson", "nope", "--json"][..], 1),
        (&["lessons", "--json", "--bogus"], 2),
        (&["lessons", "--json", "--date-to", "x"], 2),
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(exit), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err: serde_json::Value = serde_json::from_slice(&out.stderr).expect("stderr is JSON");
        assert_eq!(err["error"]["exit"], exit);
        assert!(err["error"]["message"].as_str().is_some_and(|m| !m.is_empty() && !m.starts_with("error")));
    }
}

#[test]
fn completions_man_page_version_flags_and_time_zones() {
    let env = Env::demo();
    for (shell, mark) in [
        ("bash", "_devcoach()"),
        ("zsh", "#compdef devcoach"),
        ("fish", "complete -c devcoach"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = env.run(&["completions", shell]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains(mark) && text.contains("lessons"), "{shell}");
    }
    let man = String::from_utf8(env.run(&["man"]).stdout).expect("utf-8");
    assert!(man.contains(".TH devcoach 1") && man.contains("lessons"));
    assert_eq!(env.run(&["-V"]).stdout, env.run(&["-v"]).stdout);
    // Times are shown in the local zone (here two hours east of UTC), or in UTC with --utc.
    let detail = |extra: &[&str]| {
        let mut args = vec!["lesson", "git-bisect"];
        args.extend_from_slice(extra);
        let out = env.command().env("TZ", "UTC-2").args(&args).output().expect("ran");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    assert!(detail(&[]).contains("2026-11-11 00:00 +02:00"), "{}", detail(&[]));
    assert!(detail(&["--utc"]).contains("2026-11-10 22:00 UTC"));
    // Date filters mean the days the table shows: local ones, or UTC ones with --utc.
    let on_day = |day: &str, extra: &[&str]| {
        let mut args = vec!["lessons", "--json", "--date-from", day, "--date-to", day];
        args.extend_from_slice(extra);
        let out = env.command().env("TZ", "UTC-2").args(&args).output().expect("ran");
        String::from_utf8_lossy(&out.stdout).contains("\"git-bisect\"")
    };
    assert!(on_day("2026-11-11", &[]) && !on_day("2026-11-10", &[]));
    assert!(on_day("2026-11-10", &["--utc"]) && !on_day("2026-11-11", &["--utc"]));
    let doctor: serde_json::Value =
        serde_json::from_slice(&env.run(&["doctor", "--json"]).stdout).expect("doctor --json");
    assert!(doctor["sections"].as_array().is_some_and(|s| !s.is_empty()) && doctor["problems"].is_number());
}
