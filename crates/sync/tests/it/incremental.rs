//! A sync that costs what changed: files applied before are never read again, only the records
//! written since the last round are compared, and what the store keeps per record stays the
//! merge of everything applied.

use proptest::prelude::*;
use rusqlite::Connection;

use crate::support::{Device, files, pair};

/// Another program's connection to a device's database (the TypeScript devcoach, `sqlite3`).
fn raw(device: &Device) -> Connection {
    Connection::open(device.dir.db_path()).expect("raw open")
}

/// `n` lessons `<prefix>-00000`… written straight in SQL, as an import by another program would.
fn import(conn: &Connection, prefix: &str, n: usize) {
    for i in 0..n {
        conn.execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
             VALUES (?1, '2026-11-01T10:00:00Z', 'rust', '[\"rust\"]', 'T', 'mid', 'S')",
            [format!("{prefix}-{i:05}")],
        )
        .expect("lesson");
    }
}

/// One write of any kind a program may make, straight in SQL.
fn write(device: &Device, step: u8, n: u8) {
    let conn = raw(device);
    let id = format!("raw-{}", n % 5);
    let sql_lesson = "INSERT OR REPLACE INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
                      VALUES (?1, '2026-11-01T10:00:00Z', 'rust', '[\"rust\"]', ?2, 'mid', 'A summary.')";
    let result = match step % 10 {
        // INSERT OR REPLACE deletes the old row without a delete trigger and takes a new rowid.
        0 => conn.execute(sql_lesson, rusqlite::params![id, format!("Title {n}")]),
        1 => conn.execute("UPDATE lessons SET starred = 1 - starred WHERE id = ?1", [&id]),
        2 => conn.execute("DELETE FROM lessons WHERE id = ?1", [&id]),
        3 => conn.execute(
            "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, ?2, '2026-11-01T10:00:00Z') \
             ON CONFLICT (topic) DO UPDATE SET confidence = excluded.confidence",
            rusqlite::params![format!("topic_{}", n % 3), i64::from(n % 11)],
        ),
        4 => conn.execute("DELETE FROM knowledge WHERE topic = ?1", [format!("topic_{}", n % 3)]),
        // A review of a lesson, with reals that have no short decimal form, sometimes twice.
        5 => conn.execute(
            "INSERT INTO ext_review_log (lesson_id, grade, reviewed_at, elapsed_days, interval_days, \
             retrievability, stability, difficulty) VALUES (?1, 3, '2026-11-02T10:00:00Z', 1, 3, ?2, ?3, 5.5)",
            rusqlite::params![id, 0.1 + 0.2, 1.0 / 3.0 + f64::from(n % 2)],
        ),
        6 => conn.execute(
            "DELETE FROM ext_review_log WHERE id = (SELECT id FROM ext_review_log ORDER BY id LIMIT 1 OFFSET ?1)",
            [i64::from(n % 3)],
        ),
        // VACUUM may number the rows of a table without an integer key anew.
        7 => conn.execute_batch("VACUUM").map(|()| 0),
        8 => conn.execute(
            "INSERT INTO settings (key, value) VALUES ('max_per_day', ?1) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [(1 + n % 5).to_string()],
        ),
        _ => conn.execute("DELETE FROM lessons WHERE id LIKE 'raw-%' AND starred = 1", []),
    };
    // A write the schema refuses (a review of a missing lesson is allowed; nothing else is
    // expected to fail) leaves nothing to compare.
    result.expect("raw write");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// Writes of every kind, by another program, between syncs of two devices: every one is
    /// sent (the two end alike), the store's records are what the tables hold, and comparing
    /// every record afresh finds nothing the tracked comparison missed.
    #[test]
    fn every_kind_of_write_is_found_without_comparing_everything(
        steps in prop::collection::vec((0..2usize, 0..12u8, any::<u8>()), 1..40),
    ) {
        let (_shared, target, mut a, mut b) = pair();
        a.init(&target);
        b.init(&target);
        a.sync_at(0);
        b.sync_at(1);
        for (i, (who, step, n)) in steps.into_iter().enumerate() {
            let minute = 2 + i64::try_from(i).unwrap_or(0);
            let device = if who == 0 { &mut a } else { &mut b };
            if step >= 10 {
                device.sync_at(minute);
            } else {
                write(device, step, n);
            }
        }
        for minute in [100, 101, 102, 103] {
            if minute % 2 == 0 { a.sync_at(minute) } else { b.sync_at(minute) };
        }
        prop_assert_eq!(a.records(), b.records());
        for device in [&a, &b] {
            prop_assert_eq!(device.store.sync_merged().expect("merged"), device.records());
            prop_assert_eq!(device.store.sync_pending().expect("pending"), 0);
        }
        // Without the triggers the next round compares every record: it finds nothing to send.
        raw(&a)
            .execute_batch("DROP TRIGGER ext_sync_dirty_lessons_u; DROP TRIGGER ext_sync_dirty_ext_review_log_d;")
            .expect("drop");
        let report = a.sync_at(200);
        prop_assert_eq!(report.logged, 0);
    }
}

