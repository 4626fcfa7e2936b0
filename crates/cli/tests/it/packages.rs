//! The committed Desktop manifest lists the tools the live server offers (that the committed
//! packages are what `cargo xtask write-packages` writes is the xtask's own test).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::Env;
use crate::mcp_protocol::{by_id, exchange, init};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

#[test]
fn the_desktop_manifest_lists_the_live_tools_and_prompt() {
    let env = Env::new();
    let mut lines = init();
    lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string());
    lines.push(json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}).to_string());
    let (out, _) = exchange(&env, &lines);
    let live: Vec<Value> =
        by_id(&out, 2)["result"]["tools"].as_array().expect("tools").iter().map(|t| t["name"].clone()).collect();
    let prompts: Vec<Value> =
        by_id(&out, 3)["result"]["prompts"].as_array().expect("prompts").iter().map(|p| p["name"].clone()).collect();
    let manifest = read_json(&repo().join("packaging/claude-desktop/manifest.json"));
    let declared: Vec<Value> = manifest["tools"].as_array().expect("tools").iter().map(|t| t["name"].clone()).collect();
    assert_eq!(declared, live);
    let declared: Vec<Value> =
        manifest["prompts"].as_array().expect("prompts").iter().map(|p| p["name"].clone()).collect();
    assert_eq!(declared, prompts);
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn versions_and_hooks_agree_across_packages() {
    let version = env!("CARGO_PKG_VERSION");
    let root = repo();
    assert_eq!(read_json(&root.join("packaging/claude-plugin/.claude-plugin/plugin.json"))["version"], version);
    assert!(read_json(&root.join("packaging/claude-plugin/.claude-plugin/plugin.json"))["repository"].is_string());
    assert_eq!(read_json(&root.join("packaging/gemini-extension/gemini-extension.json"))["version"], version);
    let server = read_json(&root.join("packaging/server.json"));
    assert_eq!((server["version"].as_str(), server["packages"][0]["version"].as_str()), (Some(version), Some(version)));
    assert_eq!(
        read_json(&root.join(".claude-plugin/marketplace.json"))["plugins"][0]["source"],
        "./packaging/claude-plugin"
    );

    // npm: the main package pins every platform package at this version; each platform
    // package names its os and cpu; the registry entry points at the main package.
    let main = read_json(&root.join("packaging/npm/devcoach/package.json"));
    assert_eq!((main["version"].as_str(), main["bin"]["devcoach"].as_str()), (Some(version), Some("bin/devcoach.js")));
    assert_eq!(server["packages"][0]["identifier"], main["name"]);
    let optional = main["optionalDependencies"].as_object().expect("optional dependencies");
    assert_eq!(optional.len(), 5);
    for (name, pinned) in optional {
        assert_eq!(pinned, version, "{name}");
        let dir = name.trim_start_matches("@devcoach-rs/devcoach-");
        let platform = read_json(&root.join("packaging/npm/platforms").join(dir).join("package.json"));
        assert_eq!((platform["name"].as_str(), platform["version"].as_str()), (Some(name.as_str()), Some(version)));
        let (os, cpu) = dir.split_once('-').expect("os-cpu");
        assert_eq!((platform["os"][0].as_str(), platform["cpu"][0].as_str()), (Some(os), Some(cpu)));
    }

    // The plugin's hooks run the same subcommands with the same timeouts `install` writes.
    let hooks = read_json(&root.join("packaging/claude-plugin/hooks/hooks.json"));
    let stop = hooks["hooks"]["Stop"][0]["hooks"][0].clone();
    assert_eq!(
        (stop["timeout"].as_u64(), stop["command"].as_str().map(|c| c.ends_with(" stop-hook"))),
        (Some(60), Some(true))
    );
    let gemini = read_json(&root.join("packaging/gemini-extension/hooks/hooks.json"));
    assert_eq!(gemini["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"], 30_000);

    // The skill mirrors are the skill.
    for dir in ["packaging/claude-plugin/skills/devcoach", "packaging/gemini-extension/skills/devcoach"] {
        assert_eq!(
            std::fs::read(root.join(dir).join("SKILL.md")).expect("skill"),
            std::fs::read(root.join("assets/SKILL.md")).expect("asset")
        );
    }
}

