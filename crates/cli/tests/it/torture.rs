//! Reliability under load and under crashes, on the real binary (`docs/RELIABILITY.md`).
//!
//! - Torture: agent stop hooks, MCP server sessions, CLI writers and dashboard form posts all
//!   hammer one database for a bounded time (`DEVCOACH_TORTURE_SECONDS`, 8 by default; the full
//!   run is 120). No operation may fail, every acknowledged write must be there afterwards, and
//!   `PRAGMA integrity_check` must say ok. Throughput and latency per operation are written to
//!   `target/reliability/torture.txt`.
//! - Crashes: an MCP server logging lessons is killed with SIGKILL at random moments
//!   (`DEVCOACH_CRASH_ROUNDS`, 12 by default); after every kill the file is consistent and every
//!   lesson the server acknowledged is there. A backup taken while it writes restores complete.

// Latency figures turn counts and durations into floats for the report.
#![allow(clippy::cast_precision_loss, clippy::cast_possible_truncation, clippy::cast_sign_loss)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Env, bin, fixtures};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn report_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/reliability");
    std::fs::create_dir_all(&dir).expect("report dir");
    dir
}

/// A `devcoach mcp` process driven line by line.
struct Mcp {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Mcp {
    fn start(env: &Env) -> Self {
        let mut child = Command::new(bin())
            .arg("mcp")
            .env_clear()
            .envs(env.vars())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mcp");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        let mut mcp = Self { child, input, output, next_id: 1 };
        let init = mcp.request(
            "initialize",
            &json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "torture", "version": "1"}}),
        );
        assert!(init.is_some_and(|r| r.get("result").is_some()), "initialize");
        writeln!(mcp.input, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).expect("send");
        mcp
    }

    /// Sends a request and reads its answer; `None` when the server is gone.
    fn request(&mut self, method: &str, params: &Value) -> Option<Value> {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(self.input, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).ok()?;
        self.input.flush().ok()?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.output.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout carried junk ({e}): {line}"));
            if v["id"] == id {
                return Some(v);
            }
        }
    }

    /// `log_lesson` with this id; true when the server acknowledged it.
    fn log(&mut self, id: &str) -> Option<bool> {
        let r = self.request(
            "tools/call",
            &json!({"name": "log_lesson", "arguments": {
                "id": id, "topic_id": "reliability", "categories": ["tests"], "title": format!("Lesson {id}"),
                "level": "mid", "summary": "Written under load.", "body": "Body.\n\n💡 *Senior tip:* count what you wrote."
            }}),
        )?;
        Some(r["result"]["isError"] != true && r["result"]["structuredContent"]["id"] == id)
    }
}

#[derive(Default)]
struct Tally {
    ok: u64,
    failed: Vec<String>,
    latencies: Vec<Duration>,
}

impl Tally {
    fn record(&mut self, started: Instant, result: Result<(), String>) {
        self.latencies.push(started.elapsed());
        match result {
            Ok(()) => self.ok += 1,
            Err(e) => self.failed.push(e),
        }
    }

    fn line(&mut self, name: &str, seconds: f64) -> String {
        self.latencies.sort_unstable();
        let pick = |q: f64| {
            let i = ((self.latencies.len() as f64 - 1.0) * q).round();
            self.latencies.get(i as usize).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        };
        format!(
            "{name:<26} {:>7} ok {:>3} failed {:>8.1}/s   p50 {:>7.2} ms   p99 {:>7.2} ms",
            self.ok,
            self.failed.len(),
            self.ok as f64 / seconds,
            pick(0.5),
            pick(0.99)
        )
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

fn http_post(port: u16, path: &str, body: &str) -> Result<u16, String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| e.to_string())?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut out = String::new();
    s.read_to_string(&mut out).map_err(|e| e.to_string())?;
    out.split(' ').nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| format!("no status in {out:?}"))
}

fn integrity(env: &Env) -> String {
    rusqlite::Connection::open(env.data().join("coaching.db"))
        .expect("open")
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check")
}