#[test]
fn a_sync_with_nothing_new_reads_no_file_and_a_new_one_reads_only_it() {
    let (_shared, target, mut a, mut b) = pair();
    for i in 0..20 {
        a.lesson(&format!("l{i}"));
    }
    a.init(&target);
    b.init(&target);
    a.sync_at(0);
    assert_eq!(b.sync_at(1).read, 1, "b reads a's one file");
    for minute in 2..5 {
        let report = a.sync_at(minute);
        assert_eq!((report.read, report.logged, report.received), (0, 0, 0));
    }
    b.store.set_star("l3", true).expect("star");
    b.sync_at(5);
    let report = a.sync_at(6);
    assert_eq!((report.read, report.received), (1, 1), "only b's new file");
    assert_eq!(a.records(), b.records());
}

#[test]
fn a_store_synced_by_an_earlier_build_builds_its_records_once() {
    let (shared, target, mut a, mut b) = pair();
    for i in 0..10 {
        a.lesson(&format!("l{i}"));
    }
    a.init(&target);
    b.init(&target);
    a.sync_at(0);
    b.sync_at(1);
    b.store.set_star("l1", true).expect("star");
    b.sync_at(2);
    a.sync_at(3);
    // As an earlier build left it: files recorded by digest only, no records, no triggers.
    raw(&a)
        .execute_batch(
            "DELETE FROM ext_sync_records; DELETE FROM ext_sync_known; \
             DELETE FROM ext_sync_state WHERE key = 'records'; DROP TRIGGER ext_sync_dirty_lessons_u;",
        )
        .expect("as before");
    a.store.set_star("l2", true).expect("a change made meanwhile");
    let in_folder = files(shared.path()).iter().filter(|p| p.extension().is_some_and(|e| e == "dcs")).count();
    assert!(in_folder >= 2, "{in_folder}");
    let first = a.sync_at(4);
    assert_eq!((first.read, first.logged), (in_folder, 1), "every file read once, only the new star sent");
    let second = a.sync_at(5);
    assert_eq!((second.read, second.logged), (0, 0));
    b.sync_at(6);
    assert_eq!(a.records(), b.records());
    assert_eq!(a.store.sync_merged().expect("merged"), a.records());
}

/// More changes than one file holds go as several files; more than one round reads are applied
/// in several rounds of the same sync, each holding at most a round's worth, and all arrive.
#[test]
fn a_large_batch_travels_in_several_files_and_is_applied_in_rounds() {
    use devcoach_core::limits::{SYNC_FILE_CHANGES, SYNC_ROUND_CHANGES};
    let (shared, target, mut a, mut b) = pair();
    a.init(&target);
    b.init(&target);
    a.sync_at(0);
    b.sync_at(1);
    let n = SYNC_ROUND_CHANGES + SYNC_FILE_CHANGES / 2;
    {
        let conn = raw(&b);
        let tx = conn.unchecked_transaction().expect("tx");
        for i in 0..n {
            tx.execute(
                "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, 3, '2026-11-01T10:00:00Z')",
                [format!("topic_{i}")],
            )
            .expect("topic");
        }
        tx.commit().expect("commit");
    }
    // Meanwhile the other device changed something: received in the same sync as b's own writes
    // are logged (none of them lost to the writes it applies).
    raw(&a)
        .execute(
            "INSERT INTO knowledge (topic, confidence, updated_at) VALUES ('from_a', 7, '2026-11-01T10:00:00Z')",
            [],
        )
        .expect("a's topic");
    a.sync_at(2);
    let before = files(shared.path()).len();
    let sent = b.sync_at(3);
    assert_eq!(sent.logged, n);
    assert_eq!(sent.received, 1);
    let new_files = files(shared.path()).len() - before;
    assert!(new_files >= n.div_ceil(SYNC_FILE_CHANGES), "one file per {SYNC_FILE_CHANGES} at most: {new_files}");
    let received = a.sync_at(4);
    assert_eq!(received.received, n);
    assert!(received.rounds >= 2, "{received:?}");
    assert_eq!(a.records(), b.records());
    // Nothing noted is left over, and nothing more to send.
    assert_eq!(b.sync_at(5).logged, 0);
    let left: i64 = raw(&b).query_row("SELECT COUNT(*) FROM ext_sync_dirty", [], |r| r.get(0)).expect("notes");
    assert_eq!(left, 0);
}

