//! Whole practice sessions through the real binary: a stand-in `claude` executable (answers
//! scripted per model, arguments and stdin recorded) and an Ollama-compatible server on
//! loopback written here. Checks the gate, the judge chain, bounces, the quota switch with the
//! history intact, withheld drafts, and the log and report.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::{Env, transcript};

/// A loopback server that answers each POST with the next scripted (status, body) and keeps
/// every request body.
pub(crate) struct FakeOllama {
    pub(crate) url: String,
    pub(crate) bodies: Arc<Mutex<Vec<Value>>>,
}

pub(crate) fn fake_ollama(replies: Vec<(u16, Value)>) -> FakeOllama {
    let replies = Mutex::new(replies.into_iter());
    fake_ollama_with(move |_| {
        replies.lock().expect("lock").next().unwrap_or((500, json!({ "error": "no more scripted replies" })))
    })
}

/// The models a fake server lists when asked before a session (Ollama's names and the
/// OpenAI-compatible ids): the practice defaults and one more.
const LISTED: [&str; 3] = ["qwen3:30b-a3b-instruct-2507", "llama-3", "m"];

/// A loopback server whose answer depends on the request.
fn fake_ollama_with(answer: impl Fn(&Value) -> (u16, Value) + Send + 'static) -> FakeOllama {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&bodies);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut length = 0;
            let mut request_line = String::new();
            let _ = reader.read_line(&mut request_line);
            let path = request_line.split_whitespace().nth(1).unwrap_or_default().to_owned();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let mut request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            // The model list asked before a session is answered apart: it uses up no script.
            let listing = match path.as_str() {
                "/api/tags" => {
                    Some(json!({ "models": LISTED.iter().map(|n| json!({ "name": n })).collect::<Vec<_>>() }))
                }
                "/v1/models" => Some(json!({ "data": LISTED.iter().map(|n| json!({ "id": n })).collect::<Vec<_>>() })),
                _ => None,
            };
            if let Some(map) = request.as_object_mut() {
                map.insert("_path".into(), Value::String(path));
            }
            let (status, reply) = match listing {
                Some(list) => (200, list),
                None => {
                    let answered = answer(&request);
                    seen.lock().expect("lock").push(request);
                    answered
                }
            };
            let text = reply.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    FakeOllama { url, bodies }
}

pub(crate) fn ollama_says(text: &str) -> (u16, Value) {
    (200, json!({ "model": "m", "message": { "role": "assistant", "content": text }, "done": true }))
}

/// The stand-in `claude` in `<sandbox>/fake`: for `--model M`, the n-th call prints `M.n` (and
/// exits with `M.n.exit` if present), recording its arguments, stdin, system prompt file and the
/// practice log variable. Returns the folder.
pub(crate) fn fake_claude(env: &Env) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = env.tmp.path().join("fake");
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("claude");
    std::fs::write(
        &script,
        r#"#!/bin/sh
model=""; prev=""
for a in "$@"; do [ "$prev" = "--model" ] && model="$a"; prev="$a"; done
d="$FAKE_CLAUDE_DIR"
input=$(cat)
# The check before a session: answered apart (from preflight, if the test wrote one), so the
# numbering of the coaching calls stays as the tests count it.
case "$input" in
  devcoach:preflight*)
    if [ -f "$d/preflight" ]; then cat "$d/preflight"; else printf '%s' '{"type":"result","is_error":false,"result":"ready"}'; fi
    [ -f "$d/preflight.exit" ] && exit "$(cat "$d/preflight.exit")"
    exit 0 ;;
