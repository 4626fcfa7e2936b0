//! Opening the database: create or upgrade it, or open a newer file read-only.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

use crate::Result;
use crate::error::{SchemaTooNew, StoreError};
use crate::paths::DataDir;
use crate::schema::{self, SCHEMA_VERSION};

/// How long a connection waits for another process's lock before giving up, for a read, a
/// write or a commit alike. The original waits 3 s; with the rollback journal a reader can be
/// shut out for longer than that on a loaded machine while writers take turns committing (CI saw
/// an `unstar` fail with "database is locked" among eight busy writers on two cores), and a
/// command that fails is worse than one that waits.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a writer keeps trying for the write lock when SQLite hands back "busy" without
/// waiting (it does so rather than risk a deadlock); retrying the `BEGIN IMMEDIATE` itself is
/// safe because nothing has been done yet at that point.
pub const WRITE_LOCK_PATIENCE: Duration = Duration::from_secs(15);

/// How much of the database file [`Store::read_through_map`] maps: all of a record of a few
/// thousand lessons, and never more than this of a larger one.
pub const READ_MAP_BYTES: i64 = 4 * 1024 * 1024;

/// Waits out another process's lock for up to `BUSY_TIMEOUT`. SQLite's own busy wait naps for
/// up to 100 ms between tries, so under contention a waiter often sleeps long after the lock is
/// free (the torture suite measured a p99 above one second with eight writers); short naps with
/// jitter keep the wait close to how long the lock is actually held.
fn busy_wait(attempt: i32) -> bool {
    thread_local! {
        // When this thread's current wait began: SQLite calls the handler with attempt 0 at the
        // start of each wait, and a loaded machine can stretch every nap far past what was asked,
        // so the limit is kept in time, not in naps.
        static WAIT_STARTED: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
    }
    let now = std::time::Instant::now();
    let started = WAIT_STARTED.with(|cell| {
        if attempt == 0 || cell.get().is_none() {
            cell.set(Some(now));
        }
        cell.get().unwrap_or(now)
    });
    if now.duration_since(started) >= BUSY_TIMEOUT {
        return false;
    }
    // Naps of 0.5–2.5 ms, 1.5 ms on average.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let jitter = (nanos ^ attempt.unsigned_abs().wrapping_mul(7919)) % 2_000;
    std::thread::sleep(Duration::from_micros(500 + u64::from(jitter)));
    true
}

/// How every connection waits for another process's lock.
fn wait_for_locks(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.busy_handler(Some(busy_wait))
}

/// Starts an IMMEDIATE transaction, retrying while another writer holds the lock.
fn begin_immediate(conn: &Connection, patience: Duration) -> rusqlite::Result<Transaction<'_>> {
    let deadline = std::time::Instant::now() + patience;
    let mut attempt: u32 = 0;
    loop {
        match Transaction::new_unchecked(conn, TransactionBehavior::Immediate) {
            Err(e)
                if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) && std::time::Instant::now() < deadline =>
            {
                attempt += 1;
                // A short, varying pause so waiting writers do not retry in lockstep.
                let nanos =
                    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
                std::thread::sleep(Duration::from_millis(u64::from(1 + (nanos ^ attempt.wrapping_mul(7919)) % 20)));
            }
            other => return other,
        }
    }
}

/// The compatibility state of a database opened read-only.
pub type Compat = SchemaTooNew;

/// An open `coaching.db`.
pub struct Store {
    conn: Connection,
    dir: DataDir,
    compat: Option<Compat>,
    /// Opened for reading only: writes are refused before they reach SQLite.
    read_only: bool,
    /// How long this connection waits for another process's lock.
    patience: Duration,
}

/// What a database file says about itself, read without creating or changing it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Peek {
    pub exists: bool,
    /// `None` when the file exists but could not be read.
    pub schema: Option<i64>,
    pub upgraded_by: Option<String>,
}

impl Store {
    /// Opens the database in `dir`, creating the directory and the file when missing and
    /// upgrading an older file to schema v6. A file stamped newer than v6 opens read-only.
    pub fn open(dir: &DataDir) -> Result<Self> {
        std::fs::create_dir_all(dir.root())
            .map_err(|e| StoreError::io("cannot create the data directory", dir.root(), e))?;
        dir.has_database()?;
        Self::open_at(dir, Utc::now(), None)
    }

