//! What `install` created on the machine, so `uninstall` can give it back exactly as it was: a
//! file or folder that did not exist before is gone again, and a `.bak` copy devcoach made is
//! deleted once the file it saved is verifiably restored.
//!
//! Kept in `<data>/ext-installed.json` (ours alone; the TypeScript devcoach never reads it):
//! `{"created": [paths], "backups": {"<file>": "<its backup>"}}`. The edits of one run are
//! collected here as they happen (one process, so a lock, no threads racing) and merged into
//! the file when the command ends.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use devcoach_core::limits;
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// Files and folders devcoach created (they did not exist before its first install).
    #[serde(default)]
    pub created: BTreeSet<PathBuf>,
    /// Each file devcoach edited that existed before, and where its copy from before is.
    #[serde(default)]
    pub backups: BTreeMap<PathBuf, PathBuf>,
}

/// This run's record, merged into the file by [`commit`].
static RUN: Mutex<Option<Ledger>> = Mutex::new(None);

fn with_run<T>(f: impl FnOnce(&mut Ledger) -> T) -> T {
    let mut guard = RUN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    f(guard.get_or_insert_with(Ledger::default))
}

/// Call before creating `path` (a file, or a folder with `create_dir_all`): it and each
/// ancestor that does not exist yet are noted as ours.
pub fn before_create(path: &Path) {
    let mut missing = Vec::new();
    let mut at = Some(path);
    while let Some(p) = at {
        if p.as_os_str().is_empty() || p.symlink_metadata().is_ok() {
            break;
        }
        missing.push(p.to_owned());
        at = p.parent();
    }
    if !missing.is_empty() {
        with_run(|run| run.created.extend(missing));
    }
}

/// Where the copy of `file` from before devcoach's edit goes: `<file>.bak`, unless a `.bak`
/// devcoach did not make is already there (the user's own), then `<file>.devcoach.bak`.
pub fn backup_path(file: &Path) -> PathBuf {
    if let Some(known) = recorded_backup(file) {
        return known;
    }
    // The first free name: `.bak`, `.devcoach.bak`, `.devcoach-2.bak`, … (nothing there at all,
    // not even a link, so a copy never lands on a file of someone else's).
    let free = |p: &PathBuf| p.symlink_metadata().is_err();
    let plain = super::config::sibling(file, ".bak");
    if free(&plain) {
        return plain;
    }
    // A thousand names taken is not a folder anyone keeps: then the copy fails to write (the
    // plain name is taken), and the edit with it.
    (1..=1000)
        .map(|n| {
            super::config::sibling(
                file,
                &if n == 1 { ".devcoach.bak".to_owned() } else { format!(".devcoach-{n}.bak") },
            )
        })
        .find(free)
        .unwrap_or(plain)
}

/// Notes that `backup` now holds `file` as it was before devcoach's edit.
pub fn made_backup(file: &Path, backup: &Path) {
    with_run(|run| {
        run.backups.insert(file.to_owned(), backup.to_owned());
    });
}

/// The backup devcoach made of `file`, from this run or an earlier one.
pub fn recorded_backup(file: &Path) -> Option<PathBuf> {
    with_run(|run| run.backups.get(file).cloned()).or_else(|| stored().backups.get(file).cloned())
}

/// Whether devcoach created `path` (this run or an earlier install).
pub fn created_by_us(path: &Path) -> bool {
    with_run(|run| run.created.contains(path)) || stored().created.contains(path)
}

/// The data folder the ledger is kept in, when the front end has said (else the one the
/// environment names).
static DATA_DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Keeps this process's ledger in `dir` from now on, rather than the data folder the
/// environment names.
pub fn keep_in(dir: &Path) {
    *DATA_DIR.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(dir.to_owned());
}

fn file_path() -> Option<PathBuf> {
    let chosen = DATA_DIR.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    match chosen {
        Some(dir) => Some(dir.join("ext-installed.json")),
        None => devcoach_store::DataDir::from_env().ok().map(|d| d.root().join("ext-installed.json")),
    }
}

