//! The real agent CLIs (Claude Code, Gemini CLI, Codex CLI, the MCPB packer), installed from npm
//! by `scripts/test.sh` into `target/agents`, against what `devcoach install` writes and what
//! the packages contain. Offline: no API keys, nothing leaves the machine; each run gets its own
//! home directory.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::fake_model::{self, FakeModel, Request, text_of};
use crate::{Env, bin, transcript};

fn target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

/// The agents' `node_modules/.bin`.
fn clients() -> PathBuf {
    let dir = std::env::var_os("DEVCOACH_TEST_AGENTS")
        .map_or_else(|| target().join("agents/node_modules/.bin"), PathBuf::from);
    assert!(
        ["claude", "gemini", "codex", "copilot", "qwen", "droid"].iter().all(|p| dir.join(p).exists()),
        "the agent CLIs are not installed: run scripts/test.sh (it installs them into target/agents), or set DEVCOACH_TEST_AGENTS"
    );
    dir
}

/// A sandbox outside the temporary directory (Codex refuses to set up there).
fn sandbox() -> Env {
    let root = target().join("agent-homes");
    std::fs::create_dir_all(&root).expect("sandbox root");
    let env = Env { tmp: tempfile::Builder::new().prefix("home-").tempdir_in(root).expect("sandbox") };
    std::fs::create_dir_all(env.tmp.path().join("home")).expect("home");
    std::fs::create_dir_all(env.tmp.path().join("tmp")).expect("tmp");
    env
}

fn path_var() -> String {
    format!("{}:/usr/local/bin:/usr/bin:/bin", clients().display())
}

/// An agent CLI (or devcoach) run in the sandbox, with the agents' offline switches.
fn agent(env: &Env, program: &str) -> Command {
    let program = if program == "devcoach" { bin() } else { clients().join(program) };
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .envs(env.vars())
        .env("PATH", path_var())
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .env("NO_COLOR", "1")
        .current_dir(env.tmp.path().join("home"))
        .stdin(Stdio::null());
    cmd
}

fn run(env: &Env, program: &str, args: &[&str]) -> Output {
    agent(env, program).args(args).output().unwrap_or_else(|e| panic!("{program}: {e}"))
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn ok(env: &Env, program: &str, args: &[&str]) -> String {
    let out = run(env, program, args);
    assert!(out.status.success(), "{program} {args:?}:\n{}", transcript(&out, env.tmp.path()));
    text(&out)
}

fn exe() -> String {
    bin().canonicalize().expect("binary").to_string_lossy().into_owned()
}

#[test]
fn claude_code_starts_the_installed_server_and_loads_the_skill() {
    let env = sandbox();
    let out = ok(&env, "devcoach", &["install", "--claude-code"]);
    assert!(out.contains("registered with `claude mcp add`"), "{out}");
    assert!(ok(&env, "devcoach", &["install", "--claude-code"]).contains("MCP server already registered"));

    let listed = ok(&env, "claude", &["mcp", "list"]);
    assert!(listed.contains(&format!("devcoach: {} mcp - ✔ Connected", exe())), "{listed}");

    // Claude Code reports its skills and servers before it first talks to the network.
    let init = claude_init(&env);
    assert!(init["skills"].as_array().is_some_and(|s| s.iter().any(|n| n == "devcoach")), "{init}");
    assert!(init["mcp_servers"].as_array().is_some_and(|s| s.iter().any(|m| m["name"] == "devcoach")), "{init}");

    let out = ok(&env, "devcoach", &["uninstall", "--claude-code"]);
    assert!(out.contains("removed with `claude mcp remove`"), "{out}");
    assert!(!ok(&env, "claude", &["mcp", "list"]).contains("devcoach"));
}

/// The `system/init` event of a headless Claude Code run, read before it gives up on the
/// (absent) network.
fn claude_init(env: &Env) -> Value {
    let mut child = agent(env, "claude")
        .args(["-p", "hello", "--output-format", "stream-json", "--verbose"])
        .env("ANTHROPIC_API_KEY", "sk-ant-test-offline")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("claude");
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && v["type"] == "system"
                && v["subtype"] == "init"
            {
                let _ = tx.send(v);
                return;
            }
        }
    });
    let init = rx.recv_timeout(Duration::from_mins(1));
    let _ = child.kill();
    let _ = child.wait();
    init.expect("claude printed no init event")
}

#[test]
fn gemini_cli_starts_the_server_and_lists_the_skill() {
    let env = sandbox();
    let out = ok(&env, "devcoach", &["install", "--gemini"]);
    assert!(out.contains("registered with `gemini mcp add`"), "{out}");
    let listed = ok(&env, "gemini", &["mcp", "list"]);
    assert!(listed.contains(&format!("✓ devcoach: {} mcp (stdio) - Connected", exe())), "{listed}");
    assert!(!listed.contains("Invalid configuration"), "Gemini rejected part of settings.json:\n{listed}");
    let skills = ok(&env, "gemini", &["skills", "list"]);
    assert!(skills.contains("devcoach"), "{skills}");
    ok(&env, "devcoach", &["uninstall", "--gemini"]);
    assert!(!ok(&env, "gemini", &["mcp", "list"]).contains("devcoach"));
}