/// A flood of files from a device nobody knows (anyone who can write a plain folder): `status`
/// reads at most a round's worth of them and counts the rest; a sync applies them round by
/// round; after that neither reads any of them again.
#[test]
fn a_flood_of_files_is_read_a_round_at_a_time_and_never_again() {
    use devcoach_core::limits::{SYNC_FILE_CHANGES, SYNC_ROUND_CHANGES};
    use devcoach_core::sync::segment::Header;
    use devcoach_core::sync::{Change, DeviceId, Hlc, Op};
    let (shared, target, mut a, _b) = pair();
    a.init(&target);
    a.sync_at(0);
    let flooder = DeviceId::new("f100d00000000000").expect("id");
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: None };
    let per_file = SYNC_FILE_CHANGES / 5;
    let files_written = 3 * SYNC_ROUND_CHANGES / per_file;
    let at = Hlc(crate::support::t0().timestamp_millis(), 0);
    for f in 0..files_written {
        let first = (f * per_file) as u64 + 1;
        let ops: Vec<Op> = (0..per_file as u64)
            .map(|i| Op {
                device: flooder.clone(),
                seq: first + i,
                at,
                table: "knowledge".into(),
                key: format!("[\"flood_{}\"]", first + i),
                change: Change::Create(
                    [
                        ("topic".to_owned(), format!("flood_{}", first + i).into()),
                        ("confidence".to_owned(), 1.into()),
                        ("updated_at".to_owned(), "2026-11-01T10:00:00Z".into()),
                    ]
                    .into(),
                ),
            })
            .collect();
        let header = Header::new(flooder.clone(), first, first + per_file as u64 - 1, None, "x".into());
        folder.write_segment(&header, &ops).expect("flood");
    }
    let status = devcoach_sync::status(&a.store, &a.dir).expect("status");
    let theirs = status.devices.iter().find(|d| d.device == flooder).expect("the flooder is listed");
    assert_eq!((theirs.files, theirs.applied), (files_written, 0));
    let report = a.sync_at(1);
    assert_eq!(report.received, files_written * per_file);
    assert!(report.rounds >= 3, "{report:?}");
    let topics: i64 = raw(&a)
        .query_row("SELECT COUNT(*) FROM knowledge WHERE topic GLOB 'flood_*'", [], |r| r.get(0))
        .expect("count");
    assert_eq!(usize::try_from(topics).expect("count"), files_written * per_file);
    let again = a.sync_at(2);
    assert_eq!((again.read, again.rounds), (0, 1));
    let status = devcoach_sync::status(&a.store, &a.dir).expect("status");
    let theirs = status.devices.iter().find(|d| d.device == flooder).expect("listed");
    assert_eq!((theirs.files, theirs.applied), (files_written, files_written));
}

/// A review that arrives before its lesson waits as a record and appears with the lesson; when
/// the lesson goes, so does the review, here and on the other device, though neither record of
/// the review changed.
#[test]
fn a_child_follows_its_parent_whichever_arrives_first() {
    let (_shared, target, mut a, mut b) = pair();
    a.init(&target);
    b.init(&target);
    a.sync_at(0);
    b.sync_at(1);
    let review = "INSERT INTO ext_review_log (lesson_id, grade, reviewed_at, elapsed_days, interval_days, \
                  retrievability, stability, difficulty) VALUES ('late', 3, '2026-11-02T10:00:00Z', 1, 3, 0.9, 2.5, 5.0)";
    raw(&b).execute(review, []).expect("a review of a lesson not there yet");
    b.sync_at(2);
    a.sync_at(3);
    let reviews = |d: &Device| -> i64 {
        raw(d).query_row("SELECT COUNT(*) FROM ext_review_log WHERE lesson_id = 'late'", [], |r| r.get(0)).expect("n")
    };
    assert_eq!((reviews(&a), reviews(&b)), (0, 0), "a review without its lesson is kept by neither");
    b.lesson("late");
    b.sync_at(4);
    a.sync_at(5);
    assert_eq!((reviews(&a), reviews(&b)), (1, 1), "the review came back with its lesson");
    assert_eq!(a.records(), b.records());
    raw(&a).execute("DELETE FROM lessons WHERE id = 'late'", []).expect("delete");
    a.sync_at(6);
    b.sync_at(7);
    assert_eq!((reviews(&a), reviews(&b)), (0, 0), "gone with its lesson");
    assert_eq!(a.records(), b.records());
}

