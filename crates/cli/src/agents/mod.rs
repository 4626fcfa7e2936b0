//! Wiring devcoach into the agent CLIs: where each keeps its configuration, what devcoach
//! writes there, and how to read it back. `commands::install` prints what these functions do.

pub mod client_cli;
pub mod codex;
pub mod config;
pub mod doctor;
pub mod gemini;
pub mod hook_entries;
pub mod launch;
pub mod ledger;
pub mod limits;
pub mod plugin;
pub mod skill;
pub mod wire;

use std::path::{Path, PathBuf};

use crate::hooks::texts::Client;
use hook_entries::Shape;

/// The agents devcoach can wire itself into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Agent {
    ClaudeCode,
    ClaudeDesktop,
    Gemini,
    Codex,
    Copilot,
    Qwen,
    Droid,
    Cursor,
    OpenCode,
    Kilo,
}

impl Agent {
    pub const ALL: [Self; 10] = [
        Self::ClaudeCode,
        Self::ClaudeDesktop,
        Self::Gemini,
        Self::Codex,
        Self::Copilot,
        Self::Qwen,
        Self::Droid,
        Self::Cursor,
        Self::OpenCode,
        Self::Kilo,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Self::ClaudeDesktop => "Claude Desktop",
            other => other.client().map_or("?", Client::label),
        }
    }

    /// The hook client it runs as (Claude Desktop has no hooks).
    pub fn client(self) -> Option<Client> {
        Some(match self {
            Self::ClaudeCode => Client::Claude,
            Self::ClaudeDesktop => return None,
            Self::Gemini => Client::Gemini,
            Self::Codex => Client::Codex,
            Self::Copilot => Client::Copilot,
            Self::Qwen => Client::Qwen,
            Self::Droid => Client::Droid,
            Self::Cursor => Client::Cursor,
            Self::OpenCode => Client::OpenCode,
            Self::Kilo => Client::Kilo,
        })
    }

    /// Its own command-line program, looked for by `install --all-detected`.
    pub fn program(self) -> Option<&'static str> {
        Some(match self {
            Self::ClaudeCode => "claude",
            Self::ClaudeDesktop => return None,
            Self::Gemini => "gemini",
            Self::Codex => "codex",
            Self::Copilot => "copilot",
            Self::Qwen => "qwen",
            Self::Droid => "droid",
            Self::Cursor => "cursor-agent",
            Self::OpenCode => "opencode",
            Self::Kilo => "kilo",
        })
    }
}

/// The agents set up on this machine: their folder exists, or their program is on PATH.
pub fn detected(places: &Places) -> Vec<Agent> {
    Agent::ALL
        .into_iter()
        .filter(|&agent| {
            let dir = places.agent_dir(agent);
            (!dir.as_os_str().is_empty() && dir.is_dir())
                || agent.program().is_some_and(|p| client_cli::find(p).is_some())
        })
        .collect()
}

/// Which agents a command acts on: the ones named, or (none named) Claude Code and Claude Desktop.
pub fn select(named: &[Agent]) -> Vec<Agent> {
    if named.is_empty() { vec![Agent::ClaudeCode, Agent::ClaudeDesktop] } else { named.to_vec() }
}

/// Where every agent keeps its files, from the environment (tests point `HOME` at a sandbox).
#[derive(Debug, Clone)]
pub struct Places {
    pub home: PathBuf,
    /// Claude Code's directory (`CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_dir: PathBuf,
    /// Claude Code's own state file, where `claude mcp add --scope user` writes.
    pub claude_json: PathBuf,
    pub desktop_config: PathBuf,
    /// Claude Desktop's logs folder, where it writes `mcp-server-<name>.log` for each server.
    pub desktop_logs: PathBuf,
    pub gemini_dir: PathBuf,
    pub codex_dir: PathBuf,
    /// Copilot CLI's directory (`COPILOT_HOME`, else `~/.copilot`).
    pub copilot_dir: PathBuf,
    pub qwen_dir: PathBuf,
    /// Droid's directory (`~/.factory`).
    pub factory_dir: PathBuf,
    pub cursor_dir: PathBuf,
    /// OpenCode's configuration folder (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`).
    pub opencode_dir: PathBuf,
    /// Kilo Code's (`…/kilo`).
    pub kilo_dir: PathBuf,
    /// The skill directory Gemini CLI, Codex, Copilot CLI, Qwen Code and Droid share.
    pub agents_skill: PathBuf,
}

