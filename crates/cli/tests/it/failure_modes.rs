//! What breaks around the database: a full disk, a data folder that is a file. Each gets a clear
//! message and an exit code from the CLI, silence from a hook, and the file is never damaged.

use std::process::Command;

use crate::{Env, bin, fixtures};

fn integrity(env: &Env) -> String {
    rusqlite::Connection::open(env.data().join("coaching.db"))
        .expect("open")
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check")
}

fn count(env: &Env) -> i64 {
    rusqlite::Connection::open(env.data().join("coaching.db"))
        .expect("open")
        .query_row("SELECT COUNT(*) FROM lessons", [], |r| r.get(0))
        .expect("count")
}

/// Runs devcoach with a file size limit of `bytes`: writing past it fails as a full disk does
/// (`SIGXFSZ` ignored, so the write returns `EFBIG`).
fn limited(env: &Env, bytes: u64, args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("trap '' XFSZ; exec prlimit --fsize={bytes} \"$0\" \"$@\""))
        .arg(bin())
        .args(args)
        .env_clear()
        .envs(env.vars())
        .current_dir(env.tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("prlimit (util-linux) runs");
    {
        use std::io::Write;
        let mut input = child.stdin.take().expect("stdin");
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().expect("exit")
}

#[test]
fn a_full_disk_saves_nothing_says_so_and_damages_nothing() {
    let env = Env::demo();
    let db = env.data().join("coaching.db");
    let size = std::fs::metadata(&db).expect("db").len();
    let before = count(&env);
    // A lesson far larger than the room left: a shared file of ours, grown.
    assert!(env.run(&["share", "git-bisect", "--file", "small.devcoach.md"]).status.success());
    let small = std::fs::read_to_string(env.tmp.path().join("small.devcoach.md")).expect("shared file");
    let card = small.replace("origin_id: git-bisect", "origin_id: too-big").replace(
        "The test passed last month",
        &format!("{}The test passed last month", "Room to fill. ".repeat(8_000)),
    );
    std::fs::write(env.tmp.path().join("big.devcoach.md"), &card).expect("file");
    let out = limited(&env, size, &["import", "big.devcoach.md"], b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // A size limit surfaces as a failed write (EFBIG), a full disk (ENOSPC) as "the disk is
    // full": both say that nothing was saved and what to do.
    assert!(stderr.contains("the disk may be full") && stderr.contains("nothing was saved"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(integrity(&env), "ok");
    assert_eq!(count(&env), before, "nothing half-written");
    assert!(std::fs::metadata(&db).expect("db").len() <= size, "the file never grew past the limit");

    // A hook on a full disk stays silent and exits 0.
    let payload = std::fs::read(fixtures().join("ts-0.9.5/hooks/stop-payload.json")).expect("payload");
    let out = limited(&env, 0, &["stop-hook"], &payload);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.trim().is_empty() || serde_json::from_str::<serde_json::Value>(stdout.trim()).is_ok(), "{stdout}");
    assert_eq!(integrity(&env), "ok");

    // With room again, the same import works.
    assert!(env.run(&["import", "big.devcoach.md"]).status.success());
    assert_eq!(count(&env), before + 1);
}

#[test]
fn a_data_folder_that_is_a_file_is_explained() {
    let env = Env::new();
    std::fs::write(env.data(), "not a folder").expect("file");
    for args in [&["knowledge-add", "rust"][..], &["set", "max_per_day", "3"][..]] {
        let out = env.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(&env.data().display().to_string()),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(env.data()).expect("file"), "not a folder", "left as it was");
}

#[test]
fn enormous_names_are_refused_at_the_door_and_shown_if_already_stored() {
    let env = Env::new();
    let long = "t".repeat(70_000);
    // A name the command line gives is part of the command line: refused as usage (2).
    let out = env.run(&["knowledge-add", &long, "--group", &long]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 100 characters"));
    let out = env.run(&["group-add", &long]);
    assert_eq!(out.status.code(), Some(2));
    // Written by another program before the limits: every read still works.
    assert!(env.run(&["knowledge-add", "rust", "5"]).status.success());
    let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    db.execute(
        "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, 5, '2026-11-30T12:00:00.000Z')",
        [&long],
    )
    .expect("topic");
    db.execute("INSERT INTO knowledge_group_names (group_name) VALUES (?1)", [&long]).expect("group");
    db.execute("INSERT INTO knowledge_groups (group_name, topic) VALUES (?1, ?1)", [&long]).expect("member");
    for args in [&["profile"][..], &["profile", "--json"], &["stats"]] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