esac
n=$(cat "$d/$model.n" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$d/$model.n"
printf '%s' "$input" > "$d/$model.in.$n"
for a in "$@"; do printf '%s\n' "$a"; done > "$d/$model.args.$n"
prev=""
for a in "$@"; do [ "$prev" = "--system-prompt-file" ] && cp "$a" "$d/$model.system.$n"; prev="$a"; done
printf '%s' "$DEVCOACH_PRACTICE_LOG" > "$d/$model.env.$n"
cat "$d/$model.$n" 2>/dev/null
[ -f "$d/$model.$n.exit" ] && exit "$(cat "$d/$model.$n.exit")"
exit 0
"#,
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// The binary with the stand-in `claude` from [`fake_claude`].
pub(crate) fn with_fake_claude(env: &Env, fake: &Path) -> assert_cmd::Command {
    let mut cmd = env.command();
    cmd.env("DEVCOACH_CLAUDE", fake.join("claude")).env("FAKE_CLAUDE_DIR", fake);
    cmd
}

pub(crate) fn claude_result(dir: &Path, model: &str, n: u32, result: &str) {
    let body =
        json!({ "type": "result", "subtype": "success", "is_error": false, "result": result, "session_id": "s-1" });
    std::fs::write(dir.join(format!("{model}.{n}")), body.to_string()).expect("reply");
}

pub(crate) fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

fn events(env: &Env) -> Vec<Value> {
    let dir = env.data().join("practice/sessions");
    let file = std::fs::read_dir(&dir).expect("sessions").flatten().next().expect("one log").path();
    std::fs::read_to_string(file).expect("log").lines().map(|l| serde_json::from_str(l).expect("json line")).collect()
}

fn names(events: &[Value]) -> Vec<String> {
    events.iter().map(|e| e["event"].as_str().unwrap_or_default().to_owned()).collect()
}

#[cfg(unix)]
#[test]
fn cloud_session_holds_code_bounces_leaks_and_switches_to_local_with_the_history() {
    let env = Env::new();
    let fake = fake_claude(&env);
    // The judge: incomplete (with a name outside the vocabulary, dropped), then passed.
    claude_result(
        &fake,
        "haiku",
        1,
        r#"{"verdict": "incomplete", "missing": ["integer-overflow-risk", "use two pointers"]}"#,
    );
    claude_result(&fake, "haiku", 2, r#"{"verdict": "passed"}"#);
    // The coach: a clean reply; a leaky one then its rewrite; then the quota message.
    claude_result(&fake, "sonnet", 1, "<!-- rung:H1 -->\nWhat happens with the largest offsets?");
    claude_result(&fake, "sonnet", 2, "<!-- rung:H2 -->\nHave you tried two pointers?");
    claude_result(&fake, "sonnet", 3, "<!-- rung:H2 -->\nWhere would you start looking, and why there?");
    std::fs::write(
        fake.join("sonnet.4"),
        json!({ "type": "result", "is_error": true, "result": "You've hit your usage limit · resets 5pm" }).to_string(),
    )
    .expect("quota");
    std::fs::write(fake.join("sonnet.4.exit"), "1").expect("exit");
    // Local: three drafts with a line of solution each: withheld.
    let ollama = fake_ollama(vec![
        ollama_says("<!-- rung:H3 -->\nTry:\n```\nwhile lo < hi:\n```"),
        ollama_says("<!-- rung:H3 -->\n`best = min(best, abs(s - t))` would do it"),
        ollama_says("<!-- rung:H3 -->\n```\nlo, hi = 0, len(offsets) - 1\n```"),
    ]);
    let stdin = "def closest(offsets, t):\n    return 0\n\nreq: sorted, may repeat\ndef closest(offsets, t):\n    return 0\n\nreq: sorted, may repeat, sums fit in i64\ndef closest(offsets, t):\n    best = abs(offsets[0] + offsets[1] - t)\n    return best\n\n/done\n";
    let out = with_fake_claude(&env, &fake)
        .args(["practice", "closest-pair-to-target", "--ollama-url", &ollama.url])
        .write_stdin(stdin)
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Held before any list; the verdict names only toolbox entries; held again while incomplete.
    assert!(stdout.contains("held: Requirements first"), "{text}");
    assert!(stdout.contains("requirements: incomplete — nothing yet about: integer overflow risk"), "{text}");
    assert!(!stdout.contains("use two pointers"), "the judge's words outside the vocabulary never reach the learner");
    assert!(stdout.contains("held: Your code is on hold"), "{text}");
    assert!(stdout.contains("coach (H1) ›\nWhat happens with the largest offsets?"), "{text}");
    // The leaky draft never shows; its rewrite does.
    assert!(!stdout.contains("two pointers"), "{text}");
    assert!(stdout.contains("Where would you start looking, and why there?"), "{text}");
    assert!(stdout.contains("requirements: passed"), "{text}");
    assert!(stdout.contains("out of quota") && stdout.contains("ollama (qwen3:30b-a3b-instruct-2507)"), "{text}");
    assert!(stdout.contains("gave too much away three times"), "{text}");
    for leaked in ["while lo < hi", "best = min", "lo, hi = 0"] {
        assert!(!stdout.contains(leaked), "{leaked} shown:\n{text}");
    }
    assert!(!stdout.contains("rung:H"), "markers are stripped");

    // What the CLI was asked: the judge with no tools, settings or session; the coach resumed.
    let judge_args = read(&fake, "haiku.args.1");
    for flag in ["-p", "--tools", "--setting-sources", "--no-session-persistence", "--strict-mcp-config"] {
        assert!(judge_args.lines().any(|l| l == flag), "{flag} missing: {judge_args}");
    }
    assert!(read(&fake, "haiku.in.1").contains("<list>\nsorted, may repeat\n</list>"));
    assert!(read(&fake, "sonnet.args.1").contains("--system-prompt-file\n"), "{}", read(&fake, "sonnet.args.1"));
    let system = read(&fake, "sonnet.system.1");
    assert!(system.starts_with("# devcoach practice"), "the instructions went in a file: {system}");
    assert!(system.contains("## The problem") && system.contains("Closest Pair To Target"));
    for flag in ["--setting-sources", "--strict-mcp-config"] {
        assert!(
            read(&fake, "sonnet.args.1").lines().any(|l| l == flag),
            "the coach runs without the user's hooks: {flag}"
        );
    }
    assert!(!read(&fake, "sonnet.args.1").contains("--resume"));
    assert!(read(&fake, "sonnet.args.2").contains("--resume\ns-1"));
    assert!(read(&fake, "sonnet.in.3").contains("[devcoach guard]"), "the rewrite request says why");
    assert!(
        read(&fake, "sonnet.env.1").ends_with("/practice/sessions/2026-11-30-closest-pair-to-target.jsonl"),
        "the log path is exported"
    );

    // The local model got the whole conversation, without the client section of the skill.
    let bodies = ollama.bodies.lock().expect("lock").clone();
    assert_eq!(bodies.len(), 3);
    let messages = bodies[0]["messages"].as_array().expect("messages");
    assert_eq!(messages[0]["role"], "system");
    let system = messages[0]["content"].as_str().unwrap_or_default();
    assert!(
        !system.contains("## The client")
            && system.contains("## Your role")
            && system.contains("Closest Pair To Target")
    );
    let said: Vec<&str> = messages.iter().filter_map(|m| m["content"].as_str()).collect();
    assert!(said.iter().any(|m| m.starts_with("req: sorted, may repeat\n")), "{said:?}");
    assert!(said.contains(&"What happens with the largest offsets?"), "{said:?}");
    assert!(said.contains(&"Where would you start looking, and why there?"), "{said:?}");
    assert_eq!(bodies[0]["model"], "qwen3:30b-a3b-instruct-2507");

    // The log, step by step.
    let log = events(&env);
    assert_eq!(
        names(&log),
        [
            "start",
            "learner",
            "held",
            "learner",
            "req_check",
            "coach",
            "learner",
            "held",
            "learner",
            "req_check",
            "bounce",
            "coach",
            "learner",
            "code",
            "switch",
            "bounce",
            "bounce",
            "bounce",
            "coach",
            "end"
        ]
    );
    assert_eq!(log[0]["backend"], "claude");
    assert_eq!(log[4]["missing"], json!(["integer-overflow-risk"]));
    assert_eq!(log[4]["judge"], "haiku");
    assert_eq!(log[10], json!({ "ts": log[10]["ts"], "event": "bounce", "entry": "two-pointers", "source": "repl" }));
    assert_eq!(log[11]["drafts"], 2);
    assert_eq!(log[11]["leaked"], true);
    assert_eq!(log[14]["from"], "claude");
    assert_eq!(log[14]["to"], "ollama");
    assert_eq!(log[15]["source"], "local");
    assert_eq!(log[15]["entry"], "code-line");
    assert_eq!(log[18]["drafts"], 3);
    assert_eq!(log[18]["rung"], Value::Null);
    assert_eq!(log[19]["reason"], "solved");

    // The postmortem: a lesson card in category practice, and evidence on the problem's topics.
    assert!(stdout.contains("Saved a lesson card: Practice: Closest Pair To Target"), "{text}");
    let lessons: Value = serde_json::from_slice(&env.run(&["lessons", "--json"]).stdout).expect("lessons json");
    let card = lessons["lessons"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["title"] == "Practice: Closest Pair To Target"))
        .cloned();
    let card = card.unwrap_or_else(|| panic!("no practice lesson: {lessons}"));
    assert_eq!(card["categories"][0], "practice");
    assert_eq!(card["topic_id"], "two_pointers", "the map's topic rule");
    let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    let evidence: i64 = db
        .query_row("SELECT evidence FROM ext_topic_model WHERE topic = 'two_pointers'", [], |r| r.get(0))
        .expect("the topic model saw the session");
    assert_eq!(evidence, 1);

    let report = env.transcript(&["practice", "report"]);
    assert!(report.contains("requirements before code: no"), "{report}");
    assert!(
        report.contains("1. incomplete (missing: integer-overflow-risk) [haiku]\n    2. passed [haiku]"),
        "{report}"
    );
    assert!(report.contains("code held 2×, replies bounced 4×, backend switches 1"), "{report}");
}

#[cfg(unix)]
#[test]
fn local_session_lets_code_through_after_three_incomplete_lists_or_when_nobody_judges() {
    // Three incomplete verdicts from the local judge, then code goes through marked.
    let env = Env::new();
    let incomplete = ollama_says(r#"{"verdict": "incomplete", "missing": ["empty-input"]}"#);
    let ollama = fake_ollama(vec![
        incomplete.clone(),
        ollama_says("<!-- rung:H1 -->\nWhat if there is nothing to read?"),
        incomplete.clone(),
        ollama_says("<!-- rung:H1 -->\nAnd with no towers?"),
        incomplete,
        ollama_says("<!-- rung:H1 -->\nStill nothing about an empty list?"),
        ollama_says("<!-- rung:H2 -->\nWhat does your loop do on the last tower?"),
    ]);
    let stdin = "req: heights positive\nreq: heights positive, n up to 1e5\nreq: heights positive, n up to 1e5, ties block\nfor (int i = 0; i < n; i++) { ans[i] = 0; }\n";
    let out = env
        .command()
        .env("DEVCOACH_CLAUDE", env.tmp.path().join("no-claude-here"))
        .args(["practice", "signal-tower-reach", "--local", "--ollama-url", &ollama.url])
        .write_stdin(stdin)
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("What does your loop do on the last tower?"), "{text}");
    let log = events(&env);
    assert_eq!(log[0]["backend"], "ollama");
    let code: Vec<&Value> = log.iter().filter(|e| e["event"] == "code").collect();
    assert_eq!(code.len(), 1);
    assert_eq!(code[0]["req_incomplete"], true);
    assert_eq!(log.iter().filter(|e| e["event"] == "req_check" && e["judge"] == "ollama").count(), 3);
    assert_eq!(log.last().map(|e| e["reason"].clone()), Some(json!("end of input")));

    // Nobody to judge (no claude, the server fails the judge call): the gate fails open.
    let env = Env::new();
    let ollama = fake_ollama(vec![
        (500, json!({ "error": "model not loaded" })),
        ollama_says("<!-- rung:H1 -->\nWhy that order?"),
        ollama_says("<!-- rung:H2 -->\nWhat happens at the right edge?"),
        ollama_says("<!-- rung:H3 -->\nLook at what each tower hides from the ones before it."),
    ]);
    let out = env
        .command()
        .env("DEVCOACH_CLAUDE", env.tmp.path().join("no-claude-here"))
        .args(["practice", "signal-tower-reach", "--local", "--ollama-url", &ollama.url])
        .write_stdin("req: heights positive\nwhile (i < n) {\n  i++;\n}\n\n/hint\n")
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("unverified"), "{text}");
    // /hint asks the coach for the next rung.
    assert!(String::from_utf8_lossy(&out.stdout).contains("coach (H3) ›\nLook at what each tower hides"), "{text}");
    let asked = ollama.bodies.lock().expect("lock").last().cloned().unwrap_or_default();
    assert!(asked.to_string().contains("typed /hint"), "{asked}");
    let log = events(&env);
    let check = log.iter().find(|e| e["event"] == "req_check").expect("req_check");
    assert_eq!((check["verdict"].clone(), check["judge"].clone()), (json!("unverified"), json!("none")));
    assert!(log.iter().any(|e| e["event"] == "code" && e.get("req_incomplete").is_none()), "{log:?}");
}

