//! An agent's session transcript, read for the work patterns (only when the learner turned
//! `work_insights` on): counts come out, the text stays here.

use std::path::Path;

use devcoach_core::limits;
use devcoach_core::work_patterns::{self, Signals};

/// The session's counts, or `None` when the transcript cannot be read as a regular file within
/// the limit (a FIFO or device is refused without blocking).
pub fn work_signals(path: &Path) -> Option<Signals> {
    // Looked at before it is opened: a device named as the transcript is never opened at all.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let bytes = devcoach_files::read(path, limits::TRANSCRIPT_BYTES, devcoach_files::Links::Follow).ok()?;
    Some(work_patterns::signals(&bytes))
}
