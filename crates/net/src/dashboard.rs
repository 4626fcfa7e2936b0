//! Talking to a devcoach dashboard on this machine (`ui --stop`, `open_ui`, "already running"):
//! always `127.0.0.1`, never a name to resolve, short timeouts.

use std::time::Duration;

use serde_json::Value;

/// A devcoach dashboard's answer to `/ping`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pong {
    pub version: String,
    /// The fingerprint of the data folder it shows (`DataDir::fingerprint`); `None` from a
    /// build that does not say (the TypeScript devcoach, older builds).
    pub data_dir: Option<String>,
}

impl Pong {
    /// Whether it shows the data folder with this fingerprint; `None` when it does not say.
    pub fn shows(&self, fingerprint: &str) -> Option<bool> {
        self.data_dir.as_deref().map(|d| d == fingerprint)
    }
}

/// Whether a `/ping` body is a devcoach dashboard's: `ok: true`, a `version` and a `compat`
/// key, as both builds answer (any other server answering `{"ok": true}` is not one).
pub fn read_pong(body: &Value) -> Option<Pong> {
    let version = body.get("version")?.as_str()?.to_owned();
    if body.get("ok") != Some(&Value::Bool(true)) || body.get("compat").is_none() {
        return None;
    }
    let data_dir = body.get("dataDir").and_then(Value::as_str).map(str::to_owned);
    Some(Pong { version, data_dir })
}

/// The devcoach dashboard on `port`, if one answers `/ping` within 1.5 s.
pub fn ping(port: u16) -> Option<Pong> {
    let mut response =
        crate::plain_agent(Duration::from_millis(1500)).get(&format!("http://127.0.0.1:{port}/ping")).call().ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body: Value = serde_json::from_slice(
        &response.body_mut().with_config().limit(devcoach_core::limits::DASHBOARD_PING_BYTES).read_to_vec().ok()?,
    )
    .ok()?;
    read_pong(&body)
}

/// The port the dashboard listens on unless told otherwise (on 127.0.0.1).
pub const DEFAULT_PORT: u16 = 7860;

/// Who answers on a port, for the data directory with `fingerprint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Occupant {
    /// No devcoach dashboard answers (the port may be free, or another program's).
    Nobody,
    /// A devcoach dashboard showing this data.
    Ours,
    /// A devcoach dashboard showing other data (the demo, another `DEVCOACH_DIR`).
    OtherData,
}

/// Who answers on `port`: every front end decides "already running" and "showing other data"
/// by this one rule.
pub fn occupant(port: u16, fingerprint: &str) -> Occupant {
    match ping(port) {
        None => Occupant::Nobody,
        Some(p) if p.shows(fingerprint) == Some(false) => Occupant::OtherData,
        Some(_) => Occupant::Ours,
    }
}

/// How `open` went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// One showing this data already answered.
    AlreadyRunning,
    /// Started, and it answers.
    Started,
    /// Started, and not answering yet after 3 s.
    Starting,
}

/// Why `open` did not start one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("the dashboard on port {0} shows other data (the demo learner, or another DEVCOACH_DIR)")]
    OtherData(u16),
    /// The front end's way of starting one failed; `reason` is why.
    #[error("could not start the dashboard: {reason}")]
    Launch { reason: String },
}

/// A dashboard for this data on `port`: the running one, or one `launch` starts (a detached
/// process the caller knows how to make), waited for until it answers.
pub fn open(port: u16, fingerprint: &str, launch: impl FnOnce() -> Result<(), String>) -> Result<Opened, OpenError> {
    match occupant(port, fingerprint) {
        Occupant::Ours => return Ok(Opened::AlreadyRunning),
        Occupant::OtherData => return Err(OpenError::OtherData(port)),
        Occupant::Nobody => {}
    }
    launch().map_err(|reason| OpenError::Launch { reason })?;
    for _ in 0..30 {
        if ping(port).is_some() {
            return Ok(Opened::Started);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(Opened::Starting)
}

/// What `stop` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// A devcoach dashboard was there and has stopped.
    Yes,
    /// Nothing answers on the port.
    NothingThere,
    /// Something answers, but it is not a devcoach dashboard: it was left alone.
    NotDevcoach,
    /// A devcoach dashboard refused (a build without `/shutdown`), or did not stop in time.
    Refused,
}

/// Stops the devcoach dashboard on `port`, and only a devcoach dashboard: anything else that
/// listens there is never sent `/shutdown`. Returns once it has stopped answering (up to 3 s),
/// so "stopped" means stopped.
pub fn stop(port: u16) -> Stopped {
    if ping(port).is_none() {
        return if answers(port) { Stopped::NotDevcoach } else { Stopped::NothingThere };
    }
    let agreed = crate::plain_agent(Duration::from_secs(3))
        .post(&format!("http://127.0.0.1:{port}/shutdown"))
        .header("sec-fetch-site", "same-origin")
        .send_empty()
        .is_ok_and(|r| r.status().is_success());
    if !agreed {
        return Stopped::Refused;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while ping(port).is_some() {
        if std::time::Instant::now() >= deadline {
            return Stopped::Refused;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Stopped::Yes
}

/// Whether anything accepts connections on the port.
fn answers(port: u16) -> bool {
    std::net::TcpStream::connect_timeout(
        &std::net::SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_millis(500),
    )
    .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_devcoach_answer_is_a_dashboard() {
        let ours = serde_json::json!({"ok": true, "version": "0.1.0", "compat": null, "dataDir": "ab12"});
        assert_eq!(read_pong(&ours), Some(Pong { version: "0.1.0".into(), data_dir: Some("ab12".into()) }));
        let theirs = serde_json::json!({"ok": true, "version": "3.2.0", "compat": null});
        assert_eq!(read_pong(&theirs).map(|p| p.data_dir), Some(None), "the TypeScript build's answer");
        for other in [
            serde_json::json!({"ok": true}),
            serde_json::json!({"ok": true, "version": 1, "compat": null}),
            serde_json::json!([1]),
        ] {
            assert_eq!(read_pong(&other), None, "{other}");
        }
    }
}
