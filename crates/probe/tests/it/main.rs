//! The probe's single integration-test binary: real repositories made with `git`, real
//! history folders in temporary directories.

mod git;
mod history;

use chrono::{DateTime, Utc};

/// A fixed "now" so every time rule is tested at exact boundaries.
pub fn now() -> DateTime<Utc> {
    devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
}

devcoach_core::no_forgotten_test_files!();
