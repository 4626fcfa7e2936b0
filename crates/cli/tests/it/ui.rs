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
