//! The hook subcommands on the real binary: every client × scenario of the decision flow, with
//! the payloads the clients send, asserting the one JSON object (or silence), exit 0 and what the
//! database holds afterwards.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::{Env, NOW, fixtures};

const STOPS: [&str; 3] = ["stop-hook", "gemini-stop-hook", "codex-stop-hook"];
const PROMPTS: [&str; 3] = ["prompt-hook", "gemini-prompt-hook", "codex-prompt-hook"];
const ALL: [&str; 8] = [
    "stop-hook",
    "prompt-hook",
    "gemini-stop-hook",
    "gemini-prompt-hook",
    "codex-stop-hook",
    "codex-prompt-hook",
    "onboard-hook",
    "lesson-ready",
];

fn payload(name: &str) -> Vec<u8> {
    let path = match name {
        "claude-stop" => "ts-0.9.5/hooks/stop-payload.json",
        "claude-stop-active" => "ts-0.9.5/hooks/stop-payload.active.json",
        "claude-stop-plan" => "ts-0.9.5/hooks/stop-payload.plan.json",
        "claude-prompt" => "ts-0.9.5/hooks/prompt-payload.json",
        "claude-stop-full" => "hooks/claude-stop-full.json",
        other => {
            // `<slug>-stop` / `<slug>-prompt`: one half of the agent's own fixture.
            let (slug, kind) = other.rsplit_once('-').unwrap_or_else(|| panic!("no payload {other}"));
            return agent_payload(slug, kind).unwrap_or_else(|| panic!("no payload {other}"));
        }
    };
    std::fs::read(fixtures().join(path)).expect("payload fixture")
}

/// The `stop` or `prompt` payload of `tests/fixtures/hooks/<slug>.json`, as bytes.
fn agent_payload(slug: &str, kind: &str) -> Option<Vec<u8>> {
    let text = std::fs::read(fixtures().join(format!("hooks/{slug}.json"))).ok()?;
    let both: Value = serde_json::from_slice(&text).expect("fixture JSON");
    Some(serde_json::to_vec(both.get(kind)?).expect("json"))
}

/// The payload a client sends to a hook: each client's own shape.
fn payload_for(hook: &str) -> Vec<u8> {
    match hook {
        "gemini-stop-hook" => payload("gemini-stop"),
        "gemini-prompt-hook" => payload("gemini-prompt"),
        "codex-stop-hook" => payload("codex-stop"),
        "codex-prompt-hook" => payload("codex-prompt"),
        "prompt-hook" => payload("claude-prompt"),
        _ => payload("claude-stop"),
    }
}

fn with_field(raw: &[u8], key: &str, value: Value) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(raw).expect("json payload");
    v[key] = value;
    serde_json::to_vec(&v).expect("json")
}

fn run_hook(env: &Env, hook: &str, stdin: &[u8]) -> Output {
    env.command().arg(hook).write_stdin(stdin.to_vec()).output().expect("hook ran")
}

/// Runs a hook and checks the contract every hook keeps: exit 0, nothing on stderr, and stdout
/// either empty or exactly one JSON object on one line. Returns that object.
fn hook(env: &Env, hook: &str, stdin: &[u8]) -> Option<Value> {
    let out = run_hook(env, hook, stdin);
    contract(hook, &out)
}

fn contract(hook: &str, out: &Output) -> Option<Value> {
    assert_eq!(out.status.code(), Some(0), "{hook} exit");
    assert!(out.stderr.is_empty(), "{hook} wrote to stderr: {}", String::from_utf8_lossy(&out.stderr));
    if out.stdout.is_empty() {
        return None;
    }
    let text = std::str::from_utf8(&out.stdout).expect("utf-8 stdout");
    let line = text.strip_suffix('\n').expect("one line ending in a newline");
    assert!(!line.contains('\n'), "{hook} printed more than one line: {text}");
    let v: Value = serde_json::from_str(line).expect("stdout is JSON");
    assert!(v.is_object(), "{hook} printed a non-object: {v}");
    Some(v)
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("object").keys().cloned().collect()
}

/// The keys the TypeScript devcoach printed for the same situation.
fn original_keys(file: &str) -> BTreeSet<String> {
    let raw = std::fs::read(fixtures().join("ts-0.9.5/hooks").join(file)).expect("stdout fixture");
    keys(&serde_json::from_slice(&raw).expect("fixture json"))
}

fn db(env: &Env) -> rusqlite::Connection {
    rusqlite::Connection::open(env.data().join("coaching.db")).expect("open db")
}

fn one(env: &Env, sql: &str) -> i64 {
    db(env).query_row(sql, [], |r| r.get(0)).expect(sql)
}

fn nudges(env: &Env) -> i64 {
    one(env, "SELECT COALESCE(SUM(interactions), 0) FROM nudge_state")
}

fn pending(env: &Env) -> bool {
    one(env, "SELECT COALESCE(MAX(pending), 0) FROM cue_state") == 1
}

