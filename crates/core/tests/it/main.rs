//! The core's integration tests: formats checked against data the TypeScript devcoach made, and
//! property tests of the codecs.

mod calibration_sim;
mod fsrs_fit;
mod fsrs_reference;
mod knowledge_sim;
mod share_browser;
mod share_fixtures;
mod share_props;
mod work_patterns;

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

devcoach_core::no_forgotten_test_files!();