impl Places {
    pub fn from_env() -> anyhow::Result<Self> {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or_else(|| anyhow::anyhow!("HOME is not set: cannot find the agents' configuration files"))?;
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let claude_dir = var("CLAUDE_CONFIG_DIR").unwrap_or_else(|| home.join(".claude"));
        let claude_json = match var("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir.join(".claude.json"),
            None => home.join(".claude.json"),
        };
        let (desktop_dir, desktop_logs) = if cfg!(target_os = "macos") {
            (home.join("Library/Application Support/Claude"), home.join("Library/Logs/Claude"))
        } else if cfg!(windows) {
            let appdata = var("APPDATA").unwrap_or_else(|| home.join("AppData/Roaming"));
            (appdata.join("Claude"), appdata.join("Claude/logs"))
        } else {
            let config = var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
            (config.join("Claude"), config.join("Claude/logs"))
        };
        Ok(Self {
            claude_json,
            desktop_config: desktop_dir.join("claude_desktop_config.json"),
            desktop_logs,
            gemini_dir: home.join(".gemini"),
            codex_dir: home.join(".codex"),
            copilot_dir: var("COPILOT_HOME").unwrap_or_else(|| home.join(".copilot")),
            qwen_dir: home.join(".qwen"),
            factory_dir: home.join(".factory"),
            cursor_dir: home.join(".cursor"),
            opencode_dir: var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")).join("opencode"),
            kilo_dir: var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")).join("kilo"),
            agents_skill: home.join(".agents/skills/devcoach"),
            claude_dir,
            home,
        })
    }

    pub fn claude_settings(&self) -> PathBuf {
        self.claude_dir.join("settings.json")
    }

    pub fn claude_skill(&self) -> PathBuf {
        self.claude_dir.join("skills/devcoach")
    }

    pub fn gemini_settings(&self) -> PathBuf {
        self.gemini_dir.join("settings.json")
    }

    /// Present when the devcoach Gemini extension is installed (it brings hooks and skill).
    pub fn gemini_extension(&self) -> PathBuf {
        self.gemini_dir.join("extensions/devcoach/gemini-extension.json")
    }

    pub fn codex_hooks(&self) -> PathBuf {
        self.codex_dir.join("hooks.json")
    }

    pub fn codex_config(&self) -> PathBuf {
        self.codex_dir.join("config.toml")
    }

    /// The agent's own directory: its presence means the agent is set up on this machine.
    pub fn agent_dir(&self, agent: Agent) -> PathBuf {
        match agent {
            Agent::ClaudeCode => self.claude_dir.clone(),
            Agent::ClaudeDesktop => self.desktop_config.parent().map_or_else(PathBuf::new, Path::to_owned),
            Agent::Gemini => self.gemini_dir.clone(),
            Agent::Codex => self.codex_dir.clone(),
            Agent::Copilot => self.copilot_dir.clone(),
            Agent::Qwen => self.qwen_dir.clone(),
            Agent::Droid => self.factory_dir.clone(),
            Agent::Cursor => self.cursor_dir.clone(),
            Agent::OpenCode => self.opencode_dir.clone(),
            Agent::Kilo => self.kilo_dir.clone(),
        }
    }

    /// The JSON file holding the agent's MCP servers (`mcpServers.devcoach`); Codex keeps TOML.
    pub fn mcp_file(&self, agent: Agent) -> Option<PathBuf> {
        Some(match agent {
            Agent::ClaudeCode => self.claude_json.clone(),
            Agent::ClaudeDesktop => self.desktop_config.clone(),
            Agent::Gemini => self.gemini_settings(),
            Agent::Codex => return None,
            Agent::Copilot => self.copilot_dir.join("mcp-config.json"),
            Agent::Qwen => self.qwen_settings(),
            Agent::Droid => self.factory_dir.join("mcp.json"),
            Agent::Cursor => self.cursor_dir.join("mcp.json"),
            Agent::OpenCode => plugin_agent_config(&self.opencode_dir, "opencode"),
            Agent::Kilo => plugin_agent_config(&self.kilo_dir, "kilo"),
        })
    }

    /// Every place devcoach writes for the agent (folders and files), for uninstall to know what
    /// it may give back.
    pub fn roots(&self, agent: Agent) -> Vec<PathBuf> {
        let mut roots = vec![self.agent_dir(agent)];
        roots.extend(self.mcp_file(agent));
        roots.extend(self.hook_file(agent).map(|(path, _)| path));
        roots.extend(self.plugin_file(agent));
        roots.extend(self.skill_dir(agent));
        if agent == Agent::Codex {
            roots.push(self.codex_config());
        }
        roots.retain(|p| !p.as_os_str().is_empty());
        roots
    }

