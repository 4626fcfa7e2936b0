//! A few open connections, reused across requests (opening one costs more than most queries).
//! Database work runs on the blocking pool: a write may wait for another process's lock.

use std::sync::Mutex;

use devcoach_store::{DataDir, Store};

use crate::error::WebError;
use crate::state::SharedState;

/// Connections kept open between requests.
const IDLE: usize = 4;

pub(crate) struct Pool {
    dir: DataDir,
    idle: Mutex<Vec<Store>>,
}

impl Pool {
    pub fn new(dir: DataDir) -> Self {
        Self { dir, idle: Mutex::new(Vec::new()) }
    }

    /// A connection; `None` when there is no database and `create` is false.
    fn take(&self, create: bool) -> Result<Option<Store>, WebError> {
        // A database deleted or replaced under us: old connections would see the old file.
        let exists = self.dir.db_path().is_file();
        let reused = self.idle.lock().ok().and_then(|mut idle| {
            if exists {
                idle.pop()
            } else {
                idle.clear();
                None
            }
        });
        if let Some(store) = reused {
            return Ok(Some(store));
        }
        if create { Ok(Some(Store::open(&self.dir)?)) } else { Ok(Store::open_existing(&self.dir)?) }
    }

    fn give(&self, store: Store) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < IDLE
        {
            idle.push(store);
        }
    }
}

/// Runs a read; `None` when there is no database yet (reading never creates it).
pub(crate) async fn read<T: Send + 'static>(
    state: &SharedState,
    f: impl FnOnce(&Store) -> Result<T, WebError> + Send + 'static,
) -> Result<Option<T>, WebError> {
    let state = state.clone();
    run_blocking(move || {
        let Some(store) = state.pool.take(false)? else { return Ok(None) };
        let out = f(&store);
        state.pool.give(store);
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
    run_blocking(move || {
        let Some(mut store) = state.pool.take(true)? else {
            return Err(WebError::Internal("the database could not be created".into()));
        };
        let out = f(&mut store);
        state.pool.give(store);
        out
    })
    .await
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, WebError> + Send + 'static,
) -> Result<T, WebError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| WebError::Internal(format!("a request failed: {e}")))?
}
