//! `devcoach ui` as a process: start, "already running", stop, signals, a taken port.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Env, bin};

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut out = String::new();
    stream.read_to_string(&mut out).ok()?;
    Some(out)
}

pub(crate) fn start(env: &Env, port: u16) -> Child {
    let child = Command::new(bin())
        .args(["ui", "--port", &port.to_string()])
        .env_clear()
        .envs(env.vars())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ui");
    let deadline = Instant::now() + Duration::from_secs(20);
    while http_get(port, "/ping").is_none_or(|r| !r.contains("\"ok\":true")) {
        assert!(Instant::now() < deadline, "the dashboard did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

fn wait(mut child: Child) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut out = String::new();
            child.stdout.take().expect("stdout").read_to_string(&mut out).expect("read");
            return (status.code(), out);
        }
        assert!(Instant::now() < deadline, "the dashboard did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn start_detect_and_stop() {
    let env = Env::demo();
    let port = free_port();
    let child = start(&env, port);
    assert!(http_get(port, "/lessons/git-bisect").is_some_and(|p| p.contains("Find the breaking commit with bisect")));

    let again = env.run(&["ui", "--port", &port.to_string()]);
    assert_eq!(again.status.code(), Some(0), "a running dashboard is not an error");
    assert!(String::from_utf8_lossy(&again.stdout).contains(&format!("already running at http://localhost:{port}")));

    let stop = env.run(&["ui", "--stop", "--port", &port.to_string()]);
    assert_eq!(String::from_utf8_lossy(&stop.stdout).trim(), format!("Stopped the devcoach dashboard on port {port}."));
    let (code, out) = wait(child);
    assert_eq!(code, Some(0));
    assert!(out.starts_with(&format!("devcoach UI running at http://localhost:{port}")), "{out}");
    let none = env.run(&["ui", "--stop", "--port", &port.to_string()]);
    assert_eq!(
        String::from_utf8_lossy(&none.stdout).trim(),
        format!("No devcoach dashboard is running on port {port}.")
    );
}

#[cfg(unix)]
#[test]
fn a_signal_stops_it_cleanly() {
    for signal in ["TERM", "INT", "HUP"] {
        let env = Env::demo();
        let port = free_port();
        let child = start(&env, port);
        let sent = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().expect("kill");
        assert!(sent.success());
        let (code, _) = wait(child);
        assert_eq!(code, Some(0), "SIG{signal}");
        assert!(http_get(port, "/ping").is_none());
    }
}

#[test]
fn a_port_taken_by_something_else() {
    let env = Env::new();
    let other = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = other.local_addr().expect("addr").port();
    // Something that accepts and answers nonsense (not a devcoach dashboard).
    std::thread::spawn(move || {
        for stream in other.incoming().flatten().take(4) {
            let mut stream = stream;
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\n\r\nhello");
        }
    });
    let out = env.run(&["ui", "--port", &port.to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("port {port} is used by another program")));
    assert!(!env.data().exists(), "nothing was created");
}

#[test]
fn a_dashboard_of_other_data_is_not_taken_for_ours() {
    // The demo learner on a port, then `ui` for one's own data on the same port.
    let demo = Env::demo();
    let mine = Env::new();
    assert!(mine.run(&["knowledge-add", "rust", "6"]).status.success());
    let port = free_port();
    let child = start(&demo, port);
    let out = mine.run(&["ui", "--port", &port.to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::transcript(&out, mine.tmp.path()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("the dashboard on port {port} shows other data")), "{err}");
    assert!(err.contains("--stop") && err.contains("--port"), "{err}");
    // Its own data dir is recognised.
    assert!(
        String::from_utf8_lossy(&demo.run(&["ui", "--port", &port.to_string()]).stdout).contains("already running")
    );
    assert!(demo.run(&["ui", "--stop", "--port", &port.to_string()]).status.success());
    let (code, _) = wait(child);
    assert_eq!(code, Some(0));
}

#[test]
fn stop_leaves_anything_but_a_devcoach_dashboard_alone() {
    let env = Env::new();
    let other = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = other.local_addr().expect("addr").port();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&asked);
    // A server that answers every request with `{"ok": true}`, as a careless one might.
    std::thread::spawn(move || {
        for stream in other.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 2048];
            let n = stream.read(&mut buf).unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n]).lines().next().unwrap_or_default().to_owned();
            seen.lock().expect("lock").push(line);
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n{\"ok\": true}");
        }
    });
    let out = env.run(&["ui", "--stop", "--port", &port.to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(crate::flat(&out.stderr).contains("not a devcoach dashboard; it was left alone"));
    let asked = asked.lock().expect("lock").clone();
    assert!(asked.iter().all(|l| !l.starts_with("POST /shutdown")), "never asked to shut down: {asked:?}");
    assert!(asked.iter().any(|l| l.starts_with("GET /ping")), "{asked:?}");
}