    /// The key under which the agent lists its MCP servers (OpenCode and Kilo: `mcp`).
    pub fn mcp_key(agent: Agent) -> &'static str {
        match agent {
            Agent::OpenCode | Agent::Kilo => "mcp",
            _ => "mcpServers",
        }
    }

    /// The plugin file devcoach writes for an agent that takes plugins instead of hook commands.
    pub fn plugin_file(&self, agent: Agent) -> Option<PathBuf> {
        match agent {
            Agent::OpenCode => Some(self.opencode_dir.join("plugin/devcoach.js")),
            Agent::Kilo => Some(self.kilo_dir.join("plugin/devcoach.js")),
            _ => None,
        }
    }

    /// The JSON file holding the agent's hooks, and their shape there. Copilot CLI reads every
    /// file in its hooks folder, so devcoach keeps its own file there.
    pub fn hook_file(&self, agent: Agent) -> Option<(PathBuf, Shape)> {
        Some(match agent {
            Agent::ClaudeCode => (self.claude_settings(), Shape::NESTED),
            Agent::ClaudeDesktop | Agent::OpenCode | Agent::Kilo => return None,
            Agent::Gemini => (self.gemini_settings(), Shape::NESTED),
            Agent::Codex => (self.codex_hooks(), Shape::NESTED),
            Agent::Copilot => (self.copilot_dir.join("hooks/devcoach.json"), Shape::COPILOT),
            Agent::Qwen => (self.qwen_settings(), Shape::NESTED),
            Agent::Droid => (self.factory_dir.join("hooks.json"), Shape::TOP_LEVEL),
            Agent::Cursor => (self.cursor_hooks(), Shape::CURSOR),
        })
    }

    /// Where the agent loads devcoach's skill from (several share `~/.agents/skills`).
    pub fn skill_dir(&self, agent: Agent) -> Option<PathBuf> {
        Some(match agent {
            Agent::ClaudeCode => self.claude_skill(),
            Agent::ClaudeDesktop => return None,
            Agent::Gemini
            | Agent::Codex
            | Agent::Copilot
            | Agent::Qwen
            | Agent::Droid
            | Agent::OpenCode
            | Agent::Kilo => self.agents_skill.clone(),
            Agent::Cursor => self.cursor_dir.join("skills/devcoach"),
        })
    }

    pub fn qwen_settings(&self) -> PathBuf {
        self.qwen_dir.join("settings.json")
    }

    pub fn cursor_hooks(&self) -> PathBuf {
        self.cursor_dir.join("hooks.json")
    }

    /// `path` with the home directory shown as `~`.
    pub fn show(&self, path: &Path) -> String {
        match path.strip_prefix(&self.home) {
            Ok(rest) if !self.home.as_os_str().is_empty() => format!("~/{}", rest.display()),
            _ => path.display().to_string(),
        }
    }
}

/// The hooks devcoach registers for an agent: (event, subcommand, timeout in the agent's unit:
/// seconds, Gemini milliseconds; Cursor takes none). The subcommands are the hook names of the
/// agent's client (`hooks::Hook`), named once there.
pub fn hook_plan(agent: Agent) -> Vec<(&'static str, &'static str, u64)> {
    use crate::hooks::Hook;
    let (stop, prompt, stop_timeout, prompt_timeout) = match agent {
        Agent::ClaudeCode | Agent::Codex | Agent::Qwen | Agent::Droid => ("Stop", "UserPromptSubmit", 60, 30),
        Agent::Gemini => ("AfterAgent", "BeforeAgent", 60_000, 30_000),
        Agent::Copilot => ("agentStop", "userPromptSubmitted", 60, 30),
        Agent::Cursor => ("stop", "beforeSubmitPrompt", 0, 0),
        Agent::ClaudeDesktop | Agent::OpenCode | Agent::Kilo => return Vec::new(),
    };
    let Some(client) = agent.client() else { return Vec::new() };
    vec![(stop, Hook::Stop(client).name(), stop_timeout), (prompt, Hook::Prompt(client).name(), prompt_timeout)]
}

