//! The only crate that speaks SQL.
//!
//! It opens `coaching.db` (creating or upgrading it to the shared schema v6, or opening a newer
//! file read-only), and offers the operations every front end calls: lessons, knowledge,
//! settings, pacing, feedback, stats and the evidence log. Rules come from `devcoach-core`; this
//! crate only reads, writes and applies them.
//!
//! Architecture invariants:
//! - every write runs in one `BEGIN IMMEDIATE` transaction (so SQLite's busy handler applies);
//! - a database stamped newer than v6 is opened read-only and every write returns
//!   [`StoreError::SchemaTooNew`] before touching the file;
//! - our own tables are registered in `schema_migrations` and never raise `user_version`.

mod backup;
mod checked;
mod connection;
mod courses;
mod cue_state;
mod demo;
mod error;
mod evidence;
mod export;
mod feedback;
mod knowledge;
mod lessons;
mod notebook;
mod pacing;
mod paths;
#[cfg(test)]
mod plans;
mod practice;
mod reviews;
mod schema;
mod settings;
mod sharing;
mod stats;
mod sync;
mod teaching;
mod topic_model;
mod waiting;
mod work;

pub use backup::safety::{SafetyKind, is_safety_backup_name, take_safety_backup};
pub use backup::{
    BackupError, BackupSummary, RestoreOutcome, Scope, restore_file, restore_file_scoped, write_backup_file,
};
pub use checked::ExplainBackOutcome;
pub use connection::{Compat, Peek, Store};
pub use courses::{CourseFilter, HIGHLIGHTER, NewCourse};
pub use cue_state::{CueState, NudgeSession};
pub use demo::DEMO_LESSON_COUNT;
pub use error::{ErrorKind, Kinded, SchemaTooNew, StoreError};
pub use knowledge::{Onboarding, OnboardingMode};
pub use lessons::{Fields, ImportCounts, LessonLine, RowKey};
pub use pacing::{Skipped, with_ask};
pub use paths::DataDir;
pub use reviews::{CountsAs, DueReview, GradeOutcome, ReviewRecord};
pub use schema::{ADDITIONS, SCHEMA_MIN_APP_VERSION, SCHEMA_VERSION};
pub use sharing::ImportOutcome;
pub use sync::{Mark, RoundOutcome, SYNC_JOINING, SnapshotSeen, SyncRound};
pub use topic_model::{EstimateApart, TopicEstimate};
pub use waiting::leave_stop;
pub use work::{WorkSession, WorkWeek};

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
