//! Where each agent keeps its files on this machine, from the table's rows and the environment,
//! and what is wired there now.

use std::path::{Path, PathBuf};

use devcoach_core::limits;

use crate::hook_entries::Shape;
use crate::table::{Agent, Dir, Hooks, Mcp, McpFile, Package, Skill};
use crate::{AgentsError, client_cli, config, hook_entries, plugin, skill};

/// The agents set up on this machine: their folder exists, or their program is on PATH.
pub fn detected(places: &Places) -> Vec<Agent> {
    Agent::ALL
        .iter()
        .copied()
        .filter(|&agent| {
            places.agent_dir(agent).is_dir() || agent.program().is_some_and(|p| client_cli::find(places, p).is_some())
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
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    xdg_config: PathBuf,
    /// Where desktop applications keep their settings on this system.
    app_config: PathBuf,
    /// The variables the table's `Dir::EnvOrHome` rows name, as they were set.
    vars: Vec<(&'static str, PathBuf)>,
    /// Claude Desktop's logs folder, where it writes `mcp-server-<name>.log` for each server.
    pub desktop_logs: PathBuf,
    /// Where the agents' own programs are looked for (`PATH`).
    pub path_var: std::ffi::OsString,
}

impl Places {
    pub fn from_env() -> Result<Self, AgentsError> {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or(AgentsError::NoHome)?;
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let xdg_config = var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
        let (app_config, desktop_logs) = if cfg!(target_os = "macos") {
            (home.join("Library/Application Support"), home.join("Library/Logs/Claude"))
        } else if cfg!(windows) {
            let appdata = var("APPDATA").unwrap_or_else(|| home.join("AppData/Roaming"));
            (appdata.clone(), appdata.join("Claude/logs"))
        } else {
            (xdg_config.clone(), xdg_config.join("Claude/logs"))
        };
        let vars = Agent::ALL
            .iter()
            .filter_map(|a| match a.spec().dir {
                Dir::EnvOrHome(name, _) => var(name).map(|v| (name, v)),
                _ => None,
            })
            .collect();
        let path_var = std::env::var_os("PATH").unwrap_or_default();
        Ok(Self { home, xdg_config, app_config, vars, desktop_logs, path_var })
    }

    /// The places under `home` as a fresh account has them: no variable moves a folder, and no
    /// agent program is found (everything is written to the files directly).
    pub fn at(home: &Path) -> Self {
        let xdg_config = home.join(".config");
        let app_config = if cfg!(target_os = "macos") {
            home.join("Library/Application Support")
        } else if cfg!(windows) {
            home.join("AppData/Roaming")
        } else {
            xdg_config.clone()
        };
        let desktop_logs =
            if cfg!(target_os = "macos") { home.join("Library/Logs/Claude") } else { app_config.join("Claude/logs") };
        Self {
            home: home.to_owned(),
            desktop_logs,
            xdg_config,
            app_config,
            vars: Vec::new(),
            path_var: std::ffi::OsString::new(),
        }
    }

    fn var(&self, name: &str) -> Option<&Path> {
        self.vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_path())
    }

    /// The agent's own folder: its presence means the agent is set up on this machine.
    pub fn agent_dir(&self, agent: Agent) -> PathBuf {
        match agent.spec().dir {
            Dir::Home(rel) => self.home.join(rel),
            Dir::EnvOrHome(name, rel) => self.var(name).map_or_else(|| self.home.join(rel), Path::to_owned),
            Dir::XdgConfig(rel) => self.xdg_config.join(rel),
            Dir::App(name) => self.app_config.join(name),
        }
    }

    pub fn claude_dir(&self) -> PathBuf {
        self.agent_dir(Agent::ClaudeCode)
    }

    /// Claude Code's own state file, where `claude mcp add --scope user` writes.
    pub fn claude_json(&self) -> PathBuf {
        match self.var("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir.join(".claude.json"),
            None => self.home.join(".claude.json"),
        }
    }

    pub fn claude_settings(&self) -> PathBuf {
        self.claude_dir().join("settings.json")
    }

    pub fn claude_skill(&self) -> PathBuf {
        self.claude_dir().join("skills/devcoach")
    }

    pub fn desktop_config(&self) -> PathBuf {
        self.mcp_file(Agent::ClaudeDesktop).unwrap_or_default()
    }

    pub fn gemini_dir(&self) -> PathBuf {
        self.agent_dir(Agent::Gemini)
    }

    pub fn gemini_settings(&self) -> PathBuf {
        self.gemini_dir().join("settings.json")
    }

    /// Present when the devcoach Gemini extension is installed (it brings hooks and skill).
    pub fn gemini_extension(&self) -> PathBuf {
        self.gemini_dir().join("extensions/devcoach/gemini-extension.json")
    }

    pub fn codex_dir(&self) -> PathBuf {
        self.agent_dir(Agent::Codex)
    }

    pub fn codex_hooks(&self) -> PathBuf {
        self.hook_file(Agent::Codex).map(|(p, _)| p).unwrap_or_default()
    }

    pub fn codex_config(&self) -> PathBuf {
        self.codex_dir().join("config.toml")
    }

    /// The skill directory several agents share.
    pub fn agents_skill(&self) -> PathBuf {
        self.home.join(".agents/skills/devcoach")
    }

    /// The JSON file holding the agent's MCP servers; `None` for Codex's TOML.
    pub fn mcp_file(&self, agent: Agent) -> Option<PathBuf> {
        let Mcp::Json { file, .. } = agent.spec().mcp else { return None };
        let dir = self.agent_dir(agent);
        Some(match file {
            McpFile::In(rel) => dir.join(rel),
            McpFile::JsonOrJsonc(name) => {
                let json = dir.join(format!("{name}.json"));
                let jsonc = dir.join(format!("{name}.jsonc"));
                if !json.exists() && jsonc.exists() { jsonc } else { json }
            }
            McpFile::ClaudeState => self.claude_json(),
        })
    }

    /// The key under which the agent lists its MCP servers.
    pub fn mcp_key(agent: Agent) -> &'static str {
        match agent.spec().mcp {
            Mcp::Json { key, .. } => key,
            Mcp::CodexToml => "mcp_servers",
        }
    }

    /// Every place devcoach writes for the agent (folders and files), for uninstall to know what
    /// it may give back.
    pub fn roots(&self, agent: Agent) -> Vec<PathBuf> {
        let mut roots = vec![self.agent_dir(agent)];
        roots.extend(self.mcp_file(agent));
        roots.extend(self.hook_file(agent).map(|(path, _)| path));
        roots.extend(self.plugin_file(agent));
        roots.extend(self.skill_dir(agent));
        if agent.spec().mcp == Mcp::CodexToml {
            roots.push(self.codex_config());
        }
        roots.retain(|p| !p.as_os_str().is_empty());
        roots
    }

    /// The plugin file devcoach writes for an agent that takes plugins instead of hook commands.
    pub fn plugin_file(&self, agent: Agent) -> Option<PathBuf> {
        match agent.spec().hooks {
            Hooks::Plugin { file } => Some(self.agent_dir(agent).join(file)),
            _ => None,
        }
    }

    /// The JSON file holding the agent's hooks, and their shape there.
    pub fn hook_file(&self, agent: Agent) -> Option<(PathBuf, Shape)> {
        match agent.spec().hooks {
            Hooks::Json { file, shape, .. } => Some((self.agent_dir(agent).join(file), shape)),
            _ => None,
        }
    }

    /// Where the agent loads devcoach's skill from.
    pub fn skill_dir(&self, agent: Agent) -> Option<PathBuf> {
        match agent.spec().skill {
            Skill::None => None,
            Skill::Shared => Some(self.agents_skill()),
            Skill::In(rel) => Some(self.agent_dir(agent).join(rel)),
        }
    }

    /// `path` with the home directory shown as `~`.
    pub fn show(&self, path: &Path) -> String {
        match path.strip_prefix(&self.home) {
            Ok(rest) if !self.home.as_os_str().is_empty() => format!("~/{}", rest.display()),
            _ => path.display().to_string(),
        }
    }
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

/// devcoach's own package of the agent's kind, when it is installed there (see [`Package`]:
/// what it brings, install leaves to it).
pub fn package_present(places: &Places, agent: Agent) -> Option<Package> {
    let package = agent.spec().package?;
    let dir = places.agent_dir(agent);
    let present = match package {
        Package::ClaudePlugin => config::JsonDoc::load_existing(&places.claude_settings())
            .ok()
            .flatten()
            .is_some_and(|doc| !claude_plugins_enabled(&doc.root).is_empty()),
        Package::GeminiExtension => dir.join("extensions/devcoach/gemini-extension.json").is_file(),
        Package::QwenExtension => dir.join("extensions/devcoach/qwen-extension.json").is_file(),
        Package::CopilotPlugin => {
            // Copilot keeps its plugin list in a JSON file that starts with `//` comments.
            let Ok(bytes) = devcoach_files::read(
                &dir.join("config.json"),
                limits::AGENT_CONFIG_BYTES,
                devcoach_files::Links::Follow,
            ) else {
                return None;
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
    };
    present.then_some(package)
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
    for &agent in Agent::ALL {
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
