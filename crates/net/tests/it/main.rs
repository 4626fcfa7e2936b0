//! The fetch against loopback servers started by the tests (names point at them through the
//! policy's lookup; nothing leaves the machine).

mod fetch;

devcoach_core::no_forgotten_test_files!();