/// A join that takes several rounds (a folder with more than a round's worth of changes) ends as
/// a one-round join would: the folder's record wins where both hold one (the settings travel in
/// the folder's last file, read in a later round), the newcomer's own lessons are added, and a
/// setting the newcomer chose wins over the folder's default.
#[test]
fn a_join_over_several_rounds_keeps_the_join_rules() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let (_shared, target, mut a, mut b) = pair();
    {
        let conn = raw(&a);
        let tx = conn.unchecked_transaction().expect("tx");
        // Enough that the join's last round writes rows by the thousand (with the triggers set
        // aside meanwhile).
        for i in 0..SYNC_ROUND_CHANGES * 5 {
            tx.execute(
                "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, 3, '2026-11-01T10:00:00Z')",
                [format!("topic_{i}")],
            )
            .expect("topic");
        }
        tx.commit().expect("commit");
    }
    a.lesson("both");
    raw(&a).execute("UPDATE settings SET value = '7' WHERE key = 'max_per_day'", []).expect("a's setting");
    a.init(&target);
    a.sync_at(0);
    // The newcomer: a lesson of its own, its own copy of one the folder has, a chosen setting.
    b.lesson("mine");
    b.lesson("both");
    raw(&b).execute("UPDATE lessons SET title = 'the newcomer''s' WHERE id = 'both'", []).expect("title");
    raw(&b).execute("UPDATE settings SET value = '3' WHERE key = 'max_per_day'", []).expect("setting");
    raw(&b).execute("UPDATE settings SET value = '5' WHERE key = 'nudge_every'", []).expect("setting");
    b.init(&target);
    let join = b.sync_at(1);
    assert!(join.rounds >= 2, "{join:?}");
    let triggers: i64 = raw(&b)
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ext_sync_dirty_%'",
            [],
            |r| r.get(0),
        )
        .expect("triggers");
    assert!(triggers > 0, "the triggers set aside for the join's writes are back");
    a.sync_at(2);
    b.sync_at(3);
    assert_eq!(a.records(), b.records());
    let title: String =
        raw(&a).query_row("SELECT title FROM lessons WHERE id = 'both'", [], |r| r.get(0)).expect("title");
    assert_ne!(title, "the newcomer's", "the folder's copy wins");
    let mine: i64 = raw(&a).query_row("SELECT COUNT(*) FROM lessons WHERE id = 'mine'", [], |r| r.get(0)).expect("n");
    assert_eq!(mine, 1, "the newcomer's own lesson reached the folder");
    let setting = |key: &str| -> String {
        raw(&a).query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0)).expect("v")
    };
    assert_eq!(setting("max_per_day"), "7", "the folder's chosen setting wins");
    assert_eq!(setting("nudge_every"), "5", "the newcomer's chosen setting wins over the folder's default");
    // Writes after the join are noted again: a direct edit on the newcomer travels.
    raw(&b).execute("UPDATE knowledge SET confidence = 9 WHERE topic = 'topic_7'", []).expect("edit");
    assert!(b.sync_at(4).logged > 0, "the edit was noted and sent");
    a.sync_at(5);
    let moved: i64 =
        raw(&a).query_row("SELECT confidence FROM knowledge WHERE topic = 'topic_7'", [], |r| r.get(0)).expect("n");
    assert_eq!(moved, 9);
}

/// A device's first sync of a large record compares it a round's worth of changes at a time,
/// each round its own transaction; so does a comparison of everything later (a trigger
/// dropped), and deletions found that way travel like any other.
#[test]
fn a_first_sync_compares_a_large_record_a_round_at_a_time() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let (_shared, target, mut a, mut b) = pair();
    let topics = SYNC_ROUND_CHANGES * 3 + 17;
    {
        let conn = raw(&a);
        let tx = conn.unchecked_transaction().expect("tx");
        for i in 0..topics {
            tx.execute(
                "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, 4, '2026-11-01T10:00:00Z')",
                [format!("topic_{i}")],
            )
            .expect("topic");
        }
        tx.commit().expect("commit");
    }
    a.init(&target);
    let first = a.sync_at(0);
    assert!(first.rounds >= 4, "{first:?}");
    assert!(first.logged >= topics, "{first:?}");
    assert_eq!(a.sync_at(1).logged, 0, "everything was sent once");
    b.init(&target);
    b.sync_at(2);
    assert_eq!(a.records(), b.records());

    // Someone drops a trigger and deletes most topics behind sync's back: the next sync
    // compares everything again, in rounds, and the deletions reach the other device.
    raw(&a)
        .execute_batch(
            "DROP TRIGGER ext_sync_dirty_knowledge_d; DELETE FROM knowledge WHERE topic LIKE 'topic_%' AND rowid % 3 <> 0;",
        )
        .expect("behind its back");
    let again = a.sync_at(3);
    assert!(again.rounds >= 3, "{again:?}");
    b.sync_at(4);
    assert_eq!(a.records(), b.records());
    let left = |d: &crate::support::Device| -> i64 {
        raw(d).query_row("SELECT COUNT(*) FROM knowledge WHERE topic LIKE 'topic_%'", [], |r| r.get(0)).expect("n")
    };
    assert_eq!(left(&b), left(&a));
    assert!(left(&b) < i64::try_from(topics).expect("n") / 2);
    assert_eq!(a.sync_at(5).logged, 0, "and nothing is found twice");
}

