//! The dashboard over real HTTP on loopback: a server per test on a temporary database, driven
//! with a plain HTTP client (redirects not followed, so every status and header is checked).

mod pages;
mod palette;
mod routes;
mod security;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use devcoach_store::{DataDir, Store};
use tempfile::TempDir;

pub const NOW: &str = "2026-11-30T12:00:00Z";

pub fn now() -> DateTime<Utc> {
    devcoach_core::time::parse_timestamp(NOW).expect("fixed clock")
}

/// A dashboard on an ephemeral port, stopped when dropped.
pub struct Server {
    pub base: String,
    pub tmp: TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// An empty data directory (no database).
    pub fn empty() -> Self {
        Self::start(|_| {})
    }

    /// The demo learner: 30 lessons, a grouped knowledge map.
    pub fn demo() -> Self {
        Self::start(|dir| Store::open(dir).expect("store").seed_demo(now()).expect("demo"))
    }

    pub fn start(setup: impl FnOnce(&DataDir)) -> Self {
        let tmp = TempDir::new().expect("tmp");
        let dir = DataDir::new(tmp.path().join("data"));
        setup(&dir);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let options = devcoach_web::Options { dir, now: Some(now()), version: "9.9.9-test".into() };
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                devcoach_web::serve(listener, options, async move {
                    let _ = rx.await;
                })
                .await
            })
        });
        let server = Self { base, tmp, stop: Some(tx), thread: Some(thread) };
        // The first answer comes once the dashboard's start (which may write) is over.
        assert_eq!(server.get("/ping").status, 200, "the dashboard came up");
        server
    }

    pub fn data(&self) -> DataDir {
        DataDir::new(self.tmp.path().join("data"))
    }

    pub fn store(&self) -> Store {
        Store::open(&self.data()).expect("store")
    }

    fn agent() -> ureq::Agent {
        ureq::Agent::config_builder()
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(20)))
            .build()
            .new_agent()
    }

    pub fn get(&self, path: &str) -> Resp {
        Resp::from(Self::agent().get(&format!("{}{path}", self.base)).call().expect("GET"))
    }

    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Resp {
        let mut req = Self::agent().get(&format!("{}{path}", self.base));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        Resp::from(req.call().expect("GET"))
    }

    pub fn options(&self, path: &str) -> Resp {
        Resp::from(Self::agent().options(&format!("{}{path}", self.base)).call().expect("OPTIONS"))
    }

    /// A same-origin form post, as the pages send it.
    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> Resp {
        self.post_from(path, fields, "same-origin")
    }

    /// A form post marked with this `Sec-Fetch-Site`.
    pub fn post_from(&self, path: &str, fields: &[(&str, &str)], site: &str) -> Resp {
        let body: String = fields.iter().map(|(k, v)| format!("{}={}", enc(k), enc(v))).collect::<Vec<_>>().join("&");
        let req = Self::agent()
            .post(&format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("sec-fetch-site", site);
        Resp::from(req.send(body.as_bytes()).expect("POST"))
    }

    /// A form post with exactly these extra headers (no `Sec-Fetch-Site` unless given).
    pub fn post_with(&self, path: &str, fields: &[(&str, &str)], headers: &[(&str, &str)]) -> Resp {
        let body: String = fields.iter().map(|(k, v)| format!("{}={}", enc(k), enc(v))).collect::<Vec<_>>().join("&");
        let mut req = Self::agent()
            .post(&format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded");
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        Resp::from(req.send(body.as_bytes()).expect("POST"))
    }

    /// A multipart upload: `(name, file name if a file, bytes)`.
    pub fn upload(&self, path: &str, parts: &[(&str, Option<&str>, &[u8])]) -> Resp {
        let boundary = "devcoach-test-boundary-7f3a";
        let mut body = Vec::new();
        for (name, file, bytes) in parts {
            body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            match file {
                Some(f) => body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                        .as_bytes(),
                ),
                None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
            }
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let req = Self::agent()
            .post(&format!("{}{path}", self.base))
            .header("content-type", &format!("multipart/form-data; boundary={boundary}"))
            .header("sec-fetch-site", "same-origin");
        Resp::from(req.send(&body[..]).expect("upload"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub use devcoach_core::encoding::percent_encode as enc;

/// A response, read whole.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl Resp {
    fn from(mut r: ureq::http::Response<ureq::Body>) -> Self {
        let status = r.status().as_u16();
        let headers = r
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or_default().to_owned()))
            .collect();
        let body = r.body_mut().with_config().limit(256 * 1024 * 1024).read_to_vec().expect("body");
        Self { status, headers, body }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    /// Asserts a 303 to `location` and returns self.
    pub fn see_other(&self, location: &str) -> &Self {
        assert_eq!((self.status, self.header("location")), (303, location), "{}", self.text());
        self
    }
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

devcoach_core::no_forgotten_test_files!();
