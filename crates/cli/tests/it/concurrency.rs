//! Many processes writing one file: no errors, no lost updates.

use std::sync::Arc;

use crate::Env;

const PROCESSES: usize = 8;
const OPS_PER_PROCESS: usize = 200;

/// 8 processes, 200 writes each (feedback, star/unstar, topic writes), all on one database.
/// Feedback alternates know/understood on each process's own lesson, all on one shared topic
/// that starts at 1: without lost updates it ends at exactly 1 again (never clamped on the way,
/// since at most 8 lessons are in `know` at once).
#[test]
fn eight_processes_two_hundred_writes_each() {
    let env = Arc::new(Env::new());
    let setup = |args: &[&str]| assert!(env.run(args).status.success(), "{args:?}");
    setup(&["knowledge-add", "shared", "--confidence", "1"]);
    let db = env.data().join("coaching.db");
    let conn = rusqlite::Connection::open(&db).expect("raw");
    for p in 0..PROCESSES {
        conn.execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) VALUES (?1, '2026-11-01T00:00:00Z', 'shared', '[]', 'T', 'mid', 's')",
            [format!("lesson-{p}")],
        )
        .expect("lesson");
    }
    drop(conn);

    let workers: Vec<_> = (0..PROCESSES)
        .map(|p| {
            let env = Arc::clone(&env);
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                for j in 0..OPS_PER_PROCESS {
                    let lesson = format!("lesson-{p}");
                    let topic = format!("p{p}_{j}");
                    let args: Vec<&str> = match j % 4 {
                        0 => vec!["feedback", &lesson, "know"],
                        1 => vec![if (j / 4) % 2 == 0 { "star" } else { "unstar" }, &lesson],
                        2 => vec!["feedback", &lesson, "understood"],
                        _ => vec!["knowledge-add", &topic, "--confidence", "3"],
                    };
                    let out = env.run(&args);
                    if !out.status.success() {
                        failures.push(format!("{args:?}: {}", String::from_utf8_lossy(&out.stderr)));
                    }
                }
                failures
            })
        })
        .collect();
    let failures: Vec<String> = workers.into_iter().flat_map(|w| w.join().expect("worker")).collect();
    assert!(failures.is_empty(), "{} failed writes, first: {:?}", failures.len(), failures.first());

    let conn = rusqlite::Connection::open(&db).expect("raw");
    let one = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).expect(sql);
    assert_eq!(one("SELECT confidence FROM knowledge WHERE topic = 'shared'"), 1, "a confidence update was lost");
    assert_eq!(
        one("SELECT COUNT(*) FROM knowledge WHERE topic GLOB 'p[0-9]*_[0-9]*'"),
        i64::try_from(PROCESSES * OPS_PER_PROCESS / 4).expect("fits")
    );
    assert_eq!(
        one("SELECT COUNT(*) FROM lessons WHERE feedback = 'understood'"),
        i64::try_from(PROCESSES).expect("fits")
    );
    assert_eq!(one("SELECT COUNT(*) FROM lessons WHERE starred = 1"), 0, "the last star op of each process is unstar");
    // Every feedback change is in the evidence log: 50 know (+1) and 50 understood (−1) per process.
    assert_eq!(
        one("SELECT COUNT(*) FROM ext_evidence WHERE cause = 'feedback'"),
        i64::try_from(PROCESSES * OPS_PER_PROCESS / 2).expect("fits")
    );
    assert_eq!(one("SELECT COALESCE(SUM(delta), 0) FROM ext_evidence WHERE cause = 'feedback'"), 0);
    assert_eq!(conn.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0)).expect("check"), "ok");
}

