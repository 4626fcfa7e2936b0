//! Every agent devcoach wires itself into, one row each. Everything else about agents is derived
//! from these rows: the hook subcommands and their answers, `install`/`uninstall` and their flags,
//! the doctor's list, the skill folders, the README's table (drift-tested). Adding an agent is a
//! row here, its payload fixtures under `tests/fixtures/hooks/`, and its rows in the README's
//! agent table and `docs/agents.md`.

use crate::hook_entries::Shape;

/// Where an agent keeps its own folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// A folder under the home directory.
    Home(&'static str),
    /// The folder an environment variable names, else one under the home directory.
    EnvOrHome(&'static str, &'static str),
    /// A folder under `$XDG_CONFIG_HOME` (else `~/.config`), on every system.
    XdgConfig(&'static str),
    /// A desktop application's settings folder: `~/Library/Application Support/<name>` on macOS,
    /// `%APPDATA%\<name>` on Windows, `$XDG_CONFIG_HOME/<name>` elsewhere. Such an agent is
    /// written only when its folder exists or it was named.
    App(&'static str),
}

/// The file holding an agent's MCP server list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpFile {
    /// A file in the agent's folder.
    In(&'static str),
    /// `<name>.json` in the agent's folder, else an existing `<name>.jsonc` (the agent reads either).
    JsonOrJsonc(&'static str),
    /// Claude Code's own state file: `.claude.json` in `CLAUDE_CONFIG_DIR` when that is set,
    /// else in the home directory.
    ClaudeState,
}

/// An agent's own `mcp add`/`mcp remove`, run instead of editing its file when it is on `PATH`.
/// `{program}` stands for devcoach's path; `{trust}` for `--trust` when the server is trusted
/// (the word is dropped otherwise). A word holding `{program}` and more text takes a path
/// without spaces only; any other path is written to the file directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpCli {
    pub add: &'static [&'static str],
    pub remove: &'static [&'static str],
}

/// How devcoach's MCP server is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mcp {
    /// An entry `devcoach` under `key` in a JSON file: `entry` is its JSON with `{program}` for
    /// devcoach's path, the way the agent's own `mcp add` writes it.
    Json { file: McpFile, key: &'static str, entry: &'static str, cli: Option<McpCli> },
    /// Codex's TOML, which devcoach never edits: `codex mcp add`, or a snippet to paste.
    CodexToml,
}

/// One hook event: its name in the agent, and the timeout written with it (in the agent's unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub name: &'static str,
    pub timeout: u64,
}

/// How devcoach's hooks reach the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hooks {
    /// None at all (the MCP server only).
    None,
    /// Entries in a JSON file in the agent's folder.
    Json { file: &'static str, shape: Shape, stop: Event, prompt: Event },
    /// devcoach's JS plugin, written to this file in the agent's folder; it runs the hook
    /// subcommands itself.
    Plugin { file: &'static str },
}

/// Where an agent loads devcoach's skill from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skill {
    None,
    /// `~/.agents/skills/devcoach`, which several agents share.
    Shared,
    /// A folder in the agent's own folder.
    In(&'static str),
}

/// A devcoach package of the agent's own kind that, once installed, brings part of the wiring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Package {
    /// A Claude Code plugin `devcoach@…` enabled in `settings.json`: it brings the hooks.
    ClaudePlugin,
    /// The Gemini CLI extension: it brings the hooks and the skill.
    GeminiExtension,
    /// The Copilot CLI plugin: it brings everything.
    CopilotPlugin,
    /// The Qwen Code extension: it brings everything.
    QwenExtension,
}

impl Package {
    /// What its users call it.
    pub fn word(self) -> &'static str {
        match self {
            Self::ClaudePlugin | Self::CopilotPlugin => "plugin",
            Self::GeminiExtension | Self::QwenExtension => "extension",
        }
    }

    /// Whether it brings the MCP server too (then install writes nothing).
    pub fn brings_server(self) -> bool {
        matches!(self, Self::CopilotPlugin | Self::QwenExtension)
    }

    /// Whether it brings the skill.
    pub fn brings_skill(self) -> bool {
        !matches!(self, Self::ClaudePlugin)
    }
}