#[test]
// The figures are the record of the run.
#[allow(clippy::print_stdout)]
fn hooks_servers_clis_and_the_dashboard_at_once_lose_nothing() {
    let seconds = env_number("DEVCOACH_TORTURE_SECONDS", 8);
    let env = Arc::new(Env::new());
    assert!(env.run(&["knowledge-add", "reliability", "--confidence", "4"]).status.success());
    assert!(env.run(&["set", "nudge_every", "3"]).status.success());
    // `DEVCOACH_TORTURE_JOURNAL=wal` runs the same load on a file switched to WAL (the mode is
    // kept in the file), to compare with the default rollback journal.
    let journal = std::env::var("DEVCOACH_TORTURE_JOURNAL").unwrap_or_else(|_| "delete".into());
    let mode: String = rusqlite::Connection::open(env.data().join("coaching.db"))
        .expect("open")
        .query_row(&format!("PRAGMA journal_mode = {}", if journal == "wal" { "wal" } else { "delete" }), [], |r| {
            r.get(0)
        })
        .expect("journal mode");
    let port = free_port();
    let mut ui = Command::new(bin())
        .args(["ui", "--port", &port.to_string()])
        .env_clear()
        .envs(env.vars())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("ui");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the dashboard did not start");
        std::thread::sleep(Duration::from_millis(50));
    }

    let stop = Instant::now() + Duration::from_secs(seconds);
    let payload = std::fs::read(fixtures().join("ts-0.9.5/hooks/stop-payload.json")).expect("payload");
    let acked_lessons = Arc::new(Mutex::new(Vec::<String>::new()));
    let acked_topics = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut workers = Vec::new();
    for h in 0..3 {
        let (env, payload) = (Arc::clone(&env), payload.clone());
        workers.push((
            "stop hook",
            std::thread::spawn(move || {
                let mut t = Tally::default();
                let mut v: Value = serde_json::from_slice(&payload).expect("json");
                v["session_id"] = json!(format!("torture-{h}"));
                let stdin = serde_json::to_vec(&v).expect("json");
                while Instant::now() < stop {
                    let started = Instant::now();
                    let out = env.command().arg("stop-hook").write_stdin(stdin.clone()).output().expect("hook");
                    let text = String::from_utf8_lossy(&out.stdout);
                    let fine = out.status.success()
                        && out.stderr.is_empty()
                        && (text.trim().is_empty()
                            || serde_json::from_str::<Value>(text.trim()).is_ok_and(|v| v.is_object()));
                    t.record(started, if fine { Ok(()) } else { Err(format!("hook: {out:?}")) });
                }
                t
            }),
        ));
    }
    for m in 0..2 {
        let (env, acked) = (Arc::clone(&env), Arc::clone(&acked_lessons));
        workers.push((
            "MCP log_lesson",
            std::thread::spawn(move || {
                let mut t = Tally::default();
                let mut mcp = Mcp::start(&env);
                let mut n = 0;
                while Instant::now() < stop {
                    n += 1;
                    let id = format!("mcp-{m}-{n}");
                    let started = Instant::now();
                    match mcp.log(&id) {
                        Some(true) => {
                            acked.lock().expect("lock").push(id);
                            t.record(started, Ok(()));
                        }
                        other => t.record(started, Err(format!("log_lesson {id}: {other:?}"))),
                    }
                }
                let _ = mcp.child.kill();
                let _ = mcp.child.wait();
                t
            }),
        ));
    }
    for c in 0..2 {
        let (env, acked) = (Arc::clone(&env), Arc::clone(&acked_topics));
        workers.push((
            "CLI knowledge-add",
            std::thread::spawn(move || {
                let mut t = Tally::default();
                let mut n = 0;
                while Instant::now() < stop {
                    n += 1;
                    let topic = format!("cli_{c}_{n}");
                    let started = Instant::now();
                    let out = env.run(&["knowledge-add", &topic, "--confidence", "3"]);
                    if out.status.success() {
                        acked.lock().expect("lock").push(topic);
                        t.record(started, Ok(()));
                    } else {
                        t.record(started, Err(String::from_utf8_lossy(&out.stderr).into_owned()));
                    }
                }
                t
            }),
        ));
    }
    {
        let acked = Arc::clone(&acked_topics);
        workers.push((
            "dashboard POST /knowledge",
            std::thread::spawn(move || {
                let mut t = Tally::default();
                let mut n = 0;
                while Instant::now() < stop {
                    n += 1;
                    let topic = format!("web_{n}");
                    let started = Instant::now();
                    match http_post(port, "/knowledge", &format!("topic={topic}&confidence=6")) {
                        Ok(303) => {
                            acked.lock().expect("lock").push(topic);
                            t.record(started, Ok(()));
                        }
                        other => t.record(started, Err(format!("POST /knowledge: {other:?}"))),
                    }
                }
                t
            }),
        ));
    }

    let mut totals: Vec<(&str, Tally)> = Vec::new();
    for (name, w) in workers {
        let t = w.join().expect("worker");
        match totals.iter_mut().find(|(n, _)| *n == name) {
            Some((_, total)) => {
                total.ok += t.ok;
                total.failed.extend(t.failed);
                total.latencies.extend(t.latencies);
            }
            None => totals.push((name, t)),
        }
    }
    let _ = ui.kill();
    let _ = ui.wait();

    let mut report = format!(
        "torture: {seconds} s, journal {mode}, 8 processes at a time (3 hook loops, 2 MCP servers, 2 CLI loops, 1 dashboard client)\n"
    );
    for (name, t) in &mut totals {
        report.push_str(&t.line(name, seconds as f64));
        report.push('\n');
    }
    let failures: Vec<String> = totals.iter().flat_map(|(_, t)| t.failed.iter().cloned()).collect();
    let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("open");
    let lessons = acked_lessons.lock().expect("lock").clone();
    let topics = acked_topics.lock().expect("lock").clone();
    let lost_lessons: Vec<&String> = lessons
        .iter()
        .filter(|id| {
            conn.query_row("SELECT COUNT(*) FROM lessons WHERE id = ?1", [id], |r| r.get::<_, i64>(0)).expect("count")
                != 1
        })
        .collect();
    let lost_topics: Vec<&String> = topics
        .iter()
        .filter(|t| {
            conn.query_row("SELECT COUNT(*) FROM knowledge WHERE topic = ?1", [t], |r| r.get::<_, i64>(0))
                .expect("count")
                != 1
        })
        .collect();
    let check = integrity(&env);
    report.push_str(&format!(
        "acknowledged writes: {} lessons, {} topics; lost: {}; integrity_check: {check}\n",
        lessons.len(),
        topics.len(),
        lost_lessons.len() + lost_topics.len()
    ));
    print!("{report}");
    std::fs::write(report_dir().join("torture.txt"), &report).expect("report");
    assert!(failures.is_empty(), "{} operations failed, first: {:?}", failures.len(), failures.first());
    assert!(lost_lessons.is_empty() && lost_topics.is_empty(), "lost {lost_lessons:?} {lost_topics:?}");
    assert_eq!(check, "ok");
    assert!(lessons.len() > 10 && topics.len() > 10, "the run did real work: {report}");
}

