//! Editing the agents' JSON configuration files without losing anything of the user's: a
//! missing file reads as `{}`, a malformed one is reported and never touched, a changed file is
//! copied to `<name>.bak` first and replaced atomically, and an unchanged one is not rewritten.
//! What was created and backed up is noted in the [`ledger`](super::ledger), so uninstall can
//! give the machine back as it was.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Why a configuration file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path} is not valid JSON ({reason}); it was left unchanged: fix or remove it, then run the command again")]
    Malformed { path: PathBuf, reason: String },
    #[error("{path} holds JSON but not an object; it was left unchanged: fix or remove it, then run the command again")]
    NotAnObject { path: PathBuf },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ConfigError {
    fn io(action: &'static str, path: &Path, source: std::io::Error) -> Self {
        Self::Io { action, path: path.to_owned(), source }
    }
}

/// A JSON object file, as read.
#[derive(Debug)]
pub struct JsonDoc {
    path: PathBuf,
    original: Option<Vec<u8>>,
    pub root: Map<String, Value>,
}

/// What saving did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Saved {
    Unchanged,
    /// Written; the previous content, if there was a file, is in the `.bak` path.
    Written {
        backup: Option<PathBuf>,
    },
}

impl JsonDoc {
    /// Reads `path`; a missing file is an empty object.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        // Never blocks on a pipe or device put where a config file should be, and reads no
        // more than any agent's configuration could need.
        let original = devcoach_files::read_optional(
            path,
            devcoach_core::limits::AGENT_CONFIG_BYTES,
            devcoach_files::Links::Follow,
        )
        .map_err(|e| ConfigError::io("read", path, std::io::Error::other(e.to_string())))?;
        let root = match &original {
            None => Map::new(),
            Some(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Map::new(),
            Some(bytes) => match serde_json::from_slice::<Value>(bytes) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err(ConfigError::NotAnObject { path: path.to_owned() }),
                Err(e) => return Err(ConfigError::Malformed { path: path.to_owned(), reason: e.to_string() }),
            },
        };
        Ok(Self { path: path.to_owned(), original, root })
    }

    /// Reads `path` only if it exists (doctor, uninstall).
    pub fn load_existing(path: &Path) -> Result<Option<Self>, ConfigError> {
        let doc = Self::load(path)?;
        Ok(doc.original.is_some().then_some(doc))
    }

    pub fn was_missing(&self) -> bool {
        self.original.is_none()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file as it would be written: two-space indentation and a final newline.
    pub fn render(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(&self.root).unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// Whether saving would change anything the file means (formatting aside).
    pub fn changed(&self) -> bool {
        match &self.original {
            None => true,
            Some(bytes) => serde_json::from_slice::<Value>(bytes).ok() != Some(Value::Object(self.root.clone())),
        }
    }

    /// When the result means exactly what the `.bak` copy holds (an uninstall undoing an
    /// install), that copy's bytes: the user's file comes back byte for byte, formatting and all.
    fn restored_bytes(&self) -> Option<Vec<u8>> {
        let bak = super::ledger::recorded_backup(&self.path).unwrap_or_else(|| sibling(&self.path, ".bak"));
        let bak = read_config(&bak)?;
        let before = serde_json::from_slice::<Value>(&bak).ok()?;
        let now = Value::Object(self.root.clone());
        // An empty `{}` or `[]` the user had (say `"hooks": {}`) may have gone with devcoach's
        // last entry in it: the file still means what it did.
        let same = before == now || without_empty(&before) == without_empty(&now);
        same.then_some(bak)
    }

    /// Writes the file when its content changed: `.bak` copy of the old one first, then an
    /// atomic replace (a crash leaves the old file or the new one, never half of each).
    pub fn save(&self) -> Result<Saved, ConfigError> {
        if self.original.is_some() && !self.changed() {
            return Ok(Saved::Unchanged);
        }
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        if self.original.is_none() {
            super::ledger::before_create(&self.path);
        }
        fs::create_dir_all(dir).map_err(|e| ConfigError::io("create", dir, e))?;
        let restored = self.restored_bytes();
        // One command may edit a file more than once (the MCP entry, then the hooks): only the
        // first edit's starting point is the user's, so only it becomes the `.bak`.
        let first_edit = EDITED.lock().map_or(true, |mut seen| seen.insert(self.path.clone()));
        // A file going back to its backup's exact bytes needs no new copy (uninstall then drops
        // the old one), and the copy from before devcoach's first edit is never replaced.
        // A file devcoach created has nothing of the user's from before to keep.
        let keep_backup = restored.is_some()
            || super::ledger::recorded_backup(&self.path).is_some()
            || super::ledger::created_by_us(&self.path);
        let backup = match &self.original {
            Some(bytes) if first_edit && !keep_backup => Some(back_up(&self.path, bytes)?),
            _ => None,
        };
        write_atomic(&self.path, &restored.unwrap_or_else(|| self.render()))?;
        Ok(Saved::Written { backup })
    }
}

/// Copies `path`'s `bytes` from before devcoach's edit to a free backup name, as private as the
/// file itself (a copy of a `0600` file holding tokens must not be readable by others), never
/// through a link; notes it in the ledger.
fn back_up(path: &Path, bytes: &[u8]) -> Result<PathBuf, ConfigError> {
    let bak = super::ledger::backup_path(path);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mode = fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o777);
        options.mode((mode & 0o666) | 0o600);
    }
    let mut file = options.open(&bak).map_err(|e| ConfigError::io("back up", &bak, e))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| ConfigError::io("back up", &bak, e))?;
    super::ledger::made_backup(path, &bak);
    Ok(bak)
}