/// The launcher: runs the devcoach it finds (on PATH, else this version's npm build in npm's
/// cache), falls back to npx with the pinned version for the server, and never makes a hook
/// wait for an install. A copy that does not start is passed over with its reason; a hook with
/// nothing working gives one notice a day (never an error), and `doctor` says what it found.
#[cfg(unix)]
#[test]
fn the_launcher_finds_devcoach_or_stays_out_of_the_way() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let launcher = repo().join("packaging/claude-plugin/bin/devcoach-launch");
    let version = env!("CARGO_PKG_VERSION");
    let home = env.tmp.path().join("home");
    let script = |path: &std::path::Path, body: &str| {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("script");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    let bin_dir = env.tmp.path().join("bin");
    std::fs::create_dir_all(&bin_dir).expect("dir");
    std::os::unix::fs::symlink(crate::bin(), bin_dir.join("devcoach")).expect("link");
    // A stand-in npx that records how it was called.
    let npx_dir = env.tmp.path().join("npx");
    let npx_log = env.tmp.path().join("npx.log");
    script(&npx_dir.join("npx"), &format!("echo \"$*\" >> '{}'", npx_log.display()));
    let run_in = |path: &str, args: &[&str], home: Option<&Path>| {
        let mut command = std::process::Command::new("/bin/sh");
        command.arg(&launcher).args(args).env_clear().env("PATH", path).env("DEVCOACH_DIR", env.data());
        if let Some(home) = home {
            command.env("HOME", home);
        }
        command.output().expect("launcher ran")
    };
    let run = |path: &str, args: &[&str]| run_in(path, args, Some(home.as_path()));
    let npx_calls = || std::fs::read_to_string(&npx_log).unwrap_or_default();
    // Only the tools the launcher uses, so the machine's own devcoach or npx never answers.
    let tools = env.tmp.path().join("tools");
    std::fs::create_dir_all(&tools).expect("dir");
    for tool in ["uname", "grep", "date", "mkdir"] {
        let real = ["/usr/bin", "/bin"].iter().map(|d| std::path::Path::new(d).join(tool)).find(|p| p.exists());
        std::os::unix::fs::symlink(real.expect("tool on this machine"), tools.join(tool)).expect("link");
    }
    let bare = tools.display().to_string();
    let with_npx = format!("{}:{bare}", npx_dir.display());
    // Where a hook remembers the last failure and the day of its last notice.
    let state = home.join(".local/state/devcoach");
    let new_day = || std::fs::write(state.join("notice-day"), "1970-01-01\n").expect("notice-day");
    // A hook's answer: exit 0, nothing on stderr, and either nothing or one systemMessage line.
    let notice = |out: &std::process::Output| -> Option<String> {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((out.status.code(), &*stderr), (Some(0), ""), "{out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stdout.is_empty() {
            return None;
        }
        assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
        let answer: Value = serde_json::from_str(&stdout).expect("a JSON answer");
        assert_eq!(answer.as_object().map(serde_json::Map::len), Some(1), "{answer}");
        let message = answer["systemMessage"].as_str().expect("a systemMessage").to_owned();
        assert!(message.is_ascii() && !message.contains(['"', '\\']), "{message}");
        Some(message)
    };

    let found = run(&format!("{}:{bare}", bin_dir.display()), &["--version"]);
    assert!(String::from_utf8_lossy(&found.stdout).starts_with(&format!("devcoach {version} (")), "{found:?}");

    // Nothing installed: a hook never reaches for npx and never fails; it says so once a day,
    // in each agent's words, where the agent shows it.
    let first = notice(&run(&with_npx, &["stop-hook"])).expect("the day's notice");
    assert!(first.contains("/devcoach:setup") && first.contains("once a day"), "{first}");
    assert_eq!(notice(&run(&with_npx, &["prompt-hook"])), None, "once a day");
    assert_eq!(notice(&run(&with_npx, &["stop-hook"])), None, "once a day");
    new_day();
    assert_eq!(notice(&run(&with_npx, &["prompt-hook"])), Some(first.clone()), "a new day, a new notice");
    new_day();
    let gemini = notice(&run(&with_npx, &["gemini-stop-hook"])).expect("Gemini's notice");
    assert!(gemini.contains("~/.gemini/extensions/devcoach/bin/devcoach-launch doctor"), "{gemini}");
    new_day();
    let qwen = notice(&run(&with_npx, &["qwen-prompt-hook"])).expect("Qwen's notice");
    assert!(qwen.contains("~/.qwen/extensions/devcoach/bin/devcoach-launch doctor"), "{qwen}");
    // Copilot CLI shows no hook output to the user: silent, and the day stays unspent.
    new_day();
    assert_eq!(notice(&run(&with_npx, &["copilot-stop-hook"])), None);
    assert_eq!(std::fs::read_to_string(state.join("notice-day")).expect("day"), "1970-01-01\n");
    // No HOME and no XDG_STATE_HOME: nowhere to count the days, so no notice at all.
    assert_eq!(notice(&run_in(&with_npx, &["stop-hook"], None)), None);
    assert_eq!(npx_calls(), "", "a hook never starts an install");
    let failure = std::fs::read_to_string(state.join("last-failure")).expect("last-failure");
    assert!(
        failure.contains("copilot-stop-hook: no working devcoach") && failure.contains("nothing named devcoach"),
        "{failure}"
    );

    // The server goes to npx, pinned to this version; without npx it says what to do.
    let mcp = run(&with_npx, &["mcp"]);
    assert_eq!(mcp.status.code(), Some(0), "{mcp:?}");
    assert_eq!(npx_calls(), format!("-y @devcoach-rs/devcoach@{version} mcp\n"));
    let missing = run(&bare, &["mcp"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("was not found"), "{missing:?}");

    // A copy that cannot start (as one built for another processor: exit 126) is passed over
    // with its reason: the hook gives the notice instead of an error, the server names it, and
    // so does the record of the last failure. It never hides a working one behind it.
    let broken_dir = env.tmp.path().join("broken");
    script(&broken_dir.join("devcoach"), "exit 126");
    let broken = broken_dir.join("devcoach").display().to_string();
    let with_broken = format!("{}:{bare}", broken_dir.display());
    new_day();
    assert_eq!(notice(&run(&with_broken, &["stop-hook"])), Some(first.clone()));
    let mcp = run(&with_broken, &["mcp"]);
    let stderr = String::from_utf8_lossy(&mcp.stderr);
    assert_eq!(mcp.status.code(), Some(1), "{mcp:?}");
    assert!(stderr.contains(&format!("{broken}: cannot run on this machine")), "{stderr}");
    assert!(stderr.contains("This machine: ") && stderr.contains("then restart your agent"), "{stderr}");
    let failure = std::fs::read_to_string(state.join("last-failure")).expect("last-failure");
    assert!(failure.contains(" mcp: no working devcoach"), "{failure}");
    assert!(failure.contains(&format!("  {broken}: cannot run on this machine")), "{failure}");
    let out = run(&format!("{}:{}:{bare}", broken_dir.display(), bin_dir.display()), &["--version"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("devcoach {version} (")), "{out:?}");

    // doctor: what the launcher found, then devcoach's own report; with nothing, the fix.
    let doctor = run(&format!("{}:{}:{bare}", broken_dir.display(), bin_dir.display()), &["doctor"]);
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{doctor:?}");
    assert!(report.starts_with(&format!("devcoach-launch {version} ")), "{report}");
    assert!(report.contains(&format!("  {broken}: cannot run on this machine")), "{report}");
    assert!(report.contains("npx: not on PATH") && report.contains(" mcp: no working devcoach"), "{report}");
    let chosen = format!("chosen: {}/devcoach (devcoach {version} (", bin_dir.display());
    let (at_chosen, at_report) = (report.find(&chosen), report.find("\nEnvironment\n"));
    assert!(at_chosen.is_some() && at_report.is_some() && at_chosen < at_report, "{report}");
    let doctor = run(&with_broken, &["doctor"]);
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1), "{doctor:?}");
    assert!(report.contains("chosen: none\nfix: install devcoach for "), "{report}");
    assert!(!home.join(".devcoach").exists(), "the launcher never makes devcoach's data folder");

    // This version's npm build in npm's cache runs directly (hooks included), once it answers
    // like a devcoach; another version's does not.
    let platform = match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "linux-x64",
        ("linux", "aarch64") => "linux-arm64",
        ("macos", "x86_64") => "darwin-x64",
        ("macos", "aarch64") => "darwin-arm64",
        other => panic!("no npm platform package for {other:?}"),
    };
    let cached = |hash: &str, cached_version: &str, body: &str| {
        let dir = home.join(format!(".npm/_npx/{hash}/node_modules/@devcoach-rs/devcoach-{platform}"));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(
            dir.join("package.json"),
            format!("{{\n  \"name\": \"x\",\n  \"version\": \"{cached_version}\"\n}}\n"),
        )
        .expect("manifest");
        script(&dir.join("bin/devcoach"), body);
    };
    let npm_build =
        |v: &str| format!("[ \"$1\" = --version ] && echo 'devcoach {v} (npm)' || echo \"npm build {v}: $*\"");
    cached("0ld", "0.0.1", &npm_build("0.0.1"));
    cached("brk", version, "exit 127");
    new_day();
    assert_eq!(notice(&run(&with_npx, &["stop-hook"])), Some(first.clone()), "neither cached build counts");
    let failure = std::fs::read_to_string(state.join("last-failure")).expect("last-failure");
    assert!(failure.contains("(npm cache): cannot start: something it needs is missing"), "{failure}");
    cached("cur", version, &npm_build(version));
    for args in [["stop-hook"], ["mcp"]] {
        let out = run(&with_npx, &args);
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("npm build {version}: {}\n", args[0]), "{out:?}");
    }
    assert_eq!(npx_calls().lines().count(), 1, "npx only ran the once, when nothing was cached");

    // Another version on PATH gives way to this version's cached build, and still beats none.
    let other_dir = env.tmp.path().join("other");
    script(
        &other_dir.join("devcoach"),
        "[ \"$1\" = --version ] && echo 'devcoach 0.0.9 (x)' || echo \"other build: $*\"",
    );
    let on_path = format!("{}:{with_npx}", other_dir.display());
    let out = run(&on_path, &["stop-hook"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("npm build {version}: stop-hook\n"), "{out:?}");
    std::fs::remove_dir_all(home.join(".npm")).expect("empty the cache");
    let out = run(&on_path, &["stop-hook"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "other build: stop-hook\n", "{out:?}");
    let out = run(&format!("{}:{on_path}", broken_dir.display()), &["stop-hook"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "other build: stop-hook\n", "a broken first copy hides nothing");
    // This version on PATH is taken at once.
    let out = run(&format!("{}:{on_path}", bin_dir.display()), &["--version"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("devcoach {version} (")), "{out:?}");
}

/// The Windows launcher (`devcoach-launch.cmd`), run by Wine's `cmd` against devcoach's real
/// Windows build (made by scripts/test.sh into target/wine): the same order as the POSIX one,
/// the same notice once a day from a hook with nothing working, and the same `doctor`.
#[cfg(unix)]
#[test]
fn the_windows_launcher_finds_devcoach_or_stays_out_of_the_way() {
    let wine_dir = std::env::var_os("DEVCOACH_TEST_WINE").map_or_else(|| repo().join("target/wine"), PathBuf::from);
    let wine = Path::new("/usr/lib/wine/wine64");
    assert!(
        wine.exists()
            && wine_dir.join("bin/devcoach.exe").exists()
            && wine_dir.join("standin.exe").exists()
            && wine_dir.join("broken.exe").exists(),
        "Wine or the Windows build is missing: run scripts/test.sh (it builds them into target/wine), or set DEVCOACH_TEST_WINE"
    );
    let env = Env::new();
    let version = env!("CARGO_PKG_VERSION");
    let launcher = repo().join("packaging/claude-plugin/bin/devcoach-launch.cmd");
    assert!(std::fs::read(&launcher).expect("launcher").windows(2).any(|w| w == b"\r\n"), "CRLF kept");
    // Windows paths of this machine's files: Wine maps the root to drive Z:.
    let win = |path: &Path| format!("Z:{}", path.display()).replace('/', "\\");
    let dir = |name: &str| {
        let path = env.tmp.path().join(name);
        std::fs::create_dir_all(&path).expect("dir");
        path
    };
    let (cache, empty) = (dir("npm-cache"), dir("empty"));
    // Wine sets USERPROFILE and LOCALAPPDATA to its prefix's user folder: cargo's folder and the
    // launcher's state folder are there (emptied first, in case an earlier run stopped half way).
    let users = wine_dir.join("prefix/drive_c/users");
    let profile = std::fs::read_dir(&users)
        .expect("the prefix's users")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| n != "Public"))
        .expect("a user folder in the prefix");
    let cargo_bin = profile.join(".cargo/bin");
    let _ = std::fs::remove_dir_all(&cargo_bin);
    let state = profile.join("AppData/Local/devcoach");
    let _ = std::fs::remove_dir_all(&state);
    let _ = std::fs::remove_file(&state);
    let npx_log = env.tmp.path().join("npx.log");
    let npx_dir = dir("npx");
    std::fs::write(npx_dir.join("npx.cmd"), format!("@echo %*>> \"{}\"\r\n", win(&npx_log))).expect("npx");
    let other_dir = dir("other");
    std::fs::copy(wine_dir.join("standin.exe"), other_dir.join("devcoach.exe")).expect("stand-in");
    // A devcoach.exe that cannot start (it ends as one whose DLL is missing).
    let broken_dir = dir("broken");
    std::fs::copy(wine_dir.join("broken.exe"), broken_dir.join("devcoach.exe")).expect("broken");
    let broken = win(&broken_dir.join("devcoach.exe"));
    let run = |path: &[&Path], args: &[&str], stdin: &str| {
        use std::io::Write as _;
        let path: Vec<String> = path.iter().map(|p| win(p)).collect();
        let mut child = std::process::Command::new(wine)
            .arg("cmd")
            .arg("/c")
            .arg(win(&launcher))
            .args(args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", env.tmp.path())
            .env("WINEPREFIX", wine_dir.join("prefix"))
            .env("WINEDEBUG", "-all")
            // Wine's own PATH, with the folders under test after its system folders.
            .env("WINEPATH", path.join(";"))
            .env("npm_config_cache", win(&cache))
            .env("DEVCOACH_DIR", win(&env.data()))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("wine ran");
        child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("stdin written");
        let out = child.wait_with_output().expect("wine finished");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let npx_calls = || std::fs::read_to_string(&npx_log).unwrap_or_default().replace("\r\n", "\n");
    let real_bin = wine_dir.join("bin");
    let new_day = || std::fs::write(state.join("notice-day"), "1970-01-01\r\n").expect("notice-day");
    // A hook's answer: exit 0, nothing on stderr, and either nothing or one systemMessage line.
    let notice = |(code, out, err): (Option<i32>, String, String)| -> Option<String> {
        assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
        if out.is_empty() {
            return None;
        }
        assert_eq!(out.lines().count(), 1, "one line: {out}");
        let answer: Value = serde_json::from_str(&out).expect("a JSON answer");
        assert_eq!(answer.as_object().map(serde_json::Map::len), Some(1), "{answer}");
        let message = answer["systemMessage"].as_str().expect("a systemMessage").to_owned();
        assert!(
            message.is_ascii() && !message.contains(['"', '\\', '%', '!', '(', ')', '&', '|', '<', '>', '^']),
            "{message}"
        );
        Some(message)
    };
    let last_failure = || {
        String::from_utf8_lossy(&std::fs::read(state.join("last-failure")).expect("last-failure")).replace("\r\n", "\n")
    };

    // This version on PATH runs, with the arguments, stdin and exit code passed through: the
    // MCP server answers an initialize through the launcher.
    let (code, out, _) = run(&[&real_bin], &["--version"], "");
    assert!(out.starts_with(&format!("devcoach {version} (")), "{code:?} {out}");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (code, out, err) = run(&[&real_bin], &["mcp"], &format!("{init}\n"));
    assert_eq!(code, Some(0), "{err}");
    let answer: Value = serde_json::from_str(out.lines().next().expect("one answer")).expect("JSON-RPC");
    assert_eq!(answer["result"]["serverInfo"]["name"], "devcoach", "{out}");

    // Nothing installed: a hook never reaches for npx and never fails; it says so once a day,
    // in each agent's words, where the agent shows it.
    let first = notice(run(&[&npx_dir], &["stop-hook"], "{}")).expect("the day's notice");
    assert!(first.contains("/devcoach:setup") && first.contains("once a day"), "{first}");
    assert_eq!(notice(run(&[&npx_dir], &["prompt-hook"], "{}")), None, "once a day");
    new_day();
    assert_eq!(notice(run(&[&npx_dir], &["prompt-hook"], "{}")), Some(first.clone()), "a new day, a new notice");
    new_day();
    let gemini = notice(run(&[&npx_dir], &["gemini-stop-hook"], "{}")).expect("Gemini's notice");
    assert!(gemini.contains("devcoach-launch doctor from .gemini/extensions/devcoach/bin"), "{gemini}");
    new_day();
    assert_eq!(notice(run(&[&npx_dir], &["copilot-stop-hook"], "{}")), None, "Copilot shows no hook output");
    assert_eq!(std::fs::read(state.join("notice-day")).expect("day"), b"1970-01-01\r\n");
    assert_eq!(npx_calls(), "", "a hook never starts an install");
    assert!(last_failure().contains(" copilot-stop-hook: no working devcoach"), "{}", last_failure());
    // A state folder that cannot be made (a file is in the way): no notice, since none could be
    // counted.
    std::fs::remove_dir_all(&state).expect("state folder");
    std::fs::write(&state, "").expect("a file in the way");
    assert_eq!(notice(run(&[&npx_dir], &["stop-hook"], "{}")), None);
    std::fs::remove_file(&state).expect("the file");

    // The server goes to npx, pinned to this version; without npx it says what to do.
    let (code, _, err) = run(&[&npx_dir], &["mcp"], "");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(npx_calls(), format!("-y \"@devcoach-rs/devcoach@{version}\" mcp\n"));
    let (code, _, err) = run(&[&empty], &["mcp"], "");
    assert_eq!(code, Some(1));
    assert!(err.contains("was not found"), "{err}");

    // A copy that cannot start is passed over with its reason: the hook gives the notice instead
    // of an error, the server names it, and so does the record of the last failure.
    assert_eq!(notice(run(&[&broken_dir], &["stop-hook"], "{}")), Some(first.clone()));
    let (code, _, err) = run(&[&broken_dir], &["mcp"], "");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(&format!("{broken}: cannot start: something it needs is missing")), "{err}");
    assert!(last_failure().contains(&format!("  {broken}: cannot start")), "{}", last_failure());
    assert!(last_failure().contains(" mcp: no working devcoach"), "{}", last_failure());

    // doctor: what the launcher found, then devcoach's own report; with nothing, the fix.
    let (code, out, err) = run(&[&broken_dir, &real_bin], &["doctor"], "");
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.starts_with(&format!("devcoach-launch.cmd {version}")), "{out}");
    assert!(out.contains(&format!("  {broken}: cannot start")) && out.contains("npx: not on PATH"), "{out}");
    let chosen = format!("chosen: {} (devcoach {version} (", win(&real_bin.join("devcoach.exe")));
    let (at_chosen, at_report) = (out.find(&chosen), out.find("\nEnvironment\n"));
    assert!(at_chosen.is_some() && at_report.is_some() && at_chosen < at_report, "{out}");
    let (code, out, _) = run(&[&broken_dir], &["doctor"], "");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("chosen: none\nfix: install devcoach for "), "{out}");

    // This version's npm build in npm's cache runs directly (hooks included); another version's
    // does not, nor one that cannot start.
    let cached = |hash: &str, cached_version: &str, exe: &str| {
        let dir = cache.join(format!("_npx/{hash}/node_modules/@devcoach-rs/devcoach-win32-x64"));
        std::fs::create_dir_all(dir.join("bin")).expect("dir");
        std::fs::write(
            dir.join("package.json"),
            format!("{{\n  \"name\": \"x\",\n  \"version\": \"{cached_version}\"\n}}\n"),
        )
        .expect("manifest");
        std::fs::copy(wine_dir.join(exe), dir.join("bin/devcoach.exe")).expect("stand-in");
        win(&dir.join("bin/devcoach.exe"))
    };
    cached("0ld", "0.0.1", "standin.exe");
    cached("brk", version, "broken.exe");
    new_day();
    assert_eq!(notice(run(&[&npx_dir], &["stop-hook"], "{}")), Some(first.clone()), "neither cached build counts");
    assert!(last_failure().contains("(npm cache): cannot start"), "{}", last_failure());
    let current = cached("cur", version, "standin.exe");
    for sub in ["stop-hook", "mcp"] {
        let (code, out, _) = run(&[&npx_dir], &[sub], "{}");
        assert_eq!((code, out), (Some(7), format!("stand-in {current}: {sub}\n")));
    }
    assert_eq!(npx_calls().lines().count(), 1, "npx only ran the once, when nothing was cached");

    // Another version on PATH gives way to this version's cached build, and still beats none
    // (a copy before it that cannot start hides nothing); this version on PATH is taken before
    // both. Cargo's folder counts as a place to look.
    let (_, out, _) = run(&[&other_dir, &npx_dir], &["stop-hook"], "{}");
    assert_eq!(out, format!("stand-in {current}: stop-hook\n"));
    std::fs::remove_dir_all(cache.join("_npx")).expect("empty the cache");
    let (code, out, _) = run(&[&broken_dir, &other_dir, &npx_dir], &["stop-hook", "--agent", "x"], "{}");
    assert_eq!(
        (code, out),
        (Some(7), format!("stand-in {}: stop-hook --agent x\n", win(&other_dir.join("devcoach.exe"))))
    );
    let (_, out, _) = run(&[&real_bin, &other_dir], &["--version"], "");
    assert!(out.starts_with(&format!("devcoach {version} (")), "{out}");
    std::fs::create_dir_all(&cargo_bin).expect("dir");
    for file in ["devcoach.exe", "bcryptprimitives.dll"] {
        std::fs::copy(real_bin.join(file), cargo_bin.join(file)).expect("copy");
    }
    let (_, out, _) = run(&[&other_dir], &["--version"], "");
    std::fs::remove_dir_all(&cargo_bin).expect("cargo's folder emptied");
    let _ = std::fs::remove_dir_all(&state);
    assert!(out.starts_with(&format!("devcoach {version} (")), "cargo's build of this version beats another: {out}");
}

