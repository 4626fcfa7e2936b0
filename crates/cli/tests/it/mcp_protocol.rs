//! The MCP server at the byte level: stdout carries JSON-RPC only, bad input gets an answer,
//! and the server keeps serving after every kind of bad input.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::{Env, bin};

/// Sends `lines` to a fresh `devcoach mcp`, closes stdin, and returns every stdout line as JSON
/// plus stderr.
pub(crate) fn exchange(env: &Env, lines: &[String]) -> (Vec<Value>, String) {
    let bytes: Vec<Vec<u8>> = lines.iter().map(|l| l.clone().into_bytes()).collect();
    exchange_raw(env, &bytes)
}

/// Sends raw byte lines (they need not be UTF-8); see [`exchange`].
fn exchange_raw(env: &Env, lines: &[Vec<u8>]) -> (Vec<Value>, String) {
    let mut child = Command::new(bin())
        .arg("mcp")
        .env_clear()
        .envs(env.vars())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut input = Vec::new();
    for line in lines {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
        // Give the server time to answer before stdin closes.
        std::thread::sleep(std::time::Duration::from_millis(800));
    });
    // stderr is drained beside stdout, so a chatty server cannot block on a full pipe.
    let mut stderr = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut out = Vec::new();
    for line in stdout.lines() {
        let line = line.expect("utf-8 line");
        out.push(
            serde_json::from_str::<Value>(&line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}")),
        );
    }
    writer.join().expect("writer");
    assert!(child.wait().expect("exit").success(), "the server exits cleanly when stdin closes");
    (out, errors.join().expect("stderr"))
}

pub(crate) fn init() -> Vec<String> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "9.9"}}}).to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

pub(crate) fn by_id(out: &[Value], id: i64) -> &Value {
    out.iter().find(|m| m["id"] == json!(id)).unwrap_or_else(|| panic!("no answer to request {id}: {out:#?}"))
}

#[test]
fn bad_input_is_answered_and_serving_goes_on() {
    let env = Env::demo();
    let mut lines = init();
    lines.push("this is not json".into());
    lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": 42}).to_string());
    lines.push(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}})
            .to_string(),
    );
    lines.push(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "star_lesson", "arguments": {"lesson_id": 7, "starred": "yes"}}}).to_string());
    lines.push(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "skip_lesson", "arguments": {"reason": "x".repeat(10_000_000)}}}).to_string());
    lines.push(
        json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "devcoach://nowhere"}})
            .to_string(),
    );
    lines.push("{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/list\"".into());
    lines.push(
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "get_profile", "arguments": {}}})
            .to_string(),
    );
    let (out, stderr) = exchange(&env, &lines);

    assert_eq!(by_id(&out, 1)["result"]["serverInfo"]["name"], "devcoach");
    let parse_errors: Vec<&Value> = out.iter().filter(|m| m["error"]["code"] == json!(-32700)).collect();
    assert_eq!(parse_errors.len(), 2, "both unparsable lines are answered: {out:#?}");
    assert!(
        out.iter().any(|m| m["error"]["code"] == json!(-32600)),
        "a message of the wrong shape is an invalid request"
    );
    assert!(by_id(&out, 3)["error"]["message"].as_str().is_some_and(|m| m.contains("tools/list")));
    assert_eq!(by_id(&out, 4)["result"]["isError"], true);
    let too_big = by_id(&out, 5)["result"].clone();
    assert_eq!(too_big["isError"], true);
    assert!(too_big["content"][0]["text"].as_str().is_some_and(|t| t.contains("limit")));
    assert!(by_id(&out, 6)["error"].is_object());
    assert!(by_id(&out, 8)["result"]["structuredContent"]["knowledge"].is_array(), "still serving after all of it");

    let stderr_lines: Vec<&str> = stderr.lines().collect();
    assert!(stderr_lines[0].starts_with(&format!("devcoach {} mcp · ", devcoach_core::APP_VERSION)), "{stderr}");
    assert!(stderr_lines[0].ends_with("(schema 6)"), "{stderr}");
    assert!(stderr.contains("mcp · client probe 9.9"), "{stderr}");
}

#[test]
fn starting_never_creates_the_database() {
    let env = Env::new();
    let (out, stderr) = exchange(&env, &init());
    assert_eq!(out.len(), 1);
    assert!(stderr.lines().next().is_some_and(|l| l.ends_with("(no database yet)")), "{stderr}");
    assert!(!env.data().join("coaching.db").exists());
}

