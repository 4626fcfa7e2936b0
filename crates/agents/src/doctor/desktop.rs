//! Doctor's look at Claude Desktop: its entry, and what its server logs say about the last start.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::Places;
use crate::config::JsonDoc;
use crate::launch::{self};
use devcoach_core::desktop_log::{self, Failure, Run};
use devcoach_core::limits;
use devcoach_files::{FileError, Links};
use serde_json::Value;

use super::agents::{server_report, servers_in};
use super::{Inputs, Level, Section};

/// What `doctor` suggests when Claude Desktop cannot start devcoach.
const DESKTOP_FIX: &str = "run `devcoach install --claude-desktop --force` (it writes this devcoach's full path), \
                           then restart Claude Desktop";
/// How many folders of Desktop's PATH a finding shows.
const PATH_SHOWN: usize = 12;
const DESKTOP_LOG_BYTES: u64 = limits::DESKTOP_LOG_TAIL_BYTES as u64;
const SHEBANG_BYTES: u64 = limits::SHEBANG_BYTES as u64;

pub(super) fn claude_desktop(inputs: &Inputs<'_>) -> Section {
    let places = inputs.places;
    let mut s = Section::new("Claude Desktop");
    let mut command = None;
    match JsonDoc::load_existing(&places.desktop_config()) {
        Ok(doc) => {
            let entry = servers_in(doc.as_ref());
            server_report(
                &mut s,
                entry,
                &places.show(&places.desktop_config()),
                inputs,
                "devcoach install --claude-desktop",
            );
            command = entry.and_then(|e| e.get("command")).and_then(Value::as_str).map(str::to_owned);
        }
        Err(e) => s.add(Level::Bad, e.to_string()),
    }
    let run = desktop_log_report(&mut s, places);
    if let Some(command) = command.filter(|c| !c.is_empty()) {
        desktop_command_report(&mut s, places, &command, run.as_ref().and_then(|r| r.path.as_deref()));
    }
    s
}

/// The newest regular file named `mcp-server-*.log` with devcoach in its name (in any case) in
/// Desktop's logs folder, by modification time; and the newest other thing of such a name (a
/// FIFO, a link, a folder), which is named but never read.
fn desktop_server_logs(dir: &Path) -> (Option<PathBuf>, Option<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return (None, None) };
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    let mut other: Option<(SystemTime, PathBuf)> = None;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_lowercase();
        let server = name.strip_prefix("mcp-server-").and_then(|rest| rest.strip_suffix(".log"));
        if !server.is_some_and(|server| server.contains("devcoach")) {
            continue;
        }
        // The entry itself: a link is not followed here.
        let Ok(meta) = entry.metadata() else { continue };
        let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let path = entry.path();
        let slot = if meta.is_file() { &mut newest } else { &mut other };
        // Ties go to the name, so the choice does not depend on the folder's order.
        if slot.as_ref().is_none_or(|(t, p)| (modified, &path) > (*t, p)) {
            *slot = Some((modified, path));
        }
    }
    (newest.map(|(_, p)| p), other.map(|(_, p)| p))
}

/// Why a log could not be read, without repeating its path.
fn unreadable(e: &FileError) -> String {
    match e {
        FileError::NotRegular { kind, .. } => format!("it is {kind}, and devcoach reads only regular files"),
        other => other.to_string(),
    }
}

/// A time from Desktop's log as a person reads it (UTC, as Desktop writes it).
fn desktop_time(stamp: &str) -> String {
    devcoach_core::time::parse_timestamp(stamp)
        .map_or_else(|_| stamp.to_owned(), |at| at.format("%Y-%m-%d %H:%M:%S UTC").to_string())
}

/// The folders of a PATH as one would write it, the first [`PATH_SHOWN`] of them.
fn show_path(dirs: &[String]) -> String {
    let sep = if cfg!(windows) { ";" } else { ":" };
    let shown = dirs.iter().take(PATH_SHOWN).map(String::as_str).collect::<Vec<_>>().join(sep);
    if dirs.len() > PATH_SHOWN { format!("{shown}{sep}… ({} folders)", dirs.len()) } else { shown }
}

/// Desktop's logged PATH as a PATH variable, to look programs up on (a folder that could not
/// be in one is left out).
fn path_var_of(dirs: &[String]) -> OsString {
    let sep = if cfg!(windows) { ';' } else { ':' };
    std::env::join_paths(dirs.iter().filter(|d| !d.contains(sep) && !d.contains('"'))).unwrap_or_default()
}

/// What Claude Desktop's own log says of the last time it started devcoach, and the most
/// specific reason that start failed. The log is read from its end through the file door: a
/// FIFO or device standing there is named, never waited on.
fn desktop_log_report(s: &mut Section, places: &Places) -> Option<Run> {
    let (newest, other) = desktop_server_logs(&places.desktop_logs);
    // Opened only to say what it is: the door refuses it without waiting on it.
    if let Some(other) = &other
        && let Err(e) = devcoach_files::open(other, Links::Refuse)
    {
        s.add(Level::Warn, format!("cannot read Claude Desktop's log {}: {}", places.show(other), unreadable(&e)));
    }
    let Some(path) = newest else {
        if other.is_none() {
            s.add(
                Level::Info,
                format!(
                    "no log of devcoach in {} yet: Claude Desktop writes one when it starts the server \
                     (restart Claude Desktop after installing)",
                    places.show(&places.desktop_logs)
                ),
            );
        }
        return None;
    };
    let shown = places.show(&path);
    let tail = match devcoach_files::read_tail(&path, DESKTOP_LOG_BYTES, Links::Refuse) {
        Ok(tail) => tail,
        Err(e) => {
            s.add(Level::Warn, format!("cannot read Claude Desktop's log {shown}: {}", unreadable(&e)));
            return None;
        }
    };
    let lossy = String::from_utf8_lossy(&tail.bytes);
    // A tail cut inside a line starts with that line's end: no line to read.
    let text: &str = if tail.cut { lossy.split_once('\n').map_or("", |(_, rest)| rest) } else { &lossy };
    let Some(run) = desktop_log::last_run(text) else {
        s.add(Level::Info, format!("Claude Desktop's log {shown} is empty"));
        return None;
    };
    let started = run.started.as_deref().map_or_else(|| "an unknown time".to_owned(), desktop_time);
    match &run.failure {
        None if run.answered => s.add(Level::Ok, format!("Claude Desktop started devcoach at {started} ({shown})")),
        None => s.add(
            Level::Info,
            format!("Claude Desktop last started devcoach at {started}; no answer from it is logged yet ({shown})"),
        ),
        Some(failure) => {
            let at = run.failed_at.as_deref().map_or_else(|| started.clone(), desktop_time);
            s.add(Level::Warn, format!("{} ({shown}): {DESKTOP_FIX}", desktop_failure(failure, &run, &at)));
        }
    }
    Some(run)
}

