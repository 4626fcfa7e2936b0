//! The files of every package that wires devcoach into an agent without `devcoach install`:
//! the Claude Code plugin (and the marketplace entry that lists it), the Gemini CLI and Qwen Code
//! extensions, the Copilot CLI plugin (and its marketplace entry),
//! the Claude Desktop extension manifest, the MCP Registry entry, and the npm packages that
//! carry the binary (`npx -y @devcoach-rs/devcoach mcp`).
//!
//! One source of truth: versions, hook events and timeouts, the skill, and the tool list all
//! come from the code the binary runs. `cargo xtask write-packages <dir>` writes them; a test
//! fails when the committed copies drift from what this module produces.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use devcoach_agents::Agent;

/// One file of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFile {
    /// Relative to the repository root.
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub executable: bool,
}

/// The directories this module owns entirely (nothing else may live in them).
pub const OWNED_DIRS: [&str; 6] = [
    "packaging/claude-plugin",
    "packaging/gemini-extension",
    "packaging/qwen-extension",
    "packaging/copilot-plugin",
    "packaging/claude-desktop",
    "packaging/npm",
];

const REPOSITORY: &str = "https://github.com/devcoach-rs/devcoach";
const DESCRIPTION: &str =
    "A local, private coach: turns the work your agent finishes into short lessons sized to what you know.";
/// The MCP Registry allows at most 100 characters.
const REGISTRY_DESCRIPTION: &str =
    "Local, private coach: turns finished agent work into short lessons sized to what you know";
const REGISTRY_NAME: &str = "io.github.devcoach-rs/devcoach";
/// The hosts that show devcoach's lesson and review cards (MCP Apps), for the manifests.
const CARD_HOSTS: &str = "Claude (web and desktop), ChatGPT, VS Code's chat and Goose";
/// The npm wrapper that carries the binary (see the distribution docs).
const NPM_PACKAGE: &str = "@devcoach-rs/devcoach";
use devcoach_assets::{
    NPM_LAUNCHER, PLUGIN_COMMANDS as COMMANDS, PLUGIN_LAUNCHER as LAUNCHER, PLUGIN_LAUNCHER_CMD as LAUNCHER_CMD,
};
/// The platforms a release builds for: npm's (os, cpu), and the Rust target.
pub const NPM_PLATFORMS: [(&str, &str, &str); 5] = [
    ("linux", "x64", "x86_64-unknown-linux-gnu"),
    ("linux", "arm64", "aarch64-unknown-linux-gnu"),
    ("darwin", "x64", "x86_64-apple-darwin"),
    ("darwin", "arm64", "aarch64-apple-darwin"),
    ("win32", "x64", "x86_64-pc-windows-msvc"),
];

fn json_file(path: &str, value: &Value) -> PackageFile {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    PackageFile { path: path.into(), bytes, executable: false }
}

fn text_file(path: String, text: &str, executable: bool) -> PackageFile {
    PackageFile { path: path.into(), bytes: text.as_bytes().to_vec(), executable }
}

/// The plugin launchers in `{root}/bin`, pinned to this version's npm build (the one they may
/// fall back to): `devcoach-launch` for POSIX shells, and `devcoach-launch.cmd` beside it, which
/// Windows finds for the same command name through PATHEXT.
fn launchers(root: &str) -> [PackageFile; 2] {
    let pin = |text: &str| text.replace("@VERSION@", devcoach_core::APP_VERSION);
    [
        text_file(format!("{root}/bin/devcoach-launch"), &pin(LAUNCHER), true),
        text_file(format!("{root}/bin/devcoach-launch.cmd"), &pin(LAUNCHER_CMD), false),
    ]
}

fn skill_files(root: &str) -> Vec<PackageFile> {
    let mut files = vec![text_file(format!("{root}/skills/devcoach/SKILL.md"), devcoach_mcp::SKILL, false)];
    for (name, text) in devcoach_mcp::SKILL_REFERENCES {
        files.push(text_file(format!("{root}/skills/devcoach/references/{name}"), text, false));
    }
    files
}

/// `hooks/hooks.json` for an agent, each hook running the launcher found under `root_var`.
fn hooks_json(agent: Agent, launcher: &str) -> Value {
    let mut events = serde_json::Map::new();
    for (event, sub, timeout) in agent.hook_plan() {
        events.insert(
            (*event).to_owned(),
            json!([{ "hooks": [{ "type": "command", "command": format!("\"{launcher}\" {sub}"), "timeout": timeout }] }]),
        );
    }
    json!({ "hooks": events })
}

