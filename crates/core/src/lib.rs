//! The pure domain of devcoach.
//!
//! Everything here is a value or a function of values: no SQL, no HTTP, no async, no printing,
//! no clock. Callers pass `now` in, so every rule can be tested at its boundaries.
//!
//! Architecture invariant: this crate never performs I/O. The store applies the decisions made
//! here; the front ends (CLI, MCP, dashboard) render them.

pub mod card;
pub mod checked;
pub mod course;
pub mod desktop_log;
pub mod detect;
pub mod encoding;
pub mod error_kind;
pub mod evidence;
pub mod export;
pub mod feedback;
pub mod fsrs;
pub mod fsrs_fit;
pub mod git;
pub mod handson;
pub mod highlighter;
pub mod hook_payload;
pub mod ids;
pub mod knowledge;
pub mod knowledge_model;
pub mod layout;
pub mod lesson;
pub mod limits;
pub mod pacing;
pub mod query;
pub mod rate_limit;
pub mod records;
pub mod review;
pub mod settings;
pub mod share;
pub mod shell;
pub mod stats;
pub mod sync;
pub mod time;
pub mod work_patterns;

pub use ids::{LessonId, SessionId};
pub use lesson::{Feedback, Lesson, Level, Platform};

/// The version of this build, written into `schema_app_version` when we upgrade a database.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The test every integration-test binary carries (`tests/it/main.rs`): each file beside it is
/// declared as a module, so no test file is silently left out of the build. A macro, so that
/// the reading happens in the test, never in this crate.
#[macro_export]
macro_rules! no_forgotten_test_files {
    () => {
        #[test]
        fn no_forgotten_test_files() {
            let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
            let main = std::fs::read_to_string(here.join("main.rs")).expect("main.rs");
            for entry in std::fs::read_dir(&here).expect("tests/it") {
                let name = entry.expect("entry").file_name().into_string().expect("utf-8 name");
                if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
                    assert!(main.contains(&format!("mod {module};")), "tests/it/{name} is not declared in main.rs");
                }
            }
        }
    };
}
