//! `devcoach mcp`: the MCP server on stdio. Only JSON-RPC goes to stdout; the two lines for a
//! person go to stderr.

use std::path::Path;
use std::sync::Arc;

use devcoach_mcp::ServerOptions;
use devcoach_probe::history::ClaudeHome;
use devcoach_store::{Peek, Store};

use crate::context::Ctx;

/// `/home/me/x` → `~/x`, so logs do not spell out the home directory.
pub fn display_path(path: &Path) -> String {
    let shown = path.display().to_string();
    match std::env::home_dir() {
        Some(home) if !home.as_os_str().is_empty() => match path.strip_prefix(&home) {
            Ok(rest) if rest.as_os_str().is_empty() => "~".into(),
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => shown,
        },
        _ => shown,
    }
}

fn schema_info(peek: &Peek) -> String {
    match (peek.exists, peek.schema) {
        (false, _) => "no database yet".into(),
        (true, None) => "database unreadable".into(),
        (true, Some(v)) if v > devcoach_store::SCHEMA_VERSION => format!(
            "schema {v}, read-only: upgraded by {}",
            peek.upgraded_by.as_deref().map_or_else(|| "a newer devcoach".to_owned(), |u| format!("devcoach {u}"))
        ),
        (true, Some(v)) => format!("schema {v}"),
    }
}

pub fn run(ctx: &Ctx) -> anyhow::Result<()> {
    let version = devcoach_core::APP_VERSION;
    let exe = std::env::current_exe().map_or_else(|_| "devcoach".into(), |p| display_path(&p));
    let peek = Store::peek(&ctx.dir);
    // One line each: the client's log, read by the agent's host.
    crate::output::note_verbatim(&format!(
        "devcoach {version} mcp · {exe} · data {} ({})",
        display_path(ctx.dir.root()),
        schema_info(&peek)
    ));
    let opts = ServerOptions {
        dir: ctx.dir.clone(),
        cwd: std::env::current_dir().unwrap_or_else(|_| ".".into()),
        now: ctx.pinned(),
        claude: ClaudeHome::from_env(),
        version: version.to_owned(),
        dashboard: Some(super::ui::launcher()),
    };
    let on_client: devcoach_mcp::ClientHook = Arc::new(move |name: &str, client_version: &str| {
        let client = if name.is_empty() {
            "unknown".to_owned()
        } else {
            format!("{name} {client_version}").trim_end().to_owned()
        };
        crate::output::note_verbatim(&format!("devcoach {version} mcp · client {client}"));
    });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result = runtime.block_on(devcoach_mcp::serve_stdio(opts, Some(on_client)));
    // A read blocked on stdin must not keep the process alive once the session is over.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    result.map_err(|e| anyhow::anyhow!("the MCP connection ended with an error: {e}"))
}