/// The ledger as saved by earlier runs (empty when there is none or it cannot be read: then
/// uninstall only restores what it can prove, and never deletes on a guess).
pub fn stored() -> Ledger {
    file_path()
        .and_then(|p| devcoach_files::read(&p, limits::INSTALL_FILE_BYTES, devcoach_files::Links::Refuse).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Merges this run's record into the saved one. Once nothing is left to give back, the file
/// goes, and with it the data folder when install made it only for the ledger.
pub fn commit(mut ledger: Ledger) -> std::io::Result<()> {
    let Some(path) = file_path() else { return Ok(()) };
    // Our own file name, but something else is there (a link, a pipe, a folder): left alone.
    if path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        return Err(std::io::Error::other(format!("{} is not a regular file; left alone", path.display())));
    }
    if let Some(run) = RUN.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
        ledger.created.extend(run.created);
        for (file, bak) in run.backups {
            ledger.backups.entry(file).or_insert(bak);
        }
    }
    // Only what still exists can still be given back.
    ledger.created.retain(|p| p.symlink_metadata().is_ok());
    ledger.backups.retain(|_, bak| bak.symlink_metadata().is_ok());
    let dir = path.parent().unwrap_or(Path::new("."));
    if ledger.backups.is_empty() && ledger.created.iter().all(|p| p == dir) {
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        // The data folder install made for the ledger alone goes with it (once empty).
        if ledger.created.contains(dir) && fs::read_dir(dir).is_ok_and(|mut e| e.next().is_none()) {
            fs::remove_dir(dir)?;
        }
        return Ok(());
    }
    if dir.symlink_metadata().is_err() {
        // The data folder did not exist: it is ours too, and goes when the ledger does.
        ledger.created.insert(dir.to_owned());
        fs::create_dir_all(dir)?;
    }
    let mut bytes = serde_json::to_vec_pretty(&ledger).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    super::config::write_atomic(&path, &bytes).map_err(std::io::Error::other)
}

/// What giving back did, for the report.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct GivenBack {
    pub removed: Vec<PathBuf>,
    /// Backups kept because the file changed since devcoach's edit (the user's to compare).
    pub kept_backups: Vec<PathBuf>,
}

/// After an uninstall: removes what install created and is now empty (a JSON file holding
/// `{}`, an empty folder; deepest first, so a folder follows its contents), and each backup
/// of a file in `edited` whose restore is verified (the file holds the backup's bytes again).
///
/// The ledger is a file anyone can edit, so a path it names is touched only when it is one of
/// the places the agents being uninstalled keep their files (`roots`: a root, inside one, or a
/// folder on the way to one), below `home` once every link on the way is resolved.
pub fn give_back(ledger: &mut Ledger, edited: &BTreeSet<PathBuf>, home: &Path, roots: &[PathBuf]) -> GivenBack {
    let mut done = GivenBack::default();
    let real_home = fs::canonicalize(home).unwrap_or_else(|_| home.to_owned());
    let ours = |p: &Path| {
        let plain = p.starts_with(home) && p != home && !p.components().any(|c| c.as_os_str() == "..");
        let placed = roots.iter().any(|root| p.starts_with(root) || (root.starts_with(p) && p != home));
        // The folder holding it, with every link resolved, must still be below home.
        let real_parent = p.parent().and_then(|d| fs::canonicalize(d).ok());
        plain && placed && real_parent.is_some_and(|d| d.starts_with(&real_home))
    };
    for (file, bak) in ledger.backups.clone() {
        // A backup sits beside its file and carries its name (`settings.json.bak`).
        let beside = bak.parent() == file.parent()
            && bak
                .file_name()
                .zip(file.file_name())
                .is_some_and(|(b, f)| b.to_string_lossy().starts_with(&format!("{}.", f.to_string_lossy())));
        if !edited.contains(&file) || !ours(&file) || !beside {
            continue;
        }
        let restored = matches!((crate::config::read_config(&file), crate::config::read_config(&bak)), (Some(now), Some(then)) if now == then);
        if restored {
            if fs::remove_file(&bak).is_ok() {
                ledger.backups.remove(&file);
                done.removed.push(bak);
            }
        } else {
            // The file is the user's own now: the copy stays for them, and the next install
            // starts a fresh record (its own backup beside this one).
            ledger.backups.remove(&file);
            done.kept_backups.push(bak);
        }
    }
    // Deepest first: a path sorts after its parent, so reverse order visits children first.
    let created: Vec<PathBuf> = ledger.created.iter().rev().cloned().collect();
    for path in created {
        if !ours(&path) {
            continue;
        }
        let Ok(meta) = path.symlink_metadata() else {
            ledger.created.remove(&path);
            continue;
        };
        let empty = if meta.is_dir() {
            fs::read_dir(&path).is_ok_and(|mut entries| entries.next().is_none())
        } else if meta.is_file() {
            holds_nothing(&path)
        } else {
            false
        };
        if !empty {
            continue;
        }
        let removed = if meta.is_dir() { fs::remove_dir(&path) } else { fs::remove_file(&path) };
        if removed.is_ok() {
            ledger.created.remove(&path);
            done.removed.push(path);
        }
    }
    done
}

