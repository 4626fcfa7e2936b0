//! `open_ui` and `stop_ui`: the local dashboard.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use devcoach_net::dashboard::{DEFAULT_PORT, OpenError, Opened, Stopped};

use super::{Hints, Registry};
use crate::ctx::{Ctx, ToolError};

fn default_port() -> i64 {
    i64::from(DEFAULT_PORT)
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
            let Some(launcher) = ctx.opts.dashboard.clone() else {
                return Err(ToolError::Invalid(format!(
                    "this server cannot start a dashboard; run `devcoach ui --port {port}` in a terminal"
                )));
            };
            let dir = ctx.opts.dir.clone();
            match devcoach_net::dashboard::open(port, &dir.fingerprint(), || (launcher.0)(&dir, port)) {
                Ok(Opened::AlreadyRunning) => Ok(format!("devcoach UI is already running at {url}")),
                Ok(Opened::Started) => Ok(format!("devcoach UI running at {url}")),
                Ok(Opened::Starting) => Ok(format!("devcoach UI starting at {url}")),
                Err(e @ OpenError::OtherData(_)) => Err(ToolError::Invalid(format!(
                    "{e}; stop it with stop_ui on that port, or open one on another port"
                ))),
                Err(e @ OpenError::Launch { .. }) => Err(ToolError::Invalid(e.to_string())),
            }
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
