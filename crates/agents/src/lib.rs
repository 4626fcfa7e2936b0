//! devcoach and the coding agents: one row per agent ([`table`]), and everything derived from
//! it — where each keeps its files ([`places`]), what `install` and `uninstall` write there
//! ([`wire`]), the hook subcommands, the answer each agent's hooks give ([`answer`]), and what
//! doctor finds in each ([`doctor`]).
//!
//! The binary words the reports and runs the hooks; this crate decides what goes where.

pub mod answer;
pub mod channel;
pub mod client_cli;
pub mod codex;
pub mod config;
pub mod doctor;
pub mod gemini;
pub mod hook_entries;
pub mod launch;
pub mod ledger;
pub mod places;
pub mod plugin;
pub mod skill;
pub mod table;
pub mod wire;

pub use places::{Places, detected, hooks_wired, package_present, select, skill_hint};
pub use table::{Agent, Spec};

/// Why the agents' files cannot be found or devcoach cannot be pointed at.
#[derive(Debug, thiserror::Error)]
pub enum AgentsError {
    /// Neither `HOME` nor `USERPROFILE` is set.
    #[error("HOME is not set: cannot find the agents' configuration files")]
    NoHome,
    /// The running binary's own path is unknown.
    #[error("cannot tell where the devcoach binary is; run it by its full path")]
    NoExe(#[source] std::io::Error),
}
