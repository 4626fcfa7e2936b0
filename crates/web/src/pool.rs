//! A few open connections, reused across requests (opening one costs more than most queries).
//! Database work runs on the blocking pool: a write may wait for another process's lock.

use std::sync::Mutex;

use devcoach_store::{DataDir, Store};

use crate::error::WebError;
use crate::state::SharedState;

/// Connections kept open between requests (also the number of blocking threads, see
/// [`crate::runtime`]).
pub(crate) const IDLE: usize = 8;

pub(crate) struct Pool {
    dir: DataDir,
    /// Open connections with the identity of the file they were opened on.
    idle: Mutex<Vec<(u64, Store)>>,
}

impl Pool {
    pub fn new(dir: DataDir) -> Self {
        Self { dir, idle: Mutex::new(Vec::new()) }
    }

    /// A connection and the identity of its file (hand both back to [`Pool::give`]); `None` when
    /// there is no database and `create` is false.
    pub(crate) fn take(&self, create: bool) -> Result<Option<(u64, Store)>, WebError> {
        // A database deleted or replaced under us: old connections would still see the old file.
        let file = file_identity(&self.dir.db_path());
        let reused = self.idle.lock().ok().and_then(|mut idle| {
            idle.retain(|(f, _)| Some(*f) == file);
            idle.pop()
        });
        // A kept connection opened before a newer devcoach upgraded the file would still think
        // it may write (and the pages would miss the read-only banner): opened again instead.
        let reused = reused.filter(|(_, s)| {
            s.schema_version().is_ok_and(|v| (v > devcoach_store::SCHEMA_VERSION) == s.compat().is_some())
        });
        if reused.is_some() {
            return Ok(reused);
        }
        let store = if create { Some(Store::open(&self.dir)?) } else { Store::open_existing(&self.dir)? };
        // Read after opening: if the file was swapped in between, the tag is stale and the
        // connection is simply not kept.
        Ok(store.and_then(|s| file_identity(&self.dir.db_path()).map(|f| (f, s))))
    }

    pub(crate) fn give(&self, (file, store): (u64, Store)) {
        if file_identity(&self.dir.db_path()) != Some(file) {
            return;
        }
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < IDLE
        {
            idle.push((file, store));
        }
    }
}

/// Which file a path names right now (`None`: no file there).
#[cfg(unix)]
pub(crate) fn file_identity(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file).map(|m| m.ino())
}

#[cfg(not(unix))]
pub(crate) fn file_identity(path: &std::path::Path) -> Option<u64> {
    // Without inode numbers, a replaced file is noticed through its creation time.
    let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
    let created = meta.created().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(u64::try_from(created.as_nanos()).unwrap_or(u64::MAX))
}

/// Runs a read; `None` when there is no database yet (reading never creates it).
pub(crate) async fn read<T: Send + 'static>(
    state: &SharedState,
    f: impl FnOnce(&Store) -> Result<T, WebError> + Send + 'static,
) -> Result<Option<T>, WebError> {
    let state = state.clone();
    blocking(move || {
        let Some(conn) = state.pool.take(false)? else { return Ok(None) };
        let out = f(&conn.1);
        state.pool.give(conn);
        out.map(Some)
    })
    .await
}

/// Runs a write, creating the database when missing.
pub(crate) async fn write<T: Send + 'static>(
    state: &SharedState,
    f: impl FnOnce(&mut Store) -> Result<T, WebError> + Send + 'static,
) -> Result<T, WebError> {
    let state = state.clone();
    blocking(move || {
        let Some(mut conn) = state.pool.take(true)? else {
            return Err(WebError::Internal("the database could not be created".into()));
        };
        let out = f(&mut conn.1);
        state.pool.give(conn);
        out
    })
    .await
}

/// Runs blocking work (database access) off the async workers.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, WebError> + Send + 'static,
) -> Result<T, WebError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| WebError::Internal(format!("a request failed: {e}")))?
}
