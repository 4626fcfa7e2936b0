//! Doctor's look at each agent's wiring: its MCP entry, hooks, skill, package and trust.

use std::path::Path;

use crate::client_cli;
use crate::config::JsonDoc;
use crate::hook_entries::{self, Found};
use crate::launch::{self};
use crate::places::{claude_plugin_versions, claude_plugins_enabled};
use crate::skill::{self, SkillStatus};
use crate::{Agent, Places, codex};
use serde_json::Value;

use super::{Inputs, Level, Section};

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
pub(super) fn server_report(s: &mut Section, entry: Option<&Value>, file: &str, inputs: &Inputs<'_>, install: &str) {
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

pub(super) fn servers_in(doc: Option<&JsonDoc>) -> Option<&Value> {
    doc.and_then(|d| d.root.get("mcpServers")).and_then(|s| s.get("devcoach"))
}

pub(super) fn claude_code(inputs: &Inputs<'_>) -> Section {
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

pub(super) fn gemini(inputs: &Inputs<'_>) -> Section {
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
                && !crate::gemini::hooks_enabled(&doc.root)
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

pub(super) fn codex_section(inputs: &Inputs<'_>) -> Section {
    let places = inputs.places;
    let mut s = Section::new("Codex CLI");
    let toml = crate::config::read_config_text(&places.codex_config());
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
    match crate::wire::trusted(agent, places) {
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
pub(super) fn other_agent(inputs: &Inputs<'_>, agent: Agent) -> Section {
    let places = inputs.places;
    let mut s = Section::new(agent.label());
    if let Some(package) = crate::package_present(places, agent).filter(|p| p.brings_server()) {
        let what = package.word();
        s.add(Level::Ok, format!("devcoach {what} installed (it brings the server, hooks and skill)"));
        if crate::hooks_wired(places, agent) {
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
        match crate::plugin::program_in(&plugin).filter(|_| crate::plugin::is_ours(&plugin)) {
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
        let served_by_claude = agent == Agent::Cursor && crate::hooks_wired(places, Agent::ClaudeCode);
        if served_by_claude && !crate::hooks_wired(places, agent) {
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
            crate::hooks_wired(places, agent),
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
pub(super) fn unwired(inputs: &Inputs<'_>) -> Option<Section> {
    let mut s = Section::new("Other agents");
    for (dir, name, what) in crate::table::UNWIRED {
        if inputs.places.home.join(dir).is_dir() {
            s.add(
                Level::Info,
                format!("{name}: {}", what.replace("<devcoach>", &inputs.launch.program.display().to_string())),
            );
        }
    }
    (!s.findings.is_empty()).then_some(s)
}
