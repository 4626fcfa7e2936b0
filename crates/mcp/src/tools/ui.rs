//! `open_ui` and `stop_ui`: the local dashboard.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use devcoach_net::dashboard::Stopped;

use super::{Hints, Registry};
use crate::ctx::{Ctx, ToolError};

fn default_port() -> i64 {
    7860
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PortArgs {
    /// The dashboard's port on 127.0.0.1 (default 7860).
    #[serde(default = "default_port")]
    #[schemars(range(min = 1024, max = 65535))]
    pub port: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StopUiOut {
    pub stopped: bool,
    pub port: i64,
}

/// A port in 1024–65535, or the text the original answers out of range (not an error result).
fn check_port(port: i64) -> Result<u16, String> {
    u16::try_from(port)
        .ok()
        .filter(|p| *p >= 1024)
        .ok_or_else(|| format!("error: port {port} is out of valid range (1024-65535)"))
}

/// Starts `devcoach ui --port <port>` on its own, outliving this server, on the same data.
fn spawn_dashboard(ctx: &Ctx, port: u16) -> Result<(), String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the devcoach binary to start the dashboard: {e}"))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["ui", "--port", &port.to_string()])
        .env("DEVCOACH_DIR", ctx.opts.dir.root())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        // Its own process group: the agent stopping this server must not stop the dashboard.
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.spawn().map(drop).map_err(|e| format!("could not start the dashboard: {e}"))
}

pub(super) fn register_open(r: &mut Registry) {
    r.prose(
        ("open_ui", "Open UI", Hints { read_only: false, destructive: false, idempotent: false, open_world: true }),
        "Start the local dashboard (lessons, knowledge map, courses, progress, settings) on 127.0.0.1 and return its \
         address for the learner to open.",
        |ctx: &Ctx, a: PortArgs| {
            let port = match check_port(a.port) {
                Ok(p) => p,
                Err(text) => return Ok(text),
            };
            let url = format!("http://localhost:{port}");
            if let Some(running) = devcoach_net::dashboard::ping(port) {
                if running.shows(&ctx.opts.dir.fingerprint()) == Some(false) {
                    return Err(ToolError::Invalid(format!(
                        "the dashboard on port {port} shows other data (the demo learner, or another DEVCOACH_DIR); \
                         stop it with stop_ui on that port, or open one on another port"
                    )));
                }
                return Ok(format!("devcoach UI is already running at {url}"));
            }
            spawn_dashboard(ctx, port).map_err(ToolError::Invalid)?;
            // Say it is up only once it answers (a few hundred milliseconds at most).
            for _ in 0..30 {
                if devcoach_net::dashboard::ping(port).is_some() {
                    return Ok(format!("devcoach UI running at {url}"));
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Ok(format!("devcoach UI starting at {url}"))
        },
    );
}

pub(super) fn register_stop(r: &mut Registry) {
    r.structured(
        ("stop_ui", "Stop UI", Hints { read_only: false, destructive: false, idempotent: true, open_world: true }),
        "Stop a running local dashboard.",
        |_ctx: &Ctx, a: PortArgs| -> Result<super::Out<StopUiOut>, ToolError> {
            let port = check_port(a.port).map_err(ToolError::Invalid)?;
            let result = devcoach_net::dashboard::stop(port);
            let stopped = result == Stopped::Yes;
            let lead = match result {
                Stopped::Yes => format!("devcoach UI on port {port} stopped"),
                Stopped::NothingThere => format!("No devcoach UI is running on port {port}"),
                Stopped::NotDevcoach => {
                    format!("Port {port} is used by another program, not a devcoach UI; it was left alone")
                }
                Stopped::Refused => format!("The devcoach UI on port {port} did not stop"),
            };
            Ok(super::Out { value: StopUiOut { stopped, port: i64::from(port) }, lead: Some(lead) })
        },
    );
}
