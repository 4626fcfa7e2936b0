//! Devices for the tests: each its own data folder and store.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Duration, TimeZone, Utc};
use devcoach_core::sync::{RecordKey, Row};
use devcoach_store::{DataDir, Store};
use devcoach_sync::{InitOptions, SyncReport};
use tempfile::TempDir;

pub struct Device {
    pub dir: DataDir,
    pub store: Store,
    _home: TempDir,
}

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).single().expect("time")
}

impl Device {
    pub fn new() -> Self {
        let home = tempfile::tempdir().expect("tempdir");
        let dir = DataDir::new(home.path().join(".devcoach"));
        let store = Store::open(&dir).expect("store");
        Self { dir, store, _home: home }
    }

    /// A second handle on another device's data folder, copied whole (a `cp -a ~/.devcoach`).
    pub fn copy_of(other: &Self) -> Self {
        let home = tempfile::tempdir().expect("tempdir");
        let root = home.path().join(".devcoach");
        copy_dir(other.dir.root(), &root);
        let dir = DataDir::new(root);
        let store = Store::open(&dir).expect("store");
        Self { dir, store, _home: home }
    }

    pub fn init(&mut self, target: &str) {
        self.init_with(target, &InitOptions::default()).expect("init");
    }

    pub fn init_with(
        &mut self,
        target: &str,
        options: &InitOptions,
    ) -> Result<devcoach_sync::InitReport, devcoach_sync::SyncError> {
        devcoach_sync::init(&mut self.store, &self.dir, target, options)
    }

    pub fn sync_at(&mut self, minutes: i64) -> SyncReport {
        devcoach_sync::sync(&mut self.store, &self.dir, t0() + Duration::minutes(minutes), &mut |_, _| {})
            .expect("sync")
    }

    pub fn records(&self) -> BTreeMap<&'static str, BTreeMap<RecordKey, Row>> {
        self.store.sync_records().expect("records")
    }

    pub fn lesson(&mut self, id: &str) {
        self.store.put_lesson(&devcoach_core::Lesson::example(id)).expect("lesson");
    }
}

/// A shared folder and two devices set up on it (neither synced yet).
pub fn pair() -> (TempDir, String, Device, Device) {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut a, mut b) = (Device::new(), Device::new());
    a.init(&target);
    b.init(&target);
    (shared, target, a, b)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Every file under `root`, relative.
pub fn files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read").flatten() {
            let path = entry.path();
            if path.is_dir() {
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Runs git, panicking with its output when it fails.
pub fn git(args: &[&str]) {
    let out = std::process::Command::new("git").args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}
