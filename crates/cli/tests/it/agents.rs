//! `install`, `uninstall` and `doctor` in a sandboxed home holding a user's existing agent
//! configuration: devcoach adds its entries, leaves every other byte alone, and takes back
//! exactly what it added. (The agents' own CLIs are kept off PATH here, so the JSON files are
//! edited directly; `agents_real` drives the real CLIs.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::{Env, bin, transcript};

/// Every file under `root`, with its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let rel = path.strip_prefix(root).expect("under root").to_owned();
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn pretty(v: &Value) -> String {
    format!("{}\n", serde_json::to_string_pretty(v).expect("json"))
}

fn home(env: &Env) -> PathBuf {
    env.tmp.path().join("home")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("json")
}

/// Runs devcoach with only system directories on PATH (no agent CLIs).
fn run(env: &Env, args: &[&str]) -> Output {
    env.command().env("PATH", "/usr/bin:/bin").args(args).output().expect("ran")
}

/// `doctor`'s report; its exit code is 1 exactly when it found a problem (warnings alone: 0).
fn doctor_report(env: &Env) -> String {
    let out = run(env, &["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let summary = text.lines().last().unwrap_or_default();
    let expected = i32::from(summary.contains("problem"));
    assert_eq!(out.status.code(), Some(expected), "{summary:?}\n{}", transcript(&out, env.tmp.path()));
    text
}

fn ok(env: &Env, args: &[&str]) -> String {
    let out = run(env, args);
    assert!(out.status.success(), "{args:?}:\n{}", transcript(&out, env.tmp.path()));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A home where the user already uses all four agents, written the way the agents write
/// their files (two-space JSON), plus one file in a style of their own.
fn populated_home(env: &Env) {
    let h = home(env);
    write(
        &h.join(".claude/settings.json"),
        &pretty(&json!({
            "model": "opus",
            "permissions": { "allow": ["Bash(npm test)"] },
            "hooks": {
                "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send 'done'" }] }],
                "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "guard.sh", "timeout": 5 }] }]
            }
        })),
    );
    write(
        &h.join(".claude.json"),
        &pretty(&json!({
            "numStartups": 42,
            "projects": { "/home/me/work": { "allowedTools": [] } },
            "mcpServers": { "github": { "type": "stdio", "command": "gh-mcp", "args": [], "env": {} } }
        })),
    );
    write(
        &h.join(".config/Claude/claude_desktop_config.json"),
        // Minified, as a hand edit might leave it.
        r#"{"mcpServers":{"files":{"command":"fs-mcp","args":["/home/me"]}},"globalShortcut":"Ctrl+Space"}"#,
    );
    write(
        &h.join(".gemini/settings.json"),
        &pretty(&json!({
            "security": { "auth": { "selectedType": "gemini-api-key" } },
            "mcpServers": { "search": { "command": "search-mcp" } },
            "hooks": { "AfterAgent": [], "BeforeTool": [{ "matcher": "write_file", "hooks": [{ "type": "command", "command": "lint" }] }] }
        })),
    );
    write(
        &h.join(".codex/hooks.json"),
        &pretty(
            &json!({ "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "say finished", "timeout": 5 }] }] } }),
        ),
    );
    write(&h.join(".codex/config.toml"), "model = \"gpt-5-codex\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n");
    write(&h.join(".agents/skills/other/SKILL.md"), "---\nname: other\ndescription: the user's own skill\n---\n");
    write(
        &h.join(".copilot/mcp-config.json"),
        &pretty(
            &json!({ "mcpServers": { "gh": { "type": "local", "command": "gh-mcp", "args": [], "tools": ["*"] } } }),
        ),
    );
    write(
        &h.join(".copilot/hooks/mine.json"),
        &pretty(&json!({ "version": 1, "hooks": { "agentStop": [{ "type": "command", "bash": "say done" }] } })),
    );
    write(
        &h.join(".qwen/settings.json"),
        &pretty(&json!({
            "security": { "auth": { "selectedType": "openai" }, "folderTrust": { "enabled": true } },
            "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "notify done", "timeout": 5 }] }] }
        })),
    );
    write(
        &h.join(".factory/mcp.json"),
        &pretty(&json!({ "mcpServers": { "linear": { "type": "http", "url": "https://mcp.linear.app" } } })),
    );
    write(
        &h.join(".factory/hooks.json"),
        &pretty(
            &json!({ "PreToolUse": [{ "matcher": "Execute", "hooks": [{ "type": "command", "command": "guard" }] }] }),
        ),
    );
    // Cursor's files as a hand edit leaves them: minified.
    write(&h.join(".cursor/mcp.json"), r#"{"mcpServers":{"docs":{"url":"https://docs.example/mcp"}}}"#);
    write(&h.join(".cursor/hooks.json"), r#"{"version":1,"hooks":{"afterFileEdit":[{"command":"./format.sh"}]}}"#);
    write(&h.join(".config/opencode/opencode.json"), &pretty(&json!({ "theme": "tokyonight", "mcp": {} })));
    write(&h.join(".config/opencode/plugin/notify.js"), "export const Notify = async () => ({});\n");
}

/// `install` with every agent of the table named.
fn all_agents() -> Vec<String> {
    std::iter::once("install".to_owned())
        .chain(devcoach_agents::Agent::ALL.iter().map(|a| format!("--{}", a.spec().flag)))
        .collect()
}

#[test]
fn install_twice_doctor_then_uninstall_round_trips_every_byte() {
    let env = Env::new();
    populated_home(&env);
    let before = snapshot(&home(&env));

    let first = ok(&env, &all_agents().iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!first.contains('✗'), "{first}");
    let h = home(&env);
    let exe = bin().canonicalize().expect("binary path");
    let exe = exe.to_str().expect("utf-8");

    // What was added, where.
    assert_eq!(
        read_json(&h.join(".claude.json"))["mcpServers"]["devcoach"],
        json!({ "type": "stdio", "command": exe, "args": ["mcp"], "env": {} })
    );
    assert_eq!(read_json(&h.join(".claude.json"))["mcpServers"]["github"]["command"], "gh-mcp");
    let settings = read_json(&h.join(".claude/settings.json"));
    assert_eq!(settings["hooks"]["Stop"].as_array().map(Vec::len), Some(2), "user's Stop hook kept, ours appended");
    assert_eq!(
        settings["hooks"]["Stop"][1]["hooks"][0],
        json!({ "type": "command", "command": format!("{exe} stop-hook"), "timeout": 60 })
    );
    assert_eq!(settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"], format!("{exe} prompt-hook"));
    assert_eq!(
        read_json(&h.join(".config/Claude/claude_desktop_config.json"))["mcpServers"]["devcoach"],
        json!({ "command": exe, "args": ["mcp"] })
    );
    let gemini = read_json(&h.join(".gemini/settings.json"));
    assert_eq!(gemini["mcpServers"]["devcoach"], json!({ "command": exe, "args": ["mcp"] }));
    assert_eq!(gemini["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"], 60_000);
    assert_eq!(gemini["hooks"]["BeforeAgent"][0]["hooks"][0]["command"], format!("{exe} gemini-prompt-hook"));
    let codex = read_json(&h.join(".codex/hooks.json"));
    assert_eq!(codex["hooks"]["Stop"][1]["hooks"][0]["command"], format!("{exe} codex-stop-hook"));
    assert_eq!(
        codex.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["hooks".to_owned()]),
        "Codex rejects unknown top-level keys"
    );
    assert!(first.contains("[mcp_servers.devcoach]"), "Codex without its CLI: the TOML to paste is shown\n{first}");
    assert_eq!(
        std::fs::read_to_string(h.join(".codex/config.toml")).expect("toml"),
        "model = \"gpt-5-codex\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n"
    );
    // The other agents, each in its own shape.
    let copilot = read_json(&h.join(".copilot/hooks/devcoach.json"));
    assert_eq!(copilot["version"], 1);
    assert_eq!(
        copilot["hooks"]["agentStop"][0],
        json!({ "type": "command", "bash": format!("{exe} copilot-stop-hook"), "timeoutSec": 60 })
    );
    assert_eq!(copilot["hooks"]["userPromptSubmitted"][0]["bash"], format!("{exe} copilot-prompt-hook"));
    assert_eq!(
        read_json(&h.join(".copilot/mcp-config.json"))["mcpServers"]["devcoach"],
        json!({ "type": "local", "command": exe, "args": ["mcp"], "env": {}, "tools": ["*"] })
    );
    let qwen = read_json(&h.join(".qwen/settings.json"));
    assert_eq!(
        qwen["mcpServers"]["devcoach"],
        json!({ "command": exe, "args": ["mcp"], "alwaysLoadTools": true }),
        "the tools loaded, not hidden behind Qwen's search"
    );
    assert_eq!(qwen["hooks"]["Stop"][1]["hooks"][0]["timeout"], 60, "Qwen counts seconds");
    assert_eq!(qwen["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"], format!("{exe} qwen-prompt-hook"));
    let droid = read_json(&h.join(".factory/hooks.json"));
    assert_eq!(droid["Stop"][0]["hooks"][0]["command"], format!("{exe} droid-stop-hook"));
    assert!(droid.get("hooks").is_none(), "Droid ignores a `hooks` wrapper");
    assert_eq!(
        read_json(&h.join(".factory/mcp.json"))["mcpServers"]["devcoach"],
        json!({ "type": "stdio", "command": exe, "args": ["mcp"], "disabled": false })
    );
    let opencode = read_json(&h.join(".config/opencode/opencode.json"));
    assert_eq!(opencode["mcp"]["devcoach"], json!({ "type": "local", "command": [exe, "mcp"] }));
    assert_eq!(opencode["theme"], "tokyonight");
    let plugin = std::fs::read_to_string(h.join(".config/opencode/plugin/devcoach.js")).expect("plugin");
    assert!(plugin.contains(&format!("const DEVCOACH = {};", serde_json::to_string(exe).expect("json"))));
    assert!(
        std::fs::read_to_string(h.join(".config/kilo/plugin/devcoach.js"))
            .expect("kilo")
            .contains(r#"const AGENT = "kilo";"#)
    );
    let cursor = read_json(&h.join(".cursor/hooks.json"));
    assert_eq!(cursor["hooks"]["stop"], json!([{ "command": format!("{exe} cursor-stop-hook") }]));
    assert_eq!(cursor["hooks"]["afterFileEdit"][0]["command"], "./format.sh");
    assert_eq!(
        read_json(&h.join(".cursor/mcp.json"))["mcpServers"]["devcoach"],
        json!({ "command": exe, "args": ["mcp"] })
    );
    for skill in [".claude/skills/devcoach", ".agents/skills/devcoach", ".cursor/skills/devcoach"] {
        let dir = h.join(skill);
        assert!(dir.join("SKILL.md").is_file() && dir.join("references/calibration.md").is_file(), "{skill}");
        assert_eq!(
            std::fs::read_to_string(dir.join(".devcoach-version")).expect("stamp"),
            format!("{}\n", env!("CARGO_PKG_VERSION"))
        );
    }
    // Backups hold the user's files as they were.
    assert_eq!(
        std::fs::read(h.join(".claude/settings.json.bak")).ok().as_ref(),
        before.get(Path::new(".claude/settings.json"))
    );

    // Twice changes nothing.
    let installed = snapshot(&h);
    let second = ok(&env, &all_agents().iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(snapshot(&h), installed, "the second install changed files:\n{second}");
    assert!(!second.contains('✓'), "{second}");

    let doctor = run(&env, &["doctor"]);
    assert_eq!(doctor.status.code(), Some(0));
    let report = String::from_utf8_lossy(&doctor.stdout);
    for expected in [
        "Claude Code",
        "Claude Desktop",
        "Gemini CLI",
        "Codex CLI",
        "Copilot CLI",
        "Qwen Code",
        "Droid",
        "Cursor",
        "OpenCode",
        "Kilo Code",
        "(runs this binary)",
        "(this binary)",
        "skill current",
        "not approved yet",
    ] {
        assert!(report.contains(expected), "doctor lacks {expected:?}:\n{report}");
    }

    let removed = ok(&env, &["uninstall", "--all"]);
    let after = snapshot(&h);
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{} differs after uninstall:\n{removed}", path.display());
    }
    // The backups went too: each file is verifiably back to its bytes.
    let extra: Vec<&PathBuf> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    assert!(extra.is_empty(), "left behind: {extra:?}\n{removed}");
}

#[test]
fn a_malformed_file_is_reported_and_left_alone_while_the_rest_installs() {
    let env = Env::new();
    let settings = home(&env).join(".claude/settings.json");
    write(&settings, "{ \"hooks\": { \"Stop\": [ ");
    let out = run(&env, &["install", "--claude-code"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out, env.tmp.path()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("~/.claude/settings.json is not valid JSON") && text.contains("left unchanged"), "{text}");
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), "{ \"hooks\": { \"Stop\": [ ");
    assert!(!settings.with_extension("json.bak").exists());
    assert!(home(&env).join(".claude.json").is_file(), "the MCP entry still went in");
    assert!(home(&env).join(".claude/skills/devcoach/SKILL.md").is_file(), "the skill still went in");

    assert!(doctor_report(&env).contains("is not valid JSON"));
    // Uninstall has nothing to take back from a file that never held devcoach: it says so.
    let out = run(&env, &["uninstall", "--claude-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out, env.tmp.path()));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no hooks"));
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), "{ \"hooks\": { \"Stop\": [ ");
    // One that names devcoach but cannot be read is a failure to report, left as it is.
    write(&settings, "{ \"hooks\": \"devcoach stop-hook\" ");
    let out = run(&env, &["uninstall", "--claude-code"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), "{ \"hooks\": \"devcoach stop-hook\" ");
}

#[test]
fn an_existing_server_entry_is_kept_unless_forced_and_old_hooks_heal() {
    let env = Env::new();
    let h = home(&env);
    write(
        &h.join(".claude.json"),
        &pretty(
            &json!({ "mcpServers": { "devcoach": { "type": "stdio", "command": "npx", "args": ["-y", "devcoach", "mcp"], "env": {} } } }),
        ),
    );
    write(
        &h.join(".claude/settings.json"),
        &pretty(&json!({ "hooks": { "Stop": [
            { "hooks": [{ "type": "command", "command": "npx -y devcoach onboard-hook" }] },
            { "hooks": [{ "type": "command", "command": "npx -y devcoach lesson-ready", "timeout": 60 }] }
        ] } })),
    );
    let doctor = doctor_report(&env);
    assert!(doctor.contains("legacy two-entry hook layout"), "{doctor}");
    assert!(doctor.contains("2 devcoach Stop hooks"), "{doctor}");
    assert!(doctor.contains("runs the TypeScript devcoach"), "{doctor}");

    let out = ok(&env, &["install", "--claude-code"]);
    assert!(out.contains("already runs `npx -y devcoach mcp`; kept it"), "{out}");
    assert!(out.contains("Stop (replaced 2 older)"), "{out}");
    assert_eq!(read_json(&h.join(".claude.json"))["mcpServers"]["devcoach"]["command"], "npx");
    let stop = &read_json(&h.join(".claude/settings.json"))["hooks"]["Stop"];
    assert_eq!(stop.as_array().map(Vec::len), Some(1));

    ok(&env, &["install", "--claude-code", "--force"]);
    let exe = bin().canonicalize().expect("binary");
    assert_eq!(read_json(&h.join(".claude.json"))["mcpServers"]["devcoach"]["command"], exe.to_str().expect("utf-8"));
}

#[test]
fn plugins_and_extensions_bring_their_own_hooks() {
    let env = Env::new();
    let h = home(&env);
    write(
        &h.join(".claude/settings.json"),
        &pretty(&json!({ "enabledPlugins": { "devcoach@devcoach": true, "other@x": true } })),
    );
    write(
        &h.join(".gemini/extensions/devcoach/gemini-extension.json"),
        &pretty(&json!({ "name": "devcoach", "version": "0.1.0" })),
    );
    let out = ok(&env, &["install", "--claude-code", "--gemini"]);
    assert!(out.contains("hooks: the devcoach@devcoach plugin provides them"), "{out}");
    assert!(out.contains("hooks and skill: the devcoach extension for Gemini CLI provides them"), "{out}");
    assert!(read_json(&h.join(".claude/settings.json")).get("hooks").is_none());
    assert!(!h.join(".agents/skills/devcoach").exists());

    // Hooks added by hand on top of the plugin: doctor names the double registration.
    write(
        &h.join(".claude/settings.json"),
        &pretty(
            &json!({ "enabledPlugins": { "devcoach@devcoach": true }, "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "devcoach stop-hook", "timeout": 60 }] }] } }),
        ),
    );
    let doctor = doctor_report(&env);
    assert!(doctor.contains("hooks registered twice"), "{doctor}");
}

#[test]
fn skip_hook_moved_binaries_and_missing_desktop() {
    let env = Env::new();
    let h = home(&env);
    let out = ok(&env, &["install", "--skip-hook"]);
    assert!(out.contains("hooks (--skip-hook)") && out.contains("Claude Desktop not found"), "{out}");
    assert!(!h.join(".claude/settings.json").exists());
    assert!(!h.join(".config/Claude").exists(), "no Desktop config is created for a Desktop that is not there");

    // Hooks that point at a binary that is gone: doctor says so, install heals them.
    write(
        &h.join(".claude/settings.json"),
        &pretty(
            &json!({ "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "/gone/devcoach stop-hook", "timeout": 60 }] }] } }),
        ),
    );
    let doctor = doctor_report(&env);
    assert!(doctor.contains("runs /gone/devcoach, which no longer exists"), "{doctor}");
    assert!(doctor.contains("no UserPromptSubmit hook"), "{doctor}");
    ok(&env, &["install", "--claude-code"]);
    let doctor = doctor_report(&env);
    assert!(!doctor.contains("no longer exists"), "{doctor}");
}

/// After an upgrade through one channel and not another, doctor names each piece that comes from
/// a different version (hooks, MCP server, plugin, extension) and how to bring it in line.
#[cfg(unix)]
#[test]
fn doctor_names_pieces_from_another_version() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let h = home(&env);
    ok(&env, &["install", "--claude-code"]);
    let old = env.tmp.path().join("old/devcoach");
    write(&old, "#!/bin/sh\necho 'devcoach 0.0.9 (npm)'\n");
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // A second copy of this very build, elsewhere.
    let copy = env.tmp.path().join("copy/devcoach");
    std::fs::create_dir_all(copy.parent().expect("parent")).expect("dir");
    std::fs::copy(bin(), &copy).expect("copy");
    let exe = bin().canonicalize().expect("binary");
    let settings = h.join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("settings");
    let mut doc: Value =
        serde_json::from_str(&text.replace(exe.to_str().expect("utf-8"), old.to_str().expect("utf-8"))).expect("json");
    doc["enabledPlugins"] = json!({ "devcoach@devcoach": true });
    write(&settings, &pretty(&doc));
    write(
        &h.join(".claude/plugins/installed_plugins.json"),
        &pretty(
            &json!({ "version": 2, "plugins": { "devcoach@devcoach": [{ "scope": "user", "version": "0.0.9" }] } }),
        ),
    );
    write(
        &h.join(".claude.json"),
        &pretty(
            &json!({ "mcpServers": { "devcoach": { "command": copy.to_str().expect("utf-8"), "args": ["mcp"] } } }),
        ),
    );
    write(
        &h.join(".gemini/extensions/devcoach/gemini-extension.json"),
        &pretty(&json!({ "name": "devcoach", "version": "0.0.9" })),
    );
    // Findings wrap to the width: compare the words.
    let doctor = doctor_report(&env).split_whitespace().collect::<Vec<_>>().join(" ");
    let here = env!("CARGO_PKG_VERSION");
    for expected in [
        format!("Stop hook runs devcoach 0.0.9 ({}), this is {here}: run `devcoach install`", old.display()),
        format!("the plugin devcoach@devcoach is version 0.0.9, this devcoach is {here}"),
        "`claude plugin update devcoach@devcoach`".to_owned(),
        format!("the Gemini extension is version 0.0.9, this devcoach is {here}"),
        "`gemini extensions update devcoach`".to_owned(),
        "or upgrade devcoach with `git pull`, then build again".to_owned(),
        format!("MCP server → {} mcp (same version)", copy.display()),
    ] {
        assert!(doctor.contains(&expected), "{expected:?} missing:\n{doctor}");
    }

    // Everything on this version: no version warnings at all.
    write(
        &h.join(".claude/plugins/installed_plugins.json"),
        &pretty(&json!({ "version": 2, "plugins": { "devcoach@devcoach": [{ "scope": "user", "version": here }] } })),
    );
    write(
        &h.join(".gemini/extensions/devcoach/gemini-extension.json"),
        &pretty(&json!({ "name": "devcoach", "version": here })),
    );
    write(&settings, &text);
    let doctor = doctor_report(&env);
    assert!(!doctor.contains("0.0.9") && !doctor.contains("is version"), "{doctor}");
}

#[test]
fn uninstall_data_needs_a_yes_away_from_a_terminal() {
    let env = Env::new();
    ok(&env, &["knowledge-add", "rust"]);
    let out = run(&env, &["uninstall", "--data"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(crate::flat(&out.stderr).contains("run again with --yes"), "{}", transcript(&out, env.tmp.path()));
    assert!(env.data().join("coaching.db").is_file());
    let out = ok(&env, &["uninstall", "--data", "--yes"]);
    assert!(out.contains("Deleted"), "{out}");
    assert!(!env.data().exists());
    // Without --data there is nothing to ask: --yes is accepted and the data stays.
    ok(&env, &["knowledge-add", "rust"]);
    let out = run(&env, &["uninstall", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out, env.tmp.path()));
    assert!(env.data().join("coaching.db").is_file(), "--yes alone never deletes the data");
}

/// Doctor on a learner mid-session, pinned as a snapshot (paths replaced).
#[test]
fn doctor_explains_the_next_stop() {
    let env = Env::new();
    ok(&env, &["knowledge-add", "rust", "--confidence", "4"]);
    ok(&env, &["set", "nudge_every", "3"]);
    ok(&env, &["install", "--claude-code"]);
    let payload = std::fs::read(crate::fixtures().join("ts-0.9.5/hooks/stop-payload.json")).expect("payload");
    for _ in 0..2 {
        let out = env.command().arg("stop-hook").write_stdin(payload.clone()).output().expect("hook");
        assert!(out.status.success());
    }
    let out = run(&env, &["doctor"]);
    let exe = bin().canonicalize().expect("binary");
    let text = transcript(&out, env.tmp.path())
        .replace(exe.to_str().expect("utf-8"), "[BIN]")
        .replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
    insta::assert_snapshot!(text);
}

fn setup(env: &Env, answers: &str) -> Output {
    env.command().arg("setup").write_stdin(answers.as_bytes().to_vec()).output().expect("setup ran")
}

#[test]
fn setup_by_hand() {
    let env = Env::new();
    let out = setup(
        &env,
        "\n2\nrust 4\nsql 11\nkubernetes\nSliding Windows 3\n\nBackend: Rust, sql, nope\nno colon\n\n25\n3\n120\n",
    );
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Please type a whole number from 1 to 20"), "{text}");
    assert!(text.contains("(saved as sliding_windows)"), "a changed name is said: {text}");
    assert!(text.contains("(nope is not one of your topics, so it stays out of Backend)"), "a dropped one too: {text}");
    assert!(text.contains("Saved 4 topics in 1 group, at most 3 lessons a day, 120 min apart"), "{text}");
    let profile: Value = serde_json::from_slice(&env.run(&["profile", "--json"]).stdout).expect("profile json");
    let conf = |t: &str| {
        profile["knowledge"]
            .as_array()
            .and_then(|k| k.iter().find(|e| e["topic"] == t))
            .and_then(|e| e["confidence"].as_i64())
    };
    assert_eq!(
        (conf("rust"), conf("sql"), conf("kubernetes"), conf("sliding_windows")),
        (Some(4), Some(10), Some(5), Some(3))
    );
    assert_eq!(profile["groups"][0]["topics"], serde_json::json!(["rust", "sql"]), "Rust is rust");
    let settings: Value = serde_json::from_slice(&env.run(&["settings", "--json"]).stdout).expect("settings json");
    assert_eq!((settings["max_per_day"].as_i64(), settings["min_gap_minutes"].as_i64()), (Some(3), Some(120)));
    assert!(env.data().join("learning-state.md").is_file(), "the notebook placeholder");
}

/// A learner with 5 topics, 2 groups and their own pacing, as the one who re-ran setup and lost it.
fn seasoned(env: &Env) {
    for (topic, c) in [("rust", "6"), ("sql", "4"), ("docker", "7"), ("git", "8"), ("redis", "3")] {
        assert!(env.run(&["knowledge-add", topic, c]).status.success());
    }
    for (topic, group) in [("rust", "Languages"), ("sql", "Data"), ("redis", "Data")] {
        assert!(env.run(&["group-assign", topic, group]).status.success(), "{topic}");
    }
    assert!(env.run(&["set", "max_per_day", "3"]).status.success());
    assert!(env.run(&["set", "min_gap_minutes", "90"]).status.success());
}

fn profile_and_pacing(env: &Env) -> (Value, (Option<i64>, Option<i64>)) {
    let profile: Value = serde_json::from_slice(&env.run(&["profile", "--json"]).stdout).expect("profile json");
    let settings: Value = serde_json::from_slice(&env.run(&["settings", "--json"]).stdout).expect("settings json");
    (profile, (settings["max_per_day"].as_i64(), settings["min_gap_minutes"].as_i64()))
}

#[test]
fn setup_on_an_existing_profile_adds_to_it_and_keeps_the_pacing() {
    let env = Env::new();
    seasoned(&env);
    let (before, _) = profile_and_pacing(&env);
    // No backup, Enter (add), manual topics: one new, then groups naming a topic already on the
    // map, then Enter twice: the pacing in force.
    let out = env
        .command()
        .env("COLUMNS", "60")
        .arg("setup")
        .write_stdin("\n\n2\nkubernetes 3\n\nInfra: docker, kubernetes\n\n\n\n")
        .output()
        .expect("setup ran");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    assert!(text.contains("[3]:") && text.contains("[90]:"), "the pacing prompts offer the current values: {text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Your profile now has 6 topics in 3 groups, at most 3 lessons a day, 90 min apart"),
        "{text}"
    );
    let (after, pacing) = profile_and_pacing(&env);
    assert_eq!(pacing, (Some(3), Some(90)));
    let topics = |p: &Value| p["knowledge"].as_array().map_or(0, Vec::len);
    assert_eq!((topics(&before), topics(&after)), (5, 6), "{after}");
    let groups: Vec<&str> =
        after["groups"].as_array().into_iter().flatten().filter_map(|g| g["name"].as_str()).collect();
    assert_eq!(groups, ["Data", "Infra", "Languages"], "{after}");
    assert!(!env.data().join("backups").exists(), "adding takes nothing away, so no backup");
    insta::assert_snapshot!(text);
}

#[test]
fn setup_replaces_a_profile_only_when_confirmed_and_prints_the_undo() {
    let env = Env::new();
    seasoned(&env);
    let (before, _) = profile_and_pacing(&env);
    // Choosing 2 without typing `replace` adds instead.
    let out = setup(&env, "\n2\nno\n2\n\n\n\n\n");
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Adding to your profile instead."));
    assert_eq!(profile_and_pacing(&env).0["knowledge"], before["knowledge"], "nothing added, nothing lost");

    // Leaving it as it is changes nothing.
    let out = setup(&env, "\n3\n");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("Nothing changed."));

    // The end of input halfway cancels with nothing written and no backup.
    let out = setup(&env, "\n2\nreplace\n2\nzig 2\n");
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out, env.tmp.path()));
    assert_eq!(profile_and_pacing(&env).0["knowledge"], before["knowledge"]);
    assert!(!env.data().join("backups").exists());

    let out = setup(&env, "\n2\nreplace\n2\nzig 2\n\n\n1\n0\n");
    let text = transcript(&out, env.tmp.path());
    assert!(out.status.success(), "{text}");
    let (after, pacing) = profile_and_pacing(&env);
    assert_eq!(after["knowledge"], json!([{"topic": "zig", "confidence": 2}]), "{text}");
    assert_eq!(pacing, (Some(1), Some(0)));
    let undo =
        text.lines().skip_while(|l| !l.contains("To put it back")).nth(1).map(str::trim).expect("the undo is printed");
    assert!(undo.starts_with("devcoach restore ") && undo.ends_with(" --profile"), "{text}");

    // The undo puts back the map and the pacing exactly; lessons are not touched.
    let path = undo.trim_start_matches("devcoach restore ").trim_end_matches(" --profile").trim_matches('\'');
    let path = path.replace("[SANDBOX]", env.tmp.path().to_str().expect("utf-8"));
    let restored = env.run(&["restore", &path, "--profile"]);
    assert!(restored.status.success(), "{}", transcript(&restored, env.tmp.path()));
    assert!(crate::flat(&restored.stdout).contains("5 topics in 2 groups"));
    let (back, pacing) = profile_and_pacing(&env);
    assert_eq!((&back["knowledge"], &back["groups"]), (&before["knowledge"], &before["groups"]));
    assert_eq!(pacing, (Some(3), Some(90)));
}

#[test]
fn setup_from_history_and_from_a_backup() {
    // Automatic: a Claude Code history that points at a Rust project.
    let env = Env::new();
    let project = env.tmp.path().join("work/api");
    write(&project.join("Cargo.toml"), "[package]\nname = \"api\"\n");
    let claude = env.tmp.path().join("claude");
    write(&claude.join(".claude.json"), &pretty(&json!({ "projects": { project.to_str().expect("utf-8"): {} } })));
    write(
        &claude.join("history.jsonl"),
        &format!(
            "{}\n",
            json!({ "display": "fix it", "project": project.to_str().expect("utf-8"), "timestamp": 1_764_460_800_000_i64 })
        ),
    );
    // Enter (no backup), Enter (automatic), 7 for rust, one extra, no groups, default pacing.
    let out = setup(&env, "\n\n7\nhtmx\n\n\n\n");
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Found 1 topic") && text.contains("  rust ["), "{text}");
    let profile: Value = serde_json::from_slice(&env.run(&["profile", "--json"]).stdout).expect("profile json");
    assert_eq!(
        profile["knowledge"],
        json!([{ "topic": "htmx", "confidence": 5 }, { "topic": "rust", "confidence": 7 }])
    );

    // Restore: the TypeScript devcoach's backup brings the whole profile.
    let env = Env::new();
    let zip = crate::fixtures().join("ts-0.9.5/devcoach-backup.zip");
    let out = setup(&env, &format!("{}\n", zip.display()));
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    assert!(String::from_utf8_lossy(&out.stdout).contains("came with the backup"));
    let profile: Value = serde_json::from_slice(&env.run(&["profile", "--json"]).stdout).expect("profile json");
    assert!(profile["knowledge"].as_array().is_some_and(|k| !k.is_empty()));

    // Stopping half-way saves nothing.
    let env = Env::new();
    let out = setup(&env, "\n2\nrust 4\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing was saved"));
    assert!(!env.data().join("coaching.db").exists());
}

#[test]
fn an_old_or_missing_skill_is_pointed_out() {
    let env = Env::new();
    ok(&env, &["install", "--claude-code"]);
    let skill = home(&env).join(".claude/skills/devcoach");
    std::fs::write(skill.join(".devcoach-version"), "0.0.1\n").expect("stamp");
    let hint =
        "The devcoach skill in ~/.claude/skills/devcoach is from version 0.0.1: run `devcoach install` to update it.";
    // The tour wraps to the width: compare the words.
    let words = |text: String| text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words(ok(&env, &[])).contains(hint));
    let stats = run(&env, &["stats"]);
    assert!(crate::flat(&stats.stderr).contains(hint));
    std::fs::remove_dir_all(&skill).expect("remove");
    assert!(words(ok(&env, &[])).contains("Hooks are wired but the devcoach skill is missing"));
    ok(&env, &["install", "--claude-code"]);
    assert!(!ok(&env, &[]).contains("skill"), "no hint once the skill is current");
}

/// Every path under `root` (folders too), with the bytes of each file.
fn every_path(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).expect("under root").to_owned();
            if path.is_dir() {
                out.insert(rel, None);
                walk(&path, root, out);
            } else {
                out.insert(rel, Some(std::fs::read(&path).expect("read")));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn uninstall_gives_back_absence_as_well_as_bytes() {
    // A home where the user has Claude Code settings and nothing else: no ~/.claude.json, no
    // Gemini, no Codex hooks, no ~/.agents, and no devcoach data folder yet.
    let env = Env::new();
    let h = home(&env);
    let users = pretty(&json!({ "model": "opus" }));
    write(&h.join(".claude/settings.json"), &users);
    // The user's own backup of that file: never overwritten by devcoach's.
    write(&h.join(".claude/settings.json.bak"), "{\"model\": \"sonnet\"}\n");
    let data = h.join(".devcoach");
    let run_here = |args: &[&str]| {
        let out =
            env.command().env("PATH", "/usr/bin:/bin").env("DEVCOACH_DIR", &data).args(args).output().expect("ran");
        assert!(out.status.success(), "{args:?}:\n{}", transcript(&out, env.tmp.path()));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let before = every_path(&h);

    let installed = run_here(&["install", "--claude-code", "--gemini", "--codex"]);
    assert!(h.join(".claude.json").is_file() && h.join(".gemini/settings.json").is_file(), "{installed}");
    assert_eq!(std::fs::read_to_string(h.join(".claude/settings.json.bak")).expect("bak"), "{\"model\": \"sonnet\"}\n");
    assert_eq!(
        std::fs::read_to_string(h.join(".claude/settings.json.devcoach.bak")).expect("ours"),
        users,
        "devcoach's copy goes beside the user's own .bak"
    );
    // Installing again records nothing new and loses nothing.
    run_here(&["install", "--claude-code", "--gemini", "--codex"]);

    let removed = run_here(&["uninstall", "--all"]);
    assert!(removed.contains("removed what install had created"), "{removed}");
    let after = every_path(&h);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "the same set of paths after uninstall:\n{removed}"
    );
    assert_eq!(after, before, "and the same bytes");
}

#[test]
fn a_file_changed_since_install_keeps_its_backup_and_says_so() {
    let env = Env::new();
    let h = home(&env);
    write(&h.join(".gemini/settings.json"), &pretty(&json!({ "theme": "dark" })));
    ok(&env, &["install", "--gemini"]);
    // The user edits the file while devcoach is installed.
    let mut changed = read_json(&h.join(".gemini/settings.json"));
    changed["theme"] = json!("light");
    write(&h.join(".gemini/settings.json"), &pretty(&changed));
    let removed = ok(&env, &["uninstall", "--gemini"]);
    assert!(removed.contains("kept ~/.gemini/settings.json.bak"), "{removed}");
    assert_eq!(read_json(&h.join(".gemini/settings.json")), json!({ "theme": "light" }));
    assert_eq!(read_json(&h.join(".gemini/settings.json.bak")), json!({ "theme": "dark" }));
}

/// Every path under `root` with what it is: a link's target, a file's bytes and mode.
fn shapes(root: &Path) -> BTreeMap<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).expect("under root").to_owned();
            let meta = std::fs::symlink_metadata(&path).expect("meta");
            let what = if meta.file_type().is_symlink() {
                format!("link → {}", std::fs::read_link(&path).expect("link").display())
            } else if meta.is_dir() {
                walk(&path, root, out);
                "folder".to_owned()
            } else {
                format!(
                    "{:o} {}",
                    meta.permissions().mode() & 0o777,
                    String::from_utf8_lossy(&std::fs::read(&path).expect("read"))
                )
            };
            out.insert(rel, what);
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn odd_shapes_come_back_as_they_were() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let h = home(&env);
    // Claude Code's settings kept as a link into a dotfiles folder; a private ~/.claude.json.
    write(&h.join("dotfiles/claude-settings.json"), &pretty(&json!({ "model": "opus" })));
    std::fs::create_dir_all(h.join(".claude")).expect("mkdir");
    std::os::unix::fs::symlink(h.join("dotfiles/claude-settings.json"), h.join(".claude/settings.json")).expect("link");
    write(
        &h.join(".claude.json"),
        &pretty(&json!({ "mcpServers": { "gh": { "command": "gh", "env": { "GITHUB_TOKEN": "secret" } } } })),
    );
    std::fs::set_permissions(h.join(".claude.json"), std::fs::Permissions::from_mode(0o600)).expect("chmod");
    // Both backup names already taken by the user.
    write(&h.join(".gemini/settings.json"), &pretty(&json!({ "theme": "dark" })));
    write(&h.join(".gemini/settings.json.bak"), "mine\n");
    write(&h.join(".gemini/settings.json.devcoach.bak"), "mine too\n");
    // A JSONC file with comments devcoach never needs to touch.
    write(&h.join(".config/opencode/opencode.jsonc"), "// my settings\n{ \"theme\": \"tokyonight\" }\n");
    let before = shapes(&h);

    let first = ok(&env, &["install", "--claude-code", "--gemini"]);
    assert!(
        std::fs::symlink_metadata(h.join(".claude/settings.json")).expect("meta").file_type().is_symlink(),
        "{first}"
    );
    let through = read_json(&h.join("dotfiles/claude-settings.json"));
    assert!(through["hooks"]["Stop"].is_array(), "the edit went to the file the link points at");
    let private = std::fs::metadata(h.join(".claude.json.bak")).expect("backup");
    assert_eq!(private.permissions().mode() & 0o077, 0, "a copy of a private file stays private");
    assert_eq!(std::fs::read_to_string(h.join(".gemini/settings.json.devcoach.bak")).expect("user's"), "mine too\n");
    assert_eq!(read_json(&h.join(".gemini/settings.json.devcoach-2.bak")), json!({ "theme": "dark" }));

    let removed = ok(&env, &["uninstall", "--all"]);
    assert!(!removed.contains('✗'), "{removed}");
    assert_eq!(shapes(&h), before, "{removed}");
}

