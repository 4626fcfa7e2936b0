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
    /// Times are shown in UTC (`--utc`) rather than the local zone; they are stored in UTC either way.
    pub utc: bool,
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
    pub fn from_env(wide: bool, utc: bool) -> anyhow::Result<Self> {
        let (now, pinned) = match pinned_now() {
            Some(at) => (at.with_context(|| format!("{NOW_ENV} must be an ISO 8601 timestamp"))?, true),
            None => (Utc::now(), false),
        };
        let clock = Clock { pinned: pinned.then_some(now), started: std::time::Instant::now() };
        Ok(Self { term: Term::detect(wide), dir: DataDir::from_env()?, now, clock, utc })
    }

    /// A stored timestamp as a person reads it: "2026-11-25 09:05 +01:00" in the local zone, or
    /// "2026-11-25 08:05 UTC" with `--utc`; text that is not a timestamp is shown as it is.
    pub fn show_time(&self, stamp: &str) -> String {
        match devcoach_core::time::parse_timestamp(stamp) {
            Ok(at) if self.utc => at.format("%Y-%m-%d %H:%M UTC").to_string(),
            Ok(at) => at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M %:z").to_string(),
            Err(_) => stamp.to_owned(),
        }
    }

    /// The calendar day of a stored timestamp, in the zone times are shown in.
    pub fn show_date(&self, stamp: &str) -> String {
        let mut out = String::with_capacity(10);
        self.push_date(stamp, &mut out);
        out
    }

    /// [`Self::show_date`], appended to `out` (a list writes one per row).
    pub fn push_date(&self, stamp: &str, out: &mut String) {
        match devcoach_core::time::parse_timestamp(stamp) {
            Ok(at) if self.utc => push_day(at.date_naive(), out),
            Ok(at) => push_day(at.with_timezone(&chrono::Local).date_naive(), out),
            Err(_) => out.push_str(stamp.get(..10).unwrap_or(stamp)),
        }
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

    /// [`Self::open_existing`] for a report that reads, prints and exits (`lessons`, `stats`,
    /// `knowledge`, `courses`): the start of the file is read through a map
    /// (`Store::read_through_map`). Not for a command that waits, writes or syncs.
    pub fn open_for_report(&self) -> anyhow::Result<Option<Store>> {
        let store = Store::open_existing(&self.dir)?;
        if let Some(s) = &store {
            // Only saves time: without the map every read still works.
            let _ = s.read_through_map();
        }
        Ok(store)
    }

    /// After a read on a database a newer devcoach owns: say so, once, on stderr.
    pub fn read_only_notice(&self, store: &Store) {
        if let Some(compat) = store.compat() {
            crate::output::note(&self.term.err(crate::output::Style::Yellow, &format!("read-only: {compat}")));
        }
    }
}

/// `2026-05-01`: written directly, as a table of a thousand lessons asks for a thousand of them.
fn push_day(d: chrono::NaiveDate, out: &mut String) {
    use chrono::Datelike;
    if let Ok(year @ 0..=9999) = u32::try_from(d.year()) {
        // By hand: a list writes one per row, and the formatter costs more than the rest.
        let digit = |n: u32| b'0' + u8::try_from(n % 10).unwrap_or(0);
        let (m, dd) = (d.month(), d.day());
        let text = [
            digit(year / 1000),
            digit(year / 100),
            digit(year / 10),
            digit(year),
            b'-',
            digit(m / 10),
            digit(m),
            b'-',
            digit(dd / 10),
            digit(dd),
        ];
        out.push_str(std::str::from_utf8(&text).unwrap_or_default());
    } else {
        // Signed and wider, as chrono writes such a year.
        use std::fmt::Write as _;
        let _ = write!(out, "{}", d.format("%Y-%m-%d"));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_day_reads_as_chrono_writes_it() {
        for (y, m, d) in [(2026, 5, 1), (1, 1, 1), (0, 12, 31), (9999, 12, 31), (10000, 1, 1), (-1, 12, 31)] {
            let date = chrono::NaiveDate::from_ymd_opt(y, m, d).expect("date");
            let mut out = String::from("|");
            super::push_day(date, &mut out);
            assert_eq!(out, format!("|{}", date.format("%Y-%m-%d")));
        }
    }
}