    /// Opens the database only if it exists (hooks and `doctor` must never create it).
    pub fn open_existing(dir: &DataDir) -> Result<Option<Self>> {
        if !dir.has_database()? {
            return Ok(None);
        }
        Self::open_at(dir, Utc::now(), None).map(Some)
    }

    /// As [`Store::open_existing`], for a caller that must not wait (a hook at an agent's stop):
    /// every read and write gives up after `patience` while another process holds the database,
    /// with [`StoreError::Busy`].
    pub fn open_existing_briefly(dir: &DataDir, patience: Duration) -> Result<Option<Self>> {
        if !dir.has_database()? {
            return Ok(None);
        }
        Self::open_at(dir, Utc::now(), Some(patience)).map(Some)
    }

    fn open_at(dir: &DataDir, now: DateTime<Utc>, brief: Option<Duration>) -> Result<Self> {
        let path = dir.db_path();
        let corrupt = |e: rusqlite::Error| classify(e, &path);
        let mut conn = Connection::open(&path).map_err(corrupt)?;
        match brief {
            Some(patience) => conn.busy_timeout(patience).map_err(corrupt)?,
            None => wait_for_locks(&mut conn).map_err(corrupt)?,
        }
        let patience = brief.unwrap_or(WRITE_LOCK_PATIENCE);
        // No memory map by default: mapped, every page a read touched counts in this process's
        // memory with the kernel's read-ahead around it (a count over one index of 50,000
        // lessons: 10 MiB). Short reads map a bounded start of it (`read_through_map`).
        // Sync writes every synced table by statements built per table and column set: more
        // than rusqlite's default 16 stay prepared.
        conn.set_prepared_statement_cache_capacity(128);
        let (stamp, additions_pending) = schema::state(&conn).map_err(corrupt)?;
        if stamp > SCHEMA_VERSION {
            drop(conn);
            return Self::open_read_only(dir, stamp);
        }
        let now_ms = devcoach_core::time::iso_ms(now);
        if stamp < SCHEMA_VERSION || additions_pending {
            let tx = begin_immediate(&conn, patience).map_err(corrupt)?;
            // Another process may have upgraded the file while we waited for the lock.
            let stamp = schema::user_version(&tx)?;
            if stamp > SCHEMA_VERSION {
                drop(tx);
                drop(conn);
                return Self::open_read_only(dir, stamp);
            }
            if stamp < SCHEMA_VERSION {
                schema::upgrade(&tx, stamp, &now_ms).map_err(|e| reclassify(e, &path))?;
            }
            schema::apply_additions(&tx, &now_ms).map_err(|e| reclassify(e, &path))?;
            tx.commit()?;
        }
        Ok(Self { conn, dir: dir.clone(), compat: None, read_only: false, patience })
    }

    /// Opens an existing database for reading only (doctor): nothing is upgraded, created or
    /// locked for writing. A file older than v6 is read as it is. `None` when there is no file.
    pub fn open_for_reading(dir: &DataDir) -> Result<Option<Self>> {
        let path = dir.db_path();
        if !dir.has_database()? {
            return Ok(None);
        }
        let stamp = {
            let mut conn =
                Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                    .map_err(|e| classify(e, &path))?;
            wait_for_locks(&mut conn)?;
            schema::user_version(&conn).map_err(|e| classify(e, &path))?
        };
        let mut store = Self::open_read_only(dir, stamp)?;
        if stamp <= SCHEMA_VERSION {
            store.compat = None;
            store.read_only = true;
        }
        Ok(Some(store))
    }

    fn open_read_only(dir: &DataDir, stamp: i64) -> Result<Self> {
        let path = dir.db_path();
        let mut conn =
            Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .map_err(|e| classify(e, &path))?;
        wait_for_locks(&mut conn)?;
        conn.pragma_update(None, "query_only", 1)?;
        let compat = SchemaTooNew {
            db_schema: stamp,
            app_schema: SCHEMA_VERSION,
            upgraded_by: setting_value(&conn, "schema_app_version"),
            min_app: setting_value(&conn, "schema_min_app_version"),
        };
        Ok(Self { conn, dir: dir.clone(), compat: Some(compat), read_only: true, patience: WRITE_LOCK_PATIENCE })
    }

    /// Reads a database's stamp without creating, locking for write, or changing it.
    pub fn peek(dir: &DataDir) -> Peek {
        let path = dir.db_path();
        if !path.is_file() {
            return Peek::default();
        }
        let Ok(mut conn) =
            Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        else {
            return Peek { exists: true, ..Peek::default() };
        };
        let _ = wait_for_locks(&mut conn);
        Peek {
            exists: true,
            schema: schema::user_version(&conn).ok(),
            upgraded_by: setting_value(&conn, "schema_app_version"),
        }
    }

