//! Talking to a devcoach dashboard on this machine (`ui --stop`, `open_ui`, "already running"):
//! always `127.0.0.1`, never a name to resolve, short timeouts.

use std::time::Duration;

use serde_json::Value;

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .build()
        .new_agent()
}

/// What a dashboard on `port` says about itself, if one answers `/ping` within 1.5 s.
pub fn ping(port: u16) -> Option<Value> {
    let mut response = agent(Duration::from_millis(1500)).get(&format!("http://127.0.0.1:{port}/ping")).call().ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body: Value =
        serde_json::from_slice(&response.body_mut().with_config().limit(64 * 1024).read_to_vec().ok()?).ok()?;
    (body.get("ok") == Some(&Value::Bool(true))).then_some(body)
}

/// Asks the dashboard on `port` to shut down; true when it agreed within 3 s. Returns once it
/// has stopped answering (up to 3 s more), so "stopped" means stopped.
pub fn stop(port: u16) -> bool {
    let agreed = agent(Duration::from_secs(3))
        .post(&format!("http://127.0.0.1:{port}/shutdown"))
        .header("sec-fetch-site", "same-origin")
        .send_empty()
        .is_ok_and(|r| r.status().is_success());
    if agreed {
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        while ping(port).is_some() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    agreed
}
