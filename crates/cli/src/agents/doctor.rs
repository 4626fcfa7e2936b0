//! `devcoach doctor`: reads every place devcoach is wired into and the database, changes
//! nothing, and explains what it finds — ending with why the next agent stop would or would not
//! cue a lesson.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use devcoach_core::SessionId;
use devcoach_core::desktop_log::{self, Failure, Run};
use devcoach_core::limits;
use devcoach_files::{FileError, Links};
use devcoach_store::{DataDir, Store};
use serde_json::Value;

use super::config::JsonDoc;
use super::hook_entries::{self, Found};
use super::launch::{self, Launch};
use super::skill::{self, SkillStatus};
use super::{Agent, Places, codex};
use crate::output::plural;
use devcoach_agents::client_cli;
use devcoach_agents::places::{claude_plugin_versions, claude_plugins_enabled};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    Info,
    Warn,
    Bad,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct Section {
    pub title: String,
    pub findings: Vec<Finding>,
}

impl Section {
    fn new(title: &str) -> Self {
        Self { title: title.to_owned(), findings: Vec::new() }
    }

    fn add(&mut self, level: Level, text: impl Into<String>) {
        self.findings.push(Finding { level, text: text.into() });
    }
}

/// Everything doctor needs to know about the machine.
pub struct Inputs<'a> {
    pub places: &'a Places,
    pub launch: &'a Launch,
    pub dir: &'a DataDir,
    pub now: DateTime<Utc>,
}

pub fn run(inputs: &Inputs<'_>) -> Vec<Section> {
    let mut sections = vec![environment(inputs), claude_code(inputs)];
    if inputs.places.desktop_config().is_file() {
        sections.push(claude_desktop(inputs));
    }
    if inputs.places.gemini_dir().is_dir() {
        sections.push(gemini(inputs));
    }
    if inputs.places.codex_dir().is_dir() {
        sections.push(codex_section(inputs));
    }
    // The agents above have sections of their own; every other row of the table is read alike.
    for &agent in Agent::ALL {
        let own = matches!(agent, Agent::ClaudeCode | Agent::ClaudeDesktop | Agent::Gemini | Agent::Codex);
        if !own && inputs.places.agent_dir(agent).is_dir() {
            sections.push(other_agent(inputs, agent));
        }
    }
    if let Some(s) = unwired(inputs) {
        sections.push(s);
    }
    sections.extend(database(inputs));
    sections
}

fn environment(inputs: &Inputs<'_>) -> Section {
    let mut s = Section::new("Environment");
    let program = &inputs.launch.program;
    s.add(
        Level::Ok,
        format!("devcoach {} at {} ({})", devcoach_core::APP_VERSION, program.display(), crate::channel::of(program)),
    );
    if let Some(caution) = &inputs.launch.caution {
        s.add(Level::Warn, caution.clone());
    }
    s.add(Level::Info, format!("data directory: {}", inputs.dir.root().display()));
    s
}

/// Checks one of our hooks' commands: the binary it runs, and whether it is this one.
fn check_hook_command(s: &mut Section, found: &Found, inputs: &Inputs<'_>, install: &str) {
    let Some(program) = launch::program_of(&found.command) else {
        s.add(Level::Bad, format!("{} hook has an unreadable command: {}", found.event, found.command));
        return;
    };
    if program == "npx" || found.command.contains("npx ") {
        s.add(
            Level::Warn,
            format!(
                "{} hook runs the TypeScript devcoach through npx (`{}`): run `{install}` to use this binary",
                found.event, found.command
            ),
        );
        return;
    }
    let path = Path::new(&program);
    if path.is_absolute() {
        if !launch::is_executable(path) {
            s.add(
                Level::Bad,
                format!(
                    "{} hook runs {program}, which no longer exists: run `{install}` to point it here",
                    found.event
                ),
            );
            return;
        }
        if std::fs::canonicalize(path).ok() != std::fs::canonicalize(&inputs.launch.program).ok() {
            match version_of(path) {
                Some(v) if v != devcoach_core::APP_VERSION => s.add(
                    Level::Warn,
                    format!(
                        "{} hook runs devcoach {v} ({program}), this is {}: run `{install}` with the devcoach the hooks should use",
                        found.event,
                        devcoach_core::APP_VERSION
                    ),
                ),
                Some(_) => s.add(
                    Level::Info,
                    format!("{} hook runs {program}, another copy of devcoach (same version)", found.event),
                ),
                None => s.add(
                    Level::Info,
                    format!("{} hook runs {program}, another copy of devcoach than this one", found.event),
                ),
            }
        }
    } else if launch::find_on_path(&program, &std::env::var_os("PATH").unwrap_or_default()).is_none() {
        s.add(Level::Bad, format!("{} hook runs `{program}`, which is not on PATH", found.event));
    }
    if found.timeout.is_none() && found.takes_timeout {
        s.add(Level::Warn, format!("{} hook has no timeout: run `{install}` to add one", found.event));
    }
}