fn claude_plugin() -> Vec<PackageFile> {
    let root = "packaging/claude-plugin";
    let launcher = "${CLAUDE_PLUGIN_ROOT}/bin/devcoach-launch";
    let mut files = vec![
        json_file(
            &format!("{root}/.claude-plugin/plugin.json"),
            &json!({
                "name": "devcoach",
                "version": devcoach_core::APP_VERSION,
                "description": DESCRIPTION,
                "author": { "name": "devcoach contributors", "url": REPOSITORY },
                "homepage": REPOSITORY,
                // Claude Code rejects the whole plugin when this is not a string.
                "repository": REPOSITORY,
                "license": "MIT",
                "keywords": ["learning", "coaching", "mcp", "lessons"]
            }),
        ),
        json_file(
            &format!("{root}/.mcp.json"),
            &json!({ "mcpServers": { "devcoach": { "type": "stdio", "command": launcher, "args": ["mcp"] } } }),
        ),
        json_file(&format!("{root}/hooks/hooks.json"), &hooks_json(Agent::ClaudeCode, launcher)),
    ];
    for (name, text) in COMMANDS {
        files.push(text_file(format!("{root}/commands/{name}"), text, false));
    }
    files.extend(launchers(root));
    files.extend(skill_files(root));
    files
}

/// The marketplace that lets `claude plugin marketplace add devcoach-rs/devcoach` find the plugin.
fn marketplace() -> PackageFile {
    marketplace_file(".claude-plugin/marketplace.json", "./packaging/claude-plugin")
}

/// A marketplace listing the one devcoach plugin at `source` (Claude Code's and Copilot CLI's
/// share the shape).
fn marketplace_file(path: &str, source: &str) -> PackageFile {
    json_file(
        path,
        &json!({
            "name": "devcoach",
            "owner": { "name": "devcoach contributors", "url": REPOSITORY },
            "plugins": [{
                "name": "devcoach",
                "source": source,
                "description": DESCRIPTION,
                "version": devcoach_core::APP_VERSION
            }]
        }),
    )
}

fn gemini_extension() -> Vec<PackageFile> {
    let root = "packaging/gemini-extension";
    let mut files = vec![
        json_file(
            &format!("{root}/gemini-extension.json"),
            &json!({
                "name": "devcoach",
                "version": devcoach_core::APP_VERSION,
                "description": DESCRIPTION,
                "mcpServers": {
                    "devcoach": { "command": "${extensionPath}${/}bin${/}devcoach-launch", "args": ["mcp"] }
                }
            }),
        ),
        // Gemini reads extension hooks from this file only (never from the manifest).
        json_file(
            &format!("{root}/hooks/hooks.json"),
            &hooks_json(Agent::Gemini, "${extensionPath}/bin/devcoach-launch"),
        ),
    ];
    files.extend(launchers(root));
    files.extend(skill_files(root));
    files
}

/// The Qwen Code extension (`qwen extensions install <dir>`): the server with its tools loaded,
/// Claude-style hooks in seconds (Qwen substitutes `${CLAUDE_PLUGIN_ROOT}` in hooks.json), the
/// skill.
fn qwen_extension() -> Vec<PackageFile> {
    let root = "packaging/qwen-extension";
    let mut files = vec![
        json_file(
            &format!("{root}/qwen-extension.json"),
            &json!({
                "name": "devcoach",
                "version": devcoach_core::APP_VERSION,
                "description": DESCRIPTION,
                "mcpServers": {
                    "devcoach": {
                        "command": "${extensionPath}${/}bin${/}devcoach-launch",
                        "args": ["mcp"],
                        "alwaysLoadTools": true
                    }
                }
            }),
        ),
        json_file(
            &format!("{root}/hooks/hooks.json"),
            &hooks_json(Agent::Qwen, "${CLAUDE_PLUGIN_ROOT}/bin/devcoach-launch"),
        ),
    ];
    files.extend(launchers(root));
    files.extend(skill_files(root));
    files
}