/// Codex's own view of its hooks, from `codex app-server`.
fn codex_hooks(env: &Env) -> Vec<Value> {
    let home = env.tmp.path().join("home");
    let mut child = agent(env, "codex")
        .arg("app-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("codex");
    let mut stdin = child.stdin.take().expect("stdin");
    let messages = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "clientInfo": { "name": "devcoach-tests", "version": "0" } } }),
        json!({ "jsonrpc": "2.0", "method": "initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": { "cwds": [home] } }),
    ];
    for m in messages {
        writeln!(stdin, "{m}").expect("write");
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && v["id"] == 2
            {
                let _ = tx.send(v);
                return;
            }
        }
    });
    let answer = rx.recv_timeout(Duration::from_mins(1));
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let answer = answer.expect("codex app-server did not answer hooks/list");
    answer["result"]["data"][0]["hooks"].as_array().cloned().unwrap_or_default()
}

/// Approves hooks the way Codex records an approval: `[hooks.state."<key>"] trusted_hash`.
fn approve_codex_hooks(env: &Env, hooks: &[Value]) {
    let config = env.tmp.path().join("home/.codex/config.toml");
    let mut toml = std::fs::read_to_string(&config).expect("config.toml");
    for h in hooks {
        toml.push_str(&format!(
            "\n[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
            h["key"].as_str().expect("key"),
            h["currentHash"].as_str().expect("hash")
        ));
    }
    std::fs::write(&config, toml).expect("write");
}

/// A learner whose next stop is due once `nudge_every` allows it (onboarded, no lesson yet).
fn onboarded_learner(env: &Env) {
    ok(env, "devcoach", &["knowledge-add", "rust", "5"]);
}

/// Whether a request carries devcoach's end-of-turn lesson cue (how each agent wraps it aside).
fn carries_the_cue(request: &Request) -> bool {
    text_of(&request.body).contains("devcoach: the technical work just finished earns a lesson")
}

fn gemini_turn(env: &Env, fake: &FakeModel) -> (Output, Vec<Request>) {
    let before = fake.turns().len();
    let out = agent(env, "gemini")
        .args(["-m", "gemini-2.5-flash", "-p", "Rename the helper and run the tests."])
        .env("GEMINI_API_KEY", "offline")
        .env("GOOGLE_GEMINI_BASE_URL", fake.url())
        .output()
        .expect("gemini");
    assert!(out.status.success(), "gemini -p:\n{}", transcript(&out, env.tmp.path()));
    (out, fake.turns().split_off(before))
}

fn gemini_tools(request: &Request) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["functionDeclarations"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f["name"].as_str().map(str::to_owned))
        .filter(|name| name.starts_with("mcp_devcoach_"))
        .collect()
}