fn hooks_report(s: &mut Section, agent: Agent, path: &Path, inputs: &Inputs<'_>, provided_elsewhere: bool) {
    let places = inputs.places;
    let install = if agent == Agent::ClaudeCode {
        "devcoach install".to_owned()
    } else {
        format!("devcoach install --{}", flag(agent))
    };
    let doc = match JsonDoc::load_existing(path) {
        Ok(doc) => doc,
        Err(e) => {
            s.add(Level::Bad, e.to_string());
            return;
        }
    };
    let shape = places.hook_file(agent).map_or(hook_entries::Shape::NESTED, |(_, shape)| shape);
    let found = doc
        .as_ref()
        .map(|d| hook_entries::find_shaped(&d.root, shape, hook_entries::Family::Lesson))
        .unwrap_or_default();
    if found.is_empty() {
        if !provided_elsewhere {
            s.add(Level::Warn, format!("no devcoach hooks in {}: no lesson cues (run `{install}`)", places.show(path)));
        }
        return;
    }
    if provided_elsewhere {
        s.add(
            Level::Warn,
            format!(
                "hooks registered twice (the plugin/extension and {}): every stop counts double; remove the copies \
                 with `devcoach uninstall` for this agent, then `devcoach install` (it leaves them to the plugin)",
                places.show(path)
            ),
        );
    }
    if found.iter().any(|f| f.command.contains("onboard-hook") || f.command.contains("lesson-ready")) {
        s.add(Level::Warn, format!("legacy two-entry hook layout: run `{install}` to migrate"));
    }
    for (event, _, _) in agent.hook_plan() {
        let n = found.iter().filter(|f| f.event == *event).count();
        match n {
            0 => s.add(Level::Warn, format!("no {event} hook: run `{install}`")),
            1 => {}
            n => s.add(Level::Warn, format!("{n} devcoach {event} hooks: each stop counts {n} times; run `{install}`")),
        }
    }
    for f in &found {
        check_hook_command(s, f, inputs, &install);
    }
    let events: Vec<String> = found.iter().map(|f| f.event.clone()).collect();
    s.add(Level::Ok, format!("hooks: {} ({})", events.join(", "), places.show(path)));
}

fn skill_report(s: &mut Section, places: &Places, dir: &Path, hooks_wired: bool, install: &str) {
    match skill::status(dir) {
        SkillStatus::Current => s.add(Level::Ok, format!("skill current ({})", places.show(dir))),
        SkillStatus::Missing if hooks_wired => {
            s.add(Level::Bad, format!("skill missing ({}) while hooks are wired: run `{install}`", places.show(dir)));
        }
        SkillStatus::Missing => s.add(Level::Info, format!("no skill at {}", places.show(dir))),
        SkillStatus::Outdated(Some(v)) if v != devcoach_core::APP_VERSION => s.add(
            Level::Warn,
            format!(
                "skill installed by devcoach {v}, this is {}: run `{install}` to update it",
                devcoach_core::APP_VERSION
            ),
        ),
        SkillStatus::Outdated(_) => {
            s.add(
                Level::Warn,
                format!("skill at {} differs from this build's: run `{install} --force`", places.show(dir)),
            );
        }
    }
}

