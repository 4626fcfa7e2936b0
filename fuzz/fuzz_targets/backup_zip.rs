#![no_main]
//! Restoring an arbitrary archive never panics and never writes outside the data directory.

use std::sync::{Mutex, OnceLock};

use devcoach_store::{DataDir, Store};
use libfuzzer_sys::fuzz_target;

struct Sandbox {
    _root: tempfile::TempDir,
    store: Store,
    outside: std::path::PathBuf,
}

fn sandbox() -> &'static Mutex<Sandbox> {
    static S: OnceLock<Mutex<Sandbox>> = OnceLock::new();
    S.get_or_init(|| {
        let root = tempfile::TempDir::new().expect("tmp");
        let store = Store::open(&DataDir::new(root.path().join("data"))).expect("store");
        let outside = root.path().to_owned();
        Mutex::new(Sandbox { _root: root, store, outside })
    })
}

fuzz_target!(|data: &[u8]| {
    let mut s = sandbox().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let _ = s.store.restore_zip(data, chrono::Utc::now());
    // Only the data directory may ever appear in the sandbox root.
    for entry in std::fs::read_dir(&s.outside).expect("root") {
        let name = entry.expect("entry").file_name();
        assert_eq!(name, "data", "restore wrote outside the data directory: {name:?}");
    }
});
