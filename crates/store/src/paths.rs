//! Where devcoach keeps its data: `DEVCOACH_DIR`, else `~/.devcoach`.

use std::path::{Path, PathBuf};

use crate::error::StoreError;

/// The data directory and the files in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    pub const ENV: &'static str = "DEVCOACH_DIR";

    /// `$DEVCOACH_DIR` when set and not empty, else `<home>/.devcoach`.
    pub fn from_env() -> Result<Self, StoreError> {
        match std::env::var_os(Self::ENV) {
            Some(dir) if !dir.is_empty() => Ok(Self::new(dir)),
            _ => std::env::home_dir().map(|home| Self::new(home.join(".devcoach"))).ok_or(StoreError::NoHome),
        }
    }

    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn db_path(&self) -> PathBuf {
        self.root.join("coaching.db")
    }

    /// The coaching notebook the agent keeps (`learning-state.md`).
    pub fn notebook_path(&self) -> PathBuf {
        self.root.join("learning-state.md")
    }

    pub fn courses_dir(&self) -> PathBuf {
        self.root.join("courses")
    }

    /// Where the automatic backups devcoach takes before a destructive command are kept.
    pub fn backups_dir(&self) -> PathBuf {
        self.root.join("backups")
    }

    /// Where a stop that asked for onboarding before any database existed notes the time and the
    /// session (`<iso> <session>`), so it asks once a session (ours; the database takes over).
    pub fn onboarding_asked_path(&self) -> PathBuf {
        self.root.join("ext-onboarding-asked")
    }

    pub fn hook_log_path(&self) -> PathBuf {
        self.root.join("hook.log")
    }

    /// Whether the database file is there. Something else standing where it should be (a
    /// folder, a pipe, a device) is an error, never "no database yet": a hook must not offer
    /// onboarding over it, and nothing may open (and block on) it.
    pub fn has_database(&self) -> Result<bool, StoreError> {
        let path = self.db_path();
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(true),
            Ok(m) => {
                let what = if m.is_dir() { "a folder" } else { "not a regular file" };
                Err(StoreError::Corrupt { path, reason: format!("it is {what}, not a database file") })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(StoreError::io("cannot read", path, e)),
        }
    }

    /// A short, stable name for this folder that does not reveal its path: a dashboard's `/ping`
    /// carries it (other origins may read `/ping`), so `ui` can tell whether the dashboard on a
    /// port shows this data or another (the demo learner, another `DEVCOACH_DIR`).
    pub fn fingerprint(&self) -> String {
        use sha2::Digest as _;
        let path = self.root.canonicalize().unwrap_or_else(|_| self.root.clone());
        let digest = sha2::Sha256::digest(path.to_string_lossy().as_bytes());
        devcoach_core::encoding::hex(&digest[..8])
    }
}