/// The Copilot CLI plugin (`copilot plugin install devcoach@devcoach` from this repository's
/// `.github/plugin/marketplace.json`): server, Copilot-shaped hooks, skill.
fn copilot_plugin() -> Vec<PackageFile> {
    let root = "packaging/copilot-plugin";
    let launcher = "${PLUGIN_ROOT}/bin/devcoach-launch";
    let mut events = serde_json::Map::new();
    for (event, sub, timeout) in Agent::Copilot.hook_plan() {
        // As Copilot's own plugins do: the plugin root through `env` (where Copilot expands it),
        // read by the shell Copilot picks, bash or (on Windows) PowerShell 7 with the batch file.
        events.insert(
            event.to_owned(),
            json!([{
                "type": "command",
                "bash": format!("\"$DEVCOACH_PLUGIN_ROOT/bin/devcoach-launch\" {sub}"),
                "powershell": format!(
                    "& (Join-Path $env:DEVCOACH_PLUGIN_ROOT 'bin/devcoach-launch.cmd') {sub}; exit $LASTEXITCODE"
                ),
                "env": { "DEVCOACH_PLUGIN_ROOT": "${PLUGIN_ROOT}" },
                "timeoutSec": timeout
            }]),
        );
    }
    let mut files = vec![
        json_file(
            &format!("{root}/plugin.json"),
            &json!({
                "name": "devcoach",
                "version": devcoach_core::APP_VERSION,
                "description": DESCRIPTION,
                "author": { "name": "devcoach contributors", "url": REPOSITORY },
                "license": "MIT",
                "keywords": ["learning", "coaching", "mcp", "lessons"],
                "skills": "skills",
                "hooks": "hooks.json",
                "mcpServers": ".mcp.json"
            }),
        ),
        json_file(
            &format!("{root}/.mcp.json"),
            &json!({ "mcpServers": { "devcoach": { "type": "local", "command": launcher, "args": ["mcp"], "tools": ["*"] } } }),
        ),
        json_file(&format!("{root}/hooks.json"), &json!({ "version": 1, "hooks": events })),
        marketplace_file(".github/plugin/marketplace.json", "./packaging/copilot-plugin"),
    ];
    files.extend(launchers(root));
    files.extend(skill_files(root));
    files
}

/// The Claude Desktop extension manifest; the release script packs it with the binary.
fn desktop_manifest() -> PackageFile {
    let tools: Vec<Value> = devcoach_mcp::tool_summaries()
        .into_iter()
        .map(|(name, _, description)| json!({ "name": name, "description": first_sentence(&description) }))
        .collect();
    json_file(
        "packaging/claude-desktop/manifest.json",
        &json!({
            "manifest_version": "0.4",
            "name": "devcoach",
            "display_name": "devcoach",
            "version": devcoach_core::APP_VERSION,
            "description": DESCRIPTION,
            "long_description": format!(
                "{DESCRIPTION}\n\nIn hosts that render MCP Apps ({CARD_HOSTS}) a lesson appears as a card \
                 beside the chat, with its answer buttons and explain-back on it, and due reviews as a review card: \
                 the question first, the answer only when asked. Elsewhere the agent writes the card as text."
            ),
            "author": { "name": "devcoach contributors", "url": REPOSITORY },
            "homepage": REPOSITORY,
            "repository": { "type": "git", "url": REPOSITORY },
            "license": "MIT",
            "keywords": ["learning", "coaching", "lessons"],
            // Packed beside the manifest by scripts/release.sh (from assets/packaging/icon.png).
            "icon": "icon.png",
            "server": {
                "type": "binary",
                "entry_point": "bin/devcoach",
                "mcp_config": {
                    "command": "${__dirname}/bin/devcoach",
                    "args": ["mcp"],
                    "platform_overrides": { "win32": { "command": "${__dirname}/bin/devcoach.exe", "args": ["mcp"] } }
                }
            },
            "tools": tools,
            "prompts": [{
                "name": devcoach_mcp::PROMPT_NAME,
                "description": devcoach_mcp::PROMPT_TITLE,
                "text": "The devcoach skill and its references, as served by the devcoach_instructions prompt."
            }],
            "compatibility": { "platforms": ["darwin", "win32", "linux"] }
        }),
    )
}

fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line.to_owned(),
    }
}

fn registry_entry() -> PackageFile {
    json_file(
        "packaging/server.json",
        &json!({
            "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
            "name": REGISTRY_NAME,
            "title": "devcoach",
            "description": REGISTRY_DESCRIPTION,
            "version": devcoach_core::APP_VERSION,
            "repository": { "url": REPOSITORY, "source": "github" },
            "websiteUrl": REPOSITORY,
            "_meta": {
                "io.modelcontextprotocol.registry/publisher-provided": {
                    "extensions": {
                        devcoach_mcp::APPS_EXTENSION: {
                            "resources": [devcoach_mcp::LESSON_URI, devcoach_mcp::REVIEW_URI],
                            "mimeType": devcoach_mcp::APP_MIME,
                            "shownBy": CARD_HOSTS
                        }
                    }
                }
            },
            "packages": [{
                "registryType": "npm",
                "identifier": NPM_PACKAGE,
                "version": devcoach_core::APP_VERSION,
                "transport": { "type": "stdio" },
                "packageArguments": [{ "type": "positional", "value": "mcp" }]
            }]
        }),
    )
}

