//! `devcoach practice`: the detectors on stdin, the report over session logs, the shipped
//! problems; outputs pinned as documented (docs/practice-log.md).

use crate::{Env, transcript};

fn run_check(env: &Env, args: &[&str], stdin: &str) -> std::process::Output {
    env.command().args(["practice", "check"]).args(args).write_stdin(stdin.as_bytes().to_vec()).output().expect("ran")
}

/// The JSON a `--json` check printed (exit 0 asserted).
fn check_json(env: &Env, args: &[&str], stdin: &str) -> serde_json::Value {
    let out = run_check(env, args, stdin);
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    serde_json::from_slice(&out.stdout).expect("json")
}

fn check(env: &Env, args: &[&str], stdin: &str) -> String {
    transcript(&run_check(env, args, stdin), env.tmp.path())
}

#[test]
fn check_code_says_code_not_code_or_undecided() {
    let env = Env::new();
    assert_eq!(
        check_json(&env, &["code", "--json"], "def two_sum(nums, target):\n    seen = {}\n    return []\n"),
        serde_json::json!({"verdict":"code"})
    );
    assert_eq!(
        check_json(&env, &["code", "--json"], "I would return the index when the sum matches, else keep going."),
        serde_json::json!({"verdict":"not_code"})
    );
    assert_eq!(
        check_json(&env, &["code", "--json"], "Not sure about this one\nnums.sort()"),
        serde_json::json!({"verdict":"undecided"})
    );
    insta::assert_snapshot!(check(
        &env,
        &["code", "--explain"],
        "here it is:\nfor i in range(n):\n    total += nums[i]\n"
    ));
}

#[test]
fn check_leak_names_entries_and_pasteable_lines() {
    let env = Env::new();
    let statement = env.tmp.path().join("statement.md");
    std::fs::write(&statement, "Tags: sliding window").expect("statement");
    let reply = "Could a Sliding-Window help, or two pointers? Try `while left < right:` first.";
    let json = check_json(
        &env,
        &[
            "leak",
            "--json",
            "--learner-text",
            "req: maybe two-pointer?",
            "--statement",
            statement.to_str().expect("utf-8"),
        ],
        reply,
    );
    assert_eq!(
        json,
        serde_json::json!({
            "leak": true,
            "hits": [{ "id": "sliding-window", "text": "Sliding-Window", "in_statement": true }],
            "code_line": "while left < right:"
        })
    );
    assert_eq!(
        check_json(&env, &["leak", "--json"], "What do you know about the order of the values?"),
        serde_json::json!({"leak":false,"hits":[],"code_line":null})
    );
    insta::assert_snapshot!(check(&env, &["leak"], reply));
}

#[test]
fn check_rung_reads_and_strips_the_marker() {
    let env = Env::new();
    assert_eq!(
        check_json(&env, &["rung", "--json"], "<!-- rung:H3 -->\nWhat stays true after each step?\n"),
        serde_json::json!({"rung":3,"text":"What stays true after each step?"})
    );
    assert_eq!(check(&env, &["rung"], "No marker?"), "exit: 0\n--- stdout\nno rung\nNo marker?\n");
}