fn ok(env: &Env, args: &[&str]) {
    let out = env.run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A learner with a profile and the given pacing.
/// A learner who has had a cue before (the first lesson's warm-up is over).
fn onboarded(nudge_every: u32) -> Env {
    let env = Env::new();
    ok(&env, &["knowledge-add", "rust", "--confidence", "4"]);
    ok(&env, &["set", "nudge_every", &nudge_every.to_string()]);
    db(&env)
        .execute("INSERT INTO cue_state (id, pending, last_cue_at) VALUES (1, 0, '2026-11-01T00:00:00.000Z')", [])
        .expect("an old cue");
    env
}

fn trace(env: &Env) -> String {
    std::fs::read_to_string(env.data().join("hook.log")).unwrap_or_default()
}

fn block_word(hook: &str) -> &'static str {
    if hook.starts_with("gemini") { "deny" } else { "block" }
}

#[test]
fn without_a_database_stops_ask_for_onboarding_and_create_nothing() {
    let env = Env::new();
    for stop in STOPS {
        let v = hook(&env, stop, &payload_for(stop)).unwrap_or_else(|| panic!("{stop} stayed silent"));
        assert_eq!(keys(&v), original_keys("stop-hook.no-db.onboard-cue.stdout"), "{stop}");
        assert_eq!(v["decision"], block_word(stop), "{stop}");
        let reason = v["reason"].as_str().expect("reason");
        assert!(reason.contains("complete_onboarding") && reason.contains("get_onboarding"), "{stop}: {reason}");
    }
    // Nothing but the note that keeps the ask to once a session: no database.
    let made: Vec<String> = std::fs::read_dir(env.data())
        .expect("data")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(made, ["ext-onboarding-asked"], "a hook created more than its note");
    // The same session is asked once; a new one is asked again.
    assert_eq!(hook(&env, "codex-stop-hook", &payload_for("codex-stop-hook")), None, "asked in this session already");
    let elsewhere = with_field(&payload_for("stop-hook"), "session_id", "a-new-session".into());
    assert!(hook(&env, "stop-hook", &elsewhere).is_some());
    // Once a database exists it takes the note over: still once a session.
    ok(&env, &["set", "max_per_day", "2"]);
    assert_eq!(hook(&env, "stop-hook", &elsewhere), None, "the database knows this session was asked");
    assert!(!env.data().join("ext-onboarding-asked").exists(), "the note is taken over");

    let env = Env::new();
    let silent: [(&str, Vec<u8>); 9] = [
        ("stop-hook", payload("claude-stop-plan")),
        ("stop-hook", payload("claude-stop-active")),
        ("codex-stop-hook", with_field(&payload("codex-stop"), "stop_hook_active", true.into())),
        ("gemini-stop-hook", with_field(&payload("gemini-stop"), "stop_hook_active", true.into())),
        ("onboard-hook", payload("claude-stop-plan")),
        ("lesson-ready", payload("claude-stop")),
        ("prompt-hook", payload("claude-prompt")),
        ("gemini-prompt-hook", payload("gemini-prompt")),
        ("codex-prompt-hook", payload("codex-prompt")),
    ];
    for (name, stdin) in silent {
        assert_eq!(hook(&env, name, &stdin), None, "{name}");
    }
    assert!(!env.data().exists(), "a silent hook created the data directory");
}

#[test]
fn an_empty_profile_gets_the_onboarding_cue_and_nothing_counts() {
    let env = Env::new();
    ok(&env, &["set", "nudge_every", "1"]);
    for stop in STOPS {
        let v = hook(&env, stop, &payload_for(stop)).expect("onboarding cue");
        assert!(v.get("systemMessage").is_none(), "the onboarding cue carries no status line");
        assert!(v["reason"].as_str().is_some_and(|r| r.contains("complete_onboarding")));
    }
    assert_eq!(hook(&env, "stop-hook", &payload("claude-stop-plan")), None, "plan mode");
    assert_eq!(hook(&env, "lesson-ready", &payload("claude-stop")), None, "legacy lesson half");
    // Once a session: the same session's next stop (either half) stays quiet; a new one asks.
    assert_eq!(hook(&env, "stop-hook", &payload("claude-stop")), None, "asked in this session already");
    assert_eq!(hook(&env, "onboard-hook", &payload("claude-stop")), None, "the legacy half keeps the rule");
    let elsewhere = with_field(&payload("claude-stop"), "session_id", "another-session".into());
    assert!(hook(&env, "onboard-hook", &elsewhere).is_some(), "legacy onboarding half, in a new session");
    for prompt in PROMPTS {
        assert_eq!(hook(&env, prompt, &payload_for(prompt)), None, "{prompt}");
    }
    assert_eq!(nudges(&env), 0, "stops before onboarding must not count");
    assert!(!pending(&env));
}

