//! The backups devcoach takes on its own just before it removes something the learner owns (a
//! deleted lesson, a replaced profile), so every such step prints its undo. They live in the data
//! folder's `backups/`, named `before-<what>-<UTC stamp>-<label>.zip`, and the newest
//! [`KEPT_PER_KIND`] of each kind are kept.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use devcoach_files::{FileError, Overwrite};

use super::write_backup_file;
use crate::error::StoreError;
use crate::{Result, Store};

/// How many automatic backups of one kind are kept (the oldest go first).
pub const KEPT_PER_KIND: usize = 10;

/// What an automatic backup was taken before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SafetyKind {
    /// One lesson or several deleted (the CLI, the dashboard).
    Delete,
    /// The knowledge profile replaced by a new onboarding.
    Setup,
}

impl SafetyKind {
    fn prefix(self) -> &'static str {
        match self {
            Self::Delete => "before-delete-",
            Self::Setup => "before-setup-",
        }
    }
}

/// Writes a whole backup of `store` to a new file in its data folder's `backups/` and returns
/// its path; never over another backup (two labels that read alike, or two in one second).
pub fn take_safety_backup(store: &Store, kind: SafetyKind, label: &str, now: DateTime<Utc>) -> Result<PathBuf> {
    let dir = store.data_dir().backups_dir();
    std::fs::create_dir_all(&dir).map_err(|e| StoreError::io("cannot create the backup folder", &dir, e))?;
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let safe: String =
        label.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).take(40).collect();
    for n in 1..=1000 {
        let suffix = if n == 1 { String::new() } else { format!("-{n}") };
        let path = dir.join(format!("{}{stamp}-{safe}{suffix}.zip", kind.prefix()));
        match write_backup_file(store, &path, Overwrite::Never) {
            Ok(_) => {
                prune(&dir, kind);
                return Ok(path);
            }
            Err(StoreError::File(FileError::Exists { .. })) => {}
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::io(
        "too many backups from this second in",
        dir,
        std::io::Error::from(std::io::ErrorKind::AlreadyExists),
    ))
}

/// Whether `name` is a file name [`take_safety_backup`] of `kind` could have written: the only
/// names a front end may take from a request and look up in `backups/` (no separator, no `..`).
pub fn is_safety_backup_name(name: &str, kind: SafetyKind) -> bool {
    name.strip_prefix(kind.prefix()).and_then(|rest| rest.strip_suffix(".zip")).is_some_and(|rest| {
        !rest.is_empty()
            && rest.len() <= 80
            && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

/// Keeps the newest [`KEPT_PER_KIND`] of `kind` (names sort by time); a failure to prune is not
/// a failure of the step the backup was taken for.
fn prune(dir: &Path, kind: SafetyKind) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut names: Vec<PathBuf> = entries
        .filter_map(std::result::Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| is_safety_backup_name(n, kind)))
        .collect();
    names.sort();
    let extra = names.len().saturating_sub(KEPT_PER_KIND);
    for old in &names[..extra] {
        let _ = std::fs::remove_file(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_we_write_are_backup_names() {
        assert!(is_safety_backup_name("before-delete-20261130T120000Z-git-bisect.zip", SafetyKind::Delete));
        assert!(is_safety_backup_name("before-delete-20261130T120000Z-3_lessons-2.zip", SafetyKind::Delete));
        assert!(!is_safety_backup_name("before-delete-20261130T120000Z-x.zip", SafetyKind::Setup));
        for bad in [
            "before-delete-.zip",
            "before-delete-../../coaching.db.zip",
            "before-delete-a/b.zip",
            "before-delete-a\\b.zip",
            "coaching.db",
            "before-delete-a.zip.txt",
        ] {
            assert!(!is_safety_backup_name(bad, SafetyKind::Delete), "{bad}");
        }
    }
}