#[test]
fn a_problem_is_required_and_unknown_ones_are_named() {
    let env = Env::new();
    let out = env.run(&["practice"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("name a problem"));
    // A slug that is not shipped goes to LeetCode; offline, the error says what works instead.
    let out = env
        .command()
        .env("DEVCOACH_LEETCODE_URL", "http://127.0.0.1:9/graphql")
        .args(["practice", "no-such-problem", "--local"])
        .output()
        .expect("ran");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("LeetCode could not be reached") && err.contains("--problem FILE"), "{err}");
}

/// The guard in an agent's own interface: `devcoach hook practice-stop` reads the session log
/// named by DEVCOACH_PRACTICE_LOG, sends a leaky reply back (once, twice), lets the third
/// through marked, and stays silent outside a session.
#[test]
fn the_stop_hook_guards_replies_in_the_agent_interface() {
    let env = Env::new();
    let log = env.tmp.path().join("session.jsonl");
    std::fs::write(
        &log,
        "{\"ts\":\"t\",\"event\":\"start\",\"schema\":1,\"problem\":\"signal-tower-reach\",\"backend\":\"claude\",\"model\":\"tui\"}\n\
         {\"ts\":\"t\",\"event\":\"learner\",\"text\":\"how do I start?\",\"kind\":\"prose\"}\n",
    )
    .expect("log");
    let hook = |payload: Value, with_log: bool| {
        let mut cmd = env.command();
        cmd.args(["hook", "practice-stop"]).write_stdin(payload.to_string());
        if with_log {
            cmd.env("DEVCOACH_PRACTICE_LOG", &log);
        }
        cmd.output().expect("hook ran")
    };
    let leaky = json!({ "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "<!-- rung:H2 -->\nUse a monotonic stack." });
    // Not practising: nothing at all, and no log touched.
    let out = hook(leaky.clone(), false);
    assert_eq!((out.status.code(), out.stdout.is_empty(), out.stderr.is_empty()), (Some(0), true, true));
    for _ in 0..2 {
        let out = hook(leaky.clone(), true);
        assert_eq!(out.status.code(), Some(0));
        let decision: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(decision["decision"], "block");
        assert!(decision["reason"].as_str().is_some_and(|r| r.contains("\"monotonic stack\"")), "{decision}");
    }
    let third = hook(leaky, true);
    assert!(third.stdout.is_empty(), "the third draft goes through");
    let clean = hook(json!({ "last_assistant_message": "<!-- rung:H1 -->\nWhat do you see to the right?" }), true);
    assert!(clean.stdout.is_empty());
    let lines: Vec<Value> =
        std::fs::read_to_string(&log).expect("log").lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    assert_eq!(names(&lines), ["start", "learner", "bounce", "bounce", "coach", "coach"]);
    assert_eq!(lines[2]["source"], "stop-hook");
    assert_eq!((lines[4]["drafts"].clone(), lines[4]["leaked"].clone()), (json!(3), json!(true)));
    assert_eq!((lines[5]["rung"].clone(), lines[5]["leaked"].clone()), (json!(1), json!(false)));
    // Garbage in: still exit 0, nothing printed.
    let out = env
        .command()
        .args(["hook", "practice-stop"])
        .env("DEVCOACH_PRACTICE_LOG", &log)
        .write_stdin("{not json")
        .output()
        .expect("ran");
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
}

/// `install --practice` adds the guard beside the lesson hooks; running it again changes
/// nothing; uninstall takes both away.
#[test]
fn install_practice_adds_the_guard_to_claude_code() {
    let env = Env::new();
    let run = |args: &[&str]| env.command().env("PATH", "/usr/bin:/bin").args(args).output().expect("ran");
    let out = run(&["install", "--claude-code", "--practice"]);
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("practice hooks UserPromptSubmit, Stop"),
        "{}",
        transcript(&out, env.tmp.path())
    );
    let settings = env.tmp.path().join("home/.claude/settings.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).expect("settings")).expect("json");
    let commands: Vec<String> = doc["hooks"]["Stop"]
        .as_array()
        .expect("Stop")
        .iter()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(commands.len(), 2, "{commands:?}");
    let prompt_hooks = doc["hooks"]["UserPromptSubmit"].to_string();
    assert!(prompt_hooks.contains("hook practice-prompt") && prompt_hooks.contains("prompt-hook"), "{prompt_hooks}");
    assert!(
        commands.iter().any(|c| c.ends_with(" stop-hook"))
            && commands.iter().any(|c| c.ends_with(" hook practice-stop"))
    );
    let again = run(&["install", "--claude-code", "--practice"]);
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("practice hooks already installed"),
        "{}",
        transcript(&again, env.tmp.path())
    );
    let doctor = String::from_utf8_lossy(&run(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("practice hooks: Stop, UserPromptSubmit"), "{doctor}");
    assert!(
        !doctor.contains("registered twice"),
        "the practice hooks are not duplicates of the lesson hooks: {doctor}"
    );
    let out = run(&["uninstall", "--claude-code"]);
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    let after = std::fs::read_to_string(&settings).unwrap_or_default();
    assert!(!after.contains("practice-") && !after.contains("stop-hook"), "{after}");
}

/// `practice eval` against a local model that names the technique in every other first draft:
/// the figures come out of the logs as documented.
#[test]
fn eval_scores_a_local_model() {
    let env = Env::new();
    let turn = std::sync::atomic::AtomicU32::new(0);
    let ollama = fake_ollama_with(move |request| {
        let last = request["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
            .to_owned();
        if last.contains("<list>") {
            return ollama_says(r#"{"verdict": "passed", "missing": []}"#);
        }
        if last.contains("Is the following text source code") {
            return ollama_says("code");
        }
        if last.starts_with("[devcoach guard]") {
            return ollama_says("<!-- rung:H2 -->\nWhat do you keep from one step to the next?");
        }
        let n = turn.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if n.is_multiple_of(2) {
            ollama_says("<!-- rung:H1 -->\nThis is a classic sliding window.")
        } else {
            ollama_says("<!-- rung:H1 -->\nWhat does the second example show?")
        }
    });
    let out = env
        .command()
        .args(["practice", "eval", "--backend", "ollama", "--ollama-url", &ollama.url, "--json"])
        .output()
        .expect("ran");
    // Half the first drafts leak: over the default 15%, so the model is rejected, with exit 1.
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out, env.tmp.path()));
    let both: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(both["verdict"]["accepted"], false, "{both}");
    assert!(both["verdict"]["reasons"][0].as_str().is_some_and(|r| r.starts_with("leak rate")), "{both}");
    let report = both["report"].clone();
    assert_eq!(report["transcripts"], 3);
    assert_eq!(report["errors"], json!([]));
    assert_eq!(report["gate_compliance"], 1.0);
    assert_eq!(report["vocabulary_violations"], 0);
    let (leaky, drafts) = (report["leaky_drafts"].as_u64().expect("n"), report["drafts"].as_u64().expect("n"));
    assert!(leaky > 0 && leaky < drafts, "{report}");
    assert_eq!(report["withheld"], 0);
    assert!(
        report["rungs"]["H1"].as_u64().is_some_and(|n| n > 0) && report["rungs"]["H2"].as_u64().is_some_and(|n| n > 0),
        "{report}"
    );
    // With a threshold set for this model, the same run is accepted.
    let out = env
        .command()
        .args(["practice", "eval", "--backend", "ollama", "--ollama-url", &ollama.url, "--max-leak-rate", "0.6"])
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("verdict: accept"), "{text}");
    let text = env.transcript(&["practice", "eval", "--backend", "openai"]);
    assert!(text.contains("--backend openai needs --openai-url"), "{text}");
}

/// A LeetCode problem by URL: fetched once from the GraphQL endpoint (a loopback stand-in
/// here), turned into text, cached under the data directory, and read from the cache after.
#[test]
fn a_leetcode_problem_is_fetched_once_and_cached() {
    let env = Env::new();
    let leetcode = fake_ollama_with(|request| {
        assert_eq!(request["variables"]["titleSlug"], "pair-of-socks");
        (
            200,
            json!({ "data": { "question": {
                "title": "Pair Of Socks", "titleSlug": "pair-of-socks", "difficulty": "Easy",
                "content": "<p>Given <code>socks</code>, count pairs.</p><pre><strong>Input:</strong> socks = [1,1]\n<strong>Output:</strong> 1</pre>",
                "hints": ["Count each colour."],
                "topicTags": [{ "slug": "hash-map" }, { "slug": "not-in-our-vocabulary" }]
            } } }),
        )
    });
    // A local model that is up (the session is never begun without one answering).
    let ollama = fake_ollama(Vec::new());
    let run = || {
        env.command()
            .env("DEVCOACH_LEETCODE_URL", &leetcode.url)
            .args([
                "practice",
                "https://leetcode.com/problems/pair-of-socks/description/",
                "--local",
                "--ollama-url",
                &ollama.url,
            ])
            .write_stdin("/quit\n")
            .output()
            .expect("ran")
    };
    let out = run();
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    // The statement is laid out as markdown: its code block shown as code, not as fences.
    assert!(text.contains("Pair Of Socks (easy)") && text.contains("Given `socks`, count pairs."), "{text}");
    assert!(text.contains("Input: socks = [1,1]\n") && text.contains("Output: 1\n"), "{text}");
    assert!(!text.contains("```text"), "no raw fences: {text}");
    let cached = std::fs::read_to_string(env.data().join("practice/problems/pair-of-socks.md")).expect("cached");
    assert!(cached.contains("tags: hash-map\n") && cached.contains("hint: Count each colour."), "{cached}");
    assert!(run().status.success());
    assert_eq!(leetcode.bodies.lock().expect("lock").len(), 1, "the second run read the cache");
    // Not a URL, not shipped, not a slug: a clear error.
    let out = env.run(&["practice", "https://example.com/x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither a shipped problem"));
}

/// An OpenAI-compatible server (llama.cpp, LM Studio, vLLM) as the local coach and judge.
#[test]
fn an_openai_compatible_server_coaches() {
    let env = Env::new();
    let server = fake_ollama_with(|request| {
        let last =
            request["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("");
        let content = if last.contains("<list>") {
            r#"{"verdict": "passed"}"#
        } else {
            "<!-- rung:H1 -->\nWhat is the first thing you check?"
        };
        (200, json!({ "choices": [{ "index": 0, "message": { "role": "assistant", "content": content } }] }))
    });
    let out = env
        .command()
        .env("DEVCOACH_OPENAI_API_KEY", "sk-test")
        .args(["practice", "fusing-sand-blocks", "--local", "--openai-url", &server.url, "--local-model", "llama-3"])
        .write_stdin("req: weights positive, n up to 200, merge neighbours only\n")
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    assert!(text.contains("requirements: passed") && text.contains("What is the first thing you check?"), "{text}");
    let bodies = server.bodies.lock().expect("lock").clone();
    assert_eq!(bodies.len(), 2);
    assert!(bodies.iter().all(|b| b["_path"] == "/v1/chat/completions" && b["model"] == "llama-3"), "{bodies:?}");
    assert_eq!(events(&env)[0]["backend"], "openai");
}

/// A coach reply that talks about limits is a reply, not a quota message (only an error is).
#[cfg(unix)]
#[test]
fn a_reply_about_limits_is_not_a_quota_message() {
    let env = Env::new();
    let fake = fake_claude(&env);
    claude_result(
        &fake,
        "sonnet",
        1,
        "<!-- rung:H1 -->\nWhat happens if you hit your limit of patience with n = 10^5 values?",
    );
    let out = with_fake_claude(&env, &fake)
        .args(["practice", "closest-pair-to-target", "--ollama-url", "http://127.0.0.1:9"])
        .write_stdin("how should I think about the size of n?\n")
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(text.contains("coach (H1) ›\nWhat happens if you hit your limit of patience"), "{text}");
    assert!(!text.contains("out of quota"), "{text}");
    assert!(events(&env).iter().all(|e| e["event"] != "switch"));
}

/// `--tui`: Claude Code's own interface coaches. The stand-in `claude` plays the interface: it
/// runs the practice hooks the way Claude Code does (the log's path in its environment) for
/// code typed too early, a requirement list, code again, a leaky reply and a clean one.
#[cfg(unix)]
#[test]
fn the_tui_session_runs_the_hooks_with_the_log() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let fake = env.tmp.path().join("fake");
    std::fs::create_dir_all(&fake).expect("dir");
    let script = fake.join("claude");
    std::fs::write(
        &script,
        r#"#!/bin/sh
d="$FAKE_CLAUDE_DIR"
for a in "$@"; do printf '%s\n' "$a"; done > "$d/args"
prev=""
for a in "$@"; do [ "$prev" = "--append-system-prompt-file" ] && cp "$a" "$d/system"; prev="$a"; done
printf '%s' "$DEVCOACH_PRACTICE_LOG" > "$d/log"
hook() { printf '%s' "$2" | "$DEVCOACH_BIN" hook "$1"; }
hook practice-prompt '{"prompt":"def f(h):\n    return [0] * len(h)"}' > "$d/p1"
hook practice-stop '{"last_assistant_message":"<!-- rung:H1 -->\nA monotonic stack fits."}' > "$d/s1"
hook practice-stop '{"last_assistant_message":"<!-- rung:H1 -->\nWhat does each tower hide?"}' > "$d/s2"
hook practice-prompt '{"prompt":"req: heights positive, n up to 1e5"}' > "$d/p2"
hook practice-prompt '{"prompt":"def f(h):\n    return [0] * len(h)"}' > "$d/p3"
exit 0
"#,
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // Not at a terminal, --tui is refused: Claude Code's interface needs one.
    let refused = env
        .command()
        .env("DEVCOACH_CLAUDE", &script)
        .args(["practice", "signal-tower-reach", "--tui"])
        .output()
        .expect("ran");
    assert_eq!(refused.status.code(), Some(2), "{}", transcript(&refused, env.tmp.path()));
    assert!(crate::flat(&refused.stderr).contains("needs a terminal"));
    // util-linux's `script` gives it one (stdout and stderr then come back together).
    let out = std::process::Command::new("/usr/bin/script")
        .args(["-qec", &format!("{} practice signal-tower-reach --tui", crate::bin().display()), "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .env("COLUMNS", "200")
        .env("NO_COLOR", "1")
        .env("DEVCOACH_CLAUDE", &script)
        .env("FAKE_CLAUDE_DIR", &fake)
        .env("DEVCOACH_BIN", crate::bin())
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    assert!(text.contains("devcoach install --practice"), "the missing hooks are pointed out: {text}");
    let system = read(&fake, "system");
    assert!(
        system.contains("## Your role") && !system.contains("## The client") && system.contains("Signal Tower Reach")
    );
    assert!(read(&fake, "log").ends_with("2026-11-30-signal-tower-reach.jsonl"));
    let held: Value = serde_json::from_str(&read(&fake, "p1")).expect("p1 blocks");
    assert_eq!(held["decision"], "block");
    assert!(held["reason"].as_str().is_some_and(|r| r.contains("req:")), "{held}");
    assert_eq!((read(&fake, "p2"), read(&fake, "p3")), (String::new(), String::new()));
    let bounced: Value = serde_json::from_str(&read(&fake, "s1")).expect("s1 blocks");
    assert!(bounced["reason"].as_str().is_some_and(|r| r.contains("\"monotonic stack\"")), "{bounced}");
    assert_eq!(read(&fake, "s2"), "");
    let log = events(&env);
    assert_eq!(
        names(&log),
        ["start", "learner", "held", "bounce", "coach", "learner", "req_check", "learner", "code", "end"]
    );
    assert_eq!(log[0]["backend"], "claude-tui");
    assert!(
        !env.data().join("practice/sessions/2026-11-30-signal-tower-reach.system.md").exists(),
        "instructions file removed"
    );
    // Piped, nobody can say it was solved: it stays unfinished, to be resumed.
    assert!(text.contains("Saved a lesson card: Practice (unfinished): Signal Tower Reach"), "{text}");
}

#[cfg(unix)]
#[test]
fn hints_stay_guarded_after_code_and_an_unfinished_session_resumes() {
    let env = Env::new();
    let fake = fake_claude(&env);
    claude_result(&fake, "haiku", 1, r#"{"verdict": "passed"}"#);
    claude_result(&fake, "sonnet", 1, "<!-- rung:H1 -->\nWhat does a valid block look like?");
    claude_result(&fake, "sonnet", 2, "<!-- rung:H1 -->\nWhat does your function return for one track?");
    // After a stub went through, every version of the hint names the technique.
    for n in 3..=5 {
        claude_result(
            &fake,
            "sonnet",
            n,
            "<!-- rung:H2 -->\nUse a sliding window: move the right edge and shrink from the left.",
        );
    }
    let stdin = "req: artists may repeat, durations positive, B may be 0\ndef longest(tracks, b):\n    return 0\n\n/hint\n/quit\n";
    let out = with_fake_claude(&env, &fake)
        .args(["practice", "longest-distinct-artist-run"])
        .write_stdin(stdin)
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    let stdout = crate::flat(&out.stdout).to_lowercase();
    assert!(!stdout.contains("sliding window"), "the hint after the stub was held back: {text}");
    assert!(stdout.contains("every version of that hint gave the answer away"), "{text}");
    assert!(!stdout.contains("type /hint for a nudge"), "no /hint advice right after /hint: {text}");
    assert!(stdout.contains("practice (unfinished): longest distinct artist run"), "{text}");
    assert!(stdout.contains("devcoach practice longest-distinct-artist-run --resume"), "{text}");
    let lessons: Value = serde_json::from_slice(&env.run(&["lessons", "--json"]).stdout).expect("json");
    let cards = lessons["lessons"].as_array().expect("array");
    assert_eq!(cards.len(), 1);
    let shown = env.run(&["lesson", cards[0]["id"].as_str().expect("id")]);
    let card = String::from_utf8_lossy(&shown.stdout).to_lowercase();
    assert!(!card.contains("sliding window") && !card.contains("grow a window"), "{card}");
    assert!(card.contains("--resume"), "{card}");
    let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    let modelled: i64 = db.query_row("SELECT COUNT(*) FROM ext_topic_model", [], |r| r.get(0)).expect("count");
    assert_eq!(modelled, 0, "an unfinished session is no evidence yet");

    // Back later: the conversation comes back, and solving it replaces the card.
    claude_result(&fake, "sonnet", 6, "<!-- rung:H1 -->\nWhere were you?");
    let out = with_fake_claude(&env, &fake)
        .args(["practice", "longest-distinct-artist-run", "--resume"])
        .write_stdin("I think I have it now\n/done\n")
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Resumed where you stopped"), "{text}");
    let resumed_input = read(&fake, "sonnet.in.6");
    assert!(resumed_input.contains("I think I have it now"), "{resumed_input}");
    let log = events(&env);
    assert_eq!(std::fs::read_dir(env.data().join("practice/sessions")).expect("dir").count(), 1, "the same log");
    let kinds = names(&log);
    assert!(kinds.contains(&"resume".to_owned()), "{kinds:?}");
    assert_eq!(log.last().map(|e| e["reason"].clone()), Some(json!("solved")));
    let lessons: Value = serde_json::from_slice(&env.run(&["lessons", "--json"]).stdout).expect("json");
    let cards = lessons["lessons"].as_array().expect("array");
    assert_eq!(cards.len(), 1, "the unfinished card was replaced: {lessons}");
    assert_eq!(cards[0]["title"], "Practice: Longest Distinct Artist Run");
    // Nothing left to resume.
    let again = env.run(&["practice", "longest-distinct-artist-run", "--resume"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("no unfinished session"));
}

/// A coach that cannot answer stops the session before it starts, saying what to do; nothing is
/// logged and no card is saved.
#[test]
fn a_coach_that_cannot_answer_stops_before_the_session() {
    let env = Env::new();
    let fake = fake_claude(&env);
    let nothing_saved = |env: &Env, out: &std::process::Output, needle: &str| {
        let text = transcript(out, env.tmp.path());
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(crate::flat(&out.stderr).contains(needle), "{needle}: {text}");
        assert!(!env.data().join("practice/sessions").exists(), "no session log: {text}");
        let lessons: Value = serde_json::from_slice(&env.run(&["lessons", "--json"]).stdout).expect("json");
        assert_eq!(lessons["lessons"].as_array().map(Vec::len), Some(0), "no card: {text}");
    };
    // The cloud coach, not signed in.
    std::fs::write(
        fake.join("preflight"),
        r#"{"type":"result","is_error":true,"result":"Invalid API key · Please run /login"}"#,
    )
    .expect("preflight");
    std::fs::write(fake.join("preflight.exit"), "1").expect("exit");
    let out = with_fake_claude(&env, &fake)
        .args(["practice", "closest-pair-to-target"])
        .write_stdin("req: x\n")
        .output()
        .expect("ran");
    nothing_saved(&env, &out, "type /login");
    assert!(crate::flat(&out.stderr).contains("--local"), "the local way out is named");

    // Nothing listening where Ollama should be.
    let out = env
        .command()
        .args(["practice", "closest-pair-to-target", "--local", "--ollama-url", "http://127.0.0.1:9"])
        .write_stdin("req: x\n")
        .output()
        .expect("ran");
    nothing_saved(&env, &out, "ollama serve");

    // Ollama up, without the model asked for.
    let ollama = fake_ollama(Vec::new());
    let out = env
        .command()
        .args(["practice", "closest-pair-to-target", "--local", "--ollama-url", &ollama.url, "--local-model", "qwen3"])
        .write_stdin("req: x\n")
        .output()
        .expect("ran");
    nothing_saved(&env, &out, "ollama pull qwen3");
    assert!(ollama.bodies.lock().expect("lock").is_empty(), "no chat request was made");
}

/// A session in which the coach never answered (every call failing) saves nothing, even with a
/// requirement list typed.
#[test]
fn a_session_the_coach_never_answered_saves_nothing() {
    let env = Env::new();
    let ollama = fake_ollama(vec![(500, json!({"error": "overloaded"})); 6]);
    let out = env
        .command()
        .args(["practice", "closest-pair-to-target", "--local", "--ollama-url", &ollama.url])
        .write_stdin("req: sorted input, a target, the closest pair\nhow do I start?\n")
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("Saved a lesson card"), "{text}");
    let lessons: Value = serde_json::from_slice(&env.run(&["lessons", "--json"]).stdout).expect("json");
    assert_eq!(lessons["lessons"].as_array().map(Vec::len), Some(0), "{text}");
}
