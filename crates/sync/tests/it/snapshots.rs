//! Snapshots: a device that has written enough files writes its changes that still count as
//! one snapshot and takes its older files away, so neither the folder nor a join grows with
//! the history; every device, whatever it had read before, ends with the same record.

use std::collections::BTreeSet;

use rusqlite::Connection;

use crate::support::{Device, files, pair, t0};

fn raw(device: &Device) -> Connection {
    Connection::open(device.dir.db_path()).expect("raw open")
}

/// This device's files in the folder.
fn own_files(shared: &std::path::Path, device: &Device) -> BTreeSet<String> {
    let id = devcoach_sync::config(&device.store).expect("config").expect("on").device;
    files(&shared.join("devices").join(id.as_str()))
        .into_iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| n.contains(".dcs"))
        .collect()
}

#[test]
fn a_snapshot_replaces_a_devices_history_and_every_device_still_agrees() {
    let (shared, target, mut a, mut b) = pair();
    a.init(&target);
    b.init(&target);
    let mut minute = 0;
    let mut tick = || {
        minute += 1;
        minute
    };
    for i in 0..4 {
        a.lesson(&format!("l{i}"));
        a.sync_at(tick());
    }
    // b reads the first half of a's history, then goes away.
    b.sync_at(tick());
    for i in 0..3 {
        // Stars set and cleared, a topic moved up and down, a lesson deleted: most of these
        // changes are overridden by later ones.
        a.store.set_star("l0", i % 2 == 0).expect("star");
        a.store.update_knowledge("rust", if i % 2 == 0 { 2 } else { -1 }, t0()).expect("move");
        a.sync_at(tick());
    }
    assert!(a.store.delete_lesson("l1").expect("delete"));
    a.lesson("l9");
    let before = own_files(shared.path(), &a).len();
    assert!(before >= 7, "{before}");
    // Small, so this history of a few syncs is enough for a snapshot.
    raw(&a).execute("INSERT INTO ext_sync_state (key, value) VALUES ('snapshot_after', '6')", []).expect("after");
    let report = a.sync_at(tick());
    assert!(report.snapshot, "{report:?}");
    let after = own_files(shared.path(), &a);
    assert!(after.len() < before, "the older files went: {before} → {}", after.len());
    assert_eq!(after.len(), 1, "one part holds what still counts: {after:?}");

    // b, which had read part of the history, and c, which joins now, end where a is.
    b.sync_at(tick());
    let mut c = Device::new();
    c.init(&target);
    let join = c.sync_at(tick());
    let others = own_files(shared.path(), &b).len();
    assert_eq!(join.read, after.len() + others, "a join reads a's snapshot, not its history: {join:?}");
    a.sync_at(tick());
    b.sync_at(tick());
    assert_eq!(a.records(), b.records());
    assert_eq!(a.records(), c.records());
    assert!(c.store.lesson("l1").expect("read").is_none() && c.store.lesson("l9").expect("read").is_some());

    // b's copies of a's older files are gone, so nothing puts them back; the folder stays as a
    // left it after more syncs of everyone.
    let a_id = devcoach_sync::config(&a.store).expect("config").expect("on").device;
    let kept = b.dir.root().join("sync").join("kept").join(a_id.as_str());
    let copies: BTreeSet<String> =
        files(&kept).into_iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
    assert!(copies.is_subset(&after), "only the snapshot is kept: {copies:?}");
    b.sync_at(tick());
    c.sync_at(tick());
    assert_eq!(own_files(shared.path(), &a), after);

    // a goes on writing after its snapshot, and a later device still agrees.
    a.lesson("l10");
    a.sync_at(tick());
    let mut d = Device::new();
    d.init(&target);
    d.sync_at(tick());
    assert_eq!(a.records(), d.records());

    // A second snapshot (its parts numbered from the start again) while b is away: b, which
    // went by the first, still reads it and ends where a is.
    for i in 0..4 {
        a.store.set_star("l9", i % 2 == 0).expect("star");
        a.lesson(&format!("m{i}"));
        a.sync_at(tick());
    }
    raw(&a).execute("UPDATE ext_sync_state SET value = '3' WHERE key = 'snapshot_after'", []).expect("after");
    a.store.set_star("l10", true).expect("star");
    assert!(a.sync_at(tick()).snapshot, "a second snapshot");
    b.sync_at(tick());
    b.sync_at(tick());
    assert_eq!(a.records(), b.records());
    let mut e = Device::new();
    e.init(&target);
    e.sync_at(tick());
    assert_eq!(a.records(), e.records());
}

