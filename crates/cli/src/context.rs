//! What every command needs: where the data is, what time it is, how to print.

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use devcoach_store::{DataDir, Store};

use crate::output::Term;

pub struct Ctx {
    pub term: Term,
    pub dir: DataDir,
    /// When the command started: the moment of a one-shot command's event.
    pub now: DateTime<Utc>,
    pub clock: Clock,
}

/// The clock of events inside a long-running command (each grade of an interactive review,
/// each message of a practice session): the system time, or with `DEVCOACH_NOW` the pinned
/// start plus the time since, so every event keeps its own moment.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pinned: Option<DateTime<Utc>>,
    started: std::time::Instant,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        match self.pinned {
            Some(at) => at + chrono::Duration::from_std(self.started.elapsed()).unwrap_or_default(),
            None => Utc::now(),
        }
    }
}

/// Pins "now" for reproducible output (tests, screenshots, demos). Not meant for everyday use.
pub const NOW_ENV: &str = "DEVCOACH_NOW";

/// The pinned clock, when `DEVCOACH_NOW` is set (empty counts as unset): the one place it is read.
pub fn pinned_now() -> Option<Result<DateTime<Utc>, devcoach_core::time::TimestampError>> {
    let raw = std::env::var(NOW_ENV).ok().filter(|raw| !raw.trim().is_empty())?;
    Some(devcoach_core::time::parse_timestamp(&raw))
}

impl Ctx {
    pub fn from_env() -> anyhow::Result<Self> {
        let (now, pinned) = match pinned_now() {
            Some(at) => (at.with_context(|| format!("{NOW_ENV} must be an ISO 8601 timestamp"))?, true),
            None => (Utc::now(), false),
        };
        let clock = Clock { pinned: pinned.then_some(now), started: std::time::Instant::now() };
        Ok(Self { term: Term::detect(), dir: DataDir::from_env()?, now, clock })
    }

    /// The pinned start, for servers that keep a fixed clock under `DEVCOACH_NOW`.
    pub fn pinned(&self) -> Option<DateTime<Utc>> {
        self.clock.pinned
    }

    /// Opens (creating or upgrading) the database, for commands that write.
    pub fn open(&self) -> anyhow::Result<Store> {
        Ok(Store::open(&self.dir)?)
    }

    /// Opens the database only when it exists, for commands that read.
    pub fn open_existing(&self) -> anyhow::Result<Option<Store>> {
        Ok(Store::open_existing(&self.dir)?)
    }

    /// After a read on a database a newer devcoach owns: say so, once, on stderr.
    pub fn read_only_notice(&self, store: &Store) {
        if let Some(compat) = store.compat() {
            crate::output::note(&self.term.err(crate::output::Style::Yellow, &format!("read-only: {compat}")));
        }
    }
}
