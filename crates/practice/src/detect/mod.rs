//! The detectors: pure, fast and deterministic; they run on every message whatever model coaches.

pub mod code;
pub mod leak;
pub mod names;
pub mod reply;
pub mod solution;