/// A configuration file devcoach created that holds nothing any more: an empty JSON object
/// (every entry of ours removed, and nobody added one), or no bytes at all.
fn holds_nothing(path: &Path) -> bool {
    match devcoach_files::read(path, limits::AGENT_CONFIG_BYTES, devcoach_files::Links::Follow) {
        Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => true,
        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .is_ok_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_only_what_is_empty_and_restored() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        let created_dir = root.join("made/deeper");
        fs::create_dir_all(&created_dir).expect("mkdir");
        let created_file = created_dir.join("settings.json");
        fs::write(&created_file, "{}\n").expect("write");
        let busy = root.join("busy.json");
        fs::write(&busy, "{\"theirs\": 1}").expect("write");
        let users = root.join("users.json");
        fs::write(&users, "{\"a\":1}").expect("write");
        fs::write(root.join("users.json.bak"), "{\"a\":1}").expect("write");
        let changed = root.join("changed.json");
        fs::write(&changed, "{\"a\":2}").expect("write");
        fs::write(root.join("changed.json.bak"), "{\"a\":1}").expect("write");

        let mut ledger = Ledger {
            created: [root.join("made"), created_dir.clone(), created_file.clone(), busy.clone()].into(),
            backups: [(users.clone(), root.join("users.json.bak")), (changed.clone(), root.join("changed.json.bak"))]
                .into(),
        };
        let edited = [users.clone(), changed.clone()].into();
        let done = give_back(&mut ledger, &edited, root, &[root.to_owned()]);
        assert!(!root.join("made").exists(), "the created folders and file are gone");
        assert!(busy.exists(), "a created file someone filled stays");
        assert!(!root.join("users.json.bak").exists(), "a verified restore drops its backup");
        assert_eq!(done.kept_backups, [root.join("changed.json.bak")]);
        assert!(root.join("changed.json.bak").exists());
        assert_eq!(ledger.created, [busy].into());
        assert!(ledger.backups.is_empty(), "a kept backup is the user's now: {:?}", ledger.backups);

        // A ledger naming paths elsewhere (edited by hand, or hostile) touches none of them.
        let outside = tempfile::tempdir().expect("tmp");
        let empty = outside.path().join("empty");
        fs::create_dir(&empty).expect("mkdir");
        let mut hostile =
            Ledger { created: [empty.clone(), root.join("../x"), root.to_owned()].into(), ..Ledger::default() };
        assert_eq!(give_back(&mut hostile, &BTreeSet::new(), root, &[root.to_owned()]), GivenBack::default());
        assert!(empty.is_dir() && root.is_dir());
        // Nor through a link inside home, nor outside the agents' own places.
        std::os::unix::fs::symlink(outside.path(), root.join("link")).expect("link");
        let mut through = Ledger { created: [root.join("link/empty")].into(), ..Ledger::default() };
        assert_eq!(give_back(&mut through, &BTreeSet::new(), root, &[root.to_owned()]), GivenBack::default());
        assert!(empty.is_dir(), "a link inside home does not lead out of it");
        let ssh = root.join(".ssh");
        fs::create_dir(&ssh).expect("mkdir");
        let mut elsewhere = Ledger { created: [ssh.clone()].into(), ..Ledger::default() };
        assert_eq!(give_back(&mut elsewhere, &BTreeSet::new(), root, &[root.join(".gemini")]), GivenBack::default());
        assert!(ssh.is_dir(), "only the agents' own places");
    }

    #[test]
    fn a_users_own_bak_is_never_overwritten() {
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("settings.json");
        assert_eq!(backup_path(&file), tmp.path().join("settings.json.bak"));
        fs::write(tmp.path().join("settings.json.bak"), "mine").expect("write");
        assert_eq!(backup_path(&file), tmp.path().join("settings.json.devcoach.bak"));
        std::os::unix::fs::symlink("/nowhere", tmp.path().join("settings.json.devcoach.bak")).expect("link");
        assert_eq!(backup_path(&file), tmp.path().join("settings.json.devcoach-2.bak"), "a link is someone's too");
    }

    #[test]
    fn before_create_notes_each_missing_ancestor() {
        let tmp = tempfile::tempdir().expect("tmp");
        let deep = tmp.path().join("a/b/c.json");
        before_create(&deep);
        let run = with_run(|run| run.created.clone());
        for p in [tmp.path().join("a"), tmp.path().join("a/b"), deep] {
            assert!(run.contains(&p), "{}", p.display());
        }
        assert!(!run.contains(tmp.path()));
    }
}
