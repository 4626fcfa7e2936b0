//! The fetch against loopback servers started by the tests (names point at them through the
//! policy's lookup; nothing leaves the machine).

mod fetch;