/// Whether `settings.json` enables a devcoach Claude Code plugin (which brings its own hooks).
pub fn claude_plugins_enabled(settings: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    settings
        .get("enabledPlugins")
        .and_then(serde_json::Value::as_object)
        .map(|plugins| {
            plugins
                .iter()
                .filter(|(name, on)| name.starts_with("devcoach@") && truthy(on))
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The installed version of each named plugin, from Claude Code's
/// `plugins/installed_plugins.json` (`{"plugins": {"<name>": [{"version": …}, …]}}`).
pub fn claude_plugin_versions(claude_dir: &Path, names: &[String]) -> Vec<(String, String)> {
    let Ok(Some(doc)) = config::JsonDoc::load_existing(&claude_dir.join("plugins/installed_plugins.json")) else {
        return Vec::new();
    };
    let installed = doc.root.get("plugins").and_then(serde_json::Value::as_object);
    names
        .iter()
        .filter_map(|name| {
            let entries = installed?.get(name)?.as_array()?;
            let version = entries.iter().find_map(|e| e.get("version").and_then(serde_json::Value::as_str))?;
            Some((name.clone(), version.to_owned()))
        })
        .collect()
}

fn truthy(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => false,
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        serde_json::Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// OpenCode's and Kilo's configuration file: `<name>.json`, else an existing `<name>.jsonc`
/// (both agents read either), else the plain `.json` to create.
fn plugin_agent_config(dir: &Path, name: &str) -> PathBuf {
    let json = dir.join(format!("{name}.json"));
    let jsonc = dir.join(format!("{name}.jsonc"));
    if !json.exists() && jsonc.exists() { jsonc } else { json }
}

/// Whether devcoach's own package for the agent is installed there (the Copilot CLI plugin,
/// the Qwen Code extension), which brings the server, hooks and skill itself.
pub fn package_installed(places: &Places, agent: Agent) -> bool {
    match agent {
        Agent::Qwen => places.qwen_dir.join("extensions/devcoach/qwen-extension.json").is_file(),
        Agent::Copilot => {
            // Copilot keeps its plugin list in a JSON file that starts with `//` comments.
            let Ok(bytes) =
                devcoach_files::read(&places.copilot_dir.join("config.json"), 4 << 20, devcoach_files::Links::Follow)
            else {
                return false;
            };
            let text = String::from_utf8_lossy(&bytes);
            let json: String =
                text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            serde_json::from_str::<serde_json::Value>(&json).ok().is_some_and(|v| {
                v["installedPlugins"].as_array().is_some_and(|all| {
                    all.iter().any(|p| p["name"] == "devcoach" && p["enabled"] != serde_json::Value::Bool(false))
                })
            })
        }
        _ => false,
    }
}

/// Whether the agent's hook file carries devcoach's lesson hooks (or, for OpenCode and Kilo,
/// devcoach's plugin is in place).
pub fn hooks_wired(places: &Places, agent: Agent) -> bool {
    if let Some(plugin) = places.plugin_file(agent) {
        return plugin::is_ours(&plugin);
    }
    places.hook_file(agent).is_some_and(|(path, shape)| {
        config::JsonDoc::load_existing(&path)
            .ok()
            .flatten()
            .is_some_and(|d| !hook_entries::find_shaped(&d.root, shape, hook_entries::Family::Lesson).is_empty())
    })
}

/// A one-line nudge when an installed skill is from another version, or missing while hooks
/// that rely on it are wired (shown by the welcome screen and `stats`).
pub fn skill_hint() -> Option<String> {
    let places = Places::from_env().ok()?;
    let mut checks: Vec<(PathBuf, bool)> = Vec::new();
    for agent in Agent::ALL {
        let Some(dir) = places.skill_dir(agent) else { continue };
        let hooks = hooks_wired(&places, agent);
        match checks.iter_mut().find(|(d, _)| *d == dir) {
            Some((_, any)) => *any |= hooks,
            None => checks.push((dir, hooks)),
        }
    }
    checks.into_iter().find_map(|(dir, hooks)| match skill::status(&dir) {
        skill::SkillStatus::Outdated(Some(v)) if v != devcoach_core::APP_VERSION => Some(format!(
            "The devcoach skill in {} is from version {v}: run `devcoach install` to update it.",
            places.show(&dir)
        )),
        skill::SkillStatus::Missing if hooks => Some(format!(
            "Hooks are wired but the devcoach skill is missing from {}: run `devcoach install`.",
            places.show(&dir)
        )),
        _ => None,
    })
}
