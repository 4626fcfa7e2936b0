//! One learner's record on many machines, as pure values: the clock that orders changes, the
//! changes themselves, the rule per table that merges them, and the file one device's changes
//! travel in. Reading the store, the folder, git and the encryption live in the sync crate.
//!
//! The merge is a function of the *set* of changes: [`merge::merge`] sorts them by clock and
//! drops repeats before it folds, so any arrival order and any repetition give the same rows.

pub mod hlc;
pub mod merge;
pub mod op;
pub mod segment;
pub mod state;
pub mod tables;

pub use hlc::Hlc;
pub use merge::{Merged, diff, merge};
pub use op::{Change, DeviceId, Op, RecordKey, Row};
pub use state::{RecordState, Stamp};
pub use tables::{SYNCED, SyncTable};
