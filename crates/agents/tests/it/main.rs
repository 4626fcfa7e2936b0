//! The agent table through the wiring: every row installs, is found wired, and uninstalls
//! leaving nothing of ours behind, in a sandboxed home.

mod every_agent;