/// Checks an MCP server entry: what it runs, and whether that still exists.
fn server_report(s: &mut Section, entry: Option<&Value>, file: &str, inputs: &Inputs<'_>, install: &str) {
    let Some(entry) = entry else {
        s.add(Level::Warn, format!("no devcoach MCP server in {file}: run `{install}`"));
        return;
    };
    let command = entry.get("command").and_then(Value::as_str).unwrap_or_default();
    let args: Vec<&str> = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let shown = std::iter::once(command).chain(args.iter().copied()).collect::<Vec<_>>().join(" ");
    if command == "npx" {
        s.add(
            Level::Warn,
            format!(
                "MCP server runs the TypeScript devcoach (`{shown}`): `{install} --force` switches it to this binary"
            ),
        );
        return;
    }
    if command.is_empty() {
        s.add(Level::Bad, format!("MCP server entry in {file} has no command"));
        return;
    }
    let path = Path::new(command);
    let resolved = if path.is_absolute() {
        launch::is_executable(path).then(|| path.to_owned())
    } else {
        launch::find_on_path(command, &std::env::var_os("PATH").unwrap_or_default())
    };
    let Some(resolved) = resolved else {
        s.add(
            Level::Bad,
            format!("MCP server runs `{command}`, which does not exist (the agent reports \"Failed to spawn process\"): run `{install} --force`"),
        );
        return;
    };
    if !path.is_absolute() {
        s.add(
            Level::Warn,
            format!("MCP server runs the bare name `{command}`: it works only where the agent's PATH finds it"),
        );
    }
    if args.first() != Some(&"mcp") {
        s.add(
            Level::Bad,
            format!("MCP server entry runs `{shown}` without the `mcp` subcommand: run `{install} --force`"),
        );
        return;
    }
    if std::fs::canonicalize(&resolved).ok() == std::fs::canonicalize(&inputs.launch.program).ok() {
        s.add(Level::Ok, format!("MCP server → {shown} (this binary)"));
        return;
    }
    match version_of(&resolved) {
        Some(v) if v == devcoach_core::APP_VERSION => {
            s.add(Level::Ok, format!("MCP server → {shown} (same version)"));
        }
        Some(v) => s.add(
            Level::Warn,
            format!(
                "MCP server → {shown} is devcoach {v}, this is {}: run `{install} --force` from the one you want",
                devcoach_core::APP_VERSION
            ),
        ),
        None => s.add(Level::Warn, format!("MCP server → {shown}: could not ask it for its version")),
    }
}

/// The version another devcoach program reports (`--version`), if it answers.
fn version_of(program: &Path) -> Option<String> {
    let printed = client_cli::run(program, &["--version"]).ok()?;
    crate::channel::version_in(&printed).map(str::to_owned)
}

/// A plugin or extension from another version brings that version's skill and hook set.
fn package_version_report(s: &mut Section, what: &str, version: &str, update: &str) {
    let here = devcoach_core::APP_VERSION;
    if version == here {
        return;
    }
    s.add(
        Level::Warn,
        format!(
            "the {what} is version {version}, this devcoach is {here}: its skill and hooks come from {version}. \
             Bring them together: {update} for the {what}, or upgrade devcoach with {}",
            crate::channel::upgrade_hint_here()
        ),
    );
}

fn servers_in(doc: Option<&JsonDoc>) -> Option<&Value> {
    doc.and_then(|d| d.root.get("mcpServers")).and_then(|s| s.get("devcoach"))
}

