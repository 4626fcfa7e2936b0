//! What every command needs: where the data is, what time it is, how to print.

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use devcoach_store::{DataDir, Store};

use crate::output::Term;

pub struct Ctx {
    pub term: Term,
    pub dir: DataDir,
    pub now: DateTime<Utc>,
}

/// Pins "now" for reproducible output (tests, screenshots, demos). Not meant for everyday use.
pub const NOW_ENV: &str = "DEVCOACH_NOW";

impl Ctx {
    pub fn from_env() -> anyhow::Result<Self> {
        let now = match std::env::var(NOW_ENV) {
            Ok(raw) if !raw.trim().is_empty() => devcoach_core::time::parse_timestamp(&raw)
                .with_context(|| format!("{NOW_ENV} must be an ISO 8601 timestamp"))?,
            _ => Utc::now(),
        };
        Ok(Self { term: Term::detect(), dir: DataDir::from_env()?, now })
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