/// Everyday commands ask the file system, not the database, whether sync may be on: a data
/// folder that never set it up answers no without opening anything; one that did, yes.
#[test]
fn whether_sync_may_be_on_is_known_without_the_database() {
    let shared = tempfile::tempdir().expect("folder");
    let mut a = crate::support::Device::new();
    assert!(!devcoach_sync::may_be_on(&a.dir));
    a.init(&shared.path().to_string_lossy());
    assert!(devcoach_sync::may_be_on(&a.dir));
    assert!(devcoach_sync::due(&a.store, crate::support::t0()), "never synced: due");
}

/// Every write made here since the last sync is logged before anything from elsewhere is
/// written: a local edit, behind a bulk import, is never written over by another device's
/// change to the same record (which it would then never send).
#[test]
fn a_local_edit_waiting_to_be_compared_is_not_written_over() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let (_shared, _target, mut a, mut b) = pair();
    raw(&a)
        .execute("INSERT INTO knowledge (topic, confidence, updated_at) VALUES ('t1', 3, '2026-11-01T10:00:00Z')", [])
        .expect("a's topic");
    a.sync_at(0);
    b.sync_at(1);
    // a changes the topic (another column); b imports more than a round reads, then edits the
    // same topic (in a later table than the lessons).
    raw(&a).execute("UPDATE knowledge SET updated_at = '2026-11-05T10:00:00Z' WHERE topic = 't1'", []).expect("a");
    a.sync_at(2);
    {
        let conn = raw(&b);
        let tx = conn.unchecked_transaction().expect("tx");
        import(&tx, "bulk", SYNC_ROUND_CHANGES + 500);
        tx.execute("UPDATE knowledge SET confidence = 9 WHERE topic = 't1'", []).expect("b's edit");
        tx.commit().expect("commit");
    }
    let report = b.sync_at(3);
    assert_eq!(report.received, 1, "a's change is taken in once, after b's writes: {report:?}");
    let confidence = |d: &crate::support::Device| -> (i64, String) {
        raw(d)
            .query_row("SELECT confidence, updated_at FROM knowledge WHERE topic = 't1'", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("t1")
    };
    assert_eq!(confidence(&b), (9, "2026-11-05T10:00:00Z".to_owned()), "b's edit and a's change both stand");
    a.sync_at(4);
    assert_eq!(confidence(&a), confidence(&b));
    assert_eq!(a.records(), b.records());
}

/// A comparison of everything that takes several rounds (a trigger went missing behind a bulk
/// import) takes in nothing from other devices until it is through: a write made here that no
/// note told of, on a row the comparison has not reached yet, is compared and sent, not written
/// over by another device's change to the same record.
#[test]
fn a_comparison_of_everything_takes_nothing_in_until_it_is_through() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let (_shared, _target, mut a, mut b) = pair();
    raw(&a)
        .execute("INSERT INTO knowledge (topic, confidence, updated_at) VALUES ('t1', 3, '2026-11-01T10:00:00Z')", [])
        .expect("a's topic");
    a.sync_at(0);
    b.sync_at(1);
    raw(&a).execute("UPDATE knowledge SET updated_at = '2026-11-05T10:00:00Z' WHERE topic = 't1'", []).expect("a");
    a.sync_at(2);
    {
        // Another program drops a trigger, then imports lessons (a round's worth and more, in a
        // table compared before the topics) and edits the topic: nothing notes the edit.
        let conn = raw(&b);
        conn.execute_batch("DROP TRIGGER ext_sync_dirty_knowledge_u").expect("drop");
        let tx = conn.unchecked_transaction().expect("tx");
        import(&tx, "bulk", SYNC_ROUND_CHANGES + 500);
        tx.execute("UPDATE knowledge SET confidence = 9 WHERE topic = 't1'", []).expect("b's edit");
        tx.commit().expect("commit");
    }
    let report = b.sync_at(3);
    assert!(report.rounds >= 2, "{report:?}");
    assert_eq!(report.received, 1, "a's change is taken in once, once the comparison is through: {report:?}");
    assert_eq!(report.logged, SYNC_ROUND_CHANGES + 501, "every lesson and the edit: {report:?}");
    let topic = |d: &crate::support::Device| -> (i64, String) {
        raw(d)
            .query_row("SELECT confidence, updated_at FROM knowledge WHERE topic = 't1'", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("t1")
    };
    assert_eq!(topic(&b), (9, "2026-11-05T10:00:00Z".to_owned()), "b's edit and a's change both stand");
    a.sync_at(4);
    assert_eq!(topic(&a), topic(&b));
    assert_eq!(a.records(), b.records());
    assert_eq!(b.sync_at(5).logged, 0, "nothing is found twice");
}

