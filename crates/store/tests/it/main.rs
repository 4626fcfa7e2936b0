//! The store's single integration-test binary.

mod backup;
mod backup_roundtrip;
mod checked;
mod confidence_props;
mod courses;
mod demo;
mod feedback;
mod handson;
mod knowledge;
mod lessons;
mod locks;
mod pacing;
mod reviews;
mod schema;
mod sharing;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use devcoach_store::{DataDir, Store};
use tempfile::TempDir;

/// A fresh data directory with an open, empty store.
pub fn fresh() -> (TempDir, Store) {
    let tmp = TempDir::new().expect("temp dir");
    let store = Store::open(&DataDir::new(tmp.path())).expect("open");
    (tmp, store)
}

/// A fixed "now" so every time rule is tested at exact boundaries.
pub fn now() -> DateTime<Utc> {
    devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Copies a fixture database into a new data directory.
pub fn fixture_dir(name: &str) -> (TempDir, DataDir) {
    let tmp = TempDir::new().expect("temp dir");
    std::fs::copy(fixtures().join(name), tmp.path().join("coaching.db")).expect("copy fixture");
    let dir = DataDir::new(tmp.path());
    (tmp, dir)
}

devcoach_core::no_forgotten_test_files!();
