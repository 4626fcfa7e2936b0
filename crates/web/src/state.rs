//! What every handler shares: the data directory, a few open connections, the clock, and the
//! shutdown switch.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use devcoach_store::DataDir;
use tokio::sync::watch;

use crate::Options;
use crate::cache::Cache;
use crate::pool::Pool;

pub(crate) struct AppState {
    pub dir: DataDir,
    pub pool: Pool,
    pub cache: Cache,
    pub fixed_now: Option<DateTime<Utc>>,
    pub version: String,
    pub shutdown: Shutdown,
    /// The port we listen on, which a request's `Host` must name.
    pub port: Option<u16>,
}

impl AppState {
    pub fn new(options: Options, shutdown: Shutdown, port: Option<u16>) -> Self {
        Self {
            pool: Pool::new(options.dir.clone()),
            cache: Cache::new(options.dir.clone()),
            dir: options.dir,
            fixed_now: options.now,
            version: options.version,
            shutdown,
            port,
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.fixed_now.unwrap_or_else(Utc::now)
    }
}

pub(crate) type SharedState = Arc<AppState>;

/// A one-way switch: once triggered, every waiter wakes (now or later).
#[derive(Debug, Clone)]
pub struct Shutdown {
    tx: Arc<watch::Sender<bool>>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Self { tx: Arc::new(watch::channel(false).0) }
    }
}

impl Shutdown {
    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    pub async fn wait(&self) {
        let mut rx = self.tx.subscribe();
        let _ = rx.wait_for(|stopped| *stopped).await;
    }

    pub fn is_triggered(&self) -> bool {
        *self.tx.borrow()
    }
}