#[test]
fn each_client_is_paced_then_primed_then_cued() {
    for (stop, prompt, event) in [
        ("stop-hook", "prompt-hook", "UserPromptSubmit"),
        ("gemini-stop-hook", "gemini-prompt-hook", "BeforeAgent"),
        ("codex-stop-hook", "codex-prompt-hook", "UserPromptSubmit"),
    ] {
        let env = onboarded(3);
        for n in 1..=2 {
            assert_eq!(hook(&env, stop, &payload_for(stop)), None, "{stop} stop {n} is paced");
            assert_eq!(nudges(&env), n);
            assert_eq!(hook(&env, prompt, &payload_for(prompt)).is_some(), n == 2, "{prompt} after stop {n}");
        }
        assert_eq!(nudges(&env), 2, "the prompt hook never counts");

        let prime = hook(&env, prompt, &payload_for(prompt)).expect("prime");
        assert_eq!(keys(&prime), original_keys("prompt-hook.due.prime.stdout"));
        assert_eq!(prime["hookSpecificOutput"]["hookEventName"], event);
        let context = prime["hookSpecificOutput"]["additionalContext"].as_str().expect("context");
        assert!(context.contains("`devcoach` skill") && context.contains("skip_lesson"), "{context}");

        let cue = hook(&env, stop, &payload_for(stop)).expect("the third stop cues");
        let fixture = format!("{}.due{}.stdout", stop, if stop == "stop-hook" { ".cue" } else { "" });
        assert_eq!(keys(&cue), original_keys(&fixture), "{stop}");
        assert_eq!(cue["decision"], block_word(stop));
        assert!(cue["systemMessage"].as_str().is_some_and(|m| m.starts_with("🎓 devcoach")));
        let reason = cue["reason"].as_str().expect("reason");
        assert!(reason.contains("`devcoach` skill") && reason.contains("skip_lesson"), "{reason}");
        assert!(reason.contains("next checkpoint is lesson #10"), "{reason}");
        match stop {
            "gemini-stop-hook" => assert!(reason.contains("activate_skill")),
            "codex-stop-hook" => assert!(!reason.contains("Skill tool") && !reason.contains("activate_skill")),
            _ => assert!(reason.contains("Skill tool")),
        }
        assert!(pending(&env), "a cue arms the retry window");
        assert_eq!(nudges(&env), 0, "a cue clears the counters");
    }
}

#[test]
fn an_unanswered_cue_comes_back_after_the_retry_window() {
    let env = onboarded(5);
    let stop = payload("claude-stop-full");
    let cues: Vec<bool> = (0..20).map(|_| hook(&env, "stop-hook", &stop).is_some()).collect();
    // 5 stops to the first cue, a retry 3 stops later, one more after the full interval; after
    // three unanswered cues, nothing more that day.
    let mut expected = [false; 20];
    for at in [4, 7, 12] {
        expected[at] = true;
    }
    assert_eq!(cues, expected);
    assert!(pending(&env));
    assert!(trace_of(&env, &stop).contains("held back: 3 cues in a row went unanswered"));
    // doctor does not call that "All good": it warns, and says what to check.
    let doctor = crate::flat(&env.command().arg("doctor").output().expect("doctor").stdout);
    assert!(!doctor.contains("All good") && doctor.contains("neither gave the lessons nor declined them"), "{doctor}");

    // Logging a lesson resolves the cue: back to the full interval.
    let conn = db(&env);
    conn.execute_batch("DELETE FROM nudge_state; UPDATE cue_state SET pending = 0;").expect("resolve");
    drop(conn);
    let after: Vec<bool> = (0..5).map(|_| hook(&env, "stop-hook", &stop).is_some()).collect();
    assert_eq!(after, [false, false, false, false, true]);
}

/// The trace line of one more stop.
fn trace_of(env: &Env, stdin: &[u8]) -> String {
    let out = env.command().env("DEVCOACH_HOOK_DEBUG", "1").arg("stop-hook").write_stdin(stdin.to_vec()).output();
    contract("stop-hook", &out.expect("ran"));
    trace(env).lines().last().unwrap_or_default().to_owned()
}

#[test]
fn the_trace_explains_every_decision_and_stays_small() {
    let env = onboarded(3);
    let traced = |hook_name: &str, stdin: &[u8]| {
        let out = env.command().env("DEVCOACH_HOOK_DEBUG", "1").arg(hook_name).write_stdin(stdin.to_vec()).output();
        contract(hook_name, &out.expect("ran"))
    };
    traced("stop-hook", &payload("claude-stop"));
    traced("stop-hook", &payload("claude-stop-plan"));
    traced("prompt-hook", &payload("claude-prompt"));
    traced("stop-hook", &payload("claude-stop"));
    traced("stop-hook", &payload("claude-stop"));
    let log = trace(&env);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 5, "{log}");
    let tail = |line: &str| line.split_once(' ').map(|(_, rest)| rest.to_owned()).expect("timestamp");
    assert!(lines[0].starts_with("2026-11-30T12:00:00.000Z "), "{log}");
    assert_eq!(tail(lines[0]), "stop-hook 3f2b9c1e paced (1/3; 1/6 across sessions)");
    assert_eq!(tail(lines[1]), "stop-hook 3f2b9c1e plan mode (not counted)");
    assert_eq!(
        tail(lines[2]),
        "prompt-hook 3f2b9c1e pacing: next stop would be 2/3; 2/6 across sessions; rate limit: allowed"
    );
    assert_eq!(tail(lines[4]), "stop-hook 3f2b9c1e cue (3/3; 3/6 across sessions)");

    // Without the variable nothing is written.
    hook(&env, "stop-hook", &payload("claude-stop"));
    assert_eq!(trace(&env).lines().count(), 5);

    // Past 256 KB the log starts over instead of growing.
    std::fs::write(env.data().join("hook.log"), "x".repeat(300 * 1024)).expect("fill log");
    traced("stop-hook", &payload("claude-stop"));
    let log = trace(&env);
    assert!(log.len() < 1024 && log.contains("stop-hook 3f2b9c1e"), "{} bytes", log.len());
    assert_eq!(NOW, "2026-11-30T12:00:00Z", "the trace assertions above pin this clock");
}

