#![cfg(unix)]
//! The file door against every kind of path: FIFOs and devices never block or get replaced,
//! links are never written through, reads stop at their limit, and no temporary file survives.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use devcoach_files::{AtomicFile, FileError, Kind, Links, Overwrite, Target};
use proptest::prelude::*;
use tempfile::TempDir;

fn mkfifo(path: &Path) -> PathBuf {
    let ok = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo").success();
    assert!(ok, "mkfifo");
    path.to_owned()
}

/// Every special kind of path this machine lets a test make, with what it is.
fn specials(dir: &Path) -> Vec<(PathBuf, Kind)> {
    let mut out = vec![(mkfifo(&dir.join("fifo")), Kind::Fifo)];
    let sub = dir.join("adir");
    std::fs::create_dir(&sub).expect("dir");
    out.push((sub, Kind::Directory));
    let socket = dir.join("socket");
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
    std::mem::forget(listener);
    out.push((socket, Kind::Socket));
    // A device node of our own (as root), so a bug could only ever replace this copy.
    let device = dir.join("null-device");
    let made = std::process::Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    out.push(if made { (device, Kind::CharDevice) } else { (PathBuf::from("/dev/null"), Kind::CharDevice) });
    out
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.contains("devcoach-tmp"))
        .collect()
}

#[test]
fn special_files_are_refused_for_reading_without_blocking() {
    let tmp = TempDir::new().expect("tmp");
    let started = Instant::now();
    for (path, kind) in specials(tmp.path()) {
        for links in [Links::Follow, Links::Refuse] {
            match devcoach_files::read(&path, 1024, links) {
                Err(FileError::NotRegular { kind: k, .. }) => assert_eq!(k, kind, "{}", path.display()),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
    }
    // /dev/zero never ends: refused as a device, never read until memory runs out.
    assert!(matches!(
        devcoach_files::read(Path::new("/dev/zero"), 1024, Links::Follow),
        Err(FileError::NotRegular { kind: Kind::CharDevice, .. })
    ));
    assert!(started.elapsed() < Duration::from_secs(20), "nothing blocked");
}

#[test]
fn special_files_are_never_replaced_or_appended_to() {
    let tmp = TempDir::new().expect("tmp");
    for (path, kind) in specials(tmp.path()) {
        if path.starts_with("/dev") {
            // Only looked at, never aimed at.
            assert!(matches!(devcoach_files::check_target(&path), Err(FileError::NotRegular { .. })));
            continue;
        }
        let before = std::fs::symlink_metadata(&path).expect("there").file_type();
        for overwrite in [Overwrite::Never, Overwrite::Replace] {
            match devcoach_files::write(&path, b"data", overwrite) {
                Err(FileError::NotRegular { kind: k, .. }) => assert_eq!(k, kind),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
        if kind != Kind::Directory {
            assert!(
                matches!(devcoach_files::open_append(&path), Err(FileError::NotRegular { .. })),
                "{}",
                path.display()
            );
        }
        assert_eq!(std::fs::symlink_metadata(&path).expect("still there").file_type(), before, "{}", path.display());
    }
    assert_eq!(leftovers(tmp.path()), Vec::<String>::new());
}

#[test]
fn links_are_read_through_but_never_written_through() {
    let tmp = TempDir::new().expect("tmp");
    let real = tmp.path().join("real.txt");
    std::fs::write(&real, "mine").expect("write");
    let link = tmp.path().join("link.txt");
    std::os::unix::fs::symlink(&real, &link).expect("link");
    assert_eq!(devcoach_files::read(&link, 100, Links::Follow).expect("read"), b"mine");
    assert!(matches!(
        devcoach_files::read(&link, 100, Links::Refuse),
        Err(FileError::NotRegular { kind: Kind::Symlink, .. })
    ));
    assert!(matches!(
        devcoach_files::write(&link, b"x", Overwrite::Replace),
        Err(FileError::NotRegular { kind: Kind::Symlink, .. })
    ));
    assert!(matches!(devcoach_files::open_append(&link), Err(FileError::NotRegular { .. })));
    assert!(std::fs::symlink_metadata(&link).expect("link").file_type().is_symlink(), "the link stays a link");
    assert_eq!(std::fs::read(&real).expect("read"), b"mine", "its target is untouched");
    // A dangling link, too.
    let dangling = tmp.path().join("dangling");
    std::os::unix::fs::symlink(tmp.path().join("nowhere"), &dangling).expect("link");
    assert!(matches!(devcoach_files::write(&dangling, b"x", Overwrite::Replace), Err(FileError::NotRegular { .. })));
    assert!(!tmp.path().join("nowhere").exists());
}

#[test]
fn writes_replace_only_when_asked_and_leave_no_temp_file() {
    let tmp = TempDir::new().expect("tmp");
    let path = tmp.path().join("out.zip");
    assert_eq!(devcoach_files::check_target(&path).expect("check"), Target::Absent);
    devcoach_files::write(&path, b"one", Overwrite::Never).expect("new");
    assert_eq!(devcoach_files::check_target(&path).expect("check"), Target::File);
    assert!(matches!(devcoach_files::write(&path, b"two", Overwrite::Never), Err(FileError::Exists { .. })));
    assert_eq!(std::fs::read(&path).expect("read"), b"one");
    devcoach_files::write(&path, b"two", Overwrite::Replace).expect("replace");
    assert_eq!(std::fs::read(&path).expect("read"), b"two");
    // A writer dropped half-way (an error in the caller) leaves the old file and no temp file.
    let mut half = AtomicFile::create(&path, Overwrite::Replace).expect("create");
    half.write_all(b"half").expect("write");
    drop(half);
    assert_eq!(std::fs::read(&path).expect("read"), b"two");
    // A folder that does not exist: a clear error, nothing created.
    let missing = tmp.path().join("no/such/dir/file");
    assert!(matches!(
        devcoach_files::write(&missing, b"x", Overwrite::Replace),
        Err(FileError::NotFound { .. } | FileError::Io { .. })
    ));
    assert_eq!(leftovers(tmp.path()), Vec::<String>::new());
}

#[test]
fn a_file_that_appears_while_a_new_one_is_written_is_never_replaced() {
    let tmp = TempDir::new().expect("tmp");
    let path = tmp.path().join("backup.zip");
    let mut writer = AtomicFile::create(&path, Overwrite::Never).expect("absent: may be created");
    writer.write_all(b"ours").expect("write");
    // Someone else's file lands at the target before the commit.
    std::fs::write(&path, b"theirs").expect("theirs");
    assert!(matches!(writer.commit(), Err(FileError::Exists { .. })));
    assert_eq!(std::fs::read(&path).expect("read"), b"theirs");
    assert_eq!(leftovers(tmp.path()), Vec::<String>::new(), "no temporary file left");

    // And a link that appears there is not replaced either (nor written through).
    let link = tmp.path().join("link.zip");
    let mut writer = AtomicFile::create(&link, Overwrite::Never).expect("absent");
    writer.write_all(b"ours").expect("write");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&path, &link).expect("link");
        assert!(writer.commit().is_err());
        assert!(std::fs::symlink_metadata(&link).expect("meta").file_type().is_symlink());
        assert_eq!(std::fs::read(&path).expect("read"), b"theirs");
    }
}

#[test]
fn appends_create_and_extend_regular_files_only() {
    let tmp = TempDir::new().expect("tmp");
    let path = tmp.path().join("log.jsonl");
    devcoach_files::open_append(&path).expect("create").write_all(b"a\n").expect("write");
    devcoach_files::open_append(&path).expect("open").write_all(b"b\n").expect("write");
    assert_eq!(std::fs::read(&path).expect("read"), b"a\nb\n");
}

proptest! {
    #[test]
    fn reads_stop_at_their_limit(len in 0usize..4096, limit in 0u64..4096) {
        let tmp = TempDir::new().expect("tmp");
        let path = tmp.path().join("f");
        let bytes: Vec<u8> = (0..len).map(|i| u8::try_from(i % 251).expect("byte")).collect();
        std::fs::write(&path, &bytes).expect("write");
        match devcoach_files::read(&path, limit, Links::Follow) {
            Ok(read) => { prop_assert!(len as u64 <= limit); prop_assert_eq!(read, bytes); }
            Err(FileError::TooLarge { limit: l, .. }) => { prop_assert!(len as u64 > limit); prop_assert_eq!(l, limit); }
            Err(e) => prop_assert!(false, "{e}"),
        }
    }
}

devcoach_core::no_forgotten_test_files!();

/// A folder below the root swapped for a link, before and while writing: nothing ever lands
/// in the link's target.
#[cfg(unix)]
#[test]
fn writes_below_a_root_never_pass_through_a_link_even_one_swapped_in_meanwhile() {
    use devcoach_files::{Overwrite, write_below};
    let tmp = tempfile::tempdir().expect("tmp");
    let (root, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
    std::fs::create_dir_all(root.join("devices")).expect("root");
    std::fs::create_dir_all(&outside).expect("outside");
    // A link there already: refused and named.
    std::os::unix::fs::symlink(&outside, root.join("devices/linked")).expect("link");
    let err = write_below(&root, &["devices", "linked"], "f.dcs", b"x", Overwrite::Replace).expect_err("a link");
    assert!(err.to_string().contains("symbolic link"), "{err}");
    // A writer flipping the folder between a real one and a link while we write, many times.
    let flip = root.join("devices/flip");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let (flip, outside, stop) = (flip.clone(), outside.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_file(&flip);
                let _ = std::fs::create_dir(&flip);
                std::thread::sleep(std::time::Duration::from_micros(30));
                let _ = std::fs::remove_dir_all(&flip);
                let _ = std::os::unix::fs::symlink(&outside, &flip);
                std::thread::sleep(std::time::Duration::from_micros(30));
            }
        })
    };
    let mut landed = 0;
    for i in 0..2_000 {
        if write_below(&root, &["devices", "flip"], &format!("{i}.dcs"), b"ours", Overwrite::Replace).is_ok() {
            landed += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flipper.join().expect("flipper");
    let outside_files: Vec<_> =
        std::fs::read_dir(&outside).expect("outside").flatten().map(|e| e.file_name()).collect();
    assert!(outside_files.is_empty(), "written through a link: {outside_files:?} ({landed} writes landed inside)");
}
