//! `install` and `uninstall` for each agent: what is written where, reported step by step.

use std::path::Path;

use serde_json::{Map, Value};

use crate::config::{ConfigError, JsonDoc, Saved};
use crate::hook_entries::{self, Family, Shape, Upsert, Wanted};
use crate::launch::Launch;
use crate::skill::{self, SkillStatus};
use crate::table::{Agent, Dir, Hooks, Mcp, Package};
use crate::{Places, client_cli, codex};

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
    agent.spec().trust
}

/// The trust switch of the agent's devcoach entry: `None` when there is no entry yet.
pub fn trusted(agent: Agent, places: &Places) -> Option<bool> {
    if !takes_trust(agent) {
        return None;
    }
    let file = places.mcp_file(agent)?;
    let doc = JsonDoc::load_existing(&file).ok().flatten()?;
    let entry = doc.root.get(Places::mcp_key(agent))?.get("devcoach")?;
    Some(entry.get("trust").and_then(Value::as_bool).unwrap_or(false))
}

/// The MCP server entry an agent's JSON configuration should hold: its row's template with this
/// binary's path filled in.
fn server_entry(agent: Agent, launch: &Launch, trust: bool) -> Value {
    fn fill(v: &mut Value, program: &str) {
        match v {
            Value::String(s) if s == "{program}" => program.clone_into(s),
            Value::Array(items) => items.iter_mut().for_each(|i| fill(i, program)),
            Value::Object(map) => map.values_mut().for_each(|i| fill(i, program)),
            _ => {}
        }
    }
    let Mcp::Json { entry, .. } = agent.spec().mcp else { return Value::Null };
    // The table's test parses every template.
    let mut entry: Value = serde_json::from_str(entry).unwrap_or(Value::Null);
    fill(&mut entry, &launch.program.to_string_lossy());
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
    let spec = agent.spec();
    if let Dir::App(_) = spec.dir {
        let dir = places.agent_dir(agent);
        if !opts.explicit && !dir.is_dir() {
            report.push(
                Mark::Skipped,
                format!(
                    "{} not found ({} does not exist); use --{} to write it anyway",
                    spec.label,
                    places.show(&dir),
                    spec.flag
                ),
            );
            return report;
        }
    }
    let package = crate::package_present(places, agent);
    if let Some(package) = package.filter(|p| p.brings_server()) {
        report.push(
            Mark::Skipped,
            format!("server, hooks and skill: the devcoach {} for {} provides them", package.word(), spec.label),
        );
        return report;
    }
    match spec.mcp {
        Mcp::Json { .. } => mcp_register(&mut report, agent, places, launch, opts),
        Mcp::CodexToml => codex_mcp(&mut report, places, launch, opts.force),
    }
    let hooks_word = if matches!(spec.hooks, Hooks::Plugin { .. }) { "plugin" } else { "hooks" };
    match (spec.hooks, package) {
        (Hooks::None, _) => {}
        (_, Some(package)) => {
            let what = if package.brings_skill() { "hooks and skill" } else { "hooks" };
            report.push(Mark::Skipped, format!("{what}: {} provides them", package_name(places, agent, package)));
        }
        _ if opts.skip_hook => report.push(Mark::Skipped, format!("{hooks_word} (--skip-hook)")),
        (Hooks::Plugin { .. }, None) => plugin_install(&mut report, agent, places, launch),
        (Hooks::Json { .. }, None) => {
            // Cursor runs Claude Code's hooks too; its own make sure it gets its own answer
            // shape, and the Claude hook stays quiet for Cursor once they exist.
            let claude_too = agent == Agent::Cursor && crate::hooks_wired(places, Agent::ClaudeCode);
            if let Some((path, _)) = places.hook_file(agent) {
                json_hooks(&mut report, places, &path, agent, launch);
            }
            if claude_too && crate::hooks_wired(places, agent) {
                report.push(
                    Mark::Note,
                    "Cursor also runs the Claude Code hooks in ~/.claude/settings.json: those stay quiet for Cursor, \
                     so each stop counts once",
                );
            }
            if let Some(note) = spec.hook_note {
                report.push(Mark::Note, note);
            }
        }
    }
    // The practice guard is for Claude Code's own interface.
    if opts.practice && agent == Agent::ClaudeCode {
        practice_hook(&mut report, places, launch);
    }
    if let Some(dir) = places.skill_dir(agent)
        && !package.is_some_and(Package::brings_skill)
    {
        skill_install(&mut report, places, &dir, opts.force);
    }
    for note in spec.notes {
        report.push(Mark::Note, *note);
    }
    report
}