/// The same in an encrypted folder: the parts are sealed and tagged like every file, and read
/// back by a device that joins.
#[test]
fn a_snapshot_in_an_encrypted_folder_is_sealed_and_read() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let options = devcoach_sync::InitOptions {
        encrypt: true,
        passphrase: Some("a long passphrase".into()),
        ..devcoach_sync::InitOptions::default()
    };
    let mut a = Device::new();
    a.init_with(&target, &options).expect("encrypted");
    for i in 0..5 {
        a.lesson(&format!("secret-{i}"));
        a.sync_at(i);
    }
    raw(&a).execute("INSERT INTO ext_sync_state (key, value) VALUES ('snapshot_after', '3')", []).expect("after");
    a.store.set_star("secret-0", true).expect("star");
    assert!(a.sync_at(10).snapshot);
    for path in files(shared.path()) {
        let text = String::from_utf8_lossy(&std::fs::read(&path).expect("read")).into_owned();
        assert!(!text.contains("secret-"), "{} is readable", path.display());
    }
    let mut b = Device::new();
    b.init_with(&target, &options).expect("joins");
    b.sync_at(11);
    assert_eq!(a.records(), b.records());
}

/// A device folder stuffed with more files than any devcoach writes is looked at only up to
/// the cap, and the sync says so; the other devices' changes still arrive.
#[test]
fn a_device_folder_with_too_many_files_is_looked_at_only_up_to_the_cap() {
    use devcoach_core::limits::SYNC_DEVICE_FILES;
    let (shared, target, mut a, mut b) = pair();
    a.init(&target);
    b.init(&target);
    a.lesson("real");
    a.sync_at(0);
    let flood = shared.path().join("devices").join("feedfacefeedface");
    std::fs::create_dir_all(&flood).expect("dir");
    for i in 0..=SYNC_DEVICE_FILES {
        std::fs::write(flood.join(format!("{i:012}-000000000000.dcs")), b"").expect("file");
    }
    let report = b.sync_at(1);
    assert!(b.store.lesson("real").expect("read").is_some(), "a's lesson arrived");
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.path == flood && p.what.contains(&format!("more than {SYNC_DEVICE_FILES} files"))),
        "{:?}",
        report.problems.iter().map(|p| &p.what).collect::<Vec<_>>()
    );
}

/// In a plain folder anyone can write a snapshot in a device's name. One forged under a
/// device's own id takes nothing of its away: its files stay, and its copies put them back.
#[test]
fn a_snapshot_forged_in_a_devices_name_takes_none_of_its_files() {
    use devcoach_core::sync::segment::{Header, SnapshotPart};
    let (shared, target, mut a, mut b) = pair();
    a.init(&target);
    b.init(&target);
    for i in 0..3 {
        a.lesson(&format!("l{i}"));
        a.sync_at(i);
    }
    let before = own_files(shared.path(), &a);
    let id = devcoach_sync::config(&a.store).expect("config").expect("on").device;
    // One part, claiming to supersede everything a ever wrote, holding nothing.
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: None };
    let part = SnapshotPart { upto: 1_000_000, part: 1, parts: 1 };
    let header = Header::snapshot(id.clone(), 1_000_000, 1_000_000, None, "2026-12-01T09:00:00.000Z".into(), part);
    folder.write_segment(&header, &[]).expect("forged");
    // a took a new id within the week (so it keeps this one, and reads the forged part as its
    // own id's).
    raw(&a)
        .execute(
            "INSERT OR REPLACE INTO ext_sync_state (key, value) VALUES ('renamed_at', '2026-12-01T08:00:00.000Z')",
            [],
        )
        .expect("renamed_at");
    a.sync_at(10);
    assert_eq!(devcoach_sync::config(&a.store).expect("config").expect("on").device, id, "a kept its id");

    b.sync_at(11);
    a.sync_at(12);
    let after: BTreeSet<String> = files(&shared.path().join("devices").join(id.as_str()))
        .into_iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert!(before.is_subset(&after), "a's files are all still there: {before:?} {after:?}");
    let mut c = Device::new();
    c.init(&target);
    c.sync_at(13);
    assert!((0..3).all(|i| c.store.lesson(&format!("l{i}")).expect("read").is_some()), "a newcomer gets a's lessons");
    // Nor does it make a write a snapshot at every sync: its own real one stands beside it.
    raw(&a)
        .execute("INSERT OR REPLACE INTO ext_sync_state (key, value) VALUES ('snapshot_after', '4')", [])
        .expect("after");
    a.lesson("l3");
    let snapshots = (0..6).filter(|i| a.sync_at(20 + i).snapshot).count();
    assert!(snapshots <= 1, "{snapshots} snapshots in six syncs with nothing new");
    b.sync_at(30);
    c.sync_at(31);
    assert_eq!(a.records(), c.records());
    assert_eq!(a.records(), b.records());
}