/// How a stop hook that wants a lesson answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// `{"decision": word, "reason": …}`, with the status line in `systemMessage` when the
    /// agent shows it.
    Decision { word: &'static str, status_line: bool },
    /// `{"followup_message": …}`: sent as the next message (Cursor).
    Followup,
}

/// How a prompt hook adds context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prime {
    /// `{"hookSpecificOutput": {"hookEventName": event, "additionalContext": …}}`.
    Nested { event: &'static str },
    /// `{"additionalContext": …}` (the agent applies only the flat form).
    Flat,
    /// `{"continue": true, "additional_context": …}` (Cursor).
    Cursor,
}

/// How `doctor` looks at an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doctor {
    /// From its row alone, as every agent is read: the server entry or package, the plugin,
    /// the hooks, the skill, the trust switch and the notes. Shown when its folder exists.
    FromRow,
    /// A section of its own in `doctor/` as well as the row's facts (package versions, practice
    /// hooks, Codex's hook approvals, Claude Desktop's log): checks only this agent needs.
    Own,
}

/// Everything devcoach knows about one agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// Its name, as its users know it.
    pub label: &'static str,
    /// `install --<flag>` / `uninstall --<flag>`.
    pub flag: &'static str,
    /// Its short name: the prefix of its hook subcommands and of the plugin's, and the agent a
    /// work session is recorded under.
    pub slug: &'static str,
    /// Its command-line program, looked for on `PATH` (`install --all-detected`, `mcp add`).
    pub program: Option<&'static str>,
    pub dir: Dir,
    pub mcp: Mcp,
    /// The stop and prompt hook subcommands (`None`: the agent runs no hooks of ours).
    pub hook_names: Option<(&'static str, &'static str)>,
    pub hooks: Hooks,
    pub skill: Skill,
    pub package: Option<Package>,
    pub block: Block,
    pub prime: Prime,
    /// How a cue tells the agent to load the skill.
    pub use_skill: &'static str,
    /// Whether the agent keeps a per-server trust switch that decides what headless runs offer.
    pub trust: bool,
    /// Said after the hooks are written (a step the user must take for them to run).
    pub hook_note: Option<&'static str>,
    /// Said at the end of its install: what it cannot do, and steps the user must take there.
    pub notes: &'static [&'static str],
    /// What `doctor` reads for it.
    pub doctor: Doctor,
}