/// A failed start in words, the most specific reason first.
fn desktop_failure(failure: &Failure, run: &Run, at: &str) -> String {
    let logged = run.path.as_deref();
    match failure {
        Failure::Spawn { program, code } => {
            let program_path = Path::new(program);
            let why = match (code.as_str(), logged) {
                ("ENOENT", _) if program_path.is_absolute() && program_path.exists() => {
                    ": the file is there, so the interpreter its first line names is missing".to_owned()
                }
                ("ENOENT", _) if program_path.is_absolute() => ": there is no such file".to_owned(),
                ("ENOENT", Some(dirs)) if launch::find_on_path(program, &path_var_of(dirs)).is_some() => format!(
                    ": it is on the PATH Claude Desktop uses now ({}), so a restart may be all it needs",
                    show_path(dirs)
                ),
                ("ENOENT", Some(dirs)) => format!(": it is not on the PATH Claude Desktop uses: {}", show_path(dirs)),
                ("ENOENT", None) => {
                    ": it is not on the PATH Claude Desktop uses, which is not your terminal's".to_owned()
                }
                ("EACCES" | "EPERM", _) => {
                    ": it is not executable, or a folder on the way to it cannot be read".to_owned()
                }
                _ => String::new(),
            };
            format!("at {at}, Claude Desktop could not run `{program}` ({code}){why}")
        }
        Failure::ServerSaid(line) => {
            let when = if run.answered { "stopped" } else { "stopped before answering Claude Desktop" };
            let mut text = format!("at {at}, the devcoach server {when}; it said “{line}”");
            if let (Some(name), Some(dirs)) = (desktop_log::missing_interpreter(line), logged) {
                text.push_str(&format!(": `{name}` is not on the PATH Claude Desktop uses: {}", show_path(dirs)));
            }
            text
        }
        Failure::TimedOut => {
            format!("at {at}, Claude Desktop gave up waiting for devcoach to answer (request timed out)")
        }
        Failure::Closed if run.answered => {
            format!("at {at}, the devcoach server's connection to Claude Desktop closed")
        }
        Failure::Closed => {
            format!("at {at}, the devcoach server closed its connection before answering Claude Desktop")
        }
    }
}

/// The configured command, looked at the way Claude Desktop runs it: found on the PATH Desktop
/// logged (else on this terminal's, which may differ), and for a script, its `#!` interpreter
/// present (Windows runs no `#!` line).
fn desktop_command_report(s: &mut Section, places: &Places, command: &str, logged: Option<&[String]>) {
    let (path_var, whose) = match logged {
        Some(dirs) => (path_var_of(dirs), "Claude Desktop's PATH"),
        None => (std::env::var_os("PATH").unwrap_or_default(), "this terminal's PATH (Claude Desktop's may differ)"),
    };
    let program = Path::new(command);
    let resolved = if program.is_absolute() {
        // server_report has said whether it exists.
        if !launch::is_executable(program) {
            return;
        }
        program.to_owned()
    } else {
        match (launch::find_on_path(command, &path_var), logged) {
            (Some(found), _) => {
                s.add(Level::Info, format!("`{command}` is {} on {whose}", places.show(&found)));
                found
            }
            (None, Some(dirs)) => {
                s.add(
                    Level::Bad,
                    format!(
                        "Claude Desktop runs `{command}`, which is not on the PATH it uses: {}: {DESKTOP_FIX}",
                        show_path(dirs)
                    ),
                );
                return;
            }
            // server_report has said so, for this terminal's PATH.
            (None, None) => return,
        }
    };
    if cfg!(windows) {
        return;
    }
    let Ok(head) = devcoach_files::read_head(&resolved, SHEBANG_BYTES, Links::Follow) else { return };
    let Some(interpreter) = desktop_log::interpreter_of(&head) else { return };
    let script = places.show(&resolved);
    let name = &interpreter.program;
    if interpreter.via_env {
        match launch::find_on_path(name, &path_var) {
            Some(found) => {
                s.add(Level::Info, format!("{script} is a {name} script; {name} is {} on {whose}", found.display()));
            }
            None => s.add(
                Level::Bad,
                format!(
                    "{script} is a {name} script, and {name} is not on {whose}: install {name} where Claude Desktop \
                     looks, or {DESKTOP_FIX}"
                ),
            ),
        }
    } else if !Path::new(name).is_absolute() || !launch::is_executable(Path::new(name)) {
        s.add(Level::Bad, format!("{script} starts with `#!{name}`, which is not a program here: {DESKTOP_FIX}"));
    }
}