/// The npm wrapper: a main package with a small launcher, and one package per platform that
/// the release fills with the binary (`bin/devcoach`, `bin/devcoach.exe` on Windows).
fn npm_packages() -> Vec<PackageFile> {
    let version = devcoach_core::APP_VERSION;
    let platform_name = |os: &str, cpu: &str| format!("{NPM_PACKAGE}-{os}-{cpu}");
    let optional: serde_json::Map<String, Value> =
        NPM_PLATFORMS.iter().map(|(os, cpu, _)| (platform_name(os, cpu), json!(version))).collect();
    let mut files = vec![
        json_file(
            "packaging/npm/devcoach/package.json",
            &json!({
                "name": NPM_PACKAGE,
                "version": version,
                "description": DESCRIPTION,
                // The MCP Registry checks that the npm package names the server of server.json.
                "mcpName": REGISTRY_NAME,
                "license": "MIT",
                "repository": { "type": "git", "url": format!("git+{REPOSITORY}.git") },
                "homepage": REPOSITORY,
                "bin": { "devcoach": "bin/devcoach.js" },
                "files": ["bin/"],
                "engines": { "node": ">=18" },
                "optionalDependencies": optional,
            }),
        ),
        text_file("packaging/npm/devcoach/bin/devcoach.js".into(), NPM_LAUNCHER, true),
        text_file(
            "packaging/npm/devcoach/README.md".into(),
            &format!(
                "# {NPM_PACKAGE}\n\ndevcoach for npm: `npx -y {NPM_PACKAGE} mcp` runs the MCP server, `npx {NPM_PACKAGE} ui` the \
                 dashboard. The binary for your machine comes in one of the `{NPM_PACKAGE}-<os>-<cpu>` packages; nothing \
                 is downloaded at install time.\n\nSee {REPOSITORY}.\n"
            ),
            false,
        ),
    ];
    for (os, cpu, target) in NPM_PLATFORMS {
        let name = platform_name(os, cpu);
        files.push(json_file(
            &format!("packaging/npm/platforms/{os}-{cpu}/package.json"),
            &json!({
                "name": name,
                "version": version,
                "description": format!("The devcoach binary for {os} {cpu} ({target})."),
                "license": "MIT",
                "repository": { "type": "git", "url": format!("git+{REPOSITORY}.git") },
                "os": [os],
                "cpu": [cpu],
                "files": ["bin/"],
                "preferUnplugged": true,
            }),
        ));
    }
    files
}

/// The npm package of the OpenCode / Kilo plugin (`"plugin": ["@devcoach-rs/opencode-plugin"]`):
/// the plugin `devcoach install` writes, finding the binary at run time instead of having its
/// path filled in: `DEVCOACH_BIN`, else the npm build its dependency brought, else `devcoach` on
/// PATH.
fn opencode_plugin_package() -> Vec<PackageFile> {
    let version = devcoach_core::APP_VERSION;
    let resolve = format!(
        r#"import {{ createRequire }} from "node:module";

// Which devcoach to run: DEVCOACH_BIN, else the build `{NPM_PACKAGE}` brought for this machine,
// else `devcoach` on PATH.
function findDevcoach() {{
  if (process.env.DEVCOACH_BIN) return process.env.DEVCOACH_BIN;
  const exe = process.platform === "win32" ? "devcoach.exe" : "devcoach";
  try {{
    const require = createRequire(import.meta.url);
    return require.resolve(`{NPM_PACKAGE}-${{process.platform}}-${{process.arch}}/bin/${{exe}}`);
  }} catch {{
    return "devcoach";
  }}
}}

const DEVCOACH = findDevcoach();
// One package for both agents: Kilo Code is OpenCode's fork and runs the same plugins.
const AGENT = /kilo/i.test(process.execPath || "") ? "kilo" : "opencode";"#
    );
    let source = devcoach_assets::OPENCODE_PLUGIN
        .replace("const DEVCOACH = \"@DEVCOACH@\";\nconst AGENT = \"@AGENT@\";", &resolve)
        .replace(
            "written here by `devcoach install` (and removed by\n// `devcoach uninstall`)",
            "as an npm package (the same plugin\n// `devcoach install` writes)",
        );
    vec![
        json_file(
            "packaging/npm/opencode-plugin/package.json",
            &json!({
                "name": format!("{NPM_PACKAGE}-opencode-plugin"),
                "version": version,
                "description": "devcoach for OpenCode and Kilo Code: lesson cues at the end of a turn, through devcoach's hooks.",
                "license": "MIT",
                "repository": { "type": "git", "url": format!("git+{REPOSITORY}.git") },
                "homepage": REPOSITORY,
                "type": "module",
                "main": "index.js",
                "files": ["index.js"],
                "dependencies": { NPM_PACKAGE: version },
            }),
        ),
        text_file("packaging/npm/opencode-plugin/index.js".into(), &source, false),
    ]
}