/// Before an agent's own CLI edits `path` (`gemini mcp add`): the copy from before devcoach's
/// first edit is made now, so it holds the user's file and not the CLI's result.
pub fn back_up_before_cli(path: &Path) {
    let first_edit = EDITED.lock().map_or(true, |mut seen| seen.insert(path.to_owned()));
    if !first_edit || super::ledger::recorded_backup(path).is_some() || super::ledger::created_by_us(path) {
        return;
    }
    if let Some(bytes) = read_config(path) {
        let _ = back_up(path, &bytes);
    }
}

/// The configuration files this run has written.
pub fn edited_this_run() -> std::collections::BTreeSet<PathBuf> {
    EDITED.lock().map(|seen| seen.clone()).unwrap_or_default()
}

/// `v` with every empty object or array inside an object dropped, recursively.
fn without_empty(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), without_empty(v)))
                .filter(|(_, v)| {
                    !matches!(v, Value::Object(m) if m.is_empty()) && !matches!(v, Value::Array(a) if a.is_empty())
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_empty).collect()),
        other => other.clone(),
    }
}

/// Files this process has already written.
static EDITED: std::sync::Mutex<std::collections::BTreeSet<PathBuf>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// `name` + `suffix` in the same directory.
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// Replaces `path` with `bytes` through a temporary file in the same directory, keeping the
/// old file's permissions.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ConfigError> {
    // A configuration file kept as a link (dotfiles): the edit goes to the file it points at,
    // and the link stays a link.
    let resolved;
    let path = if path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
        resolved = fs::canonicalize(path).map_err(|e| ConfigError::io("follow the link", path, e))?;
        resolved.as_path()
    } else {
        path
    };
    let tmp = sibling(path, &format!(".devcoach-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(meta) = fs::metadata(path) {
            fs::set_permissions(&tmp, meta.permissions())?;
        }
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(ConfigError::io("write", path, e));
    }
    Ok(())
}

/// `root[key]` as an object, created when missing. `None` when it exists but is not an object
/// (the user's data: never replaced).
pub fn object_at<'a>(root: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    root.entry(key.to_owned()).or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}

/// An agent's file as it is, read through the one door: a regular file (a link is followed, as
/// the agent would), at most [`limits::AGENT_CONFIG_BYTES`]; `None` when it cannot be read so.
pub fn read_config(path: &Path) -> Option<Vec<u8>> {
    devcoach_files::read(path, devcoach_core::limits::AGENT_CONFIG_BYTES, devcoach_files::Links::Follow).ok()
}

/// [`read_config`] as text (empty when it cannot be read).
pub fn read_config_text(path: &Path) -> String {
    read_config(path).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_malformed_and_unchanged_files() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("a/settings.json");
        let mut doc = JsonDoc::load(&path).expect("missing reads as {}");
        assert!(doc.original.is_none() && doc.root.is_empty());
        doc.root.insert("k".into(), Value::from(1));
        assert_eq!(doc.save().expect("save"), Saved::Written { backup: None });
        assert_eq!(fs::read_to_string(&path).expect("read"), "{\n  \"k\": 1\n}\n");

        // Same meaning, other formatting: not rewritten.
        fs::write(&path, "{\"k\":1}").expect("write");
        assert_eq!(JsonDoc::load(&path).expect("load").save().expect("save"), Saved::Unchanged);
        assert_eq!(fs::read_to_string(&path).expect("read"), "{\"k\":1}");

        // A user's file edited twice in one run: the backup is the user's version, not ours.
        let users = dir.path().join("users.json");
        fs::write(&users, "{\"k\":1}").expect("write");
        let mut doc = JsonDoc::load(&users).expect("load");
        doc.root.insert("j".into(), Value::Null);
        let Saved::Written { backup: Some(bak) } = doc.save().expect("save") else { panic!("expected a backup") };
        let mut again = JsonDoc::load(&users).expect("load");
        again.root.insert("i".into(), Value::Null);
        assert_eq!(again.save().expect("save"), Saved::Written { backup: None });
        assert_eq!(fs::read_to_string(&bak).expect("bak"), "{\"k\":1}");
        // Undoing both edits brings back the user's bytes, not a re-formatted copy.
        let mut undo = JsonDoc::load(&users).expect("load");
        undo.root.remove("i");
        undo.root.remove("j");
        undo.save().expect("save");
        assert_eq!(fs::read_to_string(&users).expect("read"), "{\"k\":1}");

        fs::write(&path, "{\"k\":").expect("write");
        let err = JsonDoc::load(&path).expect_err("malformed");
        assert!(err.to_string().contains("left unchanged"), "{err}");
        fs::write(&path, "[1]").expect("write");
        assert!(matches!(JsonDoc::load(&path), Err(ConfigError::NotAnObject { .. })));
        assert_eq!(fs::read_to_string(&path).expect("read"), "[1]");
    }
}