fn claude_code(inputs: &Inputs<'_>) -> Section {
    let places = inputs.places;
    let mut s = Section::new("Claude Code");
    if !places.claude_dir().is_dir() && !places.claude_json().is_file() {
        s.add(Level::Info, format!("not found ({} does not exist)", places.show(&places.claude_dir())));
        return s;
    }
    let settings = JsonDoc::load_existing(&places.claude_settings());
    let plugins = match &settings {
        Ok(Some(doc)) => claude_plugins_enabled(&doc.root),
        _ => Vec::new(),
    };
    if !plugins.is_empty() {
        s.add(Level::Ok, format!("devcoach plugin enabled: {}", plugins.join(", ")));
        for (name, version) in claude_plugin_versions(&places.claude_dir(), &plugins) {
            package_version_report(
                &mut s,
                &format!("plugin {name}"),
                &version,
                &format!("`claude plugin update {name}` (then restart Claude Code)"),
            );
        }
    }
    hooks_report(&mut s, Agent::ClaudeCode, &places.claude_settings(), inputs, !plugins.is_empty());
    if let Ok(Some(doc)) = &settings {
        let practice = hook_entries::find_family(&doc.root, hook_entries::Family::Practice);
        if !practice.is_empty() {
            let events: Vec<&str> = practice.iter().map(|f| f.event.as_str()).collect();
            s.add(
                Level::Info,
                format!("practice hooks: {} (they act only while `devcoach practice … --tui` runs)", events.join(", ")),
            );
        }
    }
    let hooks_wired =
        !plugins.is_empty() || matches!(&settings, Ok(Some(doc)) if !hook_entries::find(&doc.root).is_empty());
    if plugins.is_empty() {
        skill_report(&mut s, places, &places.claude_skill(), hooks_wired, "devcoach install");
    }
    match JsonDoc::load_existing(&places.claude_json()) {
        Ok(doc) => {
            let entry = servers_in(doc.as_ref());
            if entry.is_some() || plugins.is_empty() {
                server_report(&mut s, entry, &places.show(&places.claude_json()), inputs, "devcoach install");
            }
            if entry.is_some() && !plugins.is_empty() {
                s.add(
                    Level::Warn,
                    "devcoach is registered twice (plugin and ~/.claude.json): two servers, duplicate tools",
                );
            }
        }
        Err(e) => s.add(Level::Bad, e.to_string()),
    }
    s
}

/// What `doctor` suggests when Claude Desktop cannot start devcoach.
const DESKTOP_FIX: &str = "run `devcoach install --claude-desktop --force` (it writes this devcoach's full path), \
                           then restart Claude Desktop";
/// How many folders of Desktop's PATH a finding shows.
const PATH_SHOWN: usize = 12;
const DESKTOP_LOG_BYTES: u64 = limits::DESKTOP_LOG_TAIL_BYTES as u64;
const SHEBANG_BYTES: u64 = limits::SHEBANG_BYTES as u64;

fn claude_desktop(inputs: &Inputs<'_>) -> Section {
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

fn gemini(inputs: &Inputs<'_>) -> Section {
    let places = inputs.places;
    let mut s = Section::new("Gemini CLI");
    let extension = places.gemini_extension().is_file();
    if extension {
        s.add(Level::Ok, "devcoach extension installed");
        if let Some(version) = JsonDoc::load_existing(&places.gemini_extension())
            .ok()
            .flatten()
            .and_then(|d| d.root.get("version").and_then(Value::as_str).map(str::to_owned))
        {
            package_version_report(&mut s, "Gemini extension", &version, "`gemini extensions update devcoach`");
        }
    }
    match JsonDoc::load_existing(&places.gemini_settings()) {
        Ok(doc) => {
            let entry = servers_in(doc.as_ref());
            if entry.is_some() || !extension {
                server_report(
                    &mut s,
                    entry,
                    &places.show(&places.gemini_settings()),
                    inputs,
                    "devcoach install --gemini",
                );
            }
            if let Some(doc) = &doc
                && !super::gemini::hooks_enabled(&doc.root)
            {
                s.add(Level::Warn, "hooks are turned off in ~/.gemini/settings.json: run `devcoach install --gemini`");
            }
        }
        Err(e) => s.add(Level::Bad, e.to_string()),
    }
    hooks_report(&mut s, Agent::Gemini, &places.gemini_settings(), inputs, extension);
    if !extension {
        skill_report(&mut s, places, &places.agents_skill(), true, "devcoach install --gemini");
    }
    trust_report(&mut s, Agent::Gemini, places);
    s.add(
        Level::Info,
        "Gemini CLI turns MCP servers and hooks off in folders you have not trusted: if devcoach is silent in a project, trust its folder",
    );
    s
}

fn codex_section(inputs: &Inputs<'_>) -> Section {
    let places = inputs.places;
    let mut s = Section::new("Codex CLI");
    let toml = std::fs::read_to_string(places.codex_config()).unwrap_or_default();
    match codex::server_command(&toml) {
        Some(command) => s.add(Level::Ok, format!("MCP server → {command} (~/.codex/config.toml)")),
        None => s.add(Level::Warn, "no [mcp_servers.devcoach] in ~/.codex/config.toml: run `devcoach install --codex`"),
    }
    hooks_report(&mut s, Agent::Codex, &places.codex_hooks(), inputs, false);
    if let Ok(Some(doc)) = JsonDoc::load_existing(&places.codex_hooks()) {
        for (event, trust) in codex::trust(&toml, &places.codex_hooks(), &doc.root) {
            match trust {
                codex::Trust::Trusted => s.add(Level::Ok, format!("{event} hook approved in Codex")),
                codex::Trust::Modified => s.add(
                    Level::Warn,
                    format!("{event} hook changed since you approved it: Codex will not run it until you approve it again in `codex`"),
                ),
                codex::Trust::Untrusted => s.add(
                    Level::Warn,
                    format!("{event} hook not approved yet: Codex will not run it until you accept it in `codex`"),
                ),
            }
        }
    }
    skill_report(&mut s, places, &places.agents_skill(), true, "devcoach install --codex");
    s
}

/// Gemini CLI: what the server's trust switch means where it stands.
fn trust_report(s: &mut Section, agent: Agent, places: &Places) {
    match super::wire::trusted(agent, places) {
        Some(true) => s.add(
            Level::Info,
            format!(
                "server trusted: {} runs every devcoach tool without asking, delete_lesson included \
                 (`devcoach install --{} --no-trust` to be asked again)",
                agent.label(),
                flag(agent)
            ),
        ),
        Some(false) => s.add(
            Level::Info,
            format!(
                "server not trusted: {} asks before each devcoach tool, and headless runs (`{} -p`) offer none of \
                 them; `devcoach install --{} --trust` allows them (and ends the asking)",
                agent.label(),
                agent.program().unwrap_or("agent"),
                flag(agent)
            ),
        ),
        None => {}
    }
}

fn flag(agent: Agent) -> &'static str {
    agent.spec().flag
}