/// Every generated file.
pub fn files() -> Vec<PackageFile> {
    let mut files = claude_plugin();
    files.push(marketplace());
    files.extend(gemini_extension());
    files.extend(qwen_extension());
    files.extend(copilot_plugin());
    files.push(desktop_manifest());
    files.push(registry_entry());
    files.extend(npm_packages());
    files.extend(opencode_plugin_package());
    files
}

/// Writes every package under `root` (the repository root, or a staging directory).
pub fn write(root: &Path) -> std::io::Result<usize> {
    let files = files();
    for dir in OWNED_DIRS {
        let dir = root.join(dir);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
    }
    for file in &files {
        let path = root.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &file.bytes)?;
        #[cfg(unix)]
        if file.executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files this module writes beside its directories.
    const OWNED_FILES: [&str; 3] =
        ["packaging/server.json", ".claude-plugin/marketplace.json", ".github/plugin/marketplace.json"];

    /// Every file under the owned directories and files of `root`, with its bytes.
    fn tree(root: &Path) -> std::collections::BTreeMap<PathBuf, (Vec<u8>, bool)> {
        fn walk(path: &Path, root: &Path, out: &mut std::collections::BTreeMap<PathBuf, (Vec<u8>, bool)>) {
            if path.is_dir() {
                for entry in std::fs::read_dir(path).expect("dir").flatten() {
                    walk(&entry.path(), root, out);
                }
            } else if path.is_file() {
                #[cfg(unix)]
                let executable = {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::metadata(path).expect("meta").permissions().mode() & 0o111 != 0
                };
                #[cfg(not(unix))]
                let executable = false;
                let rel = path.strip_prefix(root).expect("under root").to_owned();
                out.insert(rel, (std::fs::read(path).expect("read"), executable));
            }
        }
        let mut out = std::collections::BTreeMap::new();
        for owned in OWNED_DIRS.iter().chain(&OWNED_FILES) {
            walk(&root.join(owned), root, &mut out);
        }
        out
    }

    /// The committed packages are exactly what this module writes: a version bump, a new tool
    /// or a changed hook cannot leave them behind.
    #[test]
    fn committed_packages_match_what_is_generated() {
        let staging = std::env::temp_dir().join(format!("devcoach-xtask-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        let written = write(&staging).expect("write");
        let generated = tree(&staging);
        let _ = std::fs::remove_dir_all(&staging);
        assert_eq!(generated.len(), written);
        // Every file written lies under an owned directory or is an owned file.
        assert!(files().iter().all(|f| OWNED_DIRS.iter().chain(&OWNED_FILES).any(|o| f.path.starts_with(o))));
        let committed = tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let names = |t: &std::collections::BTreeMap<PathBuf, (Vec<u8>, bool)>| t.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(&committed), names(&generated), "run `cargo xtask write-packages .` and commit the result");
        for (path, (bytes, executable)) in &generated {
            let (have, have_exec) = &committed[path];
            assert!(
                have == bytes,
                "{} is out of date: run `cargo xtask write-packages .` and commit it",
                path.display()
            );
            assert_eq!(have_exec, executable, "{}: executable bit", path.display());
        }
    }

    #[test]
    fn registry_description_fits() {
        assert!(REGISTRY_DESCRIPTION.chars().count() <= 100);
    }

    #[test]
    fn hooks_use_each_agents_units() {
        let claude = hooks_json(Agent::ClaudeCode, "L");
        assert_eq!(
            claude["hooks"]["Stop"][0]["hooks"][0],
            json!({ "type": "command", "command": "\"L\" stop-hook", "timeout": 60 })
        );
        let gemini = hooks_json(Agent::Gemini, "L");
        assert_eq!(gemini["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"], 60_000);
        // devcoach recognises its own plugin hooks (doctor, install's double-registration check).
        assert!(devcoach_agents::hook_entries::is_ours("\"${CLAUDE_PLUGIN_ROOT}/bin/devcoach-launch\" stop-hook"));
    }
}
