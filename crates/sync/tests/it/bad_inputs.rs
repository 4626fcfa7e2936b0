//! What the folder may hold that is not a clean, complete file of a known device, and the
//! crash between logging and committing: each says what it is and loses nothing.

use std::io::Write;

use devcoach_core::sync::segment::Header;
use devcoach_core::sync::{Change, DeviceId, Hlc, Op};
use devcoach_store::{Mark, SyncRound};
use flate2::Compression;
use flate2::write::GzEncoder;

use crate::support::{Device, files, pair, t0};

fn own_files(shared: &std::path::Path, device: &Device) -> Vec<std::path::PathBuf> {
    let id = devcoach_sync::config(&device.store).expect("config").expect("on").device;
    files(&shared.join("devices").join(id.as_str()))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".dcs"))
        .collect()
}

#[test]
fn a_half_copied_file_waits_and_is_applied_once_whole() {
    let (shared, _target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    let file = own_files(shared.path(), &a).pop().expect("a's file");
    let whole = std::fs::read(&file).expect("read");
    std::fs::write(&file, &whole[..whole.len() / 2]).expect("cut");
    let report = b.sync_at(1);
    assert!(b.store.lesson("l1").expect("read").is_none());
    let problem = report.problems.iter().find(|p| p.path == file).expect("named");
    assert!(problem.what.contains("incomplete"), "{}", problem.what);
    std::fs::write(&file, &whole).expect("whole again");
    assert!(b.sync_at(2).received > 0);
    assert!(b.store.lesson("l1").expect("read").is_some());
}

#[test]
fn foreign_and_newer_files_are_left_alone_and_named() {
    let (shared, _target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    // Another program's file beside a device's, a stray folder, and a file from a newer devcoach.
    let a_dir = own_files(shared.path(), &a).pop().expect("file").parent().expect("dir").to_owned();
    std::fs::write(a_dir.join("notes.txt"), "hello").expect("foreign");
    std::fs::create_dir_all(shared.path().join("devices").join("Not A Device")).expect("stray");
    let newer_dir = shared.path().join("devices").join("0123456789abcdef");
    std::fs::create_dir_all(&newer_dir).expect("dir");
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(
        b"{\"format\":\"devcoach-sync\",\"version\":3,\"device\":\"0123456789abcdef\",\"first\":1,\"last\":1}\n",
    )
    .expect("gz");
    std::fs::write(newer_dir.join("000000000001-abcdef012345.dcs"), gz.finish().expect("gz")).expect("newer");
    let report = b.sync_at(1);
    assert!(b.store.lesson("l1").expect("read").is_some(), "a's changes still arrive");
    let said: Vec<&str> = report.problems.iter().map(|p| p.what.as_str()).collect();
    assert!(said.iter().any(|w| w.contains("not a devcoach sync file")), "{said:?}");
    assert!(said.iter().any(|w| w.contains("not a device's folder")), "{said:?}");
    assert!(said.iter().any(|w| w.contains("newer devcoach")), "{said:?}");
    assert!(a_dir.join("notes.txt").exists(), "left alone");
}

#[test]
fn a_copied_data_folder_syncs_as_a_new_device_and_both_keep_their_changes() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let mut a = Device::new();
    a.init(&target);
    a.lesson("l1");
    a.sync_at(0);
    let mut copy = Device::copy_of(&a);
    a.lesson("from_a");
    copy.lesson("from-copy");
    a.sync_at(1);
    let report = copy.sync_at(2);
    let (old, new, why) = report.renamed.expect("the copy took a new id");
    assert_eq!(why, devcoach_sync::Renamed::Copied);
    assert_ne!(old, new);
    a.sync_at(3);
    assert_eq!(a.records(), copy.records());
    for id in ["l1", "from_a", "from-copy"] {
        assert!(a.store.lesson(id).expect("read").is_some(), "{id}");
    }
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

#[test]
fn a_crash_after_logging_and_before_committing_logs_nothing_twice() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut a, mut b) = (Device::new(), Device::new());
    a.store.set_topic("git", 5, None, t0()).expect("topic");
    a.init(&target);
    b.init(&target);
    a.sync_at(0);
    b.sync_at(1);
    a.store.update_knowledge("git", 2, t0()).expect("move");
    // The round writes a's file, then dies before the commit (the log step fails after writing).
    let config = devcoach_sync::config(&a.store).expect("config").expect("on");
    let device: DeviceId = config.device.clone();
    // As the real round writes: this device's own copy first, then the folder.
    let sent = a.dir.root().join("sync").join("sent").join(device.as_str());
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: Some(sent) };
    let contents = folder.read(t0().timestamp_millis(), &mut |_, _| {}).expect("read");
    let own = &contents.devices[&device];
    let b_id = devcoach_sync::config(&b.store).expect("config").expect("on").device;
    let next = own.last() + 1;
    let prev = own.files.last().map(|f| f.digest.clone());
    let round = SyncRound {
        device: &device,
        next_seq: next,
        clock: Hlc(t0().timestamp_millis() + 600_000, 0),
        now_ms: t0().timestamp_millis() + 600_000,
        history: Vec::new(),
        incoming: contents.devices[&b_id].files.iter().flat_map(|f| f.ops.iter().cloned()).collect(),
        marks: Vec::new(),
        incoming_marks: contents.devices[&b_id]
            .files
            .iter()
            .map(|f| Mark { device: b_id.to_string(), digest: f.digest.clone(), ..Mark::default() })
            .collect(),
        joining: false,
        compare: true,
    };
    let left = std::cell::Cell::new(0);
    let err = a
        .store
        .sync_round(round, |ops| {
            assert!(ops.iter().any(|o| matches!(o.change, Change::Add { delta: 2, .. })), "{ops:?}");
            left.set(ops.len());
            let header = Header::new(device.clone(), next, next + ops.len() as u64 - 1, prev.clone(), "x".into());
            folder.write_segment(&header, ops).map_err(|e| e.to_string())?;
            Err("killed".into())
        })
        .expect_err("the round failed");
    assert!(err.to_string().contains("killed"));
    // The next sync completes, and the move counts once everywhere.
    // The failed round said nothing was sent; the file it left is this sync's to count.
    let report = a.sync_at(20);
    assert_eq!(report.logged, left.get(), "the changes the failed round left behind count as sent now");
    assert_eq!(a.sync_at(21).logged, 0, "and never again");
    b.sync_at(22);
    assert_eq!(b.store.confidence("git").expect("git"), Some(7));
    assert_eq!(a.store.confidence("git").expect("git"), Some(7));
    assert_eq!(a.records(), b.records());
}