/// Copilot CLI, Qwen Code, Droid, Cursor: the server entry, the hooks, the skill, and what the
/// agent can or cannot do.
fn other_agent(inputs: &Inputs<'_>, agent: Agent) -> Section {
    let places = inputs.places;
    let mut s = Section::new(agent.label());
    if let Some(package) = devcoach_agents::package_present(places, agent).filter(|p| p.brings_server()) {
        let what = package.word();
        s.add(Level::Ok, format!("devcoach {what} installed (it brings the server, hooks and skill)"));
        if super::hooks_wired(places, agent) {
            s.add(
                Level::Warn,
                format!(
                    "hooks registered twice (the {what} and `devcoach install`): every stop counts double; run \
                     `devcoach uninstall --{}` to leave them to the {what}",
                    flag(agent)
                ),
            );
        }
        return s;
    }
    if let Some(file) = places.mcp_file(agent) {
        match JsonDoc::load_existing(&file) {
            Ok(doc) => {
                let entry =
                    doc.as_ref().and_then(|d| d.root.get(Places::mcp_key(agent))).and_then(|m| m.get("devcoach"));
                // OpenCode's one-array command line, read as command + args.
                let entry = entry.map(|e| match e.get("command") {
                    Some(Value::Array(all)) => serde_json::json!({ "command": all.first(), "args": all.get(1..) }),
                    _ => e.clone(),
                });
                server_report(
                    &mut s,
                    entry.as_ref(),
                    &places.show(&file),
                    inputs,
                    &format!("devcoach install --{}", flag(agent)),
                );
            }
            Err(e) => s.add(Level::Bad, e.to_string()),
        }
    }
    if let Some(plugin) = places.plugin_file(agent) {
        match super::plugin::program_in(&plugin).filter(|_| super::plugin::is_ours(&plugin)) {
            Some(program)
                if std::fs::canonicalize(&program).ok() == std::fs::canonicalize(&inputs.launch.program).ok() =>
            {
                s.add(Level::Ok, format!("plugin: {} (runs this binary)", places.show(&plugin)));
            }
            Some(program) => s.add(
                Level::Warn,
                format!(
                    "plugin {} runs {program}, not this binary: run `devcoach install --{}`",
                    places.show(&plugin),
                    flag(agent)
                ),
            ),
            None if plugin.exists() => s.add(Level::Warn, format!("{} is not devcoach's plugin", places.show(&plugin))),
            None => s.add(
                Level::Warn,
                format!(
                    "no devcoach plugin ({}): no lesson cues (run `devcoach install --{}`)",
                    places.show(&plugin),
                    flag(agent)
                ),
            ),
        }
    }
    if let Some((path, _)) = places.hook_file(agent) {
        // Cursor runs Claude Code's hooks as well: without its own, those serve it.
        let served_by_claude = agent == Agent::Cursor && super::hooks_wired(places, Agent::ClaudeCode);
        if served_by_claude && !super::hooks_wired(places, agent) {
            s.add(Level::Ok, "hooks: Cursor runs the Claude Code hooks in ~/.claude/settings.json");
        } else {
            hooks_report(&mut s, agent, &path, inputs, false);
        }
    }
    if let Some(dir) = places.skill_dir(agent) {
        skill_report(
            &mut s,
            places,
            &dir,
            super::hooks_wired(places, agent),
            &format!("devcoach install --{}", flag(agent)),
        );
    }
    trust_report(&mut s, agent, places);
    for note in agent.spec().notes {
        s.add(Level::Info, *note);
    }
    s
}

