//! The core's integration tests: formats checked against data the TypeScript devcoach made, and
//! property tests of the codecs.

mod fsrs_fit;
mod fsrs_reference;
mod knowledge_sim;
mod share_browser;
mod share_fixtures;
mod share_props;

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
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