#[test]
fn a_record_of_the_wrong_shape_from_the_folder_is_kept_out_and_counted() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let mut b = Device::new();
    b.lesson("mine");
    b.init(&target);
    b.sync_at(0);
    // A device nobody knows writes a lesson whose title is a number, a row without its NOT NULL
    // columns, and a change to a table devcoach does not sync.
    let device = DeviceId::new("feedfacefeedface").expect("id");
    let op = |seq, table: &str, key: &str, change| Op {
        device: device.clone(),
        seq,
        at: Hlc(1, 0),
        table: table.into(),
        key: key.into(),
        change,
    };
    let row = |pairs: &[(&str, serde_json::Value)]| pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    let ops = vec![
        op(1, "lessons", "[\"bad\"]", Change::Create(row(&[("id", "bad".into()), ("title", 5.into())]))),
        op(2, "lessons", "[\"thin\"]", Change::Create(row(&[("id", "thin".into())]))),
        op(
            3,
            "ext_sync_state",
            "[\"device\"]",
            Change::Create(row(&[("key", "device".into()), ("value", "x".into())])),
        ),
        op(
            4,
            "settings",
            "[\"schema_app_version\"]",
            Change::Create(row(&[("key", "schema_app_version".into()), ("value", "99".into())])),
        ),
    ];
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: None };
    folder.write_segment(&Header::new(device.clone(), 1, 4, None, "x".into()), &ops).expect("write");
    let report = b.sync_at(1);
    assert_eq!(report.refused, 2, "{report:?}");
    assert!(b.store.lesson("bad").expect("read").is_none() && b.store.lesson("thin").expect("read").is_none());
    assert!(
        b.store.lessons(&devcoach_core::query::LessonQuery::default(), t0()).expect("lessons still read").len() == 1
    );
    let config = devcoach_sync::config(&b.store).expect("config").expect("on");
    assert_ne!(config.device.as_str(), "x", "sync's own state is never written from the folder");
    // Refused records are not read as deletions: the next sync logs nothing.
    assert_eq!(b.sync_at(2).logged, 0);
}