#[test]
fn a_rate_limited_stop_stays_silent_but_keeps_counting() {
    let env = onboarded(1);
    db(&env)
        .execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
             VALUES ('recent', '2026-11-30T11:50:00.000Z', 'rust', '[]', 'Borrowing', 'mid', 's')",
            [],
        )
        .expect("recent lesson");
    let traced = |hook_name: &str, stdin: &[u8]| {
        let out = env.command().env("DEVCOACH_HOOK_DEBUG", "1").arg(hook_name).write_stdin(stdin.to_vec()).output();
        contract(hook_name, &out.expect("ran"))
    };
    assert_eq!(traced("stop-hook", &payload("claude-stop")), None);
    assert_eq!(traced("stop-hook", &payload("claude-stop")), None);
    assert_eq!(traced("prompt-hook", &payload("claude-prompt")), None);
    assert_eq!(nudges(&env), 2, "denied stops still count");
    assert!(!pending(&env));
    let log = trace(&env);
    assert!(log.lines().all(|l| l.contains("rate limited")), "{log}");

    // Once the gap has passed, the accumulated counter cues at once.
    let later = env
        .command()
        .env("DEVCOACH_NOW", "2026-11-30T16:00:00Z")
        .arg("stop-hook")
        .write_stdin(payload("claude-stop"))
        .output();
    assert!(contract("stop-hook", &later.expect("ran")).is_some());
}

#[test]
fn plan_mode_and_stop_hook_active_never_count() {
    let env = onboarded(1);
    let plan_prompt = with_field(&payload("claude-prompt"), "permission_mode", "plan".into());
    assert_eq!(hook(&env, "prompt-hook", &plan_prompt), None);
    assert_eq!(
        hook(&env, "codex-prompt-hook", &with_field(&payload("codex-prompt"), "permission_mode", "plan".into())),
        None
    );
    assert_eq!(hook(&env, "stop-hook", &payload("claude-stop-plan")), None);
    assert_eq!(hook(&env, "stop-hook", &payload("claude-stop-active")), None);
    assert_eq!(hook(&env, "lesson-ready", &payload("claude-stop-active")), None);
    assert_eq!(
        hook(&env, "gemini-stop-hook", &with_field(&payload("gemini-stop"), "stop_hook_active", true.into())),
        None
    );
    // Only a literal `true` counts as active.
    assert!(hook(&env, "stop-hook", &with_field(&payload("claude-stop"), "stop_hook_active", "true".into())).is_some());
    assert!(pending(&env));
    ok(&env, &["settings"]);
    db(&env).execute("UPDATE cue_state SET pending = 0", []).expect("reset");
    let before = nudges(&env);
    hook(&env, "stop-hook", &payload("claude-stop-plan"));
    assert_eq!(nudges(&env), before);
}

#[test]
fn an_active_course_pauses_cues_without_counting() {
    let env = onboarded(1);
    db(&env)
        .execute(
            "INSERT INTO courses (id, topic_id, title, status, created_at, updated_at) \
             VALUES ('c1', 'rust', 'Ownership', 'active', '2026-11-29T10:00:00.000Z', '2026-11-29T10:00:00.000Z')",
            [],
        )
        .expect("course");
    for stop in STOPS.into_iter().chain(["lesson-ready"]) {
        assert_eq!(hook(&env, stop, &payload_for(stop)), None, "{stop}");
    }
    for prompt in PROMPTS {
        assert_eq!(hook(&env, prompt, &payload_for(prompt)), None, "{prompt}");
    }
    assert_eq!(nudges(&env), 0);
    assert!(!pending(&env));

    db(&env).execute("UPDATE courses SET status = 'paused'", []).expect("pause");
    assert!(hook(&env, "prompt-hook", &payload("claude-prompt")).is_some(), "primes again");
    assert!(hook(&env, "stop-hook", &payload("claude-stop")).is_some(), "cues again");
}

#[test]
fn a_database_from_a_newer_devcoach_is_left_alone() {
    for profile in [true, false] {
        let env = if profile { onboarded(1) } else { Env::new() };
        if !profile {
            ok(&env, &["set", "nudge_every", "1"]);
        }
        db(&env).execute_batch("PRAGMA user_version = 7").expect("stamp");
        let path = env.data().join("coaching.db");
        let before = std::fs::read(&path).expect("db bytes");
        for name in ALL {
            assert_eq!(hook(&env, name, &payload_for(name)), None, "{name} (profile: {profile})");
        }
        assert_eq!(std::fs::read(&path).expect("db bytes"), before, "the file changed");
        assert!(!env.data().join("coaching.db-journal").exists());
    }
}

