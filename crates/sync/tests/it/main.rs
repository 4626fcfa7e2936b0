//! The sync crate's integration tests: real stores in real data folders, a real shared folder,
//! a real bare git repository driven by the real `git`.

devcoach_core::no_forgotten_test_files!();

mod bad_inputs;
mod converge;
mod encrypted;
mod hostile;
mod incremental;
mod snapshots;
mod support;