#[test]
fn a_file_of_ours_that_leaves_the_folder_is_put_back_and_nothing_forks() {
    let (shared, _target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    let file = own_files(shared.path(), &a).pop().expect("a's file");
    let away = shared.path().join("away.dcs");
    std::fs::rename(&file, &away).expect("evicted");
    a.lesson("l2");
    let report = a.sync_at(1);
    assert!(report.renamed.is_none(), "{report:?}");
    assert!(file.exists(), "put back from a's own copy");
    // The original comes back too (a sync tool restoring it): the same bytes, no fork.
    std::fs::rename(&away, &file).expect("back");
    a.lesson("l3");
    a.sync_at(2);
    let report = b.sync_at(3);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    for id in ["l1", "l2", "l3"] {
        assert!(b.store.lesson(id).expect("read").is_some(), "{id}");
    }
    assert_eq!(a.sync_at(4).logged, 0, "quiet once in sync");
}

/// A clone of the whole disk: the same data folder, and (unlike a copied folder) the same
/// database file identity, which the fingerprint cannot tell apart.
fn disk_clone(a: &Device) -> Device {
    let mut clone = Device::copy_of(a);
    let fp: String = rusqlite::Connection::open(a.dir.db_path())
        .expect("open")
        .query_row("SELECT value FROM ext_sync_state WHERE key = 'fingerprint'", [], |r| r.get(0))
        .expect("fp");
    drop(clone.store);
    let conn = rusqlite::Connection::open(clone.dir.db_path()).expect("open");
    let meta = std::fs::metadata(clone.dir.db_path()).expect("meta");
    let clone_fp = {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            format!("{}:{}", meta.dev(), meta.ino())
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            String::new()
        }
    };
    assert_ne!(fp, clone_fp);
    conn.execute("UPDATE ext_sync_state SET value = ?1 WHERE key = 'fingerprint'", [&clone_fp])
        .expect("as a disk clone");
    drop(conn);
    clone.store = devcoach_store::Store::open(&clone.dir).expect("reopen");
    clone
}

#[test]
fn a_cloned_disk_that_keeps_the_files_identity_is_told_apart_by_what_it_wrote() {
    let (_shared, _target, mut a, mut c) = pair();
    a.lesson("l1");
    a.sync_at(0);
    let mut clone = disk_clone(&a);
    a.store.set_topic("from_a", 3, None, t0()).expect("a");
    clone.store.set_topic("from_clone", 4, None, t0()).expect("clone");
    a.sync_at(1);
    let report = clone.sync_at(2);
    let (_, _, why) = report.renamed.expect("the clone saw a file it never wrote");
    assert_eq!(why, devcoach_sync::Renamed::SharedId);
    a.sync_at(3);
    c.sync_at(4);
    clone.sync_at(5);
    a.sync_at(6);
    for d in [&a, &clone, &c] {
        assert_eq!(d.store.confidence("from_a").expect("a"), Some(3));
        assert_eq!(d.store.confidence("from_clone").expect("clone"), Some(4));
    }
    assert_eq!(a.records(), clone.records());
    assert_eq!(a.records(), c.records());
}

#[test]
fn a_file_stamped_far_in_the_future_is_not_read() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let mut b = Device::new();
    b.init(&target);
    let device = DeviceId::new("0badc0de0badc0de").expect("id");
    let row =
        [("key".to_owned(), serde_json::json!("max_per_day")), ("value".to_owned(), serde_json::json!("9"))].into();
    let op = Op {
        device: device.clone(),
        seq: 1,
        // The year 2500, the counter full.
        at: Hlc(16_725_225_600_000, u32::MAX),
        table: "settings".into(),
        key: "[\"max_per_day\"]".into(),
        change: Change::Update(row),
    };
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: None };
    folder.write_segment(&Header::new(device, 1, 1, None, "x".into()), &[op]).expect("write");
    let report = b.sync_at(0);
    assert!(report.problems.iter().any(|p| p.what.contains("ahead of this machine's clock")), "{:?}", report.problems);
    let clock: String = rusqlite::Connection::open(b.dir.db_path())
        .expect("open")
        .query_row("SELECT value FROM ext_sync_state WHERE key = 'clock'", [], |r| r.get(0))
        .expect("clock");
    assert!(!clock.contains("16725225600000"), "the clock was not dragged along: {clock}");
}