#[test]
#[allow(clippy::print_stdout)]
fn a_writer_killed_at_any_moment_loses_nothing_it_acknowledged() {
    let rounds = env_number("DEVCOACH_CRASH_ROUNDS", 12);
    let env = Env::new();
    assert!(env.run(&["knowledge-add", "reliability", "--confidence", "4"]).status.success());
    let mut acked: Vec<String> = Vec::new();
    let mut seed: u64 = 0x5eed;
    let mut killed_mid_write = 0;
    for round in 0..rounds {
        let mut mcp = Mcp::start(&env);
        // Acknowledge a few, then kill at a random moment while requests keep flowing.
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let kill_after = Duration::from_millis(20 + (seed >> 33) % 180);
        let started = Instant::now();
        let mut n = 0;
        while started.elapsed() < kill_after {
            n += 1;
            let id = format!("crash-{round}-{n}");
            if mcp.log(&id) == Some(true) {
                acked.push(id);
            }
        }
        // The next request is in flight when the kill lands.
        let id = format!("crash-{round}-inflight");
        let _ = writeln!(
            mcp.input,
            "{}",
            json!({"jsonrpc": "2.0", "id": 999_999, "method": "tools/call", "params": {"name": "log_lesson", "arguments": {
                "id": id, "topic_id": "reliability", "categories": [], "title": "In flight", "level": "mid",
                "summary": "s", "body": "b"}}})
        );
        let _ = mcp.input.flush();
        std::thread::sleep(Duration::from_micros((seed >> 20) % 3000));
        mcp.child.kill().expect("SIGKILL");
        mcp.child.wait().expect("reaped");
        killed_mid_write += 1;
        assert_eq!(integrity(&env), "ok", "round {round}");
        let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("open");
        for id in &acked {
            let n: i64 =
                conn.query_row("SELECT COUNT(*) FROM lessons WHERE id = ?1", [id], |r| r.get(0)).expect("count");
            assert_eq!(n, 1, "round {round}: acknowledged lesson {id} is missing");
        }
        // A journal left behind is rolled back by the next open; the CLI still works.
        assert!(env.run(&["stats"]).status.success(), "round {round}");
    }

    // A backup taken while a server writes restores every lesson it contains, intact.
    let mut mcp = Mcp::start(&env);
    let writer = std::thread::spawn(move || {
        for n in 0..60 {
            assert_eq!(mcp.log(&format!("during-backup-{n}")), Some(true));
        }
        let _ = mcp.child.kill();
        let _ = mcp.child.wait();
    });
    std::thread::sleep(Duration::from_millis(50));
    let backup = env.run(&["backup", "during.zip"]);
    assert!(backup.status.success(), "{}", String::from_utf8_lossy(&backup.stderr));
    writer.join().expect("writer");
    let fresh = Env::new();
    let restored = fresh.command().args(["restore"]).arg(env.tmp.path().join("during.zip")).output().expect("restore");
    assert!(restored.status.success(), "{}", String::from_utf8_lossy(&restored.stderr));
    let conn = rusqlite::Connection::open(fresh.data().join("coaching.db")).expect("open");
    for id in &acked {
        let n: i64 = conn.query_row("SELECT COUNT(*) FROM lessons WHERE id = ?1", [id], |r| r.get(0)).expect("count");
        assert_eq!(n, 1, "the backup lost {id}, acknowledged before it began");
    }
    assert_eq!(integrity(&fresh), "ok");
    let report = format!(
        "crash: {rounds} SIGKILLs of an MCP server mid-write ({killed_mid_write} with a request in flight), {} acknowledged lessons, 0 lost, integrity ok after every kill; a backup taken during writes restored complete\n",
        acked.len()
    );
    print!("{report}");
    std::fs::write(report_dir().join("crash.txt"), report).expect("report");
}
