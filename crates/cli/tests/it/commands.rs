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
    assert_eq!(env.transcript(&["lessons", "--json"]), "exit: 0\n--- stdout\n[]\n");
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
    assert_eq!(parsed.as_array().map(Vec::len), Some(devcoach_store::DEMO_LESSON_COUNT));
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
    assert_snapshot!("delete", env.transcript(&["delete", "git-bisect"]));
    assert_snapshot!("delete_again", env.transcript(&["delete", "git-bisect"]));
    let after = env.run(&["lessons", "--json"]);
    let lessons: serde_json::Value = serde_json::from_slice(&after.stdout).expect("json");
    assert_eq!(lessons.as_array().map(Vec::len), Some(devcoach_store::DEMO_LESSON_COUNT - 1));
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
        env.command().env("DEVCOACH_DIR", &demo).args(["delete", "git-bisect"]).output().expect("ran").status.success()
    );
    assert_snapshot!("demo_again", env.transcript(&["demo", "--dir", demo_arg]));
    let lessons = env.command().env("DEVCOACH_DIR", &demo).args(["lessons", "--json"]).output().expect("ran");
    let lessons: serde_json::Value = serde_json::from_slice(&lessons.stdout).expect("json");
    assert_eq!(lessons.as_array().map(Vec::len), Some(devcoach_store::DEMO_LESSON_COUNT));
}

#[test]
fn output_is_plain_when_piped_even_with_colour_wanted() {
    let env = Env::demo();
    let out = env.command().env("CLICOLOR_FORCE", "1").args(["profile"]).output().expect("ran");
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\x1b'));
}