#[test]
fn two_clones_that_write_before_either_sees_the_other_both_keep_their_changes() {
    let (shared, _target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    let mut clone = disk_clone(&a);
    a.store.set_topic("topic_a", 2, None, t0()).expect("a");
    a.sync_at(1);
    // The sync tool is behind: the clone does not see a's new file before it writes its own,
    // under the same id and the same numbers.
    let hold = tempfile::tempdir().expect("hold");
    let a_dir = own_files(shared.path(), &a).pop().expect("file").parent().expect("dir").to_owned();
    let before: Vec<_> = std::fs::read_dir(&a_dir).expect("dir").flatten().map(|e| e.path()).collect();
    let newest = before.iter().filter(|p| p.to_string_lossy().ends_with(".dcs")).max().expect("newest").clone();
    std::fs::rename(&newest, hold.path().join("held")).expect("hold");
    clone.store.set_topic("topic_c", 5, None, t0()).expect("clone");
    clone.store.set_star("l1", true).expect("star");
    clone.sync_at(2);
    std::fs::rename(hold.path().join("held"), &newest).expect("arrives");
    for minute in 3..9 {
        a.sync_at(minute);
        clone.sync_at(minute);
        b.sync_at(minute);
    }
    for d in [&a, &clone, &b] {
        assert_eq!(d.store.confidence("topic_a").expect("a"), Some(2));
        assert_eq!(d.store.confidence("topic_c").expect("c"), Some(5));
        assert!(d.store.lesson("l1").expect("read").expect("there").starred);
    }
    assert_eq!(a.records(), clone.records());
    assert_eq!(a.records(), b.records());
    let last = b.sync_at(20);
    assert!(last.problems.is_empty(), "{:?}", last.problems);
    assert_eq!((a.sync_at(21).logged, clone.sync_at(21).logged), (0, 0), "quiet once in sync");
}

#[test]
fn another_devices_file_gone_from_one_machines_folder_is_not_sent_again_as_its_own() {
    let (shared, target, mut p, mut q) = pair();
    let mut r = Device::new();
    r.init(&target);
    let set = |d: &mut Device, n: &str| {
        let update = devcoach_core::settings::SettingUpdate::for_agent("max_per_day", n).expect("update");
        d.store.apply_setting(&update).expect("set");
    };
    set(&mut p, "7");
    p.sync_at(0);
    q.sync_at(1);
    r.sync_at(2);
    set(&mut r, "3");
    r.sync_at(3);
    // p's files leave q's view of the folder (evicted, an old copy of the folder restored).
    let p_dir = own_files(shared.path(), &p).pop().expect("p's file").parent().expect("dir").to_owned();
    let hold = tempfile::tempdir().expect("hold");
    std::fs::rename(&p_dir, hold.path().join("p")).expect("gone");
    let report = q.sync_at(4);
    assert_eq!(report.logged, 0, "q sends nothing of p's as its own: {report:?}");
    assert!(p_dir.is_dir(), "q put p's files back from its own copies");
    // And a file cut short in the folder is made whole from a copy.
    let file = own_files(shared.path(), &p).pop().expect("p's file");
    let whole = std::fs::read(&file).expect("read");
    std::fs::write(&file, &whole[..whole.len() / 3]).expect("cut");
    assert_eq!(r.sync_at(5).logged, 0);
    assert_eq!(std::fs::read(&file).expect("read"), whole, "made whole again");
    for d in [&mut p, &mut q, &mut r] {
        d.sync_at(6);
    }
    for d in [&p, &q, &r] {
        assert_eq!(d.store.settings().expect("settings").max_per_day, 3, "the newer choice stands");
    }
    assert_eq!(p.records(), q.records());
    assert_eq!(p.records(), r.records());
}

#[test]
fn a_git_sync_killed_between_adding_and_committing_is_finished_by_the_next() {
    let remote = tempfile::tempdir().expect("remote");
    let bare = remote.path().join("record.git");
    crate::support::git(&["init", "--quiet", "--bare", &bare.to_string_lossy()]);
    let target = format!("file://{}", bare.display());
    let (mut a, mut b) = (Device::new(), Device::new());
    a.init(&target);
    b.init(&target);
    a.sync_at(0);
    b.sync_at(1);
    // a's file is written and staged, and the commit never happens.
    a.lesson("staged");
    let clone = a.dir.root().join("sync").join("repo");
    let before =
        std::process::Command::new("git").arg("-C").arg(&clone).args(["rev-parse", "HEAD"]).output().expect("git");
    let report = a.sync_at(2);
    assert!(report.pushed);
    let head = String::from_utf8_lossy(&before.stdout).trim().to_owned();
    crate::support::git(&["-C", &clone.to_string_lossy(), "reset", "--quiet", "--soft", &head]);
    crate::support::git(&[
        "-C",
        &clone.to_string_lossy(),
        "push",
        "--quiet",
        "--force",
        "origin",
        &format!("{head}:refs/heads/main"),
    ]);
    a.lesson("after");
    a.sync_at(3);
    b.sync_at(4);
    for id in ["staged", "after"] {
        assert!(b.store.lesson(id).expect("read").is_some(), "{id} reached b");
    }
}

/// The learner (or an agent) writes the notebook while a sync runs, after the sync compared it
/// and before it writes what another device sent: the learner's words stay, and go out with the
/// next sync.
#[test]
fn a_notebook_written_during_a_sync_is_kept_and_sent_next() {
    let (shared, _target, mut a, mut b) = pair();
    a.sync_at(0);
    b.sync_at(1);
    b.dir.write_notebook("# From b\n").expect("b's notebook");
    b.sync_at(2);
    let config = devcoach_sync::config(&a.store).expect("config").expect("on");
    let b_id = devcoach_sync::config(&b.store).expect("config").expect("on").device;
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: None };
    let contents = folder.read(t0().timestamp_millis(), &mut |_, _| {}).expect("read");
    let incoming: Vec<Op> = contents.devices[&b_id].files.iter().flat_map(|f| f.ops.iter().cloned()).collect();
    assert!(incoming.iter().any(|op| op.table == "documents"), "b's notebook is in the folder");
    let notebook = a.dir.notebook_path();
    let round = SyncRound {
        device: &config.device,
        next_seq: 1_000,
        clock: Hlc(t0().timestamp_millis() + 150_000, 0),
        now_ms: t0().timestamp_millis() + 150_000,
        history: Vec::new(),
        incoming,
        marks: Vec::new(),
        incoming_marks: Vec::new(),
        joining: false,
        compare: true,
    };
    a.store
        .sync_round(round, |_| {
            // Between the comparison and the write: the learner saves the notebook.
            std::fs::write(&notebook, "# Mine, written just now\n").expect("edit");
            Ok(Vec::new())
        })
        .expect("round");
    assert_eq!(std::fs::read_to_string(&notebook).expect("notebook"), "# Mine, written just now\n");
    a.sync_at(3);
    b.sync_at(4);
    assert_eq!(b.dir.read_notebook().expect("b's"), "# Mine, written just now\n", "sent with the next sync");
}