#[test]
fn a_broken_database_is_silent_and_untouched() {
    let env = Env::new();
    std::fs::create_dir_all(env.data()).expect("dir");
    let path = env.data().join("coaching.db");
    let junk: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13).to_le_bytes()[0]).collect();
    std::fs::write(&path, &junk).expect("junk");
    for name in ALL {
        assert_eq!(hook(&env, name, &payload_for(name)), None, "{name}");
    }
    assert_eq!(std::fs::read(&path).expect("bytes"), junk);

    // A data directory that is a file: still exit 0 and quiet.
    let file_dir = Env::new();
    std::fs::write(file_dir.data(), "not a directory").expect("file");
    for name in ALL {
        let out = file_dir.command().arg(name).write_stdin(payload_for(name)).output().expect("ran");
        let v = contract(name, &out);
        if let Some(v) = v {
            // With no database to read, a stop may still ask for onboarding; nothing else.
            assert!(v["reason"].as_str().is_some_and(|r| r.contains("complete_onboarding")), "{name}: {v}");
        }
    }

    // Something else where the database should be (a folder, a pipe): not "no database yet",
    // so no onboarding cue; the hook neither blocks on a pipe nor replaces anything.
    for kind in ["folder", "fifo"] {
        let env = Env::new();
        std::fs::create_dir_all(env.data()).expect("dir");
        let path = env.data().join("coaching.db");
        if kind == "folder" {
            std::fs::create_dir(&path).expect("folder");
        } else {
            assert!(std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo").success());
        }
        for name in ALL {
            assert_eq!(hook(&env, name, &payload_for(name)), None, "{kind}: {name}");
        }
        let out = env.run(&["lessons"]);
        assert_eq!(out.status.code(), Some(1), "{kind}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not a devcoach database"), "{kind}");
        assert!(std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()), "{kind} left as it was");
    }
}