/// Another device's folder replaced by a link: the copies of its files are not put back through
/// it, and this device's sync goes on (the problem is named).
#[cfg(unix)]
#[test]
fn another_devices_folder_replaced_by_a_link_does_not_stop_a_sync() {
    let (shared, target, mut a, mut b) = pair();
    a.init(&target);
    b.init(&target);
    a.lesson("l1");
    a.sync_at(0);
    b.sync_at(1);
    let a_id = devcoach_sync::config(&a.store).expect("config").expect("on").device;
    let a_dir = shared.path().join("devices").join(a_id.as_str());
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    std::fs::remove_dir_all(&a_dir).expect("removed");
    std::os::unix::fs::symlink(elsewhere.path(), &a_dir).expect("link");
    b.lesson("l2");
    let report = b.sync_at(2);
    assert!(report.logged > 0, "b's own change went out: {report:?}");
    assert!(std::fs::read_dir(elsewhere.path()).expect("dir").next().is_none(), "nothing written through the link");
}

/// A sync killed while it wrote a snapshot leaves half of it (a part among the device's own
/// copies and in the folder, never recorded). The next snapshot holds each change once, every
/// part reads, and a device that joins afterwards still gets everything.
#[test]
fn a_snapshot_left_half_written_is_followed_by_one_that_reads() {
    use devcoach_core::sync::segment::{Header, SnapshotPart};
    let (shared, target, mut a, mut b) = pair();
    a.init(&target);
    b.init(&target);
    for i in 0..4 {
        a.lesson(&format!("l{i}"));
        a.sync_at(i);
    }
    b.sync_at(5);
    let id = devcoach_sync::config(&a.store).expect("config").expect("on").device;
    let sent = a.dir.root().join("sync").join("sent").join(id.as_str());
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: Some(sent.clone()) };
    let contents = folder.read(t0().timestamp_millis() + 3_600_000, &mut |_, _| {}).expect("read");
    let log = &contents.devices[&id];
    let upto = log.last();
    let half: Vec<_> = log.files.iter().flat_map(|f| f.ops.iter().cloned()).take(3).collect();
    let (first, last) = (half[0].seq, half[half.len() - 1].seq);
    let header = Header::snapshot(
        id.clone(),
        first,
        last,
        None,
        "2026-12-01T09:10:00.000Z".into(),
        SnapshotPart { upto, part: 1, parts: 2 },
    );
    folder.write_segment(&header, &half).expect("the half that was written");
    // a goes on, and writes a real snapshot over it.
    raw(&a)
        .execute("INSERT OR REPLACE INTO ext_sync_state (key, value) VALUES ('snapshot_after', '3')", [])
        .expect("after");
    let mut wrote = false;
    for i in 0..4 {
        a.store.set_star("l1", i % 2 == 0).expect("star");
        wrote |= a.sync_at(10 + i).snapshot;
    }
    assert!(wrote, "a snapshot was written");
    b.sync_at(20);
    let mut c = Device::new();
    c.init(&target);
    let join = c.sync_at(21);
    assert!(join.problems.is_empty(), "every file reads: {:?}", join.problems);
    a.sync_at(22);
    b.sync_at(23);
    assert_eq!(a.records(), b.records());
    assert_eq!(a.records(), c.records());
    assert!((0..4).all(|i| c.store.lesson(&format!("l{i}")).expect("read").is_some()));
}
