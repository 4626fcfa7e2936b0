//! What every handler can reach: the data directory, the (lazily opened) store, the clock and
//! the agent's working folder.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use devcoach_probe::history::ClaudeHome;
use devcoach_store::{DataDir, ErrorKind, Kinded, Store, StoreError};

use crate::apps::Client;

/// Starts a dashboard on a port for a data directory, outliving the server: the binary knows how
/// (its own command line), so it hands the server this; without one `open_ui` says it cannot.
#[derive(Clone)]
pub struct DashboardLauncher(pub std::sync::Arc<Launch>);

/// Starts a dashboard for the data directory on the port, or says why it could not.
pub type Launch = dyn Fn(&DataDir, u16) -> Result<(), String> + Send + Sync;

impl std::fmt::Debug for DashboardLauncher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DashboardLauncher")
    }
}

/// How the server is set up; the binary builds this from its environment.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub dir: DataDir,
    /// The folder the agent works in (git metadata, stack detection).
    pub cwd: PathBuf,
    /// A pinned clock (tests); `None` reads the system clock.
    pub now: Option<DateTime<Utc>>,
    pub claude: Option<ClaudeHome>,
    /// Version shown to clients.
    pub version: String,
    /// How `open_ui` starts a dashboard.
    pub dashboard: Option<DashboardLauncher>,
}

/// What lives as long as the server: the options, the store, the open exercise.
pub(crate) struct Shared {
    pub opts: ServerOptions,
    store: Mutex<Option<Store>>,
    /// The open hands-on exercise, if any (it lives as long as this server).
    pub handson: crate::tools::handson::HandsOn,
    /// The lessons whose feedback this server already asked for with a form: never twice.
    pub asked_with_form: Mutex<HashSet<String>>,
}

/// What one request sees: the server's shared state and what its client declared.
#[derive(Clone)]
pub(crate) struct Ctx {
    shared: Arc<Shared>,
    pub client: Client,
}

impl std::ops::Deref for Ctx {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.shared
    }
}

impl Ctx {
    pub fn new(shared: &Arc<Shared>, client: Client) -> Self {
        Self { shared: Arc::clone(shared), client }
    }
}

/// Why a tool call failed, in words an agent can act on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    /// The arguments were wrong; the message says which and how.
    #[error("{0}")]
    Invalid(String),
    /// Something named does not exist; the message says how to find the right one.
    #[error("{0}")]
    NotFound(String),
    /// The whole message is given (it already names the tool), with the kind of failure.
    #[error("{text}")]
    Said { kind: ErrorKind, text: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Kinded for ToolError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Invalid(_) => ErrorKind::InvalidInput,
            Self::NotFound(_) => ErrorKind::NotFound,
            Self::Said { kind, .. } => *kind,
            Self::Store(e) => e.kind(),
        }
    }
}

impl ToolError {
    pub fn said(kind: ErrorKind, text: impl Into<String>) -> Self {
        Self::Said { kind, text: text.into() }
    }
}

impl From<devcoach_core::settings::SettingError> for ToolError {
    fn from(e: devcoach_core::settings::SettingError) -> Self {
        Self::Invalid(e.to_string())
    }
}

impl From<devcoach_core::knowledge::KnowledgeError> for ToolError {
    fn from(e: devcoach_core::knowledge::KnowledgeError) -> Self {
        Self::Invalid(e.to_string())
    }
}

impl Shared {
    pub fn new(opts: ServerOptions) -> Self {
        Self {
            opts,
            store: Mutex::new(None),
            handson: crate::tools::handson::HandsOn::default(),
            asked_with_form: Mutex::new(HashSet::new()),
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.opts.now.unwrap_or_else(Utc::now)
    }

    /// The open store, opening (and creating) the database on first use, and again if the file
    /// was removed while we ran (`devcoach uninstall --data`).
    pub fn store(&self) -> Result<MutexGuard<'_, Option<Store>>, StoreError> {
        let mut guard = self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if guard.is_none() || !self.opts.dir.db_path().exists() {
            *guard = Some(Store::open(&self.opts.dir)?);
        }
        Ok(guard)
    }

    /// Runs `f` with the open store.
    pub fn with_store<T>(&self, f: impl FnOnce(&mut Store) -> Result<T, ToolError>) -> Result<T, ToolError> {
        let mut guard = self.store()?;
        match guard.as_mut() {
            Some(store) => f(store),
            None => Err(ToolError::said(ErrorKind::Io, "the database could not be opened")),
        }
    }
}