/// The devcoach package that is installed for the agent, as its users would name it.
fn package_name(places: &Places, agent: Agent, package: Package) -> String {
    let plugins = match package {
        Package::ClaudePlugin => JsonDoc::load_existing(&places.claude_settings())
            .ok()
            .flatten()
            .map(|doc| crate::places::claude_plugins_enabled(&doc.root))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    if plugins.is_empty() {
        format!("the devcoach {} for {}", package.word(), agent.label())
    } else {
        format!("the {} plugin", plugins.join(", "))
    }
}

/// The agent's own CLI and the arguments to add / remove our server with it, from its row's
/// templates; `None` when the file is written directly.
fn mcp_cli(agent: Agent, launch: &Launch, trust: bool) -> Option<(&'static str, Vec<String>, Vec<String>)> {
    let Mcp::Json { cli: Some(cli), .. } = agent.spec().mcp else { return None };
    let program = launch.program.to_string_lossy();
    let fill = |words: &[&str]| -> Option<Vec<String>> {
        let mut out = Vec::new();
        for &word in words {
            if word == "{trust}" {
                if trust {
                    out.push("--trust".to_owned());
                }
            } else if word.contains("{program}") {
                // A path inside a longer word would be split wherever it has a space.
                if word != "{program}" && program.contains(char::is_whitespace) {
                    return None;
                }
                out.push(word.replace("{program}", &program));
            } else {
                out.push(word.to_owned());
            }
        }
        Some(out)
    };
    Some((agent.program()?, fill(cli.add)?, fill(cli.remove)?))
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
        && let Some(cli) = client_cli::find(places, name)
    {
        if existing.is_some()
            && let Err(e) = client_cli::run(&cli, &remove.iter().map(String::as_str).collect::<Vec<_>>())
        {
            report.push(Mark::Warn, e);
        }
        // The agent's CLI may create its file: then it is as much ours to take back. If the file
        // is there, the copy from before is taken now, before the CLI changes it.
        crate::ledger::before_create(&file);
        crate::config::back_up_before_cli(&file);
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
    let Some(servers) = crate::config::object_at(&mut doc.root, key) else {
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
                 (`devcoach install --{} --no-trust` to be asked again)",
                agent.label(),
                agent.spec().flag
            )
        } else {
            format!(
                "not trusted: {} asks before each devcoach tool, and headless runs (`{} -p`) offer none of them \
                 (`devcoach install --{} --trust` changes that)",
                agent.label(),
                agent.program().unwrap_or("agent"),
                agent.spec().flag
            )
        },
    );
}

fn codex_mcp(report: &mut Report, places: &Places, launch: &Launch, force: bool) {
    let toml = crate::config::read_config_text(&places.codex_config());
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
    let Some(cli) = client_cli::find(places, "codex") else {
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
    crate::ledger::before_create(&places.codex_config());
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
    for (event, sub, timeout) in agent.hook_plan() {
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
    let codex = agent.spec().mcp == Mcp::CodexToml
        && codex::server_command(&crate::config::read_config_text(&places.codex_config())).is_some();
    server || codex || crate::hooks_wired(places, agent)
}

/// The OpenCode / Kilo plugin: written (or brought up to date) unless a file of someone else's
/// has its name.
fn plugin_install(report: &mut Report, agent: Agent, places: &Places, launch: &Launch) {
    let Some(path) = places.plugin_file(agent) else { return };
    let wanted = crate::plugin::text(agent, launch);
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
        match devcoach_files::read(&path, devcoach_core::limits::INSTALL_FILE_BYTES, devcoach_files::Links::Refuse) {
            Ok(bytes) if bytes == wanted.as_bytes() => {
                return report.push(Mark::Unchanged, format!("plugin up to date ({})", places.show(&path)));
            }
            Ok(_) if crate::plugin::is_ours(&path) => {}
            _ => return not_ours(report),
        }
    }
    crate::ledger::before_create(&path);
    if let Some(dir) = path.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return report.push(Mark::Failed, format!("cannot create {}: {e}", places.show(dir)));
    }
    match crate::config::write_atomic(&path, wanted.as_bytes()) {
        Ok(()) => report.push(
            Mark::Done,
            format!("plugin {} ({})", if existed { "updated" } else { "installed" }, places.show(&path)),
        ),
        Err(e) => config_failure(report, places, &e),
    }
}