/// A join whose comparison of this device's record takes several rounds: a write the learner
/// makes between two of its rounds (a review, an edit) is their latest word and travels; what
/// this device held before it joined still gives way to the folder's copy.
#[test]
fn a_write_between_the_rounds_of_a_join_is_kept() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let (_shared, target, mut a, mut b) = pair();
    a.lesson("both");
    a.lesson("other");
    a.lesson("moved");
    a.init(&target);
    a.sync_at(0);
    // The newcomer holds its own copies of both lessons (compared first) and more lessons of
    // its own than one round compares.
    b.lesson("both");
    b.lesson("other");
    b.lesson("moved");
    raw(&b)
        .execute("UPDATE lessons SET title = 'before the join' WHERE id IN ('both', 'other', 'moved')", [])
        .expect("b");
    {
        let conn = raw(&b);
        let tx = conn.unchecked_transaction().expect("tx");
        import(&tx, "mine", SYNC_ROUND_CHANGES + 500);
        tx.commit().expect("commit");
    }
    b.init(&target);
    // The learner writes while the join runs: after its first round has compared 'both'.
    let db = b.dir.db_path();
    let mut starts = 0;
    let mut edited = false;
    let join = devcoach_sync::sync(
        &mut b.store,
        &b.dir,
        crate::support::t0() + chrono::Duration::minutes(1),
        &mut |done, _| {
            if done == 1 {
                starts += 1;
            }
            if starts == 2 && !edited {
                edited = true;
                let conn = Connection::open(&db).expect("raw");
                conn.execute("UPDATE lessons SET title = 'during the join' WHERE id = 'both'", []).expect("edit");
                conn.execute("DELETE FROM lessons WHERE id = 'mine-00003'", []).expect("delete");
                // The newest lesson goes, then a passed one is rewritten whole: it takes the
                // freed rowid, one the comparison has not reached but counted in its rows.
                conn.execute("DELETE FROM lessons WHERE id = ?1", [format!("mine-{:05}", SYNC_ROUND_CHANGES + 499)])
                    .expect("delete the newest");
                conn.execute(
                    "INSERT OR REPLACE INTO lessons (id, timestamp, topic_id, categories, title, level, summary) \
                     VALUES ('moved', '2026-11-01T10:00:00Z', 'rust', '[\"rust\"]', 'replaced during the join', 'mid', 'S')",
                    [],
                )
                .expect("replace");
            }
        },
    )
    .expect("join");
    assert!(edited && join.rounds >= 2, "{join:?}");
    let title = |d: &crate::support::Device, id: &str| -> String {
        raw(d).query_row("SELECT title FROM lessons WHERE id = ?1", [id], |r| r.get(0)).expect("title")
    };
    assert_eq!(title(&b, "both"), "during the join", "the write made during the join stands here");
    assert_ne!(title(&b, "other"), "before the join", "what was held before the join gives way");
    a.sync_at(2);
    b.sync_at(3);
    assert_eq!(title(&a, "both"), "during the join", "and travels");
    assert_eq!(title(&b, "moved"), "replaced during the join", "a row rewritten during the join is a write too");
    assert_eq!(title(&a, "moved"), "replaced during the join");
    assert_eq!(a.records(), b.records());
    let gone: i64 =
        raw(&a).query_row("SELECT COUNT(*) FROM lessons WHERE id = 'mine-00003'", [], |r| r.get(0)).expect("n");
    assert_eq!(gone, 0, "a lesson deleted during the join is deleted everywhere");
    let mine: i64 =
        raw(&a).query_row("SELECT COUNT(*) FROM lessons WHERE id LIKE 'mine-%'", [], |r| r.get(0)).expect("n");
    assert_eq!(mine, i64::try_from(SYNC_ROUND_CHANGES + 498).expect("n"));
}