#[test]
fn plugins_shared_skills_and_a_second_round() {
    let env = Env::new();
    let h = home(&env);
    // A link where devcoach's OpenCode plugin would go is not devcoach's to replace.
    std::fs::create_dir_all(h.join(".config/opencode/plugin")).expect("mkdir");
    std::os::unix::fs::symlink("/nowhere", h.join(".config/opencode/plugin/devcoach.js")).expect("link");
    let out = run(&env, &["install", "--opencode"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("is not devcoach's plugin"), "{out:?}");
    assert_eq!(std::fs::read_link(h.join(".config/opencode/plugin/devcoach.js")).expect("link"), Path::new("/nowhere"));
    ok(&env, &["uninstall", "--opencode"]);
    assert!(std::fs::symlink_metadata(h.join(".config/opencode/plugin/devcoach.js")).is_ok(), "the link stays");

    // The shared skill stays while an agent still uses it, hooks or not.
    ok(&env, &["install", "--copilot", "--skip-hook"]);
    ok(&env, &["install", "--qwen"]);
    let removed = ok(&env, &["uninstall", "--qwen"]);
    assert!(h.join(".agents/skills/devcoach/SKILL.md").is_file(), "{removed}");
    ok(&env, &["uninstall", "--copilot"]);
    assert!(!h.join(".agents").exists());

    // A second install after the user changed the file: the copy is of the file as it is then.
    write(&h.join(".gemini/settings.json"), &pretty(&json!({ "theme": "dark" })));
    ok(&env, &["install", "--gemini"]);
    let mut changed = read_json(&h.join(".gemini/settings.json"));
    changed["theme"] = json!("light");
    write(&h.join(".gemini/settings.json"), &pretty(&changed));
    assert!(ok(&env, &["uninstall", "--gemini"]).contains("kept ~/.gemini/settings.json.bak"));
    let mine = "{\"a\":1,\"b\":2,   \"c\":3}";
    write(&h.join(".gemini/settings.json"), mine);
    ok(&env, &["install", "--gemini"]);
    ok(&env, &["uninstall", "--gemini"]);
    assert_eq!(std::fs::read_to_string(h.join(".gemini/settings.json")).expect("read"), mine, "back to its bytes");
}

/// Claude Desktop's configuration file and logs folder in the sandbox, where `Places` looks.
fn desktop_places(env: &Env) -> (PathBuf, PathBuf) {
    let h = home(env);
    if cfg!(target_os = "macos") {
        (h.join("Library/Application Support/Claude/claude_desktop_config.json"), h.join("Library/Logs/Claude"))
    } else {
        (h.join(".config/Claude/claude_desktop_config.json"), h.join(".config/Claude/logs"))
    }
}

fn desktop_fixture(name: &str) -> String {
    let path = crate::fixtures().join("desktop-logs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A Desktop configuration whose devcoach entry runs `<command> mcp`, and these server logs;
/// returns the logs folder.
fn desktop_with(env: &Env, command: &str, logs: &[(&str, &str)]) -> PathBuf {
    let (config, dir) = desktop_places(env);
    write(&config, &pretty(&json!({ "mcpServers": { "devcoach": { "command": command, "args": ["mcp"] } } })));
    for (name, text) in logs {
        write(&dir.join(name), text);
    }
    dir
}

/// Findings wrap to the width: the report's words, one space apart.
fn words_of(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Desktop's own log says why devcoach did not start: here, what the server said on stderr
/// outranks the closed connection after it, and the PATH Desktop logged is named.
#[test]
fn doctor_reads_why_claude_desktop_could_not_start_devcoach() {
    let env = Env::new();
    desktop_with(&env, "devcoach", &[("mcp-server-devcoach.log", &desktop_fixture("env-node-missing.log"))]);
    let doctor = words_of(&doctor_report(&env));
    for expected in [
        "at 2026-11-30 07:58:10 UTC, the devcoach server stopped before answering Claude Desktop; \
         it said “env: node: No such file or directory”",
        "`node` is not on the PATH Claude Desktop uses: /usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin",
        "run `devcoach install --claude-desktop --force`",
        "then restart Claude Desktop",
    ] {
        assert!(doctor.contains(expected), "{expected:?} missing:\n{doctor}");
    }
    assert!(!doctor.contains("Connection closed"), "the generic closing is not the news:\n{doctor}");
}

/// The configured command is found on the PATH Desktop logged, and a script's `#!` interpreter
/// is looked for there too: a problem when it is missing.
#[cfg(unix)]
#[test]
fn doctor_checks_a_scripts_interpreter_on_claude_desktops_path() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let desktop_bin = env.tmp.path().join("desktop-bin");
    let script = desktop_bin.join("devcoach");
    write(&script, "#!/usr/bin/env nodeX\nconsole.log('never runs');\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let log = desktop_fixture("env-node-missing.log")
        .replace("'/usr/local/bin'", &format!("'{}'", desktop_bin.to_str().expect("utf-8")));
    desktop_with(&env, "devcoach", &[("mcp-server-devcoach.log", &log)]);
    let out = run(&env, &["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out, env.tmp.path()));
    let doctor = words_of(&String::from_utf8_lossy(&out.stdout));
    for expected in [
        format!("`devcoach` is {} on Claude Desktop's PATH", script.display()),
        format!("✗ {} is a nodeX script, and nodeX is not on Claude Desktop's PATH", script.display()),
    ] {
        assert!(doctor.contains(&expected), "{expected:?} missing:\n{doctor}");
    }
}

/// Of several logs naming devcoach (in any case), the one written last tells the last start.
#[test]
fn doctor_reads_the_newest_claude_desktop_log() {
    let env = Env::new();
    let exe = bin().canonicalize().expect("binary");
    let dir = desktop_with(
        &env,
        exe.to_str().expect("utf-8"),
        &[
            ("mcp-server-devcoach.log", &desktop_fixture("spawn-enoent-json.log")),
            ("mcp-server-DevCoach.log", &desktop_fixture("connected.log")),
        ],
    );
    let now = std::time::SystemTime::now();
    let age = |name: &str, seconds: u64| {
        let file = std::fs::File::options().write(true).open(dir.join(name)).expect("open");
        file.set_modified(now - std::time::Duration::from_secs(seconds)).expect("set the time");
    };
    // The failure's file comes last by name, but it is two days older.
    age("mcp-server-devcoach.log", 2 * 24 * 3600);
    age("mcp-server-DevCoach.log", 3600);
    let doctor = words_of(&doctor_report(&env));
    assert!(
        doctor.contains("✓ Claude Desktop started devcoach at 2026-11-30 09:00:00 UTC")
            && doctor.contains("mcp-server-DevCoach.log)"),
        "{doctor}"
    );
    assert!(!doctor.contains("could not run") && !doctor.contains('✗'), "{doctor}");
    // Written since, the failure is the news.
    age("mcp-server-devcoach.log", 0);
    let doctor = words_of(&doctor_report(&env));
    assert!(
        doctor.contains(
            "at 2026-11-28 09:14:02 UTC, Claude Desktop could not run `devcoach` (ENOENT): \
             it is not on the PATH Claude Desktop uses: /usr/bin:/bin:/usr/sbin:/sbin"
        ),
        "{doctor}"
    );
}

/// A FIFO where Desktop's log would be is named, never waited on.
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_claude_desktops_log_is_named_not_waited_on() {
    let env = Env::new();
    let exe = bin().canonicalize().expect("binary");
    let dir = desktop_with(&env, exe.to_str().expect("utf-8"), &[]);
    std::fs::create_dir_all(&dir).expect("logs folder");
    let made = std::process::Command::new("mkfifo").arg(dir.join("mcp-server-devcoach.log")).status().expect("mkfifo");
    assert!(made.success(), "mkfifo");
    // A deadline: a doctor that waited on the FIFO is killed and fails here, not hangs the suite.
    let out = env
        .command()
        .env("PATH", "/usr/bin:/bin")
        .arg("doctor")
        .timeout(std::time::Duration::from_secs(90))
        .output()
        .expect("ran");
    let text = transcript(&out, env.tmp.path());
    let summary = String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_owned();
    assert_eq!(out.status.code(), Some(i32::from(summary.contains("problem"))), "{text}");
    let doctor = words_of(&String::from_utf8_lossy(&out.stdout));
    assert!(
        doctor.contains("! cannot read Claude Desktop's log")
            && doctor.contains("mcp-server-devcoach.log: it is a named pipe (FIFO)"),
        "{text}"
    );
}
