//! One learner's record on many machines, without a devcoach server and without trusting the
//! transport: each device logs its changes to its own files in a shared folder (one another tool
//! keeps in sync, or a clone of the learner's git repository), reads everyone else's, and makes
//! its store what all of them merge to. The merge rules and the file format are in
//! `devcoach_core::sync`; the store's side (finding local changes, applying, in one transaction)
//! in `devcoach_store`. This crate holds the rest: where things are, the transports, the key.
//!
//! Nothing here runs in a hook: sync runs when the learner asks, from the dashboard, or in the
//! background of a command (see [`due`]).

pub mod crypt;
mod error;
pub mod folder;
pub mod git;
mod local;
mod round;
mod setup;
mod status;

pub use error::{GitProblem, KeyProblem, PathProblem, SetupProblem, SyncError};
pub use local::{Renamed, config, host_name};
pub use round::{SyncReport, sync};
pub use setup::{due, init, may_be_on, off};
pub use status::{DeviceStatus, Finding, Health, Status, health, status};

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use devcoach_core::sync::DeviceId;

/// How often a command the learner runs syncs in the background, unless set otherwise.
pub const DEFAULT_EVERY_MINUTES: u32 = 10;
/// How many refused records `sync status` names.
pub(crate) const REFUSED_NAMED: usize = 5;
/// The least time between two new ids taken because another machine writes under this one's.
pub(crate) const REKEY_EVERY_DAYS: i64 = 7;

/// What `sync init` was asked.
#[derive(Debug, Clone, Default)]
pub struct InitOptions {
    pub encrypt: bool,
    /// Given, it says an encrypted folder is expected: a plain one is refused (it may be an
    /// encrypted folder stripped by its host).
    pub passphrase: Option<String>,
    /// The name other devices see (the host name when not given).
    pub name: Option<String>,
    pub every_minutes: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Folder(PathBuf),
    Git(String),
}

impl Transport {
    pub fn describe(&self) -> String {
        match self {
            Self::Folder(p) => format!("folder {}", p.display()),
            Self::Git(url) => format!("git {url}"),
        }
    }
}

/// Sync as this data folder is set up.
#[derive(Debug, Clone)]
pub struct Config {
    pub transport: Transport,
    pub device: DeviceId,
    pub name: String,
    pub encrypted: bool,
    pub every_minutes: u32,
    pub last_sync: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

#[derive(Debug)]
pub struct InitReport {
    pub config: Config,
    /// The folder already held other devices' files.
    pub joined: bool,
    /// Sync was already set up here, to the same place: nothing changed.
    pub already: bool,
    /// Sync was parked by `sync off` and goes on as the same device.
    pub resumed: bool,
}