#[test]
fn a_headless_gemini_turn_sees_the_tools_once_trusted_and_takes_the_cue() {
    let env = sandbox();
    let fake = FakeModel::start();
    ok(&env, "devcoach", &["install", "--gemini", "--no-trust"]);
    // Gemini's API-key sign-in, the way `gemini` records it once chosen.
    let settings = env.tmp.path().join("home/.gemini/settings.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&settings).expect("settings")).expect("json");
    doc["security"] = json!({ "auth": { "selectedType": "gemini-api-key" } });
    std::fs::write(&settings, serde_json::to_vec_pretty(&doc).expect("json")).expect("write");
    onboarded_learner(&env);

    // Untrusted: the headless turn is offered none of devcoach's tools, and doctor says why.
    let (_, turn) = gemini_turn(&env, &fake);
    assert_eq!(turn.len(), 1, "paced: one model request, no cue");
    assert!(turn[0].path.contains("gemini-2.5-flash:streamGenerateContent"), "{}", turn[0].path);
    assert!(gemini_tools(&turn[0]).is_empty(), "{:?}", gemini_tools(&turn[0]));
    assert!(!carries_the_cue(&turn[0]));
    let doctor = ok(&env, "devcoach", &["doctor"]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(doctor.contains("headless runs (`gemini -p`) offer none of them"), "{doctor}");

    // Trusted (the consent step): every tool is offered; a due stop's cue comes back as the
    // next input, and the stop after it (the re-entry) ends the turn.
    let out =
        ok(&env, "devcoach", &["install", "--gemini", "--trust"]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(out.contains("trusted: Gemini CLI runs devcoach's tools without asking"), "{out}");
    ok(&env, "devcoach", &["set", "nudge_every", "1"]);
    ok(&env, "devcoach", &["set", "work_insights", "on"]);
    let (_, turn) = gemini_turn(&env, &fake);
    let tools = gemini_tools(&turn[0]);
    assert!(tools.len() >= 30 && tools.iter().any(|t| t == "mcp_devcoach_log_lesson"), "{tools:?}");
    assert_eq!(turn.len(), 2, "the cue, then the end of the turn");
    assert!(!carries_the_cue(&turn[0]) && carries_the_cue(&turn[1]));
    let last = turn[1].body["contents"].as_array().and_then(|c| c.last()).cloned().unwrap_or_default();
    assert_eq!(last["role"], "user", "the cue is the next user input");
    // The transcript Gemini keeps was read (work_insights on): the learner's one prompt, not
    // the cue that came back as input.
    if work_prompts(&env, "gemini") != Some(1) {
        let _ = std::process::Command::new("cp").arg("-a").arg(env.tmp.path()).arg("/tmp/gem-debug").status();
    }
    assert_eq!(work_prompts(&env, "gemini"), Some(1));
}

/// With work_insights on, the prompts the stop hook counted in the agent's own transcript.
fn work_prompts(env: &Env, agent: &str) -> Option<i64> {
    let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    conn.query_row("SELECT MAX(prompts) FROM ext_work_sessions WHERE agent = ?1", [agent], |r| r.get(0)).ok().flatten()
}

fn codex_turn(env: &Env, fake: &FakeModel) -> Vec<Request> {
    let before = fake.turns().len();
    let out = agent(env, "codex")
        .args(["exec", "--skip-git-repo-check", "Rename the helper and run the tests."])
        .output()
        .expect("codex");
    assert!(out.status.success(), "codex exec:\n{}", transcript(&out, env.tmp.path()));
    fake.turns().split_off(before)
}

#[test]
fn a_codex_turn_runs_the_approved_hooks_and_takes_the_cue() {
    let env = sandbox();
    let fake = FakeModel::start();
    ok(&env, "devcoach", &["install", "--codex"]);
    approve_codex_hooks(&env, &codex_hooks(&env));
    // The fake as Codex's model provider: top-level keys before the tables install wrote.
    let config = env.tmp.path().join("home/.codex/config.toml");
    let toml = std::fs::read_to_string(&config).expect("config.toml");
    let provider = format!(
        "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n{toml}\n[model_providers.fake]\nname = \"fake\"\n\
         base_url = \"{}/v1\"\nwire_api = \"responses\"\nstream_max_retries = 0\nrequest_max_retries = 0\n",
        fake.url()
    );
    std::fs::write(&config, provider).expect("write");
    onboarded_learner(&env);

    let turn = codex_turn(&env, &fake);
    assert_eq!(turn.len(), 1, "paced: one model request, no cue");
    assert_eq!(turn[0].path, "/v1/responses");
    let namespace = turn[0].body["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "mcp__devcoach"))
        .cloned()
        .expect("devcoach's tools offered");
    let names: Vec<&str> =
        namespace["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.len() >= 30 && names.contains(&"log_lesson"), "{names:?}");

    ok(&env, "devcoach", &["set", "nudge_every", "1"]);
    ok(&env, "devcoach", &["set", "work_insights", "on"]);
    let turn = codex_turn(&env, &fake);
    assert_eq!(turn.len(), 2, "the cue, then the end of the turn");
    assert!(carries_the_cue(&turn[1]) && text_of(&turn[1].body).contains("<hook_prompt"));
    // Codex's rollout file was read: the learner's prompt, not its environment notes, its
    // instructions or the hook's prompt.
    assert_eq!(work_prompts(&env, "codex"), Some(1));
}

/// A fresh project folder for one agent turn (agents treat the folder as the workspace).
fn project(env: &Env) -> PathBuf {
    let dir = env.tmp.path().join("project");
    std::fs::create_dir_all(&dir).expect("project");
    dir
}

/// One headless turn of a Chat Completions agent against the fake; the requests it made.
fn chat_turn(env: &Env, fake: &FakeModel, program: &str, args: &[&str], vars: &[(&str, String)]) -> Vec<Request> {
    let before = fake.turns().len();
    let mut cmd = agent(env, program);
    cmd.args(args).current_dir(project(env));
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect(program);
    assert!(out.status.success(), "{program} {args:?}:\n{}", transcript(&out, env.tmp.path()));
    fake.turns().split_off(before)
}

fn tool_names(request: &Request) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// The lesson the fake model logged through the agent reached the store.
fn lesson_logged(env: &Env) -> bool {
    let out = run(env, "devcoach", &["lessons", "--json"]);
    String::from_utf8_lossy(&out.stdout).contains(fake_model::LESSON_ID)
}

/// The rest of the agents' paced → cued → logged story, the same for each: a paced turn offers
/// devcoach's tools and makes one request; once due, the cue comes back as the next input, the
/// model logs the lesson, and the turn ends.
fn paced_then_cued(env: &Env, turn: &dyn Fn() -> Vec<Request>, offered: &dyn Fn(&Request) -> usize) {
    onboarded_learner(env);
    let first = turn();
    assert_eq!(first.len(), 1, "paced: one model request, no cue");
    assert!(offered(&first[0]) >= 30, "devcoach's tools offered: {}", offered(&first[0]));
    assert!(!carries_the_cue(&first[0]));
    ok(env, "devcoach", &["set", "nudge_every", "1"]);
    let second = turn();
    assert!(second.len() >= 2, "the cue came back: {} requests", second.len());
    assert!(!carries_the_cue(&second[0]) && second.iter().skip(1).any(carries_the_cue));
}

/// Copilot CLI offline, on the fake model.
fn copilot_vars(fake: &FakeModel) -> [(&'static str, String); 5] {
    [
        ("COPILOT_OFFLINE", "true".to_owned()),
        ("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", fake.url())),
        ("COPILOT_MODEL", "fake-model".to_owned()),
        ("COPILOT_AUTO_UPDATE", "false".to_owned()),
        // Copilot unpacks itself into the cache on a first run: once for every test home.
        ("XDG_CACHE_HOME", target().join("agent-cache").display().to_string()),
    ]
}

#[test]
fn a_copilot_cli_turn_takes_the_cue_and_logs_the_lesson() {
    let env = sandbox();
    let fake = FakeModel::start();
    ok(&env, "devcoach", &["install", "--copilot"]);
    let vars = copilot_vars(&fake);
    let turn = || {
        chat_turn(&env, &fake, "copilot", &["-p", "Rename the helper and run the tests.", "--allow-all-tools"], &vars)
    };
    let offered = |r: &Request| tool_names(r).iter().filter(|n| n.starts_with("devcoach-")).count();
    paced_then_cued(&env, &turn, &offered);
    assert!(lesson_logged(&env), "the model's log_lesson reached the store");

    // The learner answers the card's feedback line by explaining it back; the model records
    // the words and its grade, and the calibration the CLI reads has them.
    let words = format!("{} Rename it, build, and fix each place the compiler lists.", fake_model::EXPLAIN_MARK);
    chat_turn(&env, &fake, "copilot", &["-p", &words, "--allow-all-tools"], &vars);
    let stats: Value = serde_json::from_slice(&run(&env, "devcoach", &["stats", "--json"]).stdout).expect("json");
    let rust = stats["calibration"]["topics"].as_array().and_then(|t| t.iter().find(|t| t["topic"] == "rust"));
    assert_eq!(rust.map(|t| t["checked_answers"].clone()), Some(json!(1)), "{stats}");
}

/// The tool results of a turn's requests, as the agent handed them back to the model.
fn tool_results(requests: &[Request]) -> String {
    requests
        .last()
        .and_then(|r| r.body["messages"].as_array().cloned())
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| text_of(&m))
        .collect()
}

/// The skill's hands-on offer in a real agent: the lesson logged after work on a project whose
/// change holds a tested function comes back with `handson_offer`, the model offers it after the
/// card; the learner says yes on the next turn and the model starts the exercise and checks the
/// stub through MCP. The learner's repository is as it was, once the next start has removed the
/// exercise the agent left open.
#[test]
fn a_copilot_cli_turn_offers_a_hands_on_exercise_and_runs_it_through_mcp() {
    let env = sandbox();
    let fake = FakeModel::start();
    ok(&env, "devcoach", &["install", "--copilot"]);
    onboarded_learner(&env);
    ok(&env, "devcoach", &["set", "nudge_every", "1"]);
    let repo = project(&env);
    crate::handson::python_repo_in(&repo);
    let status_before = crate::handson::git(&repo, &["status", "--porcelain=v2", "--untracked-files=all"]);
    let vars = copilot_vars(&fake);
    let turn = |prompt: &str| chat_turn(&env, &fake, "copilot", &["-p", prompt, "--allow-all-tools"], &vars);

    // The cue comes back, the lesson is logged, and its result carries the offer.
    let first = turn("Add a total with a discount to the cart.");
    assert!(lesson_logged(&env), "the model's log_lesson reached the store");
    let results = tool_results(&first);
    assert!(results.contains("handson_offer") && results.contains("\"function\":\"total\""), "{results}");
    assert!(results.contains("handson_not_now"), "the offer says how to take it and how to decline it");
    // The learner says yes; the model starts the exercise and checks the stub.
    let second = turn(fake_model::HANDSON_YES);
    let results = tool_results(&second);
    assert!(results.contains("\"session_id\"") && results.contains("cart.py"), "handson_start answered: {results}");
    assert!(
        results.contains("\"passed\":false") && results.contains("test_total_with_discount"),
        "handson_check ran the project's tests on the stub: {results}"
    );
    // The exercise lives under devcoach's data folder; the learner's tree is untouched.
    assert_eq!(crate::handson::git(&repo, &["status", "--porcelain=v2", "--untracked-files=all"]), status_before);
    // The agent's server has exited with the exercise open: the next start removes it.
    let mut cleanup = agent(&env, "devcoach");
    cleanup.args(["handson", "--list"]).current_dir(&repo);
    let out = cleanup.output().expect("devcoach");
    assert!(text(&out).contains("Removed an exercise an earlier session left open (total)"), "{}", text(&out));
    assert_eq!(crate::handson::git(&repo, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1);
    assert_eq!(crate::handson::git(&repo, &["status", "--porcelain=v2", "--untracked-files=all"]), status_before);
}

/// The same turn with devcoach's Copilot plugin instead of `devcoach install`: the plugin's
/// hooks find the launcher through the plugin root Copilot hands them.
#[test]
fn a_copilot_cli_turn_through_the_plugin_takes_the_cue() {
    let env = sandbox();
    let fake = FakeModel::start();
    let local_bin = env.tmp.path().join("home/.local/bin");
    std::fs::create_dir_all(&local_bin).expect("mkdir");
    std::os::unix::fs::symlink(exe(), local_bin.join("devcoach")).expect("link");
    let vars = copilot_vars(&fake);
    let plugin = repo().join("packaging/copilot-plugin");
    let mut install = agent(&env, "copilot");
    install.args(["plugin", "install", plugin.to_str().expect("utf-8")]).envs(vars.iter().map(|(k, v)| (k, v)));
    let out = install.output().expect("copilot");
    assert!(out.status.success(), "{}", transcript(&out, env.tmp.path()));
    let turn = || {
        chat_turn(&env, &fake, "copilot", &["-p", "Rename the helper and run the tests.", "--allow-all-tools"], &vars)
    };
    let offered = |r: &Request| tool_names(r).iter().filter(|n| n.contains("devcoach")).count();
    paced_then_cued(&env, &turn, &offered);
    assert!(lesson_logged(&env), "the model's log_lesson reached the store");
}

#[test]
fn a_qwen_code_turn_takes_the_cue_and_logs_the_lesson() {
    let env = sandbox();
    let fake = FakeModel::start();
    ok(&env, "devcoach", &["install", "--qwen"]);
    // Qwen's OpenAI sign-in, and no background memory request after a turn.
    let settings = env.tmp.path().join("home/.qwen/settings.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&settings).expect("settings")).expect("json");
    doc["security"] = json!({ "auth": { "selectedType": "openai" } });
    doc["memory"] = json!({ "enableManagedAutoMemory": false, "enableManagedAutoDream": false });
    doc["privacy"] = json!({ "usageStatisticsEnabled": false });
    std::fs::write(&settings, serde_json::to_vec_pretty(&doc).expect("json")).expect("write");
    let vars = [
        ("OPENAI_BASE_URL", format!("{}/v1", fake.url())),
        ("OPENAI_API_KEY", "offline".to_owned()),
        ("OPENAI_MODEL", "fake-model".to_owned()),
    ];
    let turn = || chat_turn(&env, &fake, "qwen", &["-p", "Rename the helper and run the tests.", "--yolo"], &vars);
    let offered = |r: &Request| tool_names(r).iter().filter(|n| n.starts_with("mcp__devcoach__")).count();
    paced_then_cued(&env, &turn, &offered);
    assert!(lesson_logged(&env), "the model's log_lesson reached the store");
}

#[test]
fn a_droid_turn_takes_the_cue_and_logs_the_lesson() {
    let env = sandbox();
    let fake = FakeModel::start();
    ok(&env, "devcoach", &["install", "--droid"]);
    let settings = env.tmp.path().join("home/.factory/settings.json");
    // Droid starts MCP servers in the background unless told to wait for them.
    let models = json!({ "blockOnMcpLoad": true, "customModels": [{
        "model": "fake-model", "displayName": "Fake", "baseUrl": format!("{}/v1", fake.url()),
        "apiKey": "offline", "provider": "generic-chat-completion-api", "maxOutputTokens": 4096
    }] });
    std::fs::write(&settings, serde_json::to_vec_pretty(&models).expect("json")).expect("write");
    // No telemetry, settings or flags fetched (each would wait on DNS).
    let vars = [("FACTORY_AIRGAP_ENABLED", "1".to_owned())];
    let turn = || {
        chat_turn(
            &env,
            &fake,
            "droid",
            &["exec", "--auto", "high", "-m", "custom:fake-model", "Rename the helper and run the tests."],
            &vars,
        )
    };
    // Droid lists a server's tools for its tool search instead of loading them.
    let offered = |r: &Request| text_of(&r.body).matches("devcoach___").count();
    paced_then_cued(&env, &turn, &offered);
    assert!(lesson_logged(&env), "the model found log_lesson through the tool search and it reached the store");
}

/// One HTTP/1.1 request to a loopback server; the response body (chunked or not).
fn http(port: u16, method: &str, path: &str, body: &str) -> String {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(Duration::from_mins(2))).expect("timeout");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return rest.to_owned();
    }
    let (mut out, mut rest) = (String::new(), rest);
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// OpenCode or Kilo, set up to run offline against the fake: the fake as its provider, and its
/// plugin dependency marked installed (it would fetch `@opencode-ai/plugin` at every start).
fn plugin_agent_config(env: &Env, fake: &FakeModel, dir: &str, file: &str, plugin_package: &str) {
    let config_dir = env.tmp.path().join("home/.config").join(dir);
    let config = config_dir.join(file);
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&config).expect("config")).expect("json");
    doc["provider"] = json!({ "fake": {
        "npm": "@ai-sdk/openai-compatible",
        "options": { "baseURL": format!("{}/v1", fake.url()) },
        "models": { "fake-model": { "name": "Fake" } }
    } });
    doc["model"] = json!("fake/fake-model");
    doc["enabled_providers"] = json!(["fake"]);
    std::fs::write(&config, serde_json::to_vec_pretty(&doc).expect("json")).expect("write");
    std::fs::create_dir_all(config_dir.join("node_modules")).expect("seed");
    let lock = json!({ "packages": { "": { "dependencies": { plugin_package: "*" } } } });
    std::fs::write(config_dir.join("package-lock.json"), lock.to_string()).expect("seed");
}

/// One turn of OpenCode under `opencode serve` (its interface's mode: a one-shot `run` exits
/// at idle): a session, a message, then quiet. The model requests that offered tools (a new
/// session also asks for a title, without tools).
fn opencode_turn(env: &Env, fake: &FakeModel) -> Vec<Request> {
    let before = fake.turns().len();
    let mut serve = agent(env, "opencode")
        .args(["serve", "--port", "0"])
        .current_dir(project(env))
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("opencode serve");
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = serve.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(port) = line.rsplit(':').next().and_then(|p| p.trim().parse::<u16>().ok())
                && line.contains("listening on")
            {
                let _ = tx.send(port);
            }
        }
    });
    let port = rx.recv_timeout(Duration::from_mins(1)).expect("opencode serve did not start");
    let session: Value = serde_json::from_str(&http(port, "POST", "/session", "{}")).expect("session");
    let id = session["id"].as_str().expect("session id").to_owned();
    let message = json!({ "parts": [{ "type": "text", "text": "Rename the helper and run the tests." }] });
    http(port, "POST", &format!("/session/{id}/message"), &message.to_string());
    // The plugin may go on after the turn (the cue, a tool call): wait until all is quiet.
    let mut seen = fake.turns().len();
    let deadline = std::time::Instant::now() + Duration::from_mins(1);
    while std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_secs(3));
        let now = fake.turns().len();
        if now == seen && http(port, "GET", "/session/status", "").trim() == "{}" {
            break;
        }
        seen = now;
    }
    let _ = serve.kill();
    let _ = serve.wait();
    fake.turns().split_off(before).into_iter().filter(|r| !tool_names(r).is_empty()).collect()
}

