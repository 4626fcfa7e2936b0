//! The practice coach: a tutor for algorithm problems that makes the learner state requirements
//! before code and never hands over the answer. The model coaches; the rules here (detectors,
//! gate, log) run on every message, whatever model it is.

pub mod backend;
pub mod detect;
pub mod eval;
pub mod gate;
pub mod guard;
pub mod judge;
pub mod log;
pub mod postmortem;
pub mod problem;
pub mod remote;
pub mod report;
pub mod rung;
pub mod session;
pub mod toolbox;

pub use detect::code::{Verdict, classify as classify_code};
pub use detect::leak::{LeakHit, named as named_entries, scan as scan_leaks};
pub use detect::solution::pasteable_line;
pub use toolbox::{Entry, Kind, Toolbox, ToolboxError};