/// Declares the agents: the enum, `Agent::ALL` in this order, and each one's row.
macro_rules! agents {
    ($($(#[$doc:meta])* $name:ident => $spec:expr,)+) => {
        /// An agent devcoach can wire itself into.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Agent { $($(#[$doc])* $name,)+ }

        impl Agent {
            pub const ALL: &'static [Self] = &[$(Self::$name,)+];

            /// Its row.
            pub const fn spec(self) -> &'static Spec {
                // A const item per row: a row may be built by a `const fn` (as the plugin agents are).
                match self { $(Self::$name => { const ROW: Spec = $spec; &ROW })+ }
            }
        }
    };
}

const NO_MCP_CLI: Option<McpCli> = None;
const PLAIN_ENTRY: &str = r#"{"command": "{program}", "args": ["mcp"]}"#;
const STOP: Event = Event { name: "Stop", timeout: 60 };
const PROMPT: Event = Event { name: "UserPromptSubmit", timeout: 30 };
const DECISION: Block = Block::Decision { word: "block", status_line: false };
const NESTED_PRIME: Prime = Prime::Nested { event: "UserPromptSubmit" };
const ACTIVATE: &str = "Activate the `devcoach` skill";
const PLUGIN_NOTE: &str = "the plugin sends a due lesson's cue when a session goes idle, which continues the \
    session in the interface and under `serve`; a one-shot `run` exits at idle, so the cue waits for the next \
    prompt";

/// OpenCode and Kilo Code, which share their shape: a folder under `$XDG_CONFIG_HOME` named
/// `name`, `<name>.json` (or `.jsonc`) holding `mcp`, devcoach's plugin in its `plugin/` folder,
/// the shared skill. `name` is also the flag, the slug and the program.
const fn plugin_agent(label: &'static str, name: &'static str, hook_names: (&'static str, &'static str)) -> Spec {
    Spec {
        label,
        flag: name,
        slug: name,
        program: Some(name),
        dir: Dir::XdgConfig(name),
        mcp: Mcp::Json {
            file: McpFile::JsonOrJsonc(name),
            key: "mcp",
            // The command line as one array.
            entry: r#"{"type": "local", "command": ["{program}", "mcp"]}"#,
            cli: NO_MCP_CLI,
        },
        hook_names: Some(hook_names),
        hooks: Hooks::Plugin { file: "plugin/devcoach.js" },
        skill: Skill::Shared,
        package: None,
        block: DECISION,
        // The plugin reads the flat form.
        prime: Prime::Flat,
        use_skill: "Load the `devcoach` skill with the skill tool",
        trust: false,
        hook_note: None,
        notes: &[PLUGIN_NOTE],
        doctor: Doctor::FromRow,
    }
}

agents! {
    ClaudeCode => Spec {
        label: "Claude Code",
        flag: "claude-code",
        slug: "claude",
        program: Some("claude"),
        dir: Dir::EnvOrHome("CLAUDE_CONFIG_DIR", ".claude"),
        mcp: Mcp::Json {
            file: McpFile::ClaudeState,
            key: "mcpServers",
            entry: r#"{"type": "stdio", "command": "{program}", "args": ["mcp"], "env": {}}"#,
            cli: Some(McpCli {
                add: &["mcp", "add", "--scope", "user", "devcoach", "{program}", "--", "mcp"],
                remove: &["mcp", "remove", "--scope", "user", "devcoach"],
            }),
        },
        hook_names: Some(("stop-hook", "prompt-hook")),
        hooks: Hooks::Json { file: "settings.json", shape: Shape::NESTED, stop: STOP, prompt: PROMPT },
        skill: Skill::In("skills/devcoach"),
        package: Some(Package::ClaudePlugin),
        block: Block::Decision { word: "block", status_line: true },
        prime: NESTED_PRIME,
        use_skill: "Invoke the `devcoach` skill with the Skill tool",
        trust: false,
        hook_note: None,
        notes: &[],
        doctor: Doctor::Own,
    },
    ClaudeDesktop => Spec {
        label: "Claude Desktop",
        flag: "claude-desktop",
        slug: "claude-desktop",
        program: None,
        dir: Dir::App("Claude"),
        mcp: Mcp::Json { file: McpFile::In("claude_desktop_config.json"), key: "mcpServers", entry: PLAIN_ENTRY, cli: NO_MCP_CLI },
        hook_names: None,
        hooks: Hooks::None,
        skill: Skill::None,
        package: None,
        block: DECISION,
        prime: NESTED_PRIME,
        use_skill: ACTIVATE,
        trust: false,
        hook_note: None,
        notes: &["restart Claude Desktop to load the server"],
        doctor: Doctor::Own,
    },
    Gemini => Spec {
        label: "Gemini CLI",
        flag: "gemini",
        slug: "gemini",
        program: Some("gemini"),
        dir: Dir::Home(".gemini"),
        mcp: Mcp::Json {
            file: McpFile::In("settings.json"),
            key: "mcpServers",
            entry: PLAIN_ENTRY,
            cli: Some(McpCli {
                add: &["mcp", "add", "-s", "user", "{trust}", "devcoach", "{program}", "mcp"],
                remove: &["mcp", "remove", "-s", "user", "devcoach"],
            }),
        },
        hook_names: Some(("gemini-stop-hook", "gemini-prompt-hook")),
        // Gemini counts its timeouts in milliseconds.
        hooks: Hooks::Json {
            file: "settings.json",
            shape: Shape::NESTED,
            stop: Event { name: "AfterAgent", timeout: 60_000 },
            prompt: Event { name: "BeforeAgent", timeout: 30_000 },
        },
        skill: Skill::Shared,
        package: Some(Package::GeminiExtension),
        block: Block::Decision { word: "deny", status_line: true },
        prime: Prime::Nested { event: "BeforeAgent" },
        use_skill: "Activate the `devcoach` skill with the activate_skill tool",
        trust: true,
        hook_note: None,
        notes: &["Gemini CLI turns MCP servers and hooks off in folders you have not trusted: trust your project \
                  folders when it asks, or devcoach stays silent there"],
        doctor: Doctor::Own,
    },
    Codex => Spec {
        label: "Codex CLI",
        flag: "codex",
        slug: "codex",
        program: Some("codex"),
        dir: Dir::Home(".codex"),
        mcp: Mcp::CodexToml,
        hook_names: Some(("codex-stop-hook", "codex-prompt-hook")),
        hooks: Hooks::Json { file: "hooks.json", shape: Shape::NESTED, stop: STOP, prompt: PROMPT },
        skill: Skill::Shared,
        package: None,
        block: Block::Decision { word: "block", status_line: true },
        prime: NESTED_PRIME,
        use_skill: ACTIVATE,
        trust: false,
        hook_note: Some("Codex runs new hooks only after you approve them: start `codex` and accept the devcoach \
                         hooks when it asks (`devcoach doctor` shows whether they are trusted)"),
        notes: &[],
        doctor: Doctor::Own,
    },
    Copilot => Spec {
        label: "Copilot CLI",
        flag: "copilot",
        slug: "copilot",
        program: Some("copilot"),
        dir: Dir::EnvOrHome("COPILOT_HOME", ".copilot"),
        mcp: Mcp::Json {
            file: McpFile::In("mcp-config.json"),
            key: "mcpServers",
            entry: r#"{"type": "local", "command": "{program}", "args": ["mcp"], "env": {}, "tools": ["*"]}"#,
            cli: Some(McpCli {
                add: &["mcp", "add", "devcoach", "--", "{program}", "mcp"],
                remove: &["mcp", "remove", "devcoach"],
            }),
        },
        hook_names: Some(("copilot-stop-hook", "copilot-prompt-hook")),
        // Copilot CLI reads every file in its hooks folder, so devcoach keeps its own file there.
        hooks: Hooks::Json {
            file: "hooks/devcoach.json",
            shape: Shape::COPILOT,
            stop: Event { name: "agentStop", timeout: 60 },
            prompt: Event { name: "userPromptSubmitted", timeout: 30 },
        },
        skill: Skill::Shared,
        package: Some(Package::CopilotPlugin),
        block: DECISION,
        // Copilot CLI applies only a flat `additionalContext`.
        prime: Prime::Flat,
        use_skill: ACTIVATE,
        trust: false,
        hook_note: None,
        notes: &["Copilot CLI runs the hooks and server in ~/.copilot in every folder; it asks you to trust a \
                  folder before working there (hooks or servers a repository brings run only in trusted folders)"],
        doctor: Doctor::FromRow,
    },
    Qwen => Spec {
        label: "Qwen Code",
        flag: "qwen",
        slug: "qwen",
        program: Some("qwen"),
        dir: Dir::Home(".qwen"),
        // Qwen Code otherwise defers a server's tools behind its tool search: the model would see
        // their names only, and the cue asks it to call them. Its `mcp add` cannot ask for that,
        // so the file is written directly.
        mcp: Mcp::Json {
            file: McpFile::In("settings.json"),
            key: "mcpServers",
            entry: r#"{"command": "{program}", "args": ["mcp"], "alwaysLoadTools": true}"#,
            cli: NO_MCP_CLI,
        },
        hook_names: Some(("qwen-stop-hook", "qwen-prompt-hook")),
        hooks: Hooks::Json { file: "settings.json", shape: Shape::NESTED, stop: STOP, prompt: PROMPT },
        skill: Skill::Shared,
        package: Some(Package::QwenExtension),
        block: DECISION,
        prime: NESTED_PRIME,
        use_skill: ACTIVATE,
        trust: false,
        hook_note: None,
        notes: &["with folder trust on (security.folderTrust), Qwen Code starts no MCP server in a folder you have \
                  not trusted (its hooks still run): trust your project folders when it asks, or the cue names \
                  tools the model does not have"],
        doctor: Doctor::FromRow,
    },
    Droid => Spec {
        label: "Droid",
        flag: "droid",
        slug: "droid",
        program: Some("droid"),
        dir: Dir::Home(".factory"),
        mcp: Mcp::Json {
            file: McpFile::In("mcp.json"),
            key: "mcpServers",
            entry: r#"{"type": "stdio", "command": "{program}", "args": ["mcp"], "disabled": false}"#,
            // Droid takes the command line as one string.
            cli: Some(McpCli { add: &["mcp", "add", "devcoach", "{program} mcp"], remove: &["mcp", "remove", "devcoach"] }),
        },
        hook_names: Some(("droid-stop-hook", "droid-prompt-hook")),
        hooks: Hooks::Json { file: "hooks.json", shape: Shape::TOP_LEVEL, stop: STOP, prompt: PROMPT },
        skill: Skill::Shared,
        package: None,
        block: DECISION,
        prime: NESTED_PRIME,
        use_skill: ACTIVATE,
        trust: false,
        hook_note: None,
        notes: &["Droid runs the prompt hook only in sessions driven over its JSON-RPC interface, not under plain \
                  `droid exec`: the end-of-turn cue comes either way. It lists devcoach's tools for its tool \
                  search rather than loading them, so the model looks them up first; under `droid exec` they run \
                  only with `--auto high`"],
        doctor: Doctor::FromRow,
    },
    Cursor => Spec {
        label: "Cursor",
        flag: "cursor",
        slug: "cursor",
        program: Some("cursor-agent"),
        dir: Dir::Home(".cursor"),
        mcp: Mcp::Json { file: McpFile::In("mcp.json"), key: "mcpServers", entry: PLAIN_ENTRY, cli: NO_MCP_CLI },
        hook_names: Some(("cursor-stop-hook", "cursor-prompt-hook")),
        // Cursor takes no timeout.
        hooks: Hooks::Json {
            file: "hooks.json",
            shape: Shape::CURSOR,
            stop: Event { name: "stop", timeout: 0 },
            prompt: Event { name: "beforeSubmitPrompt", timeout: 0 },
        },
        skill: Skill::In("skills/devcoach"),
        package: None,
        block: Block::Followup,
        prime: Prime::Cursor,
        use_skill: ACTIVATE,
        trust: false,
        hook_note: None,
        notes: &["restart Cursor (or start a new cursor-agent session) to load the server and hooks"],
        doctor: Doctor::FromRow,
    },
    OpenCode => plugin_agent("OpenCode", "opencode", ("opencode-stop-hook", "opencode-prompt-hook")),
    Kilo => plugin_agent("Kilo Code", "kilo", ("kilo-stop-hook", "kilo-prompt-hook")),
}

impl Agent {
    pub fn label(self) -> &'static str {
        self.spec().label
    }

    pub fn program(self) -> Option<&'static str> {
        self.spec().program
    }

    /// The agent whose hook subcommand this is, and whether it is the stop hook (else the prompt
    /// hook).
    pub fn by_hook_name(name: &str) -> Option<(Self, bool)> {
        Self::ALL.iter().find_map(|&agent| {
            let (stop, prompt) = agent.spec().hook_names?;
            if name == stop {
                Some((agent, true))
            } else if name == prompt {
                Some((agent, false))
            } else {
                None
            }
        })
    }

    /// The agent named by `--<flag>`.
    pub fn by_flag(flag: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|a| a.spec().flag == flag)
    }

    /// The hooks devcoach registers for it: (event, subcommand, timeout in the agent's unit).
    pub fn hook_plan(self) -> Vec<(&'static str, &'static str, u64)> {
        match (self.spec().hooks, self.spec().hook_names) {
            (Hooks::Json { stop, prompt, .. }, Some((stop_hook, prompt_hook))) => {
                vec![(stop.name, stop_hook, stop.timeout), (prompt.name, prompt_hook, prompt.timeout)]
            }
            _ => Vec::new(),
        }
    }

    /// What `install --<flag>` wires, for its help line.
    pub fn wires(self) -> String {
        let spec = self.spec();
        let mut parts = vec!["MCP server".to_owned()];
        match spec.hooks {
            Hooks::Json { stop, prompt, .. } => parts.push(format!("{} and {} hooks", stop.name, prompt.name)),
            Hooks::Plugin { .. } => parts.push("devcoach's plugin".to_owned()),
            Hooks::None => {}
        }
        if spec.skill != Skill::None {
            parts.push("skill".to_owned());
        }
        format!("{} ({})", spec.label, parts.join(", "))
    }
}

