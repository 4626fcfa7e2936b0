//! Running an agent's own CLI (`claude mcp add …`) when it is installed: it knows its own
//! configuration best, and keeps editing it safe while the agent runs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use devcoach_probe::child;

/// How long an agent CLI may take before we give up on it. Generous because the first start
/// after an install reads the agent's whole binary from disk (Codex's is over 300 MB), which on
/// a busy machine with a cold cache has taken more than 30 s; a hung CLI still ends here.
const TIMEOUT: Duration = Duration::from_mins(2);

/// The agent's CLI, if it is on the `PATH` devcoach was started with.
pub fn find(places: &crate::Places, name: &str) -> Option<PathBuf> {
    super::launch::find_on_path(name, &places.path_var)
}

/// Runs `program args…` with no input; `Ok(output)` on exit 0, else the reason.
pub fn run(program: &Path, args: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new(program);
    cmd.args(args);
    let limits = child::Limits {
        deadline: TIMEOUT,
        output_cap: devcoach_core::limits::AGENT_CLI_OUTPUT_BYTES,
        ..child::Limits::default()
    };
    let done = child::run(cmd, limits).map_err(|e| e.to_string())?;
    if done.status.success() {
        Ok(done.stdout)
    } else {
        let detail =
            [done.stderr.trim(), done.stdout.trim()].into_iter().find(|s| !s.is_empty()).unwrap_or("no output");
        Err(format!("`{} {}` failed ({}): {}", program.display(), args.join(" "), done.status, first_lines(detail)))
    }
}

fn first_lines(text: &str) -> String {
    text.lines().take(3).collect::<Vec<_>>().join(" / ")
}
