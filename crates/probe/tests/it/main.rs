//! The probe's single integration-test binary: real repositories made with `git`, real
//! history folders in temporary directories.

mod git;
mod history;

use std::path::Path;

use chrono::{DateTime, Utc};

/// A fixed "now" so every time rule is tested at exact boundaries.
pub fn now() -> DateTime<Utc> {
    devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
}

#[test]
fn no_forgotten_test_files() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(here.join("main.rs")).expect("main.rs");
    for entry in std::fs::read_dir(&here).expect("tests/it") {
        let name = entry.expect("entry").file_name().into_string().expect("utf-8 name");
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            assert!(main.contains(&format!("mod {module};")), "tests/it/{name} is not declared in main.rs");
        }
    }
}