/// More writes made here than a round compares (a bulk import) are compared a round's worth at
/// a time: nothing from elsewhere is taken in, and nothing is written here, until the last of
/// them is compared; then what hangs from a record those rounds changed (the review card of a
/// lesson deleted without it) follows, and another device's change to a record edited here
/// stands beside the edit.
#[test]
fn a_bulk_import_is_compared_a_round_at_a_time_and_loses_nothing() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let (_shared, _target, mut a, mut b) = pair();
    // The deleted lesson sorts before the import, the edited one after it.
    for id in ["away", "keep"] {
        a.lesson(id);
        raw(&a)
            .execute(
                "INSERT INTO ext_review_cards (lesson_id, question, answer, source, due, created_at) \
                 VALUES (?1, 'Q?', 'A.', 'generated', '2026-12-05T09:00:00Z', '2026-12-01T09:00:00Z')",
                [id],
            )
            .expect("card");
    }
    a.sync_at(0);
    b.sync_at(1);
    raw(&a).execute("UPDATE lessons SET starred = 1 WHERE id = 'keep'", []).expect("a's edit");
    a.sync_at(2);
    {
        let conn = raw(&b);
        let tx = conn.unchecked_transaction().expect("tx");
        import(&tx, "bulk", SYNC_ROUND_CHANGES * 2 + 300);
        // Another program deletes a lesson and leaves its card; the learner retitles another.
        tx.execute("DELETE FROM lessons WHERE id = 'away'", []).expect("delete");
        tx.execute("UPDATE lessons SET title = 'Retitled here' WHERE id = 'keep'", []).expect("b's edit");
        tx.commit().expect("commit");
    }
    let report = b.sync_at(3);
    assert!(report.rounds >= 3, "compared in rounds: {report:?}");
    assert_eq!(report.logged, SYNC_ROUND_CHANGES * 2 + 302, "every write, once: {report:?}");
    assert_eq!(report.received, 1, "a's change, taken in once: {report:?}");
    let lesson = |d: &crate::support::Device| -> (String, i64) {
        raw(d)
            .query_row("SELECT title, starred FROM lessons WHERE id = 'keep'", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("keep")
    };
    assert_eq!(lesson(&b), ("Retitled here".to_owned(), 1), "b's edit and a's change both stand");
    let cards = |d: &crate::support::Device| -> Vec<String> {
        let conn = raw(d);
        let mut stmt = conn.prepare("SELECT lesson_id FROM ext_review_cards ORDER BY lesson_id").expect("stmt");
        stmt.query_map([], |r| r.get(0)).expect("cards").collect::<Result<_, _>>().expect("rows")
    };
    assert_eq!(cards(&b), vec!["keep".to_owned()], "the card of the deleted lesson went with it");
    assert_eq!(b.store.sync_pending().expect("pending"), 0);
    a.sync_at(4);
    assert_eq!(lesson(&a), lesson(&b));
    assert_eq!(cards(&a), cards(&b));
    assert_eq!(a.records(), b.records());
    assert_eq!(b.sync_at(5).logged, 0, "nothing is found twice");
}

/// Notes of writes compared in different rounds of one sync are compared with the records as
/// this device held them: a topic moved from one group to another (the new group's note in the
/// first round, the old one's in the second) leaves nothing of the old group behind, so taking
/// the topic out of its group later does not bring the old one back anywhere.
#[test]
fn a_move_compared_across_rounds_leaves_nothing_behind() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let (_shared, _target, mut a, mut b) = pair();
    raw(&a)
        .execute_batch(
            "INSERT INTO knowledge (topic, confidence, updated_at) VALUES ('t', 3, '2026-11-01T10:00:00Z');
             INSERT INTO knowledge_group_names (group_name) VALUES ('Alpha'), ('Zeta');
             INSERT INTO knowledge_groups (group_name, topic) VALUES ('Zeta', 't');",
        )
        .expect("a's groups");
    a.sync_at(0);
    b.sync_at(1);
    {
        // One note short of a round before the move, so its two notes fall in two rounds.
        let conn = raw(&b);
        let tx = conn.unchecked_transaction().expect("tx");
        import(&tx, "bulk", SYNC_ROUND_CHANGES - 1);
        tx.execute("DELETE FROM knowledge_groups WHERE topic = 't'", []).expect("out of Zeta");
        tx.execute("INSERT INTO knowledge_groups (group_name, topic) VALUES ('Alpha', 't')", []).expect("into Alpha");
        tx.commit().expect("commit");
    }
    let report = b.sync_at(2);
    assert!(report.rounds >= 2, "{report:?}");
    a.sync_at(3);
    let groups = |d: &crate::support::Device| -> Vec<(String, String)> {
        let conn = raw(d);
        let mut stmt = conn.prepare("SELECT group_name, topic FROM knowledge_groups ORDER BY 1").expect("stmt");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).expect("rows").collect::<Result<_, _>>().expect("rows")
    };
    assert_eq!(groups(&a), vec![("Alpha".to_owned(), "t".to_owned())]);
    assert_eq!(groups(&b), groups(&a));
    // Out of its group on b: in no group anywhere.
    raw(&b).execute("DELETE FROM knowledge_groups WHERE topic = 't'", []).expect("ungroup");
    b.sync_at(4);
    a.sync_at(5);
    b.sync_at(6);
    assert_eq!(groups(&a), Vec::new(), "the old group did not come back");
    assert_eq!(groups(&b), Vec::new());
    assert_eq!(a.records(), b.records());
}

