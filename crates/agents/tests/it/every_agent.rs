use std::path::Path;

use devcoach_agents::launch::Launch;
use devcoach_agents::table::{Hooks, Mcp};
use devcoach_agents::wire::{self, InstallOptions, Mark};
use devcoach_agents::{Agent, Places, hooks_wired};

/// Every file under `root`, with its bytes.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((
                    path.strip_prefix(root).expect("under root").display().to_string(),
                    std::fs::read(&path).expect("read"),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_agent_installs_and_uninstalls_from_its_row() {
    // Nothing here reads the environment: each agent gets its own home, and the ledger of what
    // install created is kept in a folder of the test's own.
    let data = tempfile::tempdir().expect("data");
    devcoach_agents::ledger::keep_in(data.path());
    for &agent in Agent::ALL {
        let home = tempfile::tempdir().expect("home");
        let places = Places::at(home.path());
        std::fs::create_dir_all(places.agent_dir(agent)).expect("agent dir");
        let before = snapshot(home.path());
        let launch = Launch { program: "/opt/devcoach/bin/devcoach".into(), caution: None };
        let report = wire::install(agent, &places, &launch, InstallOptions { explicit: true, ..Default::default() });
        assert!(!report.failed(), "{agent:?}: {:?}", report.steps);
        let spec = agent.spec();
        // The MCP entry, where devcoach writes it itself.
        if let Some(file) = places.mcp_file(agent) {
            let doc: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&file).expect("mcp file")).expect("json");
            let entry = &doc[devcoach_agents::Places::mcp_key(agent)]["devcoach"];
            assert!(entry.to_string().contains("/opt/devcoach/bin/devcoach"), "{agent:?}: {doc}");
        } else {
            assert_eq!(spec.mcp, Mcp::CodexToml);
        }
        // The hooks (or the plugin) are in place and run the agent's own subcommands.
        match spec.hooks {
            Hooks::None => assert!(!hooks_wired(&places, agent)),
            Hooks::Json { .. } => {
                assert!(hooks_wired(&places, agent), "{agent:?}");
                let (path, _) = places.hook_file(agent).expect("hook file");
                let text = std::fs::read_to_string(path).expect("hooks");
                for (event, sub, _) in agent.hook_plan() {
                    assert!(text.contains(event) && text.contains(&format!("devcoach {sub}")), "{agent:?}: {text}");
                }
            }
            Hooks::Plugin { .. } => {
                assert!(hooks_wired(&places, agent), "{agent:?}");
                let text = std::fs::read_to_string(places.plugin_file(agent).expect("plugin")).expect("plugin");
                assert!(text.contains(&format!("const AGENT = \"{}\";", spec.slug)), "{agent:?}");
            }
        }
        if let Some(dir) = places.skill_dir(agent) {
            assert!(dir.join("SKILL.md").is_file(), "{agent:?}: no skill");
        }
        for note in spec.notes {
            assert!(report.steps.iter().any(|s| s.mark == Mark::Note && s.text == *note), "{agent:?}: {note}");
        }
        // Installing again changes nothing.
        let after_install = snapshot(home.path());
        let again = wire::install(agent, &places, &launch, InstallOptions { explicit: true, ..Default::default() });
        assert!(!again.failed());
        assert_eq!(snapshot(home.path()), after_install, "{agent:?}: a second install changed files");
        let ledger = devcoach_agents::ledger::stored();
        devcoach_agents::ledger::commit(ledger).expect("ledger");
        let removed = wire::uninstall(agent, &places, &[agent]);
        assert!(!removed.failed(), "{agent:?}: {:?}", removed.steps);
        assert!(!hooks_wired(&places, agent), "{agent:?}");
        if let Some(file) = places.mcp_file(agent)
            && let Ok(bytes) = std::fs::read(&file)
        {
            let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
            assert!(doc.get(Places::mcp_key(agent)).and_then(|m| m.get("devcoach")).is_none(), "{agent:?}");
        }
        if let Some(dir) = places.skill_dir(agent) {
            assert!(!dir.exists(), "{agent:?}: skill left");
        }
        let left = snapshot(home.path());
        // Files devcoach created may stay empty of devcoach; none may still name it.
        for (path, bytes) in &left {
            assert!(
                !String::from_utf8_lossy(bytes).contains("/opt/devcoach/bin/devcoach"),
                "{agent:?}: {path} still runs devcoach"
            );
        }
        assert!(left.len() >= before.len());
    }
}

/// The README's agent table and docs/agents.md have a row for every agent in the table, naming
/// its flag and its hook events.
#[test]
fn the_docs_have_a_row_for_every_agent() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let agents_md = std::fs::read_to_string(root.join("docs/agents.md")).expect("docs/agents.md");
    for &agent in Agent::ALL {
        let spec = agent.spec();
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| {} | `--{}`", spec.label, spec.flag)))
            .unwrap_or_else(|| panic!("README.md has no row for {} (`--{}`)", spec.label, spec.flag));
        match spec.hooks {
            Hooks::Json { stop, prompt, .. } => {
                assert!(row.contains(stop.name) && row.contains(prompt.name), "README row of {}: {row}", spec.label);
            }
            Hooks::Plugin { .. } => assert!(row.contains("plugin"), "README row of {}: {row}", spec.label),
            Hooks::None => assert!(row.contains("| – | – |"), "README row of {}: no cue, no prime", spec.label),
        }
        if spec.hook_names.is_some() {
            assert!(
                agents_md.lines().any(|l| l.starts_with(&format!("| {} |", spec.label))),
                "docs/agents.md has no row for {}",
                spec.label
            );
        }
    }
}

/// Another program may leave anything where an agent keeps its files: a FIFO named like
/// Codex's `config.toml` (which devcoach only reads) must not hold uninstall or doctor's check
/// forever, and an agent file larger than the cap is not read whole.
#[cfg(unix)]
#[test]
fn an_agent_file_that_is_a_fifo_or_huge_is_not_waited_on() {
    let home = tempfile::tempdir().expect("home");
    let places = Places::at(home.path());
    let data = tempfile::tempdir().expect("data");
    devcoach_agents::ledger::keep_in(data.path());
    std::fs::create_dir_all(places.codex_dir()).expect("codex dir");
    let fifo = places.codex_config();
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let (tx, rx) = std::sync::mpsc::channel();
    let p = places.clone();
    std::thread::spawn(move || {
        let report = wire::uninstall(Agent::Codex, &p, &[Agent::Codex]);
        let _ = tx.send(report.steps.len());
    });
    let steps = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("uninstall did not wait on the FIFO");
    assert!(steps > 0);
    // A settings file past the cap: read as unreadable, never loaded whole.
    let big = places.claude_settings();
    std::fs::create_dir_all(big.parent().expect("parent")).expect("dir");
    let file = std::fs::File::create(&big).expect("create");
    file.set_len(devcoach_core::limits::AGENT_CONFIG_BYTES + 1).expect("sparse");
    assert!(devcoach_agents::config::read_config(&big).is_none());
    assert!(!hooks_wired(&places, Agent::ClaudeCode));
}