#[test]
fn an_opencode_session_takes_the_cue_through_the_plugin_and_logs_the_lesson() {
    let env = sandbox();
    let fake = FakeModel::start();
    let out = ok(&env, "devcoach", &["install", "--opencode"]);
    assert!(out.contains("plugin installed"), "{out}");
    plugin_agent_config(&env, &fake, "opencode", "opencode.json", "@opencode-ai/plugin");
    let turn = || opencode_turn(&env, &fake);
    let offered = |r: &Request| tool_names(r).iter().filter(|n| n.starts_with("devcoach_")).count();
    paced_then_cued(&env, &turn, &offered);
    assert!(lesson_logged(&env), "the model's log_lesson reached the store");
}

/// Kilo Code's own build (its npm wrapper does not resolve yet), when this machine has it.
fn kilo() -> Option<PathBuf> {
    let bin = clients().join("../@kilocode/cli-linux-x64/bin/kilo");
    bin.exists().then_some(bin)
}

#[test]
fn kilo_code_loads_the_plugin_and_connects_the_server() {
    // Only linux-x64 has a pinned Kilo build; elsewhere there is nothing to run.
    #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
    if kilo().is_none() {
        return;
    }
    let kilo = kilo().expect("Kilo is pinned for linux-x64: run scripts/test.sh (it installs it)");
    let env = sandbox();
    let fake = FakeModel::start();
    ok(&env, "devcoach", &["install", "--kilo"]);
    plugin_agent_config(&env, &fake, "kilo", "kilo.json", "@kilocode/plugin");
    let kilo_run = |args: &[&str]| {
        let out = Command::new(&kilo)
            .args(args)
            .env_clear()
            .envs(env.vars())
            .env("PATH", path_var())
            .env("KILO_DISABLE_MODELS_FETCH", "1")
            .env("KILO_DISABLE_AUTOUPDATE", "1")
            .env("KILO_TELEMETRY_LEVEL", "off")
            .current_dir(project(&env))
            .stdin(Stdio::null())
            .output()
            .expect("kilo");
        assert!(out.status.success(), "kilo {args:?}:\n{}", transcript(&out, env.tmp.path()));
        text(&out)
    };
    let listed = kilo_run(&["mcp", "list"]);
    assert!(listed.contains("devcoach") && listed.contains("connected"), "{listed}");
    let config = kilo_run(&["debug", "config"]);
    assert!(config.contains("plugin/devcoach.js"), "{config}");
}