/// A join is over once what the newcomer held is compared, even when the sync stops before its
/// end (killed, a push that failed): the next sync sends a write made meanwhile like any other,
/// not as something the newcomer held before it joined.
#[test]
fn a_join_whose_sync_stopped_after_its_comparison_is_over() {
    use devcoach_core::sync::Hlc;
    use devcoach_store::SyncRound;
    let (shared, target, mut a, mut b) = pair();
    a.lesson("both");
    a.init(&target);
    a.sync_at(0);
    b.lesson("both");
    b.init(&target);
    // The join's one round, as the sync runs it; then the sync stops.
    let config = devcoach_sync::config(&b.store).expect("config").expect("on");
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: None };
    let contents = folder.read(crate::support::t0().timestamp_millis(), &mut |_, _| {}).expect("read");
    let a_id = devcoach_sync::config(&a.store).expect("config").expect("on").device;
    let now = crate::support::t0().timestamp_millis() + 60_000;
    let round = SyncRound {
        device: &config.device,
        next_seq: 1,
        clock: Hlc(now, 0),
        now_ms: now,
        history: Vec::new(),
        incoming: contents.devices[&a_id].files.iter().flat_map(|f| f.ops.iter().cloned()).collect(),
        marks: Vec::new(),
        incoming_marks: Vec::new(),
        joining: true,
        compare: true,
    };
    b.store.sync_round(round, |_| Ok(Vec::new())).expect("round");
    assert!(!b.store.sync_state().expect("state").contains_key("joining"), "the join is over");
    raw(&b).execute("UPDATE lessons SET title = 'after the join' WHERE id = 'both'", []).expect("edit");
    assert!(b.sync_at(2).logged >= 1, "the edit is sent");
    a.sync_at(3);
    let title: String =
        raw(&a).query_row("SELECT title FROM lessons WHERE id = 'both'", [], |r| r.get(0)).expect("title");
    assert_eq!(title, "after the join");
}

/// A join stopped part way and turned off goes on as a join when set up again in the same
/// place: what the newcomer held and the join had not reached still gives way to the folder.
#[test]
fn a_join_turned_off_part_way_goes_on_as_a_join() {
    let (_shared, target, mut a, mut b) = pair();
    a.lesson("both");
    a.init(&target);
    a.sync_at(0);
    b.lesson("both");
    raw(&b).execute("UPDATE lessons SET title = 'held before the join' WHERE id = 'both'", []).expect("b");
    b.init(&target);
    // Set up, never finished (the first sync was stopped), then off and on again.
    assert_eq!(b.store.sync_state().expect("state").get("joining").map(String::as_str), Some("yes"));
    devcoach_sync::off(&mut b.store, &b.dir).expect("off");
    let again = b.init_with(&target, &devcoach_sync::InitOptions::default()).expect("init");
    assert!(again.resumed, "{again:?}");
    b.sync_at(1);
    a.sync_at(2);
    let title = |d: &crate::support::Device| -> String {
        raw(d).query_row("SELECT title FROM lessons WHERE id = 'both'", [], |r| r.get(0)).expect("title")
    };
    assert_ne!(title(&a), "held before the join", "the folder's copy still wins");
    assert_eq!(title(&a), title(&b));
}

/// A joining flag an earlier build left behind after the join's comparison was over (its sync
/// stopped before the end) is seen for what it is: the next sync sends the writes made since.
#[test]
fn a_joining_flag_left_after_its_join_is_cleared() {
    let (_shared, target, mut a, mut b) = pair();
    a.lesson("both");
    a.init(&target);
    a.sync_at(0);
    b.lesson("both");
    b.init(&target);
    b.sync_at(1);
    raw(&b).execute("INSERT OR REPLACE INTO ext_sync_state (key, value) VALUES ('joining', 'yes')", []).expect("left");
    raw(&b).execute("UPDATE lessons SET title = 'after the join' WHERE id = 'both'", []).expect("edit");
    assert!(b.sync_at(2).logged >= 1, "the edit is sent");
    a.sync_at(3);
    let title: String =
        raw(&a).query_row("SELECT title FROM lessons WHERE id = 'both'", [], |r| r.get(0)).expect("title");
    assert_eq!(title, "after the join");
    assert!(!b.store.sync_state().expect("state").contains_key("joining"));
}

/// Where a comparison of everything stopped is kept with its table's name: resumed in a file
/// whose tables are numbered otherwise (a newer build added one), it goes on in that table.
#[test]
fn a_comparison_resumes_in_the_table_it_stopped_in() {
    let (_shared, _target, mut a, mut b) = pair();
    raw(&a)
        .execute("INSERT INTO knowledge (topic, confidence, updated_at) VALUES ('t1', 3, '2026-11-01T10:00:00Z')", [])
        .expect("topic");
    a.sync_at(0);
    b.sync_at(1);
    // Behind sync's back, then a comparison stopped at the start of the topics, numbered as in
    // a file with two more tables before them.
    raw(&a)
        .execute_batch(
            "UPDATE knowledge SET confidence = 8 WHERE topic = 't1'; DELETE FROM ext_sync_dirty;
             INSERT OR REPLACE INTO ext_sync_state (key, value) VALUES ('compare_all', '1'),
               ('compare_at', '{\"table\":3,\"records\":false,\"rowid\":0,\"key\":\"\",\"name\":\"knowledge\"}');",
        )
        .expect("state");
    assert!(a.sync_at(2).logged >= 1, "the topic was compared");
    b.sync_at(3);
    let confidence: i64 =
        raw(&b).query_row("SELECT confidence FROM knowledge WHERE topic = 't1'", [], |r| r.get(0)).expect("t1");
    assert_eq!(confidence, 8);
}