/// Agents found on the machine that devcoach does not wire: what it can do there.
fn unwired(inputs: &Inputs<'_>) -> Option<Section> {
    let mut s = Section::new("Other agents");
    for (dir, name, what) in devcoach_agents::table::UNWIRED {
        if inputs.places.home.join(dir).is_dir() {
            s.add(
                Level::Info,
                format!("{name}: {}", what.replace("<devcoach>", &inputs.launch.program.display().to_string())),
            );
        }
    }
    (!s.findings.is_empty()).then_some(s)
}

fn database(inputs: &Inputs<'_>) -> Vec<Section> {
    let mut s = Section::new("Database & pacing");
    let peek = Store::peek(inputs.dir);
    if !peek.exists {
        s.add(
            Level::Warn,
            format!(
                "no database yet at {}: your agent offers onboarding at the end of a task (or run `devcoach setup`)",
                inputs.dir.db_path().display()
            ),
        );
        return vec![s];
    }
    let store = match Store::open_for_reading(inputs.dir) {
        Ok(Some(store)) => store,
        Ok(None) => return vec![s],
        Err(e) => {
            s.add(Level::Bad, e.to_string());
            return vec![s];
        }
    };
    if let Some(compat) = store.compat() {
        s.add(Level::Bad, compat.to_string());
    }
    let by = peek.upgraded_by.map(|v| format!(", last upgraded by devcoach {v}")).unwrap_or_default();
    match peek.schema {
        Some(v) if v < 6 => {
            s.add(Level::Info, format!("schema v{v}{by}: upgraded to v6 the next time devcoach writes"));
        }
        Some(v) => s.add(Level::Ok, format!("schema v{v}{by}")),
        None => s.add(Level::Bad, "the schema stamp cannot be read"),
    }
    if peek.schema.is_some_and(|v| v < 6) {
        return vec![s];
    }
    match store.profile() {
        Ok(p) if p.knowledge.is_empty() => {
            // In the words stats, the dashboard and the agent's resources use.
            let when = store
                .next_lesson(inputs.now)
                .map_or_else(|_| "next lesson after onboarding".to_owned(), |n| format!("next lesson {n}"));
            s.add(Level::Warn, format!("no knowledge profile yet: {when}; `devcoach setup` builds it now"));
        }
        Ok(p) => s.add(Level::Ok, format!("profile: {}", plural(p.knowledge.len(), "topic"))),
        Err(e) => s.add(Level::Bad, format!("cannot read the profile: {e}")),
    }
    if let Ok(settings) = store.settings() {
        let every = if settings.nudge_every == 0 {
            "a cue at every eligible stop".to_owned()
        } else {
            format!("a cue every {} stops ({})", settings.nudge_every, settings.nudge_scope.as_str())
        };
        s.add(
            Level::Info,
            format!(
                "settings: at most {} lessons a day, {} min apart, {every}",
                settings.max_per_day, settings.min_gap_minutes
            ),
        );
    }
    // Our table may be missing from a database only the TypeScript build has written: off.
    if store.work_insights().unwrap_or(false) {
        s.add(
            Level::Info,
            "work_insights on: at each agent stop, that session's transcript is read on this machine and only counts \
             and a pattern label are kept (`devcoach set work_insights off` stops it; `devcoach uninstall --data` deletes them)",
        );
    } else {
        s.add(
            Level::Info,
            "work_insights off (the default): agent transcripts are never opened; `devcoach set work_insights on` lets \
             devcoach show how you work with your agents (counts only, never your words)",
        );
    }
    for (health, text) in devcoach_sync::health(&store, inputs.dir, inputs.now) {
        let level = match health {
            devcoach_sync::Health::Ok => Level::Ok,
            devcoach_sync::Health::Info => Level::Info,
            devcoach_sync::Health::Warn => Level::Warn,
            devcoach_sync::Health::Bad => Level::Bad,
        };
        s.add(level, text);
    }
    let sessions = store.nudge_sessions().unwrap_or_default();
    let latest = sessions.iter().max_by(|a, b| a.updated_at.cmp(&b.updated_at));
    match latest {
        Some(latest) => s.add(
            Level::Info,
            format!(
                "{} counting, {} in all; latest {} at {} ({})",
                plural(sessions.len(), "session"),
                plural(usize::try_from(sessions.iter().map(|n| n.interactions).sum::<i64>()).unwrap_or(0), "stop"),
                short(&latest.session_id),
                plural(usize::try_from(latest.interactions).unwrap_or(0), "stop"),
                latest.updated_at
            ),
        ),
        None => s.add(Level::Info, "no stops counted since the last lesson"),
    }
    if let Ok(cue) = store.cue_state() {
        if cue.pending {
            s.add(
                Level::Info,
                format!("a cue is waiting since {} (unanswered)", cue.last_cue_at.as_deref().unwrap_or("?")),
            );
        }
        if let Some(reason) = cue.last_skip_reason {
            s.add(Level::Info, format!("last skipped cue: {reason}"));
        }
    }
    let rate = store.rate_limit(inputs.now);
    if rate.allowed {
        s.add(Level::Ok, "rate limit: would allow a lesson now");
    } else {
        s.add(Level::Info, format!("rate limit: {}", rate.explain().unwrap_or_default()));
    }

    let mut verdict = Section::new("Verdict");
    let session_id = latest.map(|l| l.session_id.clone());
    let session = SessionId::from_payload(session_id.as_deref());
    if store.compat().is_some() {
        verdict.add(Level::Bad, "hooks stay silent: this database belongs to a newer devcoach");
    } else {
        // The same answer stats, the dashboard and the agent's resources give.
        if let Ok(next) = store.next_lesson(inputs.now) {
            verdict.add(Level::Info, format!("next lesson: {next}"));
        }
        match store.explain_cue(&session, inputs.now) {
            Ok(f) => {
                let whose = session_id
                    .as_deref()
                    .map_or_else(|| "a new session".to_owned(), |id| format!("session {}", short(id)));
                if f.would_cue {
                    verdict.add(Level::Ok, format!("the next stop in {whose} would cue a lesson"));
                } else if let devcoach_core::pacing::NextLesson::NeedsProfile(call) = &f.next {
                    let what = if *call == devcoach_core::pacing::OnboardingCall::Ask {
                        "would ask for onboarding"
                    } else {
                        "would stay quiet (onboarding asked already)"
                    };
                    verdict.add(Level::Info, format!("the next stop in {whose} {what}"));
                } else {
                    verdict.add(Level::Info, format!("the next stop in {whose} would stay quiet"));
                }
                for fact in &f.reasons {
                    // Offers left unanswered in a row point at an agent that cannot take them.
                    let level = if matches!(
                        fact,
                        devcoach_core::pacing::Outlook::Held(devcoach_core::pacing::Hold::BackedOff { .. })
                    ) {
                        Level::Warn
                    } else {
                        Level::Info
                    };
                    verdict.add(level, crate::hooks::reasons::outlook(fact));
                    if level == Level::Warn {
                        verdict.add(
                            Level::Info,
                            "the agent neither gave the lessons nor declined them: check it has devcoach's tools \
                             (its MCP server connected) and the skill (`devcoach install`)",
                        );
                    }
                }
            }
            Err(e) => verdict.add(Level::Bad, format!("cannot forecast the next stop: {e}")),
        }
    }
    verdict.add(
        Level::Info,
        format!("trace every hook decision with DEVCOACH_HOOK_DEBUG=1 → {}", inputs.dir.hook_log_path().display()),
    );
    vec![s, verdict]
}

fn short(session: &str) -> String {
    session.chars().take(8).collect()
}
