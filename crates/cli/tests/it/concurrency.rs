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
                    let topic = format!("p{p}-{j}");
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
        one("SELECT COUNT(*) FROM knowledge WHERE topic LIKE 'p%-%'"),
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