/// A file that does not read is said again at each sync without being read again, until it
/// changes (its size or its time): a folder of damaged files costs one read each, not one per
/// sync, status and doctor.
#[test]
fn a_file_that_does_not_read_is_not_read_again_until_it_changes() {
    let (shared, _target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    b.sync_at(1);
    let dir = shared.path().join("devices").join("0badbadbadbadbad");
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("000000000001-0123456789ab.dcs");
    // gzip's magic, then bytes that do not inflate.
    let damaged: Vec<u8> = [0x1f, 0x8b].into_iter().chain(std::iter::repeat_n(0x55, 4094)).collect();
    std::fs::write(&path, &damaged).expect("damaged");
    let what = |report: &devcoach_sync::SyncReport| {
        report.problems.iter().find(|p| p.path == path).map(|p| p.what.clone()).expect("named")
    };
    let first = what(&b.sync_at(2));
    assert!(first.contains("damaged"), "{first}");
    // Other bytes, same size, same time: not read again, so what it said stands.
    let modified = std::fs::metadata(&path).expect("meta").modified().expect("time");
    std::fs::write(&path, vec![b'x'; damaged.len()]).expect("other bytes");
    std::fs::File::options().write(true).open(&path).expect("open").set_modified(modified).expect("time");
    assert_eq!(what(&b.sync_at(3)), first, "not read again");
    let status = devcoach_sync::status(&b.store, &b.dir).expect("status");
    assert!(status.problems.iter().any(|p| p.path == path && p.what == first), "{:?}", status.problems);
    // Once it changes, it is read again.
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(modified + std::time::Duration::from_mins(1))
        .expect("time");
    let again = what(&b.sync_at(4));
    assert!(again.contains("not a devcoach sync file"), "{again}");
}

/// A file every device applied is swapped in the folder for other bytes of the same size (a
/// disk that zeroed it, or the folder's writer): within a day a device that holds a copy puts it
/// back, so a device that joins later still gets everything.
#[test]
fn a_file_swapped_for_bytes_of_the_same_size_is_put_back_within_a_day() {
    let (shared, target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    b.sync_at(1);
    let swapped: Vec<_> =
        files(shared.path()).into_iter().filter(|p| p.extension().is_some_and(|e| e == "dcs")).collect();
    let before: Vec<Vec<u8>> = swapped.iter().map(|p| std::fs::read(p).expect("bytes")).collect();
    for (path, bytes) in swapped.iter().zip(&before) {
        std::fs::write(path, vec![0u8; bytes.len()]).expect("zeroed");
    }
    b.sync_at(2);
    b.sync_at(24 * 60 + 5);
    for (path, bytes) in swapped.iter().zip(&before) {
        assert_eq!(&std::fs::read(path).expect("bytes"), bytes, "{} put back", path.display());
    }
    let mut c = Device::new();
    c.init(&target);
    c.sync_at(24 * 60 + 6);
    assert_eq!(c.records(), a.records());
}

/// A file every device applied is replaced by a link (or a folder): the next sync of a device
/// that holds a copy takes it away without following it and puts the file back.
#[cfg(unix)]
#[test]
fn a_file_replaced_by_a_link_or_a_folder_is_put_back() {
    for kind in ["link", "folder"] {
        let (shared, target, mut a, mut b) = pair();
        a.lesson("l1");
        a.sync_at(0);
        b.sync_at(1);
        let outside = tempfile::tempdir().expect("outside");
        let bait = outside.path().join("bait");
        std::fs::write(&bait, "not devcoach's").expect("bait");
        let path =
            files(shared.path()).into_iter().find(|p| p.extension().is_some_and(|e| e == "dcs")).expect("a file");
        let bytes = std::fs::read(&path).expect("bytes");
        std::fs::remove_file(&path).expect("gone");
        if kind == "link" {
            std::os::unix::fs::symlink(&bait, &path).expect("link");
        } else {
            std::fs::create_dir_all(path.join("inside")).expect("folder");
        }
        b.sync_at(2);
        assert!(std::fs::symlink_metadata(&path).expect("there").is_file(), "{kind}: a file again");
        assert_eq!(std::fs::read(&path).expect("bytes"), bytes, "{kind}");
        assert_eq!(std::fs::read_to_string(&bait).expect("bait"), "not devcoach's", "{kind}: never followed");
        let mut c = Device::new();
        c.init(&target);
        c.sync_at(3);
        assert_eq!(c.records(), a.records(), "{kind}");
    }
}

/// Large files that do not read (each worth a whole round) do not hold back a real change:
/// the sync goes on, round after round, until every file was read or tried; the next sync tries
/// none of them again.
#[test]
fn files_that_do_not_read_never_hold_back_a_real_change() {
    let (shared, _target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    b.sync_at(1);
    let mut noise = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..3 {
        let dir = shared.path().join("devices").join(format!("000000000000000{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        let junk: Vec<u8> = (0..(20 << 20) / 8)
            .flat_map(|_| {
                noise ^= noise << 13;
                noise ^= noise >> 7;
                noise ^= noise << 17;
                noise.to_le_bytes()
            })
            .collect();
        std::fs::write(dir.join("000000000001-0123456789ab.dcs"), junk).expect("junk");
    }
    b.store.set_star("l1", true).expect("star");
    b.sync_at(2);
    let report = a.sync_at(3);
    assert_eq!(report.problems.len(), 3, "{:?}", report.problems);
    assert!(a.store.lesson("l1").expect("read").expect("there").starred, "the star arrived in the same sync");
    let again = a.sync_at(4);
    assert_eq!((again.read, again.rounds, again.problems.len()), (0, 1, 3), "named again, not read again");
}

/// A device's copy of another's file cut short (a power cut: copies are not waited for on disk)
/// while the folder lost the file: the damaged copy is never put back in its place, and the
/// device that wrote the file puts its own back.
#[test]
fn a_copy_cut_short_is_never_put_back() {
    let (shared, target, mut a, mut b) = pair();
    a.lesson("l1");
    a.sync_at(0);
    b.sync_at(1);
    let file = own_files(shared.path(), &a).pop().expect("a's file");
    let name = file.file_name().expect("name").to_owned();
    let a_id = devcoach_sync::config(&a.store).expect("config").expect("on").device;
    let copy = b.dir.root().join("sync").join("kept").join(a_id.as_str()).join(&name);
    let whole = std::fs::read(&copy).expect("b keeps a copy");
    std::fs::write(&copy, &whole[..whole.len() / 2]).expect("cut short");
    std::fs::remove_file(&file).expect("the folder loses it");
    b.sync_at(2);
    assert!(!file.exists(), "b's damaged copy was put back");
    a.sync_at(3);
    assert_eq!(std::fs::read(&file).expect("a puts its own back"), whole);
    let mut c = Device::new();
    c.init(&target);
    c.sync_at(4);
    assert_eq!(c.records(), a.records());
}

/// A comparison of everything that ends while many writes made here wait to be compared (a join
/// whose last rounds meet a hook's or the agent's writes) still ends by writing every record
/// once: a record the join only folded reaches its table.
#[test]
fn a_comparison_of_everything_ends_by_writing_every_record_even_when_writes_wait() {
    use devcoach_core::limits::SYNC_ROUND_CHANGES;
    let shared = tempfile::tempdir().expect("folder");
    let mut b = Device::new();
    b.init(&shared.path().to_string_lossy());
    b.sync_at(0);
    let config = devcoach_sync::config(&b.store).expect("config").expect("on");
    // A lesson another device made, folded into the records and not yet written (as a join's
    // rounds before its last leave it).
    let other = DeviceId::new("feedfacefeedface").expect("id");
    let row: devcoach_core::sync::Row = [
        ("id", "late"),
        ("timestamp", "2026-11-01T10:00:00Z"),
        ("topic_id", "rust"),
        ("categories", "[\"rust\"]"),
        ("title", "Late"),
        ("level", "mid"),
        ("summary", "S"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(*v)))
    .collect();
    let op = Op {
        device: other,
        seq: 1,
        at: Hlc(t0().timestamp_millis(), 0),
        table: "lessons".into(),
        key: "[\"late\"]".into(),
        change: Change::Create(row),
    };
    let round = SyncRound {
        device: &config.device,
        next_seq: 1_000,
        clock: Hlc(t0().timestamp_millis() + 60_000, 0),
        now_ms: t0().timestamp_millis() + 60_000,
        history: Vec::new(),
        incoming: vec![op],
        marks: Vec::new(),
        incoming_marks: Vec::new(),
        joining: false,
        compare: false,
    };
    b.store.sync_round(round, |_| Ok(Vec::new())).expect("folded");
    assert!(b.store.lesson("late").expect("read").is_none(), "folded, not written");
    // The comparison of everything has reached its end; meanwhile more writes were made here
    // than a round compares.
    let conn = rusqlite::Connection::open(b.dir.db_path()).expect("raw");
    conn.execute(
        "INSERT OR REPLACE INTO ext_sync_state (key, value) VALUES ('compare_all', '1'), \
         ('compare_at', '{\"table\":1000,\"records\":true,\"rowid\":0,\"key\":\"\"}')",
        [],
    )
    .expect("state");
    let tx = conn.unchecked_transaction().expect("tx");
    for i in 0..SYNC_ROUND_CHANGES + 500 {
        tx.execute(
            "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, 3, '2026-11-01T10:00:00Z')",
            [format!("topic_{i}")],
        )
        .expect("topic");
    }
    tx.commit().expect("commit");
    let report = b.sync_at(2);
    assert_eq!(report.logged, SYNC_ROUND_CHANGES + 500);
    assert!(b.store.lesson("late").expect("read").is_some(), "every record written once: {report:?}");
}
