//! What each agent can and cannot do with devcoach, and the step the user must take there: said
//! by `install` when it wires the agent and by `doctor` when it finds it. Facts per agent are in
//! `docs/agents.md`.

use super::Agent;

/// Notes `install` prints after wiring the agent.
pub fn install_notes(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Copilot => {
            &["Copilot CLI runs the hooks and server in ~/.copilot in every folder; it asks you to trust a folder \
             before working there (hooks or servers a repository brings run only in trusted folders)"]
        }
        Agent::Qwen => {
            &["with folder trust on (security.folderTrust), Qwen Code starts no MCP server in a folder you have not \
             trusted (its hooks still run): trust your project folders when it asks, or the cue names tools the \
             model does not have"]
        }
        Agent::Droid => {
            &["Droid runs the prompt hook only in sessions driven over its JSON-RPC interface, not under plain \
             `droid exec`: the end-of-turn cue comes either way. It lists devcoach's tools for its tool search \
             rather than loading them, so the model looks them up first; under `droid exec` they run only with \
             `--auto high`"]
        }
        Agent::OpenCode | Agent::Kilo => {
            &["the plugin sends a due lesson's cue when a session goes idle, which continues the session in the \
             interface and under `serve`; a one-shot `run` exits at idle, so the cue waits for the next prompt"]
        }
        Agent::Cursor => &["restart Cursor (or start a new cursor-agent session) to load the server and hooks"],
        _ => &[],
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