    /// `Some` when the file belongs to a newer devcoach: reads work, writes are refused.
    pub fn compat(&self) -> Option<&Compat> {
        self.compat.as_ref()
    }

    pub fn data_dir(&self) -> &DataDir {
        &self.dir
    }

    /// A number that changes whenever another connection (any process) commits to the file.
    /// Only meaningful compared with an earlier value from this same connection; the dashboard
    /// keys its caches on it.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    #[cfg(test)]
    pub(crate) fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction, committing on success. Refused up-front
    /// on a read-only (newer) database.
    /// Whether this connection may write at all (a newer build's file, or one opened read-only,
    /// may not), for a command that prepares something before its write.
    pub fn check_writable(&self) -> Result<()> {
        if let Some(compat) = &self.compat {
            return Err(StoreError::SchemaTooNew(compat.clone()));
        }
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        Ok(())
    }

    pub(crate) fn write<T>(&mut self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        self.check_writable()?;
        let tx = begin_immediate(&self.conn, self.patience)?;
        // A newer devcoach may have upgraded the file since this connection opened it (a long
        // running server, a kept connection): the stamp is read under the write lock, every time.
        let stamp = schema::user_version(&tx)?;
        if stamp > SCHEMA_VERSION {
            drop(tx);
            let compat = SchemaTooNew {
                db_schema: stamp,
                app_schema: SCHEMA_VERSION,
                upgraded_by: setting_value(&self.conn, "schema_app_version"),
                min_app: setting_value(&self.conn, "schema_min_app_version"),
            };
            self.compat = Some(compat.clone());
            self.read_only = true;
            return Err(StoreError::SchemaTooNew(compat));
        }
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// The schema stamp of the open file.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(schema::user_version(&self.conn)?)
    }

    /// Reads the start of the file ([`READ_MAP_BYTES`]) through a memory map rather than as
    /// copies into SQLite's page cache: for a report that reads much once and exits, a page
    /// read costs no copy and no fresh page of memory (`lessons` of 1,000: about a hundred page
    /// faults fewer, docs/PERFORMANCE.md). Bounded, so a large record does not grow the process
    /// by its size. Only for such reports, never for hooks, servers, syncs or commands that
    /// wait: should something other than SQLite cut the file short while it is mapped (a `cp`
    /// over it, an I/O error on a network home), a read through the map ends the process
    /// instead of failing.
    pub fn read_through_map(&self) -> Result<()> {
        self.conn.pragma_update(None, "mmap_size", READ_MAP_BYTES)?;
        Ok(())
    }

    /// `PRAGMA integrity_check` (for `doctor` and the reliability suites).
    pub fn integrity_check(&self) -> Result<String> {
        Ok(self.conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?)
    }
}

fn setting_value(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0)).optional().ok().flatten()
}

/// Damaged or foreign files get their own error so nobody "repairs" them by overwriting.
fn classify(e: rusqlite::Error, path: &std::path::Path) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            StoreError::Corrupt { path: path.to_owned(), reason: e.to_string() }
        }
        _ => StoreError::from(e),
    }
}

fn reclassify(e: StoreError, path: &std::path::Path) -> StoreError {
    match e {
        StoreError::Sqlite(inner) => classify(inner, path),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::{READ_MAP_BYTES, Store};
    use crate::DataDir;

    /// A short read maps the start of the file, no more than the bound, and reads and writes
    /// through the map as without it.
    #[test]
    fn a_mapped_read_is_bounded_and_reads_the_same() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let mut store = Store::open(&DataDir::new(tmp.path())).expect("open");
        let unmapped: i64 = store.conn().query_row("PRAGMA mmap_size", [], |r| r.get(0)).expect("pragma");
        assert_eq!(unmapped, 0);
        store.read_through_map().expect("map");
        let mapped: i64 = store.conn().query_row("PRAGMA mmap_size", [], |r| r.get(0)).expect("pragma");
        assert_eq!(mapped, READ_MAP_BYTES);
        store
            .write(|tx| Ok(tx.execute("INSERT INTO settings (key, value) VALUES ('mapped', 'yes')", [])?))
            .expect("write");
        let read: String =
            store.conn().query_row("SELECT value FROM settings WHERE key = 'mapped'", [], |r| r.get(0)).expect("read");
        assert_eq!(read, "yes");
    }
}