/// Agents devcoach does not wire itself into, found by their folder: what devcoach can do
/// there, for doctor. (folder under home, name, what to say)
pub const UNWIRED: &[(&str, &str, &str)] = &[
    (
        ".cline",
        "Cline",
        "Cline's hooks can neither continue a turn nor add context, so there are no lesson cues: add the \
         server with `cline mcp add devcoach --yes -- <devcoach> mcp` and copy the skill to ~/.cline/skills/devcoach \
         (ask for lessons yourself)",
    ),
    (
        ".codeium/windsurf",
        "Windsurf",
        "Windsurf's hooks cannot continue or inject, so MCP only: add devcoach to \
         ~/.codeium/windsurf/mcp_config.json (`{\"mcpServers\": {\"devcoach\": {\"command\": \"<devcoach>\", \"args\": [\"mcp\"]}}}`)",
    ),
    (
        ".augment",
        "Auggie",
        "Auggie discards a Stop hook's answer, so MCP only: register `<devcoach> mcp` as an MCP server there",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_whole_and_its_names_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for &agent in Agent::ALL {
            let spec = agent.spec();
            for name in [spec.label, spec.flag, spec.slug] {
                assert!(!name.is_empty(), "{agent:?}");
            }
            assert!(seen.insert(spec.flag), "flag {} twice", spec.flag);
            assert!(spec.flag.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", spec.flag);
            assert!(!spec.use_skill.is_empty() && spec.use_skill.contains("`devcoach` skill"));
            if let Mcp::Json { entry, cli, key, .. } = spec.mcp {
                let value: serde_json::Value = serde_json::from_str(entry).expect("entry is JSON");
                // The program is a whole string value (a list item or `command`): that is what
                // install fills in.
                let whole = value["command"] == "{program}" || value["command"][0] == "{program}";
                assert!(whole, "{agent:?}: the entry's command is not `{{program}}`");
                assert_eq!(value.to_string().matches("{program}").count(), 1, "{agent:?}");
                assert!(!key.is_empty());
                if let Some(cli) = cli {
                    assert!(spec.program.is_some(), "{agent:?}: an mcp command needs the program");
                    assert!(cli.add.iter().any(|w| w.contains("{program}")), "{agent:?}");
                    assert!(!cli.remove.is_empty());
                }
            }
            // Hooks of any kind need subcommands to run; an agent without hooks has none.
            assert_eq!(spec.hooks == Hooks::None, spec.hook_names.is_none(), "{agent:?}");
            if let Some((stop, prompt)) = spec.hook_names {
                let prefix = if agent == Agent::ClaudeCode { String::new() } else { format!("{}-", spec.slug) };
                assert_eq!(stop, format!("{prefix}stop-hook"));
                assert_eq!(prompt, format!("{prefix}prompt-hook"));
                assert_eq!(Agent::by_hook_name(stop), Some((agent, true)));
                assert_eq!(Agent::by_hook_name(prompt), Some((agent, false)));
                assert!(seen.insert(stop) && seen.insert(prompt));
            }
            assert_eq!(Agent::by_flag(spec.flag), Some(agent));
            assert!(agent.wires().starts_with(spec.label));
        }
        assert_eq!(Agent::by_hook_name("lessons"), None);
    }
}
