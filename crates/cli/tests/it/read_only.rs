//! A database a newer devcoach upgraded: reads work with a notice, writes exit 3, the file is
//! never changed.

use insta::assert_snapshot;

use crate::Env;

#[test]
fn newer_database_reads_but_refuses_writes() {
    let env = Env::demo();
    let db = env.data().join("coaching.db");
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute("UPDATE settings SET value = '3.2.0' WHERE key = 'schema_app_version'", []).expect("upgrader");
    conn.execute("UPDATE settings SET value = '3.0.0' WHERE key = 'schema_min_app_version'", []).expect("min");
    conn.pragma_update(None, "user_version", 7).expect("stamp");
    drop(conn);
    let before = std::fs::read(&db).expect("bytes");

    assert_snapshot!("read_only_stats", env.transcript(&["stats"]));
    assert_snapshot!("read_only_lessons_json_head", {
        let out = env.run(&["lessons", "--json", "--limit", "1"]);
        assert!(out.status.success());
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("stdout stays pure JSON");
        String::from_utf8_lossy(&out.stderr).into_owned()
    });
    assert_snapshot!("read_only_welcome", env.transcript(&[]));
    for args in [
        &["star", "git-bisect"][..],
        &["delete", "git-bisect", "--yes"],
        &["feedback", "git-bisect", "know"],
        &["set", "max_per_day", "3"],
        &["knowledge-add", "go"],
        &["knowledge-remove", "rust"],
        &["group-add", "X"],
        &["group-remove", "Data"],
        &["group-assign", "rust", "Data"],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(3), "{args:?} should exit 3");
        assert!(String::from_utf8_lossy(&out.stderr).contains("schema v7"), "{args:?}");
    }
    assert_snapshot!("read_only_write", env.transcript(&["star", "git-bisect"]));
    assert!(std::fs::read(&db).expect("bytes") == before, "the newer file must stay byte-identical");
}

#[test]
fn a_damaged_database_is_reported_and_kept() {
    let env = Env::new();
    std::fs::create_dir_all(env.data()).expect("dir");
    let db = env.data().join("coaching.db");
    std::fs::write(&db, b"this is not a database, it is a shopping list\n".repeat(100)).expect("write");
    let before = std::fs::read(&db).expect("bytes");
    assert_snapshot!("damaged_read", env.transcript(&["lessons"]));
    assert_snapshot!("damaged_write", env.transcript(&["star", "x"]));
    assert_eq!(std::fs::read(&db).expect("bytes"), before);
}