/// The Qwen Code extension and the Copilot CLI plugin as their agents install them: each starts
/// devcoach's server through the package's launcher (which finds devcoach on PATH).
#[test]
fn qwen_code_and_copilot_cli_install_their_packages() {
    let env = sandbox();
    let local_bin = env.tmp.path().join("home/.local/bin");
    std::fs::create_dir_all(&local_bin).expect("mkdir");
    std::os::unix::fs::symlink(exe(), local_bin.join("devcoach")).expect("link");
    let extension = repo().join("packaging/qwen-extension");
    let out = ok(&env, "qwen", &["extensions", "install", extension.to_str().expect("utf-8"), "--consent"]);
    assert!(out.contains("installed successfully"), "{out}");
    let listed = ok(&env, "qwen", &["mcp", "list"]);
    assert!(listed.contains("devcoach") && listed.contains("Connected"), "{listed}");
    let extensions = ok(&env, "qwen", &["extensions", "list"]);
    assert!(extensions.contains("devcoach") && extensions.contains("Skills"), "{extensions}");

    let cache = target().join("agent-cache");
    let copilot = |args: &[&str]| {
        let out = agent(&env, "copilot")
            .args(args)
            .env("XDG_CACHE_HOME", &cache)
            .env("COPILOT_OFFLINE", "true")
            .env("COPILOT_AUTO_UPDATE", "false")
            .output()
            .expect("copilot");
        assert!(out.status.success(), "copilot {args:?}:\n{}", transcript(&out, env.tmp.path()));
        text(&out)
    };
    let plugin = repo().join("packaging/copilot-plugin");
    let out = copilot(&["plugin", "install", plugin.to_str().expect("utf-8")]);
    assert!(out.contains("installed successfully") && out.contains("1 skill"), "{out}");
    assert!(copilot(&["plugin", "list"]).contains("devcoach"));
    let servers = copilot(&["mcp", "list"]);
    assert!(servers.contains("devcoach"), "{servers}");

    // With the packages in place, `devcoach install` leaves both agents to them, and doctor
    // knows the packages.
    let out =
        ok(&env, "devcoach", &["install", "--copilot", "--qwen"]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(out.contains("the devcoach plugin for Copilot CLI provides them"), "{out}");
    assert!(out.contains("the devcoach extension for Qwen Code provides them"), "{out}");
    assert!(!env.tmp.path().join("home/.copilot/hooks/devcoach.json").exists());
    let doctor = ok(&env, "devcoach", &["doctor"]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        doctor.contains("devcoach plugin installed") && doctor.contains("devcoach extension installed"),
        "{doctor}"
    );
}

#[test]
fn codex_registers_the_server_and_agrees_on_hook_approval() {
    let env = sandbox();
    let out = ok(&env, "devcoach", &["install", "--codex"]);
    assert!(out.contains("registered with `codex mcp add`"), "{out}");
    let servers: Value = serde_json::from_str(&ok(&env, "codex", &["mcp", "list", "--json"])).expect("json");
    let ours = servers.as_array().and_then(|s| s.iter().find(|s| s["name"] == "devcoach")).expect("listed");
    assert_eq!(
        (ours["transport"]["command"].as_str(), ours["transport"]["args"].clone()),
        (Some(exe().as_str()), json!(["mcp"]))
    );

    let hooks = codex_hooks(&env);
    let commands: Vec<&str> = hooks.iter().filter_map(|h| h["command"].as_str()).collect();
    assert_eq!(commands, [format!("{} codex-prompt-hook", exe()), format!("{} codex-stop-hook", exe())]);
    assert!(hooks.iter().all(|h| h["trustStatus"] == "untrusted"));
    assert!(ok(&env, "devcoach", &["doctor"]).contains("Stop hook not approved yet"));

    // Approve them as Codex records it; doctor then agrees with Codex that they are trusted.
    approve_codex_hooks(&env, &hooks);
    assert!(codex_hooks(&env).iter().all(|h| h["trustStatus"] == "trusted"));
    let doctor = ok(&env, "devcoach", &["doctor"]);
    assert!(
        doctor.contains("Stop hook approved in Codex") && doctor.contains("UserPromptSubmit hook approved in Codex"),
        "{doctor}"
    );

    // A hook that moves needs approving again: both sides see it.
    let hooks_file = env.tmp.path().join("home/.codex/hooks.json");
    let moved = std::fs::read_to_string(&hooks_file)
        .expect("hooks")
        .replace("codex-stop-hook\",\n            \"timeout\": 60", "codex-stop-hook\",\n            \"timeout\": 61");
    std::fs::write(&hooks_file, moved).expect("write");
    assert!(codex_hooks(&env).iter().any(|h| h["trustStatus"] == "modified"));
    assert!(ok(&env, "devcoach", &["doctor"]).contains("Stop hook changed since you approved it"));

    let out = ok(&env, "devcoach", &["uninstall", "--codex"]);
    assert!(out.contains("removed with `codex mcp remove`"), "{out}");
    assert!(codex_hooks(&env).is_empty());
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_packages_pass_each_agents_own_validator() {
    let env = sandbox();
    let plugin = repo().join("packaging/claude-plugin");
    let out = ok(&env, "claude", &["plugin", "validate", plugin.to_str().expect("utf-8")]);
    assert!(out.contains("✔ Validation passed") && !out.contains("warning"), "{out}");
    let extension = repo().join("packaging/gemini-extension");
    let out = ok(&env, "gemini", &["extensions", "validate", extension.to_str().expect("utf-8")]);
    assert!(out.contains("successfully validated") && !out.contains("Warning"), "{out}");
    // The Claude Desktop bundle as scripts/release.sh packs it: manifest, icon, binary (here a
    // small stand-in that runs this build, so packing stays quick).
    let bundle = env.tmp.path().join("bundle");
    std::fs::create_dir_all(bundle.join("bin")).expect("mkdir");
    std::fs::copy(repo().join("packaging/claude-desktop/manifest.json"), bundle.join("manifest.json"))
        .expect("manifest");
    std::fs::copy(repo().join("assets/packaging/icon.png"), bundle.join("icon.png")).expect("icon");
    let stand_in = bundle.join("bin/devcoach");
    std::fs::write(&stand_in, format!("#!/bin/sh\nexec '{}' \"$@\"\n", exe())).expect("stand-in");
    std::fs::set_permissions(&stand_in, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let manifest = bundle.join("manifest.json");
    let out = ok(&env, "mcpb", &["validate", manifest.to_str().expect("utf-8")]);
    assert!(out.contains("Manifest schema validation passes!") && !out.contains("ERROR"), "{out}");
    let packed = env.tmp.path().join("devcoach.mcpb");
    let out = ok(&env, "mcpb", &["pack", bundle.to_str().expect("utf-8"), packed.to_str().expect("utf-8")]);
    assert!(
        out.contains(&format!("devcoach@{}", env!("CARGO_PKG_VERSION"))) && out.contains("total files: 3"),
        "{out}"
    );
    let info = ok(&env, "mcpb", &["info", packed.to_str().expect("utf-8")]);
    assert!(info.contains("File: devcoach.mcpb"), "{info}");
    let unpacked = env.tmp.path().join("unpacked");
    ok(&env, "mcpb", &["unpack", packed.to_str().expect("utf-8"), unpacked.to_str().expect("utf-8")]);
    assert!(unpacked.join("icon.png").is_file());
    let version = Command::new(unpacked.join("bin/devcoach")).arg("--version").output().expect("bundled binary");
    assert!(String::from_utf8_lossy(&version.stdout).contains(env!("CARGO_PKG_VERSION")));
}

/// The plugin as a user gets it: Claude Code adds this repository as a marketplace (its
/// `.claude-plugin/marketplace.json`), installs the plugin from it, and the plugin's launcher
/// finds devcoach on PATH: the server connects, and the hooks, commands and skill are there.
#[test]
fn claude_code_installs_the_plugin_from_the_marketplace() {
    let env = sandbox();
    let bin_dir = env.tmp.path().join("bin");
    std::fs::create_dir_all(&bin_dir).expect("bin");
    std::os::unix::fs::symlink(bin(), bin_dir.join("devcoach")).expect("link");
    let claude = |args: &[&str]| {
        let out = agent(&env, "claude")
            .env("PATH", format!("{}:{}", bin_dir.display(), path_var()))
            .args(args)
            .output()
            .expect("claude");
        assert!(out.status.success(), "claude {args:?}:\n{}", transcript(&out, env.tmp.path()));
        text(&out)
    };
    let added = claude(&["plugin", "marketplace", "add", repo().to_str().expect("utf-8")]);
    assert!(added.contains("Successfully added marketplace: devcoach"), "{added}");
    let installed = claude(&["plugin", "install", "devcoach@devcoach"]);
    assert!(installed.contains("Successfully installed plugin: devcoach@devcoach"), "{installed}");
    let plugins = claude(&["plugin", "list"]);
    for expected in ["devcoach@devcoach", &format!("Version: {}", env!("CARGO_PKG_VERSION")), "enabled"] {
        assert!(plugins.contains(expected), "{expected:?} missing:\n{plugins}");
    }
    let details = claude(&["plugin", "details", "devcoach"]);
    for expected in ["Hooks (2)", "Stop", "UserPromptSubmit", "MCP servers (1)", "devcoach"] {
        assert!(details.contains(expected), "{expected:?} missing:\n{details}");
    }
    let listed = claude(&["mcp", "list"]);
    assert!(
        listed.contains("plugin:devcoach:devcoach") && listed.contains("devcoach-launch mcp - ✔ Connected"),
        "{listed}"
    );
    // Our tool schemas pass its validator without a warning.
    assert!(!listed.contains("unknown format"), "{listed}");
}
