//! `devcoach sync` as a learner meets it: set up on two machines, status at fixed widths, the
//! mistakes people make, a background sync started by an everyday command, and kill -9 in the
//! middle of a sync.

use std::path::Path;
use std::time::{Duration, Instant};

use insta::assert_snapshot;

use crate::{Env, transcript};

/// Two sandboxes syncing through a folder in the first one.
struct Pair {
    a: Env,
    b: Env,
}

impl Pair {
    fn shared(&self) -> std::path::PathBuf {
        self.a.tmp.path().join("shared")
    }

    /// A transcript with both sandboxes' paths and the random device ids replaced.
    fn show(&self, env: &Env, args: &[&str]) -> String {
        let text = transcript(&env.run(args), env.tmp.path());
        let text = text.replace(&self.a.tmp.path().display().to_string(), "[A]");
        redact_ids(&text)
    }
}

/// Device ids are 16 random hex digits.
fn redact_ids(text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.len() == 16 && word.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
            out.push_str("[DEVICE-ID-----]");
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn ok(env: &Env, args: &[&str]) -> String {
    let out = env.run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn records(env: &Env) -> String {
    let store = devcoach_store::Store::open(&devcoach_store::DataDir::new(env.data())).expect("open");
    format!("{:?}", store.sync_records().expect("records"))
}

#[test]
fn two_machines_set_up_sync_and_see_each_other() {
    let pair = Pair { a: Env::demo(), b: Env::new() };
    let shared = pair.shared();
    let target = shared.to_str().expect("utf-8");
    assert_snapshot!("sync_init_first", pair.show(&pair.a, &["sync", "init", target, "--name", "laptop"]));
    assert_snapshot!("sync_init_join", pair.show(&pair.b, &["sync", "init", target, "--name", "desktop"]));
    ok(&pair.b, &["star", "borrow-vs-clone"]);
    ok(&pair.b, &["sync"]);
    ok(&pair.a, &["sync"]);
    for width in [60, 120] {
        let mut cmd = pair.a.command();
        cmd.env("COLUMNS", width.to_string()).args(["sync", "status"]);
        let out = cmd.output().expect("status");
        let text = redact_ids(&transcript(&out, pair.a.tmp.path()));
        for line in text.lines() {
            assert!(unicode_width::UnicodeWidthStr::width(line) <= width, "{width}: {line}");
        }
        assert_snapshot!(format!("sync_status_{width}"), text);
    }
    assert_eq!(records(&pair.a), records(&pair.b), "the two stores hold the same record");
    let status: serde_json::Value = serde_json::from_str(&ok(&pair.a, &["sync", "status", "--json"])).expect("json");
    assert_eq!(status["devices"].as_array().map(Vec::len), Some(2));
    assert_eq!(status["pending"], 0);
    assert_snapshot!("sync_off", pair.show(&pair.b, &["sync", "off"]));
    assert_snapshot!("sync_status_off", pair.show(&pair.b, &["sync", "status"]));
}

#[test]
fn the_mistakes_people_make_get_a_clear_message_and_change_nothing() {
    let env = Env::demo();
    let file = env.tmp.path().join("notes.txt");
    std::fs::write(&file, "mine").expect("file");
    let busy = env.tmp.path().join("photos");
    std::fs::create_dir_all(&busy).expect("dir");
    std::fs::write(busy.join("cat.jpg"), "meow").expect("photo");
    let show = |args: &[&str]| transcript(&env.run(args), env.tmp.path());
    assert_snapshot!("sync_not_set_up", show(&["sync"]));
    assert_snapshot!("sync_init_on_a_file", show(&["sync", "init", file.to_str().expect("utf-8")]));
    assert_snapshot!("sync_init_on_a_busy_folder", show(&["sync", "init", busy.to_str().expect("utf-8")]));
    assert_snapshot!(
        "sync_init_encrypt_without_a_terminal",
        show(&["sync", "init", env.tmp.path().join("enc").to_str().expect("utf-8"), "--encrypt"])
    );
    assert_snapshot!("sync_init_empty_target", show(&["sync", "init", " "]));
    let data = env.data();
    assert_snapshot!(
        "sync_init_inside_the_data_folder",
        show(&["sync", "init", data.join("x").to_str().expect("utf-8")])
    );
    assert_eq!(std::fs::read_to_string(&file).expect("file"), "mine");
    assert!(busy.join("cat.jpg").exists() && !busy.join("devcoach-sync.json").exists());
    // A short passphrase is refused before anything is set up.
    let mut cmd = env.command();
    cmd.env("DEVCOACH_SYNC_PASSPHRASE", "short").args([
        "sync",
        "init",
        env.tmp.path().join("enc2").to_str().expect("utf-8"),
        "--encrypt",
    ]);
    let out = cmd.output().expect("ran");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 8 characters"));
    assert!(!env.tmp.path().join("enc2").exists(), "nothing was written for a refused passphrase");
    assert!(ok(&env, &["sync", "status"]).contains("Sync is off"));
    // Setting up the same place again with other options says they were not applied.
    let shared = env.tmp.path().join("shared");
    let shared = shared.to_str().expect("utf-8");
    ok(&env, &["sync", "init", shared]);
    let again = ok(&env, &["sync", "init", shared, "--name", "other"]);
    assert!(again.contains("Already set up") && again.contains("sync off` first"), "{again}");
    assert!(!ok(&env, &["sync", "init", shared]).contains("sync off` first"), "no options, no note");
    // A passphrase in the environment expects an encrypted folder: a plain one (perhaps an
    // encrypted one its host stripped) is refused, not joined in the clear.
    let other = Env::new();
    let mut cmd = other.command();
    cmd.env("DEVCOACH_SYNC_PASSPHRASE", "a long passphrase").args(["sync", "init", shared]);
    let out = cmd.output().expect("ran");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not encrypted"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(ok(&other, &["sync", "status"]).contains("Sync is off"));
}

#[test]
fn an_everyday_command_starts_a_background_sync_when_one_is_due() {
    let pair = Pair { a: Env::demo(), b: Env::new() };
    let target = pair.shared();
    let target = target.to_str().expect("utf-8");
    ok(&pair.a, &["sync", "init", target, "--every", "5"]);
    ok(&pair.b, &["sync", "init", target]);
    ok(&pair.a, &["star", "borrow-vs-clone"]);
    // Six minutes later (the pinned clock moved on), listing lessons starts a sync by itself.
    let mut cmd = pair.a.command();
    cmd.env("DEVCOACH_NOW", "2026-11-30T12:06:00Z").args(["lessons"]);
    assert!(cmd.output().expect("lessons").status.success());
    let started = Instant::now();
    loop {
        let status: serde_json::Value =
            serde_json::from_str(&ok(&pair.a, &["sync", "status", "--json"])).expect("json");
        if status["last_sync"] == "2026-11-30T12:06:00.000Z" && status["pending"] == 0 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no background sync: {status}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // A command within the five minutes does not start another.
    let mut cmd = pair.a.command();
    cmd.env("DEVCOACH_NOW", "2026-11-30T12:08:00Z").args(["lessons"]);
    assert!(cmd.output().expect("lessons").status.success());
    std::thread::sleep(Duration::from_millis(500));
    let status: serde_json::Value = serde_json::from_str(&ok(&pair.a, &["sync", "status", "--json"])).expect("json");
    assert_eq!(status["last_sync"], "2026-11-30T12:06:00.000Z");
    // b's clock has reached the star's stamp (a change stamped ahead of a device's clock waits).
    let mut cmd = pair.b.command();
    cmd.env("DEVCOACH_NOW", "2026-11-30T12:09:00Z").args(["sync"]);
    assert!(cmd.output().expect("sync").status.success());
    assert!(ok(&pair.b, &["lesson", "borrow-vs-clone"]).contains('★'));
}

/// Lessons straight into the database, so a sync has something to chew on.
fn add_lessons(env: &Env, round: usize, n: usize) {
    let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("open");
    let tx = conn.unchecked_transaction().expect("tx");
    for i in 0..n {
        tx.execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary, body, starred, imported)
             VALUES (?1, '2026-11-01T10:00:00Z', 'rust', '[\"rust\"]', ?2, 'mid', 'A summary.', ?3, 0, 0)",
            rusqlite::params![format!("bulk-{round}-{i}"), format!("Bulk lesson {round}/{i}"), "A body. ".repeat(40)],
        )
        .expect("insert");
    }
    tx.commit().expect("commit");
}

fn kill_mid_sync(target: &str, label: &str) {
    let pair = Pair { a: Env::demo(), b: Env::new() };
    ok(&pair.a, &["sync", "init", target]);
    ok(&pair.b, &["sync", "init", target]);
    add_lessons(&pair.a, 0, 1500);
    let mut seed: u64 = 0x5eed_cafe;
    let mut killed = 0;
    for round in 1..=6 {
        // A sync costs what changed since the last one: enough lessons that it takes a while.
        add_lessons(&pair.a, round, 1500);
        ok(&pair.a, &["knowledge-add", "rust", &(round % 10).to_string()]);
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let delay = Duration::from_millis(5 + (seed >> 33) % 250);
        let mut child = std::process::Command::new(crate::bin())
            .env_clear()
            .envs(pair.a.vars())
            .args(["sync"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(delay);
        if child.try_wait().expect("poll").is_none() {
            killed += 1;
        }
        child.kill().ok();
        child.wait().expect("reaped");
        let integrity: String = rusqlite::Connection::open(pair.a.data().join("coaching.db"))
            .expect("open")
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .expect("check");
        assert_eq!(integrity, "ok", "{label} round {round}");
        // The next sync completes, whatever the kill left.
        let out = pair.a.run(&["sync"]);
        assert!(out.status.success(), "{label} round {round}: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert!(killed >= 3, "{label}: only {killed} kills landed during a sync");
    ok(&pair.b, &["sync"]);
    ok(&pair.a, &["sync"]);
    assert_eq!(records(&pair.a), records(&pair.b), "{label}: the stores differ after the kills");
    assert_eq!(ok(&pair.b, &["profile", "--json"]), ok(&pair.a, &["profile", "--json"]));
}

#[test]
fn kill_9_during_a_folder_sync_leaves_store_and_folder_consistent() {
    let root = tempfile::tempdir().expect("folder");
    kill_mid_sync(&root.path().join("shared").to_string_lossy(), "folder");
}

#[test]
fn kill_9_during_a_git_sync_leaves_store_and_clone_consistent() {
    let root = tempfile::tempdir().expect("remote");
    let bare = root.path().join("record.git");
    let out = std::process::Command::new("git").args(["init", "--quiet", "--bare"]).arg(&bare).output().expect("git");
    assert!(out.status.success());
    kill_mid_sync(&format!("file://{}", bare.display()), "git");
}

#[test]
fn a_fifo_or_a_link_in_the_folder_is_never_followed_or_waited_on() {
    let pair = Pair { a: Env::demo(), b: Env::new() };
    let shared = pair.shared();
    ok(&pair.a, &["sync", "init", shared.to_str().expect("utf-8")]);
    ok(&pair.b, &["sync", "init", shared.to_str().expect("utf-8")]);
    let devices = shared.join("devices");
    let a_dir = std::fs::read_dir(&devices)
        .expect("devices")
        .flatten()
        .map(|e| e.path())
        .find(|p| dir_has_segments(p))
        .expect("a's dir");
    let fifo = a_dir.join("000000000999-aaaaaaaaaaaa.dcs");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/passwd", a_dir.join("000000001999-bbbbbbbbbbbb.dcs")).expect("link");
    let started = Instant::now();
    let out = pair.b.run(&["sync"]);
    assert!(started.elapsed() < Duration::from_secs(20), "waited on the FIFO");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("000000000999-aaaaaaaaaaaa.dcs"), "{said}");
    // What came before them still arrived.
    assert!(ok(&pair.b, &["lessons"]).contains("Borrow before you clone"));
}

fn dir_has_segments(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|e| e.flatten().any(|f| f.file_name().to_string_lossy().ends_with(".dcs")))
}

/// A folder someone filled with junk names ten of its problems and counts the rest, instead of
/// printing thousands of lines; `--json` lists them all.
#[test]
fn a_folder_full_of_junk_is_summed_up_not_listed_line_by_line() {
    let env = Env::demo();
    let shared = env.tmp.path().join("shared");
    ok(&env, &["sync", "init", shared.to_str().expect("utf-8")]);
    let device = std::fs::read_dir(shared.join("devices")).expect("devices").flatten().next().expect("ours").path();
    for i in 0..12 {
        std::fs::write(device.join(format!("junk-{i}.txt")), "x").expect("junk");
    }
    let out = env.run(&["sync", "status"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("left alone").count(), 10, "{err}");
    assert!(err.contains("and 2 more like these"), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&env.run(&["sync", "status", "--json"]).stdout).expect("json");
    assert_eq!(json["problems"].as_array().map(Vec::len), Some(12));
}
