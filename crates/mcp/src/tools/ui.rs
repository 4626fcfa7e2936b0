//! `open_ui` and `stop_ui`: the local dashboard.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

fn check_port(port: i64) -> Result<u16, ToolError> {
    u16::try_from(port)
        .ok()
        .filter(|p| *p >= 1024)
        .ok_or_else(|| ToolError::Invalid(format!("port {port} is out of the valid range (1024-65535)")))
}

const NOT_BUILT: &str = "the dashboard is not part of this devcoach build yet; use the CLI instead (`devcoach lessons`, \
`devcoach profile`, `devcoach stats`)";

pub(super) fn register_open(r: &mut Registry) {
    r.prose(
        ("open_ui", "Open UI", Hints { read_only: false, destructive: false, idempotent: false, open_world: true }),
        "Start the local dashboard (lessons, knowledge map, courses, settings) on 127.0.0.1 and return its address.",
        |_ctx: &Ctx, a: PortArgs| {
            check_port(a.port)?;
            Err(ToolError::Invalid(NOT_BUILT.into()))
        },
    );
}

pub(super) fn register_stop(r: &mut Registry) {
    r.structured(
        ("stop_ui", "Stop UI", Hints { read_only: false, destructive: false, idempotent: true, open_world: true }),
        "Stop a running local dashboard.",
        |_ctx: &Ctx, a: PortArgs| -> Result<super::Out<StopUiOut>, ToolError> {
            check_port(a.port)?;
            Err(ToolError::Invalid(NOT_BUILT.into()))
        },
    );
}
