//! Running an agent's own CLI (`claude mcp add …`) when it is installed: it knows its own
//! configuration best, and keeps editing it safe while the agent runs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long an agent CLI may take before we give up on it.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The agent's CLI, if it is on `PATH`.
pub fn find(name: &str) -> Option<PathBuf> {
    super::launch::find_on_path(name, &std::env::var_os("PATH").unwrap_or_default())
}

/// Runs `program args…` with no input; `Ok(output)` on exit 0, else the reason.
pub fn run(program: &Path, args: &[&str]) -> Result<String, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", program.display()))?;
    // Both pipes are drained on threads, so a chatty CLI can never block on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} did not finish within {} s", program.display(), TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {} failed: {e}", program.display())),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if status.success() {
        Ok(stdout)
    } else {
        let detail = [stderr.trim(), stdout.trim()].into_iter().find(|s| !s.is_empty()).unwrap_or("no output");
        Err(format!("`{} {}` failed ({status}): {}", program.display(), args.join(" "), first_lines(detail)))
    }
}

fn first_lines(text: &str) -> String {
    text.lines().take(3).collect::<Vec<_>>().join(" / ")
}
