//! devcoach's local dashboard: axum on 127.0.0.1, pages rendered on the server from askama
//! templates (checked when the crate compiles), every asset embedded in the binary.
//!
//! Invariants:
//! - every state-changing route refuses cross-site requests (`Sec-Fetch-Site`), forms answer with
//!   a 303 redirect, and `next` targets are local paths only;
//! - reading never creates the database; the first write does;
//! - a database owned by a newer devcoach is shown read-only (a 503 page for writes);
//! - markdown from lessons is rendered with raw HTML escaped and unsafe links dropped.

pub mod apps;
mod assets;
mod cache;
mod error;
pub mod guard;
mod markdown;
mod plots;
mod pool;
mod routes;
mod state;
mod views;

use std::sync::Arc;

use axum::Router;
use chrono::{DateTime, Utc};
use devcoach_store::DataDir;
use tokio::net::TcpListener;

pub use assets::palette_css;
pub use error::{status_of, store_error_status};
pub use state::Shutdown;

/// The default port (the same the TypeScript dashboard uses).
pub const DEFAULT_PORT: u16 = devcoach_net::dashboard::DEFAULT_PORT;

/// The runtime the dashboard is meant to run on. Database work runs on its blocking pool, one
/// connection per thread, so the pool is kept as small as the connections worth keeping open:
/// more threads would only open more connections and hold more memory, not answer faster.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().max_blocking_threads(pool::IDLE).enable_all().build()
}

/// How the dashboard runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub dir: DataDir,
    /// A fixed clock (tests, screenshots); `None` reads the system clock.
    pub now: Option<DateTime<Utc>>,
    pub version: String,
}

/// The dashboard's routes over a data directory, and the handle `POST /shutdown` triggers.
/// `port` is the one requests must name in `Host` (any, when `None`).
pub fn app(options: Options, port: Option<u16>) -> (Router, Shutdown) {
    let shutdown = Shutdown::default();
    let state = Arc::new(state::AppState::new(options, shutdown.clone(), port));
    (routes::router(state), shutdown)
}

/// Serves until `stop` resolves or `POST /shutdown` arrives, then stops accepting, lets open
/// requests finish for up to 2 s, and returns.
pub async fn serve(
    listener: TcpListener,
    options: Options,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let port = listener.local_addr().ok().map(|a| a.port());
    // Lessons written elsewhere (the TypeScript build) get their review cards at the start, a
    // write of the dashboard's own, so no page has to write while it is only being read.
    let (dir, now) = (options.dir.clone(), options.now.unwrap_or_else(chrono::Utc::now));
    let _ = tokio::task::spawn_blocking(move || {
        if let Ok(Some(mut store)) = devcoach_store::Store::open_existing(&dir)
            && store.compat().is_none()
        {
            let _ = store.ensure_review_cards(now);
        }
    })
    .await;
    let (router, shutdown) = app(options, port);
    let trigger = shutdown.clone();
    tokio::spawn(async move {
        stop.await;
        trigger.trigger();
    });
    let waiter = shutdown.clone();
    let server = axum::serve(listener, router).with_graceful_shutdown(async move { waiter.wait().await });
    let server = tokio::spawn(async move { server.await });
    shutdown.wait().await;
    // Connections still open 2 s after the signal are dropped.
    match tokio::time::timeout(std::time::Duration::from_secs(2), server).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(std::io::Error::other(join)),
        Err(_) => Ok(()),
    }
}