#[test]
fn garbage_stdin_reads_as_an_anonymous_default_stop() {
    let env = onboarded(5);
    let inputs: [&[u8]; 4] = [b"{not json", b"", b"\xff\xfe\x00garbage\x00", b"[1,2,3]"];
    for stdin in inputs {
        assert_eq!(hook(&env, "stop-hook", stdin), None);
    }
    assert_eq!(one(&env, "SELECT interactions FROM nudge_state WHERE session_id = '__nosession__'"), 4);
    assert!(hook(&env, "stop-hook", br#"{"session_id": 42}"#).is_some(), "the fifth anonymous stop cues");

    // A huge payload (a long last reply) is read and parsed, not refused.
    let big = with_field(&payload("claude-stop-full"), "last_assistant_message", "y".repeat(4 << 20).into());
    let env = onboarded(1);
    assert!(hook(&env, "stop-hook", &big).is_some(), "a 4 MiB payload is still a stop");
    db(&env).execute("UPDATE cue_state SET pending = 0", []).expect("answer the cue");
    // Garbage on a prompt hook is an anonymous forecast: still due (nudge_every = 1).
    assert!(hook(&env, "prompt-hook", b"\x00\x01").is_some());
}

#[test]
fn a_terminal_stdin_is_never_waited_for() {
    // `script` gives the hook a pseudo-terminal as stdin; a hook that read it would hang until
    // `timeout` killed it (exit 124).
    let env = Env::new();
    let cmd = format!("{} stop-hook", crate::bin().display());
    let mut child = std::process::Command::new("timeout")
        .args(["10", "script", "-qec", &cmd, "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("script ran");
    // Keep script's own stdin open and silent, so the terminal never delivers an end of file.
    let keep_open = child.stdin.take();
    let out = child.wait_with_output().expect("script finished");
    drop(keep_open);
    assert_eq!(out.status.code(), Some(0), "hung or failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#""decision":"block""#) && text.contains("complete_onboarding"), "{text}");
}

#[test]
fn legacy_two_entry_layout() {
    let env = onboarded(1);
    assert_eq!(hook(&env, "onboard-hook", &payload("claude-stop")), None, "profile exists");
    assert_eq!(nudges(&env), 0, "the onboarding half never counts");
    let cue = hook(&env, "lesson-ready", &payload("claude-stop")).expect("the lesson half cues");
    assert_eq!(cue["decision"], "block");
    assert!(cue["reason"].as_str().is_some_and(|r| r.contains("Skill tool")));
}

#[test]
fn unknown_hook_names_are_ordinary_usage_errors() {
    let env = Env::new();
    let out = run_hook(&env, "stop-hooks", b"{}");
    assert_eq!(out.status.code(), Some(2));
    assert!(!Path::new(&env.data()).exists());
}

#[test]
fn due_review_cards_take_every_other_cue() {
    let env = onboarded(1);
    // Seven cues at one pinned time: room for them under the day's cap.
    ok(&env, &["set", "max_per_day", "10"]);
    // A lesson from two days ago, with the card the review commands give it: due since yesterday.
    db(&env)
        .execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary, body) VALUES \
             ('old-one', '2026-11-28T09:00:00Z', 'rust', '[\"rust\"]', 'Borrow, then clone', 'mid', 'Borrow first.', 'Body.')",
            [],
        )
        .expect("lesson");
    ok(&env, &["review", "due"]);
    let stop = |env: &Env| {
        let out = env
            .command()
            .env("DEVCOACH_HOOK_DEBUG", "1")
            .arg("stop-hook")
            .write_stdin(payload_for("stop-hook"))
            .output();
        let cue = contract("stop-hook", &out.expect("hook ran")).expect("cue");
        db(env).execute("UPDATE cue_state SET pending = 0", []).expect("answer the cue");
        cue["reason"].as_str().expect("reason").to_owned()
    };
    let first = stop(&env);
    assert!(first.contains("1 review card is due") && first.contains("get_due_reviews"), "{first}");
    assert!(first.contains("grade_review") && first.contains("skip_lesson"), "{first}");
    assert!(trace(&env).contains("offering a review (1 due)"), "{}", trace(&env));
    let second = stop(&env);
    assert!(second.contains("earns a lesson") && !second.contains("get_due_reviews"), "alternate: {second}");
    assert!(stop(&env).contains("get_due_reviews"), "and a review again");

    ok(&env, &["review", "settings", "--mix", "off"]);
    assert!(stop(&env).contains("earns a lesson"));
    ok(&env, &["review", "settings", "--mix", "reviews_first"]);
    assert!(stop(&env).contains("get_due_reviews"));
    assert!(stop(&env).contains("get_due_reviews"), "every cue while cards are due");

    // Once graded the card is not due, and lessons come back.
    ok(&env, &["review", "grade", "old-one", "good"]);
    assert!(stop(&env).contains("earns a lesson"));
}

#[test]
fn huge_payloads_stay_bounded_and_never_lose_the_reentry_flag() {
    // Counting every stop, so each session keeps its row.
    let env = onboarded(1000);
    let db = env.data().join("coaching.db");
    let size = || std::fs::metadata(&db).expect("db").len();
    let before = size();
    // A 15 MiB session id, three times: one bounded row each, not 15 MiB a stop.
    for n in 0..3 {
        let id = format!("{n}{}", "s".repeat(15 * 1024 * 1024));
        let payload =
            serde_json::to_vec(&serde_json::json!({"session_id": id, "hook_event_name": "Stop"})).expect("json");
        run_hook(&env, "stop-hook", &payload);
    }
    assert!(size() < before + 64 * 1024, "the database grew from {before} to {} bytes", size());
    let longest: i64 = one(&env, "SELECT MAX(LENGTH(session_id)) FROM nudge_state");
    assert!(longest <= 256, "{longest}");
    assert_eq!(one(&env, "SELECT COUNT(*) FROM nudge_state"), 3, "three distinct sessions");
    // Over the 16 MiB limit with the flag set, against a store that would cue at once.
    ok(&env, &["set", "nudge_every", "1"]);
    // Over the 16 MiB read limit with the re-entry flag set: never read in part and acted on.
    let mut payload = br#"{"stop_hook_active": true, "session_id": "big", "last_assistant_message": ""#.to_vec();
    payload.extend(std::iter::repeat_n(b'x', 17 * 1024 * 1024));
    payload.extend_from_slice(b"\"}");
    for name in ALL {
        assert_eq!(hook(&env, name, &payload), None, "{name} acted on a payload it could not read whole");
    }
}

#[test]
fn cursor_through_the_claude_hooks_and_through_its_own() {
    let env = onboarded(1);
    // Cursor runs Claude Code's hooks with its own payload: the conversation is the session,
    // the first stop cues (Cursor turns a block into its follow-up message)…
    let traced = |name: &str, stdin: Vec<u8>| {
        let out = env.command().env("DEVCOACH_HOOK_DEBUG", "1").arg(name).write_stdin(stdin).output().expect("ran");
        contract(name, &out)
    };
    let cue = traced("stop-hook", payload("cursor-stop")).expect("cue");
    assert_eq!(cue["decision"], "block");
    assert!(trace(&env).contains("stop-hook 6a1f0e2c cue (1/1"), "{}", trace(&env));
    // …and the stop after a follow-up (loop_count 1) is the re-entry: silent, uncounted.
    let again = with_field(&payload("cursor-stop"), "loop_count", 1.into());
    assert_eq!(hook(&env, "stop-hook", &again), None);
    assert_eq!(hook(&env, "cursor-stop-hook", &again), None);
    assert_eq!(nudges(&env), 0);

    // A stopped or failed turn is no finished work.
    assert_eq!(hook(&env, "cursor-stop-hook", &with_field(&payload("cursor-stop"), "status", "aborted".into())), None);
    // A pipe where Cursor's hooks file should be never holds the hook up.
    let cursor_dir = env.tmp.path().join("home/.cursor");
    std::fs::create_dir_all(&cursor_dir).expect("mkdir");
    let fifo = cursor_dir.join("hooks.json");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let started = std::time::Instant::now();
    let _ = hook(&env, "stop-hook", &payload("cursor-stop"));
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "the hook waited on a pipe");
    std::fs::remove_file(&fifo).expect("rm");

    // Cursor's own hooks answer in Cursor's words (the cues so far answered).
    db(&env).execute("UPDATE cue_state SET pending = 0", []).expect("answer the cue");
    let cue = hook(&env, "cursor-stop-hook", &payload("cursor-stop")).expect("cue");
    db(&env).execute("UPDATE cue_state SET pending = 0", []).expect("answer the cue");
    assert_eq!(keys(&cue), ["followup_message".to_owned()].into());
    assert!(cue["followup_message"].as_str().is_some_and(|m| m.starts_with("devcoach:")));
    let prime = hook(&env, "cursor-prompt-hook", &payload("cursor-prompt")).expect("prime");
    assert_eq!(prime["continue"], true);
    assert!(prime["additional_context"].as_str().is_some_and(|c| c.contains("skip_lesson")));

    // Once Cursor's own hooks are installed, the Claude hooks it also runs stay quiet for it (a
    // stop counts once); Claude Code's own payloads still get their answer.
    let out = env.command().env("PATH", "/usr/bin:/bin").args(["install", "--cursor"]).output().expect("install");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let hooks_file = env.tmp.path().join("home/.cursor/hooks.json");
    let installed: Value = serde_json::from_slice(&std::fs::read(&hooks_file).expect("hooks.json")).expect("json");
    assert_eq!(installed["version"], 1);
    assert!(installed["hooks"]["stop"][0]["command"].as_str().is_some_and(|c| c.ends_with(" cursor-stop-hook")));
    assert_eq!(traced("stop-hook", payload("cursor-stop")), None);
    assert!(trace(&env).contains("devcoach's Cursor hook answers it instead"), "{}", trace(&env));
    assert_eq!(hook(&env, "prompt-hook", &payload("cursor-prompt")), None);
    db(&env).execute("UPDATE cue_state SET pending = 0", []).expect("answer the cue");
    assert!(hook(&env, "stop-hook", &payload("claude-stop")).is_some(), "Claude Code itself is still served");
}

#[test]
fn a_cue_the_agent_never_answered_is_carried_to_the_next_prompt_once() {
    for (stop, prompt) in [("stop-hook", "prompt-hook"), ("copilot-stop-hook", "copilot-prompt-hook")] {
        let env = onboarded(3);
        for _ in 0..3 {
            hook(&env, stop, &payload("claude-stop"));
        }
        assert!(pending(&env), "{stop}: the third stop cued");
        // Copilot CLI and Qwen Code run the prompt hook on the cue itself as it comes back:
        // that is not the learner's next prompt, so nothing is added or carried there.
        let cue_back =
            with_field(&payload("claude-prompt"), "prompt", "devcoach: the technical work just finished".into());
        assert_eq!(hook(&env, prompt, &cue_back), None, "{prompt} on the cue's own continuation");
        // The agent let the cue drop (no lesson, no skip): the next prompt carries it…
        let carried = hook(&env, prompt, &payload("claude-prompt")).expect("carried");
        let text = serde_json::to_string(&carried).expect("json");
        assert!(text.contains("a lesson was due when the last turn ended") && text.contains("skip_lesson"), "{text}");
        // …once: the prompt after it is back to the forecast (the retry window, 1 of 3).
        assert_eq!(hook(&env, prompt, &payload("claude-prompt")), None, "{prompt}");
        assert!(pending(&env), "carrying it answers nothing");
    }
    // A cue answered (here: skipped through the MCP tool's store call) is not carried.
    let env = onboarded(1);
    hook(&env, "stop-hook", &payload("claude-stop"));
    db(&env).execute("UPDATE cue_state SET pending = 0", []).expect("answer the cue");
    let next = hook(&env, "prompt-hook", &payload("claude-prompt"));
    assert!(!serde_json::to_string(&next).expect("json").contains("was not given"), "{next:?}");
}

/// A Claude Code transcript of a delegating session, holding a phrase that must never reach
/// the database.
const SENTINEL: &str = "purple-heron-4417 is the learner's private phrase";

fn delegating_transcript(path: &Path) {
    let lines = [
        serde_json::json!({"type": "user", "message": {"role": "user", "content": format!("Add pagination to the orders endpoint ({SENTINEL})")}}),
        serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "name": "Edit", "input": {"file_path": "orders.rs", "new_string": SENTINEL}}]}}),
        serde_json::json!({"type": "user", "message": {"role": "user", "content": "Also update the API docs."}}),
        serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "name": "Write", "input": {}}]}}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(path, text).expect("transcript");
}