#[test]
fn tools_report_a_broken_database_and_resources_degrade() {
    let env = Env::new();
    std::fs::create_dir_all(env.data()).expect("dir");
    std::fs::write(env.data().join("coaching.db"), b"not a database at all".repeat(200)).expect("write");
    let mut lines = init();
    for (id, tool) in [(2, "get_profile"), (3, "get_briefing"), (4, "get_onboarding"), (5, "log_lesson")] {
        let args = if tool == "log_lesson" {
            json!({"id": "x", "topic_id": "t", "categories": [], "title": "T", "level": "mid", "summary": "s", "body": "b"})
        } else {
            json!({})
        };
        lines.push(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}})
                .to_string(),
        );
    }
    lines.push(
        json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "devcoach://briefing"}})
            .to_string(),
    );
    lines.push(
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "devcoach://rate-limit"}})
            .to_string(),
    );
    let (out, stderr) = exchange(&env, &lines);
    for id in 2..=5 {
        let r = &by_id(&out, id)["result"];
        assert_eq!(r["isError"], true, "{r}");
        assert!(r["content"][0]["text"].as_str().is_some_and(|t| t.contains("not a devcoach database")), "{r}");
    }
    let briefing: Value =
        serde_json::from_str(by_id(&out, 6)["result"]["contents"][0]["text"].as_str().expect("text")).expect("json");
    assert!(briefing["error"].as_str().is_some());
    let rate: Value =
        serde_json::from_str(by_id(&out, 7)["result"]["contents"][0]["text"].as_str().expect("text")).expect("json");
    assert_eq!(rate["allowed"], false);
    assert!(rate["reason"].as_str().is_some_and(|r| r.starts_with("Rate limit check unavailable")));
    assert!(stderr.contains("database unreadable") || stderr.contains("schema"), "{stderr}");
    assert_eq!(std::fs::read(env.data().join("coaching.db")).expect("bytes"), b"not a database at all".repeat(200));
}

fn exchange_bytes(env: &Env, lines: &[Vec<u8>]) -> Vec<Value> {
    exchange_raw(env, lines).0
}

/// splitmix64, so the generated corpus is the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> usize {
        usize::try_from(self.next() % n).expect("small")
    }
}

/// Every kind of line rmcp would drop or die on, generated: deep nesting, invalid UTF-8, cut-off
/// requests, wrong shapes, bytes that are not JSON. Each is answered exactly once, with its own
/// id when it can be read, and the server goes on serving.
#[test]
fn every_hostile_line_gets_one_answer_and_serving_goes_on() {
    let env = Env::demo();
    let mut rng = Rng(7);
    let mut lines: Vec<Vec<u8>> = init().into_iter().map(String::into_bytes).collect();
    let mut readable_ids = Vec::new();
    let cases = 300;
    for n in 0..cases {
        let id = 1000 + i64::try_from(n).expect("small");
        let valid = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_lessons","arguments":{{"search":"abc"}}}}}}"#
        );
        let line: Vec<u8> = match n % 6 {
            0 => {
                let depth = 129 + rng.below(300);
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"x":{}{}}}}}"#,
                    "[".repeat(depth),
                    "]".repeat(depth)
                )
                .into_bytes()
            }
            1 => {
                let mut bytes = valid.clone().into_bytes();
                let at = bytes.len() - 6;
                bytes[at] = [0xff, 0xc0, 0x80, 0xfe][rng.below(4)];
                bytes
            }
            2 => {
                let cut = valid.find("\"method\"").expect("method") + rng.below(40);
                valid.as_bytes()[..cut].to_vec()
            }
            3 => {
                let params = ["\"x\"", "7", "[1,2]", "null", "{\"name\":3}"][rng.below(5)];
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#).into_bytes()
            }
            4 => (0..=rng.below(60)).map(|_| u8::try_from(32 + rng.below(95)).expect("ascii")).collect(),
            _ => ["[1,2]", "42", "\"text\"", "{\"jsonrpc\":\"1.0\"}", "{}"][rng.below(5)].as_bytes().to_vec(),
        };
        // Deep, broken-UTF-8 and wrongly shaped requests keep an id that can be read.
        if matches!(n % 6, 0 | 1 | 3) {
            readable_ids.push(id);
        }
        lines.push(line);
    }
    lines.push(json!({"jsonrpc": "2.0", "id": 99, "method": "ping"}).to_string().into_bytes());
    let out = exchange_bytes(&env, &lines);
    assert_eq!(by_id(&out, 99)["result"], json!({}), "still serving after all of it");
    let answered = out.iter().filter(|m| m["id"] != json!(1) && m["id"] != json!(99)).count();
    // A line that is only whitespace gets no answer; none are generated here.
    assert_eq!(answered, cases, "every hostile line answered exactly once");
    for id in &readable_ids {
        assert!(by_id(&out, *id)["error"]["code"].is_i64(), "request {id}");
    }
}

#[test]
fn before_initialize_nothing_stops_the_server() {
    let env = Env::demo();
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}).to_string(),
    ];
    lines.extend(init());
    lines.push(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}).to_string());
    let (out, _) = exchange(&env, &lines);
    assert_eq!(by_id(&out, 5)["error"]["code"], -32002, "asked to initialize first");
    assert_eq!(by_id(&out, 6)["result"], json!({}));
    assert!(by_id(&out, 7)["result"]["tools"].as_array().is_some_and(|t| t.len() > 20), "then it serves as usual");
}