/// `server.json` against the MCP Registry's published schema (a copy in tests/fixtures/schemas),
/// plus the registry rules the schema does not spell out.
#[test]
fn the_registry_entry_follows_the_registry_schema() {
    let root = repo();
    let schema = read_json(&root.join("tests/fixtures/schemas/server.schema.2025-12-11.json"));
    let server = read_json(&root.join("packaging/server.json"));
    assert_eq!(server["$schema"], schema["$id"]);
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> =
        validator.iter_errors(&server).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The validator really checks: a description over the limit is refused.
    let mut long = server.clone();
    long["description"] = Value::String("x".repeat(101));
    assert!(!validator.is_valid(&long));
    assert!(server["name"].as_str().is_some_and(|n| n.starts_with("io.github.devcoach-rs/")), "GitHub namespace");
    // The registry accepts the npm package only when it names this server back.
    let npm = read_json(&root.join("packaging/npm/devcoach/package.json"));
    assert_eq!(npm["mcpName"], server["name"]);
    assert_eq!(server["packages"][0]["identifier"], npm["name"]);
    // Claude Desktop shows the bundle's icon: the manifest names it and the file is there.
    let desktop = read_json(&root.join("packaging/claude-desktop/manifest.json"));
    assert_eq!(desktop["icon"], "icon.png");
    let icon = std::fs::read(root.join("assets/packaging/icon.png")).expect("icon");
    assert_eq!(&icon[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!((&icon[16..20], &icon[20..24]), (&512u32.to_be_bytes()[..], &512u32.to_be_bytes()[..]), "512 × 512");
    assert_ne!(server["packages"][0]["version"], "latest");
}