fn stop_with_transcript(env: &Env, session: &str, path: &Path) {
    let stdin = serde_json::json!({"session_id": session, "transcript_path": path, "hook_event_name": "Stop", "stop_hook_active": false});
    hook(env, "stop-hook", stdin.to_string().as_bytes());
}

fn work_rows(env: &Env) -> Vec<(String, i64, i64, Option<String>)> {
    let conn = db(env);
    let mut stmt = conn
        .prepare("SELECT session_id, prompts, agent_edits, pattern FROM ext_work_sessions ORDER BY session_id")
        .expect("table");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
}

/// With `work_insights` off (the default) the stop hook never opens the transcript: inotify
/// sees no open of it. On, it reads it, keeps counts and the pattern, and no word of it.
#[cfg(target_os = "linux")]
#[test]
fn work_insights_read_the_transcript_only_when_on_and_keep_no_words() {
    use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify};
    let env = onboarded(10);
    let transcript = env.tmp.path().join("transcript.jsonl");
    delegating_transcript(&transcript);
    let watch = Inotify::init(InitFlags::IN_NONBLOCK).expect("inotify");
    watch.add_watch(&transcript, AddWatchFlags::IN_OPEN | AddWatchFlags::IN_ACCESS).expect("watch");
    let opened = || match watch.read_events() {
        Ok(events) => !events.is_empty(),
        Err(nix::errno::Errno::EAGAIN) => false,
        Err(e) => panic!("inotify: {e}"),
    };

    stop_with_transcript(&env, "off-session", &transcript);
    assert!(!opened(), "work_insights off: the transcript was opened");
    // A path that could not be read at all (a FIFO nobody writes) changes nothing either.
    let fifo = env.tmp.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    stop_with_transcript(&env, "off-fifo", &fifo);
    assert!(work_rows(&env).is_empty());

    assert!(env.run(&["set", "work_insights", "on"]).status.success());
    stop_with_transcript(&env, "on-session", &transcript);
    assert!(opened(), "on: the hook read the transcript (so the watch above would have seen it)");
    assert_eq!(work_rows(&env), [("on-session".to_owned(), 2, 2, Some("delegation".to_owned()))]);
    // The same session again replaces its counts; a FIFO is refused without waiting.
    stop_with_transcript(&env, "on-session", &transcript);
    stop_with_transcript(&env, "on-fifo", &fifo);
    assert_eq!(work_rows(&env).len(), 1, "one row per session, none for an unreadable transcript");

    // Not a word of it in the database or its journal.
    for file in ["coaching.db", "coaching.db-wal"] {
        let bytes = std::fs::read(env.data().join(file)).unwrap_or_default();
        assert!(!bytes.windows(SENTINEL.len()).any(|w| w == SENTINEL.as_bytes()), "{file} holds the learner's words");
    }

    // The briefing's one line, once three sessions were counted this week.
    let briefing = || {
        let mut lines = crate::mcp_protocol::init();
        lines.push(
            serde_json::json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "devcoach://briefing"}})
                .to_string(),
        );
        let (out, _) = crate::mcp_protocol::exchange(&env, &lines);
        let text =
            crate::mcp_protocol::by_id(&out, 6)["result"]["contents"][0]["text"].as_str().expect("text").to_owned();
        serde_json::from_str::<Value>(&text).expect("json")
    };
    assert!(briefing().get("work_insight").is_none(), "one session is not enough for a line");
    for s in ["on-2", "on-3"] {
        stop_with_transcript(&env, s, &transcript);
    }
    assert_eq!(briefing()["work_insight"], "mostly delegating this week (3 of 3 sessions)");
    let settings: Value = serde_json::from_slice(&env.run(&["settings", "--json"]).stdout).expect("json");
    assert_eq!(settings["work_insights"], true);
    assert!(env.run(&["set", "work_insights", "off"]).status.success());
    assert!(briefing().get("work_insight").is_none(), "off: no line");
    assert!(env.run(&["set", "work_insights", "maybe"]).status.code() == Some(2));
}