/// 16 stop hooks at once on one session, several rounds: every hook exits 0 quietly and every
/// bump lands (the counter ends at exactly the number of stops).
#[test]
fn sixteen_concurrent_stop_hooks_all_land() {
    const HOOKS: usize = 16;
    const ROUNDS: usize = 5;
    let env = Arc::new(Env::new());
    assert!(env.run(&["knowledge-add", "rust"]).status.success());
    assert!(env.run(&["set", "nudge_every", "1000"]).status.success());
    // Past the first lesson's warm-up: only the counting is under test.
    rusqlite::Connection::open(env.data().join("coaching.db"))
        .expect("raw")
        .execute("INSERT INTO cue_state (id, pending, last_cue_at) VALUES (1, 0, '2026-11-01T00:00:00.000Z')", [])
        .expect("an old cue");
    let payload = std::fs::read(crate::fixtures().join("ts-0.9.5/hooks/stop-payload.json")).expect("payload");
    for _ in 0..ROUNDS {
        let barrier = Arc::new(std::sync::Barrier::new(HOOKS));
        let hooks: Vec<_> = (0..HOOKS)
            .map(|_| {
                let (env, barrier, payload) = (Arc::clone(&env), Arc::clone(&barrier), payload.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    env.command().arg("stop-hook").write_stdin(payload).output().expect("hook ran")
                })
            })
            .collect();
        for out in hooks.into_iter().map(|h| h.join().expect("thread")) {
            assert_eq!(out.status.code(), Some(0));
            assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
        }
    }
    // A hook that could not have the database within its patience left its stop waiting: the
    // next stop counts those, then its own.
    let last = env.command().arg("stop-hook").write_stdin(payload).output().expect("hook ran");
    assert!(last.status.success() && last.stdout.is_empty());
    let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("raw");
    let count: i64 = conn
        .query_row(
            "SELECT interactions FROM nudge_state WHERE session_id = '3f2b9c1e-8a7d-4e2b-9c11-5d6e7f8a9b0c'",
            [],
            |r| r.get(0),
        )
        .expect("counter");
    assert_eq!(count, i64::try_from(HOOKS * ROUNDS + 1).expect("fits"), "a bump was lost");
}

/// A stop while another process holds the database (a sync's round): the hook does not wait
/// for it. It answers nothing, leaves the stop waiting, and the next stop counts both.
#[test]
fn a_stop_never_waits_behind_a_held_database() {
    let env = Env::new();
    assert!(env.run(&["knowledge-add", "rust"]).status.success());
    assert!(env.run(&["set", "nudge_every", "1000"]).status.success());
    let db = env.data().join("coaching.db");
    let payload = std::fs::read(crate::fixtures().join("ts-0.9.5/hooks/stop-payload.json")).expect("payload");
    let holder = rusqlite::Connection::open(&db).expect("raw");
    // Exclusive: in the rollback journal no other process may even read until it ends.
    holder.execute_batch("BEGIN EXCLUSIVE").expect("held");
    let out = env
        .command()
        .arg("stop-hook")
        .env("DEVCOACH_HOOK_DEBUG", "1")
        .write_stdin(payload.clone())
        .output()
        .expect("ran");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    // Finished while the database is still held: the stop waits beside it.
    let waiting = std::fs::read_dir(env.data().join("ext-stops-waiting")).expect("a stop waits").count();
    assert_eq!(waiting, 1);
    let log = std::fs::read_to_string(env.data().join("hook.log")).expect("trace");
    assert!(log.contains("database busy") && log.contains("counted when it is free"), "{log}");
    holder.execute_batch("COMMIT").expect("released");
    let out = env.command().arg("stop-hook").write_stdin(payload).output().expect("ran");
    assert!(out.status.success());
    let count: i64 = holder
        .query_row(
            "SELECT interactions FROM nudge_state WHERE session_id = '3f2b9c1e-8a7d-4e2b-9c11-5d6e7f8a9b0c'",
            [],
            |r| r.get(0),
        )
        .expect("counter");
    assert_eq!(count, 2, "the stop that waited is counted, once");
    assert_eq!(std::fs::read_dir(env.data().join("ext-stops-waiting")).expect("folder").count(), 0);
}
