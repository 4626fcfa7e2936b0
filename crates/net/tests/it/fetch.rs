//! The fetch end to end against a loopback server started here. Names are mapped to it through
//! the policy's lookup, so the same code paths run as for real hosts.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use devcoach_net::{FetchError, FetchPolicy, fetch};

/// A tiny HTTP/1.1 server: each request's path picks a scripted answer.
struct Server {
    addr: SocketAddr,
    hosts: Arc<Mutex<Vec<String>>>,
}

fn respond(stream: &mut TcpStream, path: &str, port: u16) {
    let ok =
        |body: &str| format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
    let redirect =
        |to: &str| format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let reply = match path {
        "/lesson" => ok("devcoach:lesson:1:abc"),
        p if p.starts_with("/hop/") => {
            let n: u32 = p[5..].parse().unwrap_or(0);
            if n == 0 { ok("arrived") } else { redirect(&format!("/hop/{}", n - 1)) }
        }
        "/to-private" => redirect(&format!("http://evil.example:{port}/lesson")),
        "/to-file" => redirect("file:///etc/passwd"),
        "/to-data" => redirect("data:text/plain,devcoach:lesson:1:abc"),
        // Private hosts written as addresses (the test policy lets loopback through, to reach
        // this server); numeric forms such as 2130706433 are covered with the real resolver.
        "/to-private-v6" => redirect("http://[fd00::1]:9/lesson"),
        "/to-private-v4" => redirect("http://10.1.2.3:9/lesson"),
        "/to-mapped" => redirect("http://[::ffff:10.0.0.1]:9/lesson"),
        "/no-location" => "HTTP/1.1 301 Moved\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned(),
        "/declared-large" => "HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\nConnection: close\r\n\r\nxx".to_owned(),
        "/chunked-large" => {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, "y".repeat(64 * 1024));
            for _ in 0..8 {
                if stream.write_all(chunk.as_bytes()).is_err() {
                    return;
                }
            }
            "0\r\n\r\n".to_owned()
        }
        "/slow-body" => {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n");
            for _ in 0..100 {
                if stream.write_all(b"x").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            return;
        }
        "/slow" => {
            std::thread::sleep(Duration::from_secs(3));
            ok("late")
        }
        _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned(),
    };
    let _ = stream.write_all(reply.as_bytes());
}

impl Server {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let hosts = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&hosts);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    loop {
                        let mut header = String::new();
                        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                            break;
                        }
                        if let Some(h) = header.strip_prefix("host: ").or_else(|| header.strip_prefix("Host: ")) {
                            seen.lock().expect("lock").push(h.trim().to_owned());
                        }
                    }
                    respond(&mut stream, &path, addr.port());
                    let mut rest = Vec::new();
                    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
                    let _ = stream.read_to_end(&mut rest);
                });
            }
        });
        Self { addr, hosts }
    }

    /// A policy where `lessons.example` is this server and counts as public, `evil.example`
    /// resolves to a private address, and every other name fails to resolve.
    fn policy(&self, lookups: Arc<AtomicUsize>) -> FetchPolicy {
        let addr = self.addr;
        FetchPolicy {
            timeout: Duration::from_secs(2),
            lookup: Arc::new(move |host, port| {
                lookups.fetch_add(1, Ordering::SeqCst);
                match host {
                    "lessons.example" => Ok(vec![addr]),
                    "evil.example" => Ok(vec![SocketAddr::new("10.0.0.7".parse().expect("ip"), port)]),
                    _ => Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such host")),
                }
            }),
            allowed: |ip: IpAddr| ip.is_loopback(),
            ..FetchPolicy::default()
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://lessons.example:{}{path}", self.addr.port())
    }
}

#[test]
fn a_public_url_is_fetched_on_the_vetted_socket() {
    let server = Server::start();
    let lookups = Arc::new(AtomicUsize::new(0));
    let policy = server.policy(Arc::clone(&lookups));
    assert_eq!(fetch(&server.url("/lesson"), &policy).as_deref(), Ok("devcoach:lesson:1:abc"));
    // One lookup for the one hop: the socket went to the vetted address, no second resolution
    // a rebinding DNS server could answer differently.
    assert_eq!(lookups.load(Ordering::SeqCst), 1);
    // The server saw the name, not the address: the request really went to "lessons.example".
    assert_eq!(
        server.hosts.lock().expect("lock").last().map(String::as_str),
        Some(format!("lessons.example:{}", server.addr.port()).as_str())
    );
}

#[test]
fn redirects_are_followed_by_hand_up_to_three_and_revetted() {
    let server = Server::start();
    let lookups = Arc::new(AtomicUsize::new(0));
    let policy = server.policy(Arc::clone(&lookups));
    assert_eq!(fetch(&server.url("/hop/3"), &policy).as_deref(), Ok("arrived"));
    assert_eq!(lookups.load(Ordering::SeqCst), 4, "every hop is resolved and vetted again");
    assert_eq!(fetch(&server.url("/hop/4"), &policy), Err(FetchError::TooManyRedirects));
    assert_eq!(fetch(&server.url("/no-location"), &policy), Err(FetchError::TooManyRedirects));
    assert_eq!(fetch(&server.url("/to-private"), &policy), Err(FetchError::NotPublic));
    assert_eq!(fetch(&server.url("/to-file"), &policy), Err(FetchError::NotPublic));
    for hop in ["/to-data", "/to-private-v6", "/to-private-v4", "/to-mapped"] {
        assert_eq!(fetch(&server.url(hop), &policy), Err(FetchError::NotPublic), "{hop}");
    }
}

#[test]
fn status_size_time_and_names() {
    let server = Server::start();
    let policy = server.policy(Arc::new(AtomicUsize::new(0)));
    assert_eq!(fetch(&server.url("/missing"), &policy), Err(FetchError::Status(404)));
    assert_eq!(fetch(&server.url("/declared-large"), &policy), Err(FetchError::TooLarge));
    assert_eq!(fetch(&server.url("/chunked-large"), &policy), Err(FetchError::TooLarge));
    let started = std::time::Instant::now();
    assert_eq!(fetch(&server.url("/slow"), &policy), Err(FetchError::Timeout));
    assert!(started.elapsed() < Duration::from_millis(2900), "the whole operation is bounded");
    // Headers arrive at once, the body trickles for 5 s: the budget covers the body too.
    let started = std::time::Instant::now();
    assert_eq!(fetch(&server.url("/slow-body"), &policy), Err(FetchError::Timeout));
    assert!(started.elapsed() < Duration::from_millis(2900));
    assert_eq!(
        fetch(&format!("http://nowhere.example:{}/x", server.addr.port()), &policy),
        Err(FetchError::Unreachable)
    );
    assert_eq!(fetch(&format!("http://evil.example:{}/x", server.addr.port()), &policy), Err(FetchError::NotPublic));
}
