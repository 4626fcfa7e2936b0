//! `install` and `uninstall` for each agent: what is written where, reported step by step.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::config::{ConfigError, JsonDoc, Saved};
use super::hook_entries::{self, Family, Shape, Upsert, Wanted};
use super::launch::Launch;
use super::skill::{self, SkillStatus};
use super::{Agent, Places, client_cli, codex, hook_plan};

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Done,
    Unchanged,
    Skipped,
    Note,
    Warn,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub mark: Mark,
    pub text: String,
}

/// Steps for one agent.
#[derive(Debug, Default)]
pub struct Report {
    pub steps: Vec<Step>,
}

impl Report {
    fn push(&mut self, mark: Mark, text: impl Into<String>) {
        self.steps.push(Step { mark, text: text.into() });
    }

    pub fn failed(&self) -> bool {
        self.steps.iter().any(|s| s.mark == Mark::Failed)
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct InstallOptions {
    pub force: bool,
    pub skip_hook: bool,
    /// Also the practice guard's Stop hook (Claude Code).
    pub practice: bool,
    /// The agent was named on the command line (not just part of the default set).
    pub explicit: bool,
    /// Trust the server where the agent asks for it (`None`: keep what the entry says).
    pub trust: Option<bool>,
}

/// Whether the agent keeps a per-server trust switch that decides what headless runs offer.
pub fn takes_trust(agent: Agent) -> bool {
    agent == Agent::Gemini
}

/// The trust switch of the agent's devcoach entry: `None` when there is no entry yet.
pub fn trusted(agent: Agent, places: &Places) -> Option<bool> {
    if !takes_trust(agent) {
        return None;
    }
    let file = places.mcp_file(agent)?;
    let doc = JsonDoc::load_existing(&file).ok().flatten()?;
    let entry = doc.root.get("mcpServers")?.get("devcoach")?;
    Some(entry.get("trust").and_then(Value::as_bool).unwrap_or(false))
}

/// The MCP server entry an agent's JSON configuration should hold, the way the agent's own
/// `mcp add` writes it.
fn server_entry(agent: Agent, launch: &Launch, trust: bool) -> Value {
    let command = launch.program.to_string_lossy();
    let mut entry = match agent {
        Agent::ClaudeCode => json!({ "type": "stdio", "command": command, "args": ["mcp"], "env": {} }),
        Agent::Copilot => {
            json!({ "type": "local", "command": command, "args": ["mcp"], "env": {}, "tools": ["*"] })
        }
        Agent::Droid => json!({ "type": "stdio", "command": command, "args": ["mcp"], "disabled": false }),
        // Qwen Code otherwise defers a server's tools behind its tool search: the model would
        // see their names only, and the cue asks it to call them.
        Agent::Qwen => json!({ "command": command, "args": ["mcp"], "alwaysLoadTools": true }),
        // OpenCode and Kilo: the command line as one array.
        Agent::OpenCode | Agent::Kilo => json!({ "type": "local", "command": [command, "mcp"] }),
        _ => json!({ "command": command, "args": ["mcp"] }),
    };
    if trust && takes_trust(agent) {
        entry["trust"] = Value::Bool(true);
    }
    entry
}

/// `command args…` of an existing entry, for comparing and showing (`command` a string with
/// `args`, or OpenCode's one array).
pub fn entry_command(entry: &Value) -> String {
    let word = |a: &Value| a.as_str().map_or_else(|| a.to_string(), str::to_owned);
    let mut words = match entry.get("command") {
        Some(Value::Array(all)) => all.iter().map(word).collect(),
        other => vec![other.and_then(Value::as_str).unwrap_or("?").to_owned()],
    };
    if let Some(args) = entry.get("args").and_then(Value::as_array) {
        words.extend(args.iter().map(word));
    }
    words.join(" ")
}

fn saved_text(places: &Places, doc: &JsonDoc, saved: &Saved) -> String {
    match saved {
        Saved::Unchanged => format!("{} unchanged", places.show(doc.path())),
        Saved::Written { backup: Some(bak) } => {
            format!("updated {} (previous version in {})", places.show(doc.path()), places.show(bak))
        }
        Saved::Written { backup: None } if doc.was_missing() => format!("created {}", places.show(doc.path())),
        Saved::Written { backup: None } => format!("updated {}", places.show(doc.path())),
    }
}

fn config_failure(report: &mut Report, places: &Places, e: &ConfigError) {
    let text = e.to_string().replace(&places.home.display().to_string(), "~");
    report.push(Mark::Failed, text);
}

pub fn install(agent: Agent, places: &Places, launch: &Launch, opts: InstallOptions) -> Report {
    let mut report = Report::default();
    match agent {
        Agent::ClaudeCode => {
            mcp_register(&mut report, agent, places, launch, opts);
            if opts.skip_hook {
                report.push(Mark::Skipped, "hooks (--skip-hook)");
            } else {
                claude_hooks(&mut report, places, launch);
            }
            if opts.practice {
                practice_hook(&mut report, places, launch);
            }
            skill_install(&mut report, places, &places.claude_skill(), opts.force);
        }
        Agent::ClaudeDesktop => {
            let dir = places.desktop_config.parent().unwrap_or(Path::new("."));
            if !opts.explicit && !dir.is_dir() {
                report.push(
                    Mark::Skipped,
                    format!(
                        "Claude Desktop not found ({} does not exist); use --claude-desktop to write it anyway",
                        places.show(dir)
                    ),
                );
                return report;
            }
            mcp_register(&mut report, agent, places, launch, opts);
            report.push(Mark::Note, "restart Claude Desktop to load the server");
        }
        Agent::Gemini => {
            mcp_register(&mut report, agent, places, launch, opts);
            if places.gemini_extension().is_file() {
                report.push(Mark::Skipped, "hooks and skill: the devcoach Gemini extension provides them");
            } else {
                if opts.skip_hook {
                    report.push(Mark::Skipped, "hooks (--skip-hook)");
                } else {
                    json_hooks(&mut report, places, &places.gemini_settings(), agent, launch);
                }
                skill_install(&mut report, places, &places.agents_skill, opts.force);
            }
            report.push(
                Mark::Note,
                "Gemini CLI turns MCP servers and hooks off in folders you have not trusted: trust your project \
                 folders when it asks, or devcoach stays silent there",
            );
        }
        Agent::Copilot | Agent::Qwen if super::package_installed(places, agent) => {
            let what = if agent == Agent::Copilot { "plugin" } else { "extension" };
            report.push(
                Mark::Skipped,
                format!("server, hooks and skill: the devcoach {what} for {} provides them", agent.label()),
            );
        }
        Agent::Copilot | Agent::Qwen | Agent::Droid | Agent::Cursor => {
            mcp_register(&mut report, agent, places, launch, opts);
            if opts.skip_hook {
                report.push(Mark::Skipped, "hooks (--skip-hook)");
            } else if agent == Agent::Cursor && super::hooks_wired(places, Agent::ClaudeCode) {
                // Cursor runs Claude Code's hooks too; its own make sure it gets its own answer
                // shape, and the Claude hook stays quiet for Cursor once they exist.
                if let Some((path, _)) = places.hook_file(agent) {
                    json_hooks(&mut report, places, &path, agent, launch);
                }
                if super::hooks_wired(places, agent) {
                    report.push(
                        Mark::Note,
                        "Cursor also runs the Claude Code hooks in ~/.claude/settings.json: those stay quiet for \
                         Cursor, so each stop counts once",
                    );
                }
            } else if let Some((path, _)) = places.hook_file(agent) {
                json_hooks(&mut report, places, &path, agent, launch);
            }
            if let Some(dir) = places.skill_dir(agent) {
                skill_install(&mut report, places, &dir, opts.force);
            }
            for note in super::limits::install_notes(agent) {
                report.push(Mark::Note, *note);
            }
        }
        Agent::OpenCode | Agent::Kilo => {
            mcp_register(&mut report, agent, places, launch, opts);
            if opts.skip_hook {
                report.push(Mark::Skipped, "plugin (--skip-hook)");
            } else {
                plugin_install(&mut report, agent, places, launch);
            }
            if let Some(dir) = places.skill_dir(agent) {
                skill_install(&mut report, places, &dir, opts.force);
            }
            for note in super::limits::install_notes(agent) {
                report.push(Mark::Note, *note);
            }
        }
        Agent::Codex => {
            codex_mcp(&mut report, places, launch, opts.force);
            if opts.skip_hook {
                report.push(Mark::Skipped, "hooks (--skip-hook)");
            } else {
                json_hooks(&mut report, places, &places.codex_hooks(), agent, launch);
                report.push(
                    Mark::Note,
                    "Codex runs new hooks only after you approve them: start `codex` and accept the devcoach hooks \
                     when it asks (`devcoach doctor` shows whether they are trusted)",
                );
            }
            skill_install(&mut report, places, &places.agents_skill, opts.force);
        }
    }
    report
}

/// The agent's own CLI (`Agent::program`) and the arguments to add / remove our server with it.
fn mcp_cli(agent: Agent, launch: &Launch, trust: bool) -> Option<(&'static str, Vec<String>, Vec<String>)> {
    let program = launch.program.to_string_lossy().into_owned();
    let p = program.as_str();
    let (add, remove): (Vec<&str>, Vec<&str>) = match agent {
        Agent::ClaudeCode => (
            vec!["mcp", "add", "--scope", "user", "devcoach", p, "--", "mcp"],
            vec!["mcp", "remove", "--scope", "user", "devcoach"],
        ),
        Agent::Gemini => {
            let mut add = vec!["mcp", "add", "-s", "user"];
            if trust {
                add.push("--trust");
            }
            add.extend(["devcoach", p, "mcp"]);
            (add, vec!["mcp", "remove", "-s", "user", "devcoach"])
        }
        Agent::Codex | Agent::Copilot => {
            (vec!["mcp", "add", "devcoach", "--", p, "mcp"], vec!["mcp", "remove", "devcoach"])
        }
        // Droid takes the command line as one string: only for a path it cannot misread.
        Agent::Droid if !p.contains(char::is_whitespace) => {
            return Some((
                "droid",
                ["mcp", "add", "devcoach", &format!("{p} mcp")].map(str::to_owned).to_vec(),
                ["mcp", "remove", "devcoach"].map(str::to_owned).to_vec(),
            ));
        }
        // Qwen Code's `mcp add` cannot ask for the tools to be loaded (see `server_entry`): the
        // file is written directly.
        Agent::Qwen | Agent::Droid | Agent::Cursor | Agent::OpenCode | Agent::Kilo | Agent::ClaudeDesktop => {
            return None;
        }
    };
    let owned = |words: Vec<&str>| words.into_iter().map(str::to_owned).collect();
    Some((agent.program()?, owned(add), owned(remove)))
}

fn mcp_register(report: &mut Report, agent: Agent, places: &Places, launch: &Launch, opts: InstallOptions) {
    let Some(file) = places.mcp_file(agent) else { return };
    let mut doc = match JsonDoc::load(&file) {
        Ok(doc) => doc,
        Err(e) => return config_failure(report, places, &e),
    };
    let key = Places::mcp_key(agent);
    let existing = doc.root.get(key).and_then(|s| s.get("devcoach")).cloned();
    let was_trusted = existing.as_ref().and_then(|e| e.get("trust")).and_then(Value::as_bool).unwrap_or(false);
    let trust = takes_trust(agent) && opts.trust.unwrap_or(was_trusted);
    let wanted = server_entry(agent, launch, trust);
    if let Some(existing) = &existing {
        if entry_command(existing) == entry_command(&wanted) {
            if trust == was_trusted || !takes_trust(agent) {
                report.push(Mark::Unchanged, format!("MCP server already registered ({})", places.show(&file)));
                trust_note(report, agent, trust);
                return;
            }
            // Only the trust switch changes: the rest of the user's entry stays as it is.
            if let Some(entry) =
                doc.root.get_mut(key).and_then(|s| s.get_mut("devcoach")).and_then(Value::as_object_mut)
            {
                if trust {
                    entry.insert("trust".into(), Value::Bool(true));
                } else {
                    entry.remove("trust");
                }
            }
            match doc.save() {
                Ok(saved) => report.push(
                    Mark::Done,
                    format!(
                        "MCP server {} ({})",
                        if trust { "trusted" } else { "no longer trusted" },
                        saved_text(places, &doc, &saved)
                    ),
                ),
                Err(e) => config_failure(report, places, &e),
            }
            trust_note(report, agent, trust);
            return;
        }
        if !opts.force {
            report.push(
                Mark::Warn,
                format!(
                    "an MCP server named devcoach already runs `{}`; kept it (run `devcoach install --force` to point it at this binary)",
                    entry_command(existing)
                ),
            );
            return;
        }
    }
    if let Some((name, add, remove)) = mcp_cli(agent, launch, trust)
        && let Some(cli) = client_cli::find(name)
    {
        if existing.is_some()
            && let Err(e) = client_cli::run(&cli, &remove.iter().map(String::as_str).collect::<Vec<_>>())
        {
            report.push(Mark::Warn, e);
        }
        // The agent's CLI may create its file: then it is as much ours to take back. If the file
        // is there, the copy from before is taken now, before the CLI changes it.
        super::ledger::before_create(&file);
        super::config::back_up_before_cli(&file);
        match client_cli::run(&cli, &add.iter().map(String::as_str).collect::<Vec<_>>()) {
            Ok(_) => {
                report.push(
                    Mark::Done,
                    format!("MCP server registered with `{name} mcp add` → {}", launch.program.display()),
                );
                trust_note(report, agent, trust);
                return;
            }
            Err(e) => report.push(Mark::Warn, format!("{e}; writing {} directly instead", places.show(&file))),
        }
        // The CLI may have changed the file before failing: start from what is there now.
        doc = match JsonDoc::load(&file) {
            Ok(doc) => doc,
            Err(e) => return config_failure(report, places, &e),
        };
    }
    let Some(servers) = super::config::object_at(&mut doc.root, key) else {
        report.push(Mark::Failed, format!("`{key}` in {} is not an object; left unchanged", places.show(&file)));
        return;
    };
    servers.insert("devcoach".into(), wanted);
    match doc.save() {
        Ok(saved) => report.push(
            Mark::Done,
            format!("MCP server → {} mcp ({})", launch.program.display(), saved_text(places, &doc, &saved)),
        ),
        Err(e) => config_failure(report, places, &e),
    }
    trust_note(report, agent, trust);
}

/// What the trust switch means for this agent, said where it was set.
fn trust_note(report: &mut Report, agent: Agent, trust: bool) {
    if !takes_trust(agent) {
        return;
    }
    report.push(
        Mark::Note,
        if trust {
            format!(
                "trusted: {} runs devcoach's tools without asking, delete_lesson included, and headless runs offer them \
                 (`devcoach install --gemini --no-trust` to be asked again)",
                agent.label()
            )
        } else {
            format!(
                "not trusted: {} asks before each devcoach tool, and headless runs (`{} -p`) offer none of them \
                 (`devcoach install --gemini --trust` changes that)",
                agent.label(),
                agent.program().unwrap_or("agent")
            )
        },
    );
}

fn codex_mcp(report: &mut Report, places: &Places, launch: &Launch, force: bool) {
    let toml = std::fs::read_to_string(places.codex_config()).unwrap_or_default();
    let existing = codex::server_command(&toml);
    let wanted = format!("{} mcp", launch.program.display());
    if let Some(existing) = &existing {
        if *existing == wanted {
            report.push(Mark::Unchanged, "MCP server already registered (~/.codex/config.toml)");
            return;
        }
        if !force {
            report.push(
                Mark::Warn,
                format!("an MCP server named devcoach already runs `{existing}`; kept it (run `devcoach install --codex --force` to replace it)"),
            );
            return;
        }
    }
    let Some(cli) = client_cli::find("codex") else {
        report.push(
            Mark::Note,
            format!(
                "Codex CLI not found on PATH, so its MCP entry is not written (devcoach never edits config.toml). Add this to {}:\n{}",
                places.show(&places.codex_config()),
                codex::server_snippet(&launch.program)
            ),
        );
        return;
    };
    if existing.is_some()
        && let Err(e) = client_cli::run(&cli, &["mcp", "remove", "devcoach"])
    {
        report.push(Mark::Warn, e);
    }
    let program = launch.program.to_string_lossy();
    super::ledger::before_create(&places.codex_config());
    match client_cli::run(&cli, &["mcp", "add", "devcoach", "--", &program, "mcp"]) {
        Ok(_) => report.push(Mark::Done, format!("MCP server registered with `codex mcp add` → {program}")),
        Err(e) => report.push(
            Mark::Failed,
            format!(
                "{e}. Add this to {} by hand:\n{}",
                places.show(&places.codex_config()),
                codex::server_snippet(&launch.program)
            ),
        ),
    }
}

fn claude_hooks(report: &mut Report, places: &Places, launch: &Launch) {
    let path = places.claude_settings();
    match JsonDoc::load(&path) {
        Ok(doc) => {
            let plugins = super::claude_plugins_enabled(&doc.root);
            if !plugins.is_empty() {
                report.push(Mark::Skipped, format!("hooks: the {} plugin provides them", plugins.join(", ")));
                return;
            }
        }
        Err(e) => return config_failure(report, places, &e),
    }
    json_hooks(report, places, &path, Agent::ClaudeCode, launch);
}

/// The practice hooks for Claude Code's own interface: the gate on each prompt and the guard on
/// each finished reply (both return at once when no practice session is on).
fn practice_hook(report: &mut Report, places: &Places, launch: &Launch) {
    let path = places.claude_settings();
    let mut doc = match JsonDoc::load(&path) {
        Ok(doc) => doc,
        Err(e) => return config_failure(report, places, &e),
    };
    let mut outcomes = Vec::new();
    for (event, sub) in [("UserPromptSubmit", "hook practice-prompt"), ("Stop", "hook practice-stop")] {
        let wanted = Wanted { event, command: launch.hook_command(sub), timeout: 30, family: Family::Practice };
        outcomes.push(hook_entries::upsert(&mut doc.root, &wanted));
    }
    if outcomes.contains(&Upsert::Foreign) {
        report.push(
            Mark::Failed,
            format!("`hooks` in {} is not in the expected shape; left unchanged", places.show(&path)),
        );
        return;
    }
    if outcomes.iter().all(|o| *o == Upsert::Unchanged) && !doc.changed() {
        report.push(Mark::Unchanged, format!("practice hooks already installed ({})", places.show(&path)));
        return;
    }
    match doc.save() {
        Ok(saved) => {
            report.push(
                Mark::Done,
                format!("practice hooks UserPromptSubmit, Stop ({})", saved_text(places, &doc, &saved)),
            );
        }
        Err(e) => config_failure(report, places, &e),
    }
}

fn json_hooks(report: &mut Report, places: &Places, path: &Path, agent: Agent, launch: &Launch) {
    let mut doc = match JsonDoc::load(path) {
        Ok(doc) => doc,
        Err(e) => return config_failure(report, places, &e),
    };
    let shape = places.hook_file(agent).map_or(Shape::NESTED, |(_, shape)| shape);
    // Cursor's and Copilot CLI's hook files carry a format version.
    if !shape.grouped && !doc.root.contains_key("version") {
        doc.root.insert("version".into(), Value::from(1));
    }
    let mut outcomes = Vec::new();
    for (event, sub, timeout) in hook_plan(agent) {
        let wanted = Wanted { event, command: launch.hook_command(sub), timeout, family: Family::Lesson };
        outcomes.push((event, hook_entries::upsert_shaped(&mut doc.root, shape, &wanted)));
    }
    let foreign: Vec<&str> = outcomes.iter().filter(|(_, o)| *o == Upsert::Foreign).map(|(e, _)| *e).collect();
    if !foreign.is_empty() {
        report.push(
            Mark::Failed,
            format!(
                "`hooks` in {} is not in the expected shape ({}); left unchanged",
                places.show(path),
                foreign.join(", ")
            ),
        );
        return;
    }
    if outcomes.iter().all(|(_, o)| *o == Upsert::Unchanged) && !doc.changed() {
        report.push(Mark::Unchanged, format!("hooks already installed, current layout ({})", places.show(path)));
        return;
    }
    match doc.save() {
        Ok(saved) => {
            let what: Vec<String> = outcomes
                .iter()
                .map(|(event, o)| match o {
                    Upsert::Replaced(n) => format!("{event} (replaced {n} older)"),
                    _ => (*event).to_owned(),
                })
                .collect();
            report.push(Mark::Done, format!("hooks {} ({})", what.join(", "), saved_text(places, &doc, &saved)));
        }
        Err(e) => config_failure(report, places, &e),
    }
}

/// Whether devcoach is still wired into the agent in any way (hooks, plugin or MCP entry).
fn wired(places: &Places, agent: Agent) -> bool {
    let server = places.mcp_file(agent).is_some_and(|file| {
        JsonDoc::load_existing(&file)
            .ok()
            .flatten()
            .is_some_and(|d| d.root.get(Places::mcp_key(agent)).and_then(|m| m.get("devcoach")).is_some())
    });
    let codex = agent == Agent::Codex
        && codex::server_command(&std::fs::read_to_string(places.codex_config()).unwrap_or_default()).is_some();
    server || codex || super::hooks_wired(places, agent)
}

/// The OpenCode / Kilo plugin: written (or brought up to date) unless a file of someone else's
/// has its name.
fn plugin_install(report: &mut Report, agent: Agent, places: &Places, launch: &Launch) {
    let (Some(path), Some(client)) = (places.plugin_file(agent), agent.client()) else { return };
    let wanted = super::plugin::text(client, launch);
    let not_ours = |report: &mut Report| {
        report.push(
            Mark::Failed,
            format!("{} is not devcoach's plugin; left unchanged (move it, then run again)", places.show(&path)),
        );
    };
    // Only a regular file devcoach wrote is replaced: a link (even one to nothing), a folder, or
    // a file that cannot be read is someone else's.
    let existed = match path.symlink_metadata() {
        Ok(meta) if !meta.is_file() => return not_ours(report),
        Ok(_) => true,
        Err(_) => false,
    };
    if existed {
        match std::fs::read(&path) {
            Ok(bytes) if bytes == wanted.as_bytes() => {
                return report.push(Mark::Unchanged, format!("plugin up to date ({})", places.show(&path)));
            }
            Ok(_) if super::plugin::is_ours(&path) => {}
            _ => return not_ours(report),
        }
    }
    super::ledger::before_create(&path);
    if let Some(dir) = path.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return report.push(Mark::Failed, format!("cannot create {}: {e}", places.show(dir)));
    }
    match super::config::write_atomic(&path, wanted.as_bytes()) {
        Ok(()) => report.push(
            Mark::Done,
            format!("plugin {} ({})", if existed { "updated" } else { "installed" }, places.show(&path)),
        ),
        Err(e) => config_failure(report, places, &e),
    }
}

fn plugin_remove(report: &mut Report, agent: Agent, places: &Places) {
    let Some(path) = places.plugin_file(agent) else { return };
    if !path.symlink_metadata().is_ok_and(|m| m.is_file()) || !super::plugin::is_ours(&path) {
        return report.push(Mark::Unchanged, "no plugin");
    }
    match std::fs::remove_file(&path) {
        Ok(()) => report.push(Mark::Done, format!("plugin removed ({})", places.show(&path))),
        Err(e) => report.push(Mark::Failed, format!("cannot remove {}: {e}", places.show(&path))),
    }
}

fn skill_install(report: &mut Report, places: &Places, dir: &Path, force: bool) {
    let status = skill::status(dir);
    if status == SkillStatus::Current && !force {
        report.push(Mark::Unchanged, format!("skill up to date ({})", places.show(dir)));
        return;
    }
    match skill::write(dir) {
        Ok(()) => report.push(
            Mark::Done,
            match status {
                SkillStatus::Outdated(Some(old)) if old != devcoach_core::APP_VERSION => {
                    format!("skill updated from {old} to {} ({})", devcoach_core::APP_VERSION, places.show(dir))
                }
                SkillStatus::Missing => format!("skill installed ({})", places.show(dir)),
                _ => format!("skill refreshed ({})", places.show(dir)),
            },
        ),
        Err(e) => report.push(Mark::Failed, format!("cannot write the skill to {}: {e}", places.show(dir))),
    }
}

pub fn uninstall(agent: Agent, places: &Places, all_selected: &[Agent]) -> Report {
    let mut report = Report::default();
    match agent {
        Agent::ClaudeCode => {
            mcp_unregister(&mut report, agent, places);
            remove_hooks(&mut report, places, &places.claude_settings(), agent);
            if let Ok(Some(doc)) = JsonDoc::load_existing(&places.claude_settings()) {
                for plugin in super::claude_plugins_enabled(&doc.root) {
                    report.push(
                        Mark::Note,
                        format!(
                            "the {plugin} plugin is still enabled: remove it with `claude plugin uninstall {plugin}`"
                        ),
                    );
                }
            }
            remove_skill(&mut report, places, &places.claude_skill());
        }
        Agent::ClaudeDesktop => mcp_unregister(&mut report, agent, places),
        Agent::Gemini
        | Agent::Codex
        | Agent::Copilot
        | Agent::Qwen
        | Agent::Droid
        | Agent::Cursor
        | Agent::OpenCode
        | Agent::Kilo => {
            if agent == Agent::Codex {
                codex_unregister(&mut report, places);
            } else {
                mcp_unregister(&mut report, agent, places);
            }
            if let Some((path, _)) = places.hook_file(agent) {
                remove_hooks(&mut report, places, &path, agent);
            }
            plugin_remove(&mut report, agent, places);
            if agent == Agent::Gemini && places.gemini_extension().is_file() {
                report.push(
                    Mark::Note,
                    "the devcoach Gemini extension is installed: remove it with `gemini extensions uninstall devcoach`",
                );
            }
            let Some(dir) = places.skill_dir(agent) else { return report };
            // A shared skill directory stays while another agent still uses it.
            let users: Vec<&str> = Agent::ALL
                .into_iter()
                .filter(|other| *other != agent && !all_selected.contains(other))
                .filter(|other| places.skill_dir(*other).as_ref() == Some(&dir) && wired(places, *other))
                .map(Agent::label)
                .collect();
            if users.is_empty() {
                remove_skill(&mut report, places, &dir);
            } else {
                report.push(
                    Mark::Skipped,
                    format!("skill kept ({}): {} still uses it", places.show(&dir), users.join(", ")),
                );
            }
        }
    }
    report
}

/// A file devcoach cannot read as JSON (JSONC with comments, a hand edit gone wrong) that does
/// not even mention devcoach holds nothing to take back: uninstall says so instead of failing.
fn mentions_devcoach(path: &Path) -> bool {
    std::fs::read(path).map_or(true, |bytes| String::from_utf8_lossy(&bytes).to_ascii_lowercase().contains("devcoach"))
}

fn mcp_unregister(report: &mut Report, agent: Agent, places: &Places) {
    let Some(file) = places.mcp_file(agent) else { return };
    let mut doc = match JsonDoc::load_existing(&file) {
        Ok(Some(doc)) => doc,
        Ok(None) => return report.push(Mark::Unchanged, "no MCP server entry"),
        Err(_) if !mentions_devcoach(&file) => return report.push(Mark::Unchanged, "no MCP server entry"),
        Err(e) => return config_failure(report, places, &e),
    };
    if doc.root.get(Places::mcp_key(agent)).and_then(|s| s.get("devcoach")).is_none() {
        return report.push(Mark::Unchanged, "no MCP server entry");
    }
    if let Some((name, _, remove)) = mcp_cli(agent, &Launch { program: "devcoach".into(), caution: None }, false)
        && let Some(cli) = client_cli::find(name)
    {
        match client_cli::run(&cli, &remove.iter().map(String::as_str).collect::<Vec<_>>()) {
            Ok(_) => return report.push(Mark::Done, format!("MCP server removed with `{name} mcp remove`")),
            Err(e) => report.push(Mark::Warn, format!("{e}; editing {} directly instead", places.show(&file))),
        }
        doc = match JsonDoc::load(&file) {
            Ok(doc) => doc,
            Err(e) => return config_failure(report, places, &e),
        };
    }
    // An empty server list the user had before install stays; one devcoach made goes.
    let key = Places::mcp_key(agent);
    let had_key = super::ledger::recorded_backup(&file)
        .and_then(|bak| std::fs::read(bak).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .is_some_and(|before| before.get(key).is_some());
    remove_server(&mut doc.root, key, had_key);
    match doc.save() {
        Ok(saved) => report.push(Mark::Done, format!("MCP server removed ({})", saved_text(places, &doc, &saved))),
        Err(e) => config_failure(report, places, &e),
    }
}

/// Drops `<key>.devcoach`, and `<key>` when that leaves it empty (unless it was there before).
fn remove_server(root: &mut Map<String, Value>, key: &str, keep_empty: bool) {
    if let Some(servers) = root.get_mut(key).and_then(Value::as_object_mut) {
        servers.remove("devcoach");
        if servers.is_empty() && !keep_empty {
            root.remove(key);
        }
    }
}

fn codex_unregister(report: &mut Report, places: &Places) {
    let toml = std::fs::read_to_string(places.codex_config()).unwrap_or_default();
    if codex::server_command(&toml).is_none() {
        return report.push(Mark::Unchanged, "no MCP server entry");
    }
    match client_cli::find("codex") {
        Some(cli) => match client_cli::run(&cli, &["mcp", "remove", "devcoach"]) {
            Ok(_) => report.push(Mark::Done, "MCP server removed with `codex mcp remove`"),
            Err(e) => report.push(
                Mark::Failed,
                format!("{e}; remove the [mcp_servers.devcoach] table from ~/.codex/config.toml by hand"),
            ),
        },
        None => report.push(
            Mark::Note,
            "remove the [mcp_servers.devcoach] table from ~/.codex/config.toml by hand (devcoach never edits it)",
        ),
    }
}

fn remove_hooks(report: &mut Report, places: &Places, path: &Path, agent: Agent) {
    let mut doc = match JsonDoc::load_existing(path) {
        Ok(Some(doc)) => doc,
        Ok(None) => return report.push(Mark::Unchanged, "no hooks"),
        Err(_) if !mentions_devcoach(path) => return report.push(Mark::Unchanged, "no hooks"),
        Err(e) => return config_failure(report, places, &e),
    };
    let shape = places.hook_file(agent).map_or(Shape::NESTED, |(_, shape)| shape);
    let removed = hook_entries::remove_all_shaped(&mut doc.root, shape);
    if removed == 0 {
        return report.push(Mark::Unchanged, "no hooks");
    }
    // A hook file devcoach created holds only the format version once its hooks are gone: it
    // goes with them.
    if !shape.grouped && doc.root.len() == 1 && doc.root.contains_key("version") && super::ledger::created_by_us(path) {
        doc.root.clear();
    }
    match doc.save() {
        Ok(saved) => {
            report.push(
                Mark::Done,
                format!("{} removed ({})", crate::output::plural(removed, "hook"), saved_text(places, &doc, &saved)),
            );
        }
        Err(e) => config_failure(report, places, &e),
    }
}

fn remove_skill(report: &mut Report, places: &Places, dir: &Path) {
    match skill::remove(dir) {
        Ok(true) => report.push(Mark::Done, format!("skill removed ({})", places.show(dir))),
        Ok(false) => report.push(Mark::Unchanged, "no skill"),
        Err(e) => report.push(Mark::Failed, format!("cannot remove {}: {e}", places.show(dir))),
    }
}