/// `stats`, `doctor` and the hooks agree on when the next lesson comes, through random stops,
/// answers and settings: the line stats prints is doctor's, and a forecast of "the next agent
/// turn" is what the next stop does.
#[test]
fn stats_doctor_and_the_next_stop_agree_on_the_next_lesson() {
    let env = onboarded(3);
    let mut seed: u64 = 0x5eed_cafe;
    let mut roll = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    for step in 0..40 {
        let stats: Value = serde_json::from_slice(&env.run(&["stats", "--json"]).stdout).expect("stats json");
        let said = stats["next_lesson"].as_str().expect("next_lesson").to_owned();
        let doctor = env.command().env("COLUMNS", "1000").arg("doctor").output().expect("doctor");
        let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned();
        assert!(doctor.contains(&format!("next lesson: {said}")), "step {step}: stats says {said:?}\n{doctor}");
        let session = if roll(3) == 0 { "other-session" } else { "3f2b9c1e-5c4d-4a7b-9e21-0d6f1c2b7a10" };
        match roll(6) {
            0 => db(&env).execute("UPDATE cue_state SET pending = 0", []).map(drop).expect("answer"),
            1 => ok(&env, &["set", "nudge_every", &(1 + roll(5)).to_string()]),
            _ => {
                let cued = hook(&env, "stop-hook", &with_field(&payload("claude-stop"), "session_id", session.into()));
                if said == "at the end of the next agent turn" && session != "other-session" {
                    assert!(cued.is_some(), "step {step}: the forecast said the next turn");
                }
            }
        }
    }
}

/// Every agent in the table, through the real binary: its prompt hook primes and its stop hook
/// cues in the answer shape its row names, from the payloads it sends
/// (`tests/fixtures/hooks/<slug>.json`, its `stop` and `prompt`; Claude Code's are the
/// original's own fixtures). A row without its payloads fails here.
#[test]
fn every_agent_in_the_table_answers_in_its_own_shape() {
    use devcoach_agents::{Agent, answer};
    for &agent in Agent::ALL {
        let Some((stop, prompt)) = agent.spec().hook_names else { continue };
        let own = |kind: &str, claude: &str| {
            if agent == Agent::ClaudeCode {
                return payload(claude);
            }
            agent_payload(agent.spec().slug, kind).unwrap_or_else(|| {
                panic!(
                    "tests/fixtures/hooks/{}.json has no {kind} payload (each agent's are fixtures)",
                    agent.spec().slug
                )
            })
        };
        let env = onboarded(1);
        let prime = hook(&env, prompt, &own("prompt", "claude-prompt")).expect("the next stop is due: a prime");
        assert_eq!(keys(&prime), keys(&answer::prime(agent, "C")), "{prompt}: {prime}");
        assert!(prime.to_string().contains("skip_lesson"), "{prompt}");
        let cue = hook(&env, stop, &own("stop", "claude-stop")).expect("a cue");
        assert_eq!(keys(&cue), keys(&answer::block(agent, "R", Some("S"))), "{stop}: {cue}");
        assert!(cue.to_string().contains(agent.spec().use_skill), "{stop}: {cue}");
        assert!(pending(&env), "{stop}: the cue arms the retry window");
    }
}