#[test]
fn check_refuses_bad_input_with_a_reason() {
    let env = Env::new();
    let out =
        env.command().args(["practice", "check", "code"]).write_stdin(vec![0xff, 0xfe, b'x']).output().expect("ran");
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out, env.tmp.path()));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
    let big = "x".repeat(4 * 1024 * 1024 + 1);
    let out = env.command().args(["practice", "check", "leak"]).write_stdin(big.into_bytes()).output().expect("ran");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("over 4 MiB"), "{}", transcript(&out, env.tmp.path()));
    let missing = env.run(&["practice", "check", "leak", "--statement", "/nonexistent/statement.md"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/statement.md does not exist"));
    // A pipe, a device or a folder as the statement: refused at once, never waited on.
    let fifo = env.tmp.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    for path in [fifo.to_str().expect("utf-8"), "/dev/zero", "/tmp"] {
        let out = env.run(&["practice", "check", "leak", "--statement", path]);
        assert_eq!(out.status.code(), Some(1), "{path}");
        assert!(crate::flat(&out.stderr).contains("only reads and writes regular files"), "{path}");
        let out = env.command().args(["practice", "--problem", path]).write_stdin("").output().expect("ran");
        assert_eq!(out.status.code(), Some(1), "--problem {path}");
    }
    // The practice guard hook with a device as its log: silent, and it returns.
    let out = env
        .command()
        .args(["hook", "practice-stop"])
        .env("DEVCOACH_PRACTICE_LOG", "/dev/zero")
        .write_stdin("{}")
        .output()
        .expect("ran");
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
}

const SESSION_A: &str = r#"{"ts":"2026-11-29T09:00:00.000Z","event":"start","schema":1,"problem":"closest-pair-to-target","tags":["two-pointers","sorted-input"],"backend":"claude","model":"sonnet"}
{"ts":"2026-11-29T09:00:40.000Z","event":"learner","text":"req: sorted, may repeat","kind":"req"}
{"ts":"2026-11-29T09:00:44.000Z","event":"req_check","verdict":"incomplete","missing":["integer-overflow-risk"],"judge":"haiku"}
{"ts":"2026-11-29T09:01:00.000Z","event":"learner","text":"def f(a):\n    return 0","kind":"code"}
{"ts":"2026-11-29T09:01:00.100Z","event":"held","why":"list incomplete"}
{"ts":"2026-11-29T09:01:30.000Z","event":"coach","rung":1,"leaked":false,"drafts":1}
{"ts":"2026-11-29T09:02:00.000Z","event":"learner","text":"req: sorted, may repeat, sums fit in i64","kind":"req"}
{"ts":"2026-11-29T09:02:03.000Z","event":"req_check","verdict":"passed","missing":[],"judge":"haiku","future_field":1}
{"ts":"2026-11-29T09:03:00.000Z","event":"learner","text":"def f(a):\n    return 1","kind":"code"}
{"ts":"2026-11-29T09:03:00.100Z","event":"code"}
{"ts":"2026-11-29T09:04:00.000Z","event":"coach","rung":2,"leaked":true,"drafts":2}
{"ts":"2026-11-29T09:05:00.000Z","event":"a_future_event"}
{"ts":"2026-11-29T09:06:00.000Z","event":"end"}
"#;

const SESSION_B: &str = r#"{"ts":"2026-11-30T10:00:00.000Z","event":"start","schema":1,"problem":"signal-tower-reach","tags":["monotonic-stack"],"backend":"ollama","model":"qwen3:30b-a3b-instruct-2507"}
{"ts":"2026-11-30T10:01:00.000Z","event":"learner","text":"for i in range(n): pass","kind":"code"}
{"ts":"2026-11-30T10:01:00.100Z","event":"held","why":"no list yet"}
{"ts":"2026-11-30T10:02:00.000Z","event":"coach","rung":3,"leaked":false,"drafts":1}
{"ts":"2026-11-30T10:03:00.000Z","event":"reveal"}
{"ts":"2026-11-30T10:03:30.000Z","ev"#;

fn write_sessions(env: &Env) {
    let dir = env.data().join("practice/sessions");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("2026-11-29-closest-pair-to-target.jsonl"), SESSION_A).expect("a");
    std::fs::write(dir.join("2026-11-30-signal-tower-reach.jsonl"), SESSION_B).expect("b");
}

#[test]
fn report_per_session_then_totals_and_topics() {
    let env = Env::new();
    let empty = env.transcript(&["practice", "report"]);
    assert!(empty.contains("No practice sessions under [SANDBOX]/data/practice/sessions."), "{empty}");
    write_sessions(&env);
    insta::assert_snapshot!(env.transcript(&["practice", "report"]));
    let json: serde_json::Value =
        serde_json::from_slice(&env.run(&["practice", "report", "--json"]).stdout).expect("report json");
    assert_eq!(json["sessions"][0]["req_before_code"], true);
    assert_eq!(json["sessions"][1]["req_before_code"], false);
    assert_eq!(json["sessions"][1]["revealed"], true);
    assert_eq!(json["totals"]["sessions"], 2);
    assert_eq!(json["totals"]["mean_highest_rung"], 2.5);
    assert_eq!(json["topics"]["stacks"]["sessions"], 1);
    // One file by path; a missing file is a clear error.
    let one = env.data().join("practice/sessions/2026-11-30-signal-tower-reach.jsonl");
    let out = env.transcript(&["practice", "report", one.to_str().expect("utf-8")]);
    assert!(out.contains("requirements before code: no") && out.contains("answer revealed: yes"), "{out}");
    let out = env.run(&["practice", "report", "/nonexistent.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not read the practice log /nonexistent.jsonl"));
}

#[test]
fn the_shipped_problems_are_listed() {
    let env = Env::new();
    insta::assert_snapshot!(env.transcript(&["practice", "problems"]));
}