fn plugin_remove(report: &mut Report, agent: Agent, places: &Places) {
    let Some(path) = places.plugin_file(agent) else { return };
    if !path.symlink_metadata().is_ok_and(|m| m.is_file()) || !crate::plugin::is_ours(&path) {
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
    match agent.spec().mcp {
        Mcp::Json { .. } => mcp_unregister(&mut report, agent, places),
        Mcp::CodexToml => codex_unregister(&mut report, places),
    }
    if let Some((path, _)) = places.hook_file(agent) {
        remove_hooks(&mut report, places, &path, agent);
    }
    plugin_remove(&mut report, agent, places);
    match crate::package_present(places, agent) {
        Some(Package::ClaudePlugin) => {
            if let Ok(Some(doc)) = JsonDoc::load_existing(&places.claude_settings()) {
                for plugin in crate::places::claude_plugins_enabled(&doc.root) {
                    report.push(
                        Mark::Note,
                        format!(
                            "the {plugin} plugin is still enabled: remove it with `claude plugin uninstall {plugin}`"
                        ),
                    );
                }
            }
        }
        Some(Package::GeminiExtension) => report.push(
            Mark::Note,
            "the devcoach Gemini extension is installed: remove it with `gemini extensions uninstall devcoach`",
        ),
        _ => {}
    }
    let Some(dir) = places.skill_dir(agent) else { return report };
    // A shared skill directory stays while another agent still uses it.
    let users: Vec<&str> = Agent::ALL
        .iter()
        .copied()
        .filter(|other| *other != agent && !all_selected.contains(other))
        .filter(|other| places.skill_dir(*other).as_ref() == Some(&dir) && wired(places, *other))
        .map(Agent::label)
        .collect();
    if users.is_empty() {
        remove_skill(&mut report, places, &dir);
    } else {
        report.push(Mark::Skipped, format!("skill kept ({}): {} still uses it", places.show(&dir), users.join(", ")));
    }
    report
}

/// A file devcoach cannot read as JSON (JSONC with comments, a hand edit gone wrong) that does
/// not even mention devcoach holds nothing to take back: uninstall says so instead of failing.
fn mentions_devcoach(path: &Path) -> bool {
    crate::config::read_config(path)
        .is_none_or(|bytes| String::from_utf8_lossy(&bytes).to_ascii_lowercase().contains("devcoach"))
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
        && let Some(cli) = client_cli::find(places, name)
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
    let had_key = crate::ledger::recorded_backup(&file)
        .and_then(|bak| crate::config::read_config(&bak))
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
    let toml = crate::config::read_config_text(&places.codex_config());
    if codex::server_command(&toml).is_none() {
        return report.push(Mark::Unchanged, "no MCP server entry");
    }
    match client_cli::find(places, "codex") {
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
    if !shape.grouped && doc.root.len() == 1 && doc.root.contains_key("version") && crate::ledger::created_by_us(path) {
        doc.root.clear();
    }
    match doc.save() {
        Ok(saved) => {
            report.push(
                Mark::Done,
                format!(
                    "{} removed ({})",
                    if removed == 1 { "1 hook".to_owned() } else { format!("{removed} hooks") },
                    saved_text(places, &doc, &saved)
                ),
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
