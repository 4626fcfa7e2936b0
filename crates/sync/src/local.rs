//! This machine's side of sync: where it keeps its files, the lock, the key, the device id,
//! and the marks of what it has written and read.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};

use devcoach_core::limits;
use devcoach_core::sync::DeviceId;
use devcoach_core::time::parse_timestamp;
use devcoach_store::{DataDir, Mark, SYNC_JOINING, Store};

use crate::crypt::Key;
use crate::error::{KeyProblem, PathProblem, SetupProblem, SyncError};
use crate::folder::Folder;
use crate::round::SyncReport;
use crate::{Config, DEFAULT_EVERY_MINUTES, Transport, folder};

pub(crate) fn sync_dir(dir: &DataDir) -> PathBuf {
    dir.root().join("sync")
}

pub(crate) fn key_path(dir: &DataDir) -> PathBuf {
    sync_dir(dir).join("key")
}

pub(crate) fn repo_dir(dir: &DataDir) -> PathBuf {
    sync_dir(dir).join("repo")
}

pub(crate) fn sent_dir(dir: &DataDir, device: &DeviceId) -> PathBuf {
    sync_dir(dir).join("sent").join(device.as_str())
}

/// This data folder's copies of the other devices' files it has read.
pub(crate) fn kept_dir(dir: &DataDir, device: &DeviceId) -> PathBuf {
    sync_dir(dir).join("kept").join(device.as_str())
}

/// Every device this data folder holds copies for, under `sent/` (its own ids) or `kept/`.
pub(crate) fn copy_ids(dir: &DataDir, kind: &str) -> Vec<DeviceId> {
    std::fs::read_dir(sync_dir(dir).join(kind))
        .map(|entries| entries.flatten().filter_map(|e| DeviceId::new(&e.file_name().to_string_lossy()).ok()).collect())
        .unwrap_or_default()
}

/// What the folder holds, completed by this data folder's own copies: a file applied here
/// still counts when the folder lost it or it does not read there any more (evicted, cut short,
/// the folder restored from an old copy), so what this store matched never moves under it.
/// Also the names of the files this data folder wrote, per id.
pub(crate) fn gather(
    folder: &Folder<'_>,
    dir: &DataDir,
    recorded: &BTreeSet<(String, String)>,
    plan: &folder::ReadPlan<'_>,
    now_ms: i64,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(folder::Contents, BTreeSet<(String, String)>), SyncError> {
    let known = plan.known;
    let mut contents = folder.read_new(now_ms, progress, plan)?;
    let mut written_here = BTreeSet::new();
    for (kind, ids) in [("sent", copy_ids(dir, "sent")), ("kept", copy_ids(dir, "kept"))] {
        for id in ids {
            let copies = if kind == "sent" { sent_dir(dir, &id) } else { kept_dir(dir, &id) };
            let Ok(entries) = std::fs::read_dir(&copies) else { continue };
            // The names the folder listed for this device, looked up once per copy (a device
            // folder may hold thousands).
            let listed: std::collections::HashSet<String> = contents
                .devices
                .get(&id)
                .map(|log| log.files.iter().map(|f| f.name.clone()).collect())
                .unwrap_or_default();
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if kind == "sent" {
                    written_here.insert((id.to_string(), name.clone()));
                }
                let log = contents.devices.entry(id.clone()).or_default();
                if listed.contains(&name) {
                    continue;
                }
                if let Some(file) = folder.read_copy(&id, &entry.path(), now_ms, known)
                    && (kind == "sent" || recorded.contains(&(id.to_string(), file.digest.clone())))
                {
                    // The folder's copy is missing or does not read: ours stands in.
                    let path_in_folder = folder.root.join(folder::DEVICES).join(id.as_str()).join(&name);
                    contents.problems.retain(|p| p.path != path_in_folder);
                    log.files.push(file);
                }
            }
            if let Some(log) = contents.devices.get_mut(&id) {
                log.files.sort_by(|a, b| (a.first, &a.digest).cmp(&(b.first, &b.digest)));
            }
        }
    }
    contents.devices.retain(|_, log| !log.files.is_empty() || log.name.is_some());
    Ok((contents, written_here))
}

/// Whether the folder holds anything sealed for an encrypted folder: its key, or a device's
/// `.age` file (listed, not read).
pub(crate) fn holds_sealed(root: &std::path::Path) -> bool {
    if std::fs::symlink_metadata(root.join(folder::KEY_FILE)).is_ok() {
        return true;
    }
    let Ok(devices) = std::fs::read_dir(root.join(folder::DEVICES)) else { return false };
    devices.flatten().any(|device| {
        std::fs::read_dir(device.path())
            .is_ok_and(|files| files.flatten().any(|f| f.file_name().to_string_lossy().ends_with(".age")))
    })
}

/// The files that did not read when last tried, as the store remembers them.
pub(crate) fn failed_files(store: &Store) -> folder::FailedFiles {
    store
        .sync_failed()
        .unwrap_or_default()
        .into_iter()
        .map(|(device, name, len, modified, what, retry_at)| {
            ((device, name), folder::Failed { len, modified, what, retry_at })
        })
        .collect()
}

/// The files the store recorded by name, so a sync never reads them again.
pub(crate) fn known_files(marks: &BTreeSet<Mark>) -> folder::KnownFiles {
    marks
        .iter()
        .filter_map(|m| {
            let name = m.name.clone()?;
            let known = folder::Known {
                digest: m.digest.clone(),
                first: m.first,
                last: m.last,
                written_at: m.written_at.clone().unwrap_or_default(),
            };
            Some(((m.device.clone(), name), known))
        })
        .collect()
}

/// The keys of a setup that `sync off` parks, so `sync init` to the same place picks up where it
/// stopped (same device, nothing unsent lost).
/// `joining` among them: a join stopped part way (and turned off) goes on as a join when resumed,
/// or what this device held before it joined would be sent as new and win over the folder's.
pub(crate) const PARKED: [&str; 9] =
    ["transport", "target", "device", "name", "encrypted", "every", "fingerprint", "recipient", SYNC_JOINING];

/// A folder path as people type it: `~/…` is the home folder even when the shell left it alone.
pub(crate) fn expand_home(target: &str) -> PathBuf {
    match (target.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(target),
    }
}

/// This machine's name, for other devices' status lines.
pub fn host_name() -> String {
    let read = |p: &str| std::fs::read_to_string(p).ok().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map_or_else(|| "this machine".to_owned(), |n| n.chars().filter(|c| !c.is_control()).take(64).collect())
}

/// What tells this data folder from a copy of it: the database file itself (a copied file,
/// here or on another machine, is a new file; a folder moved on its disk, or mounted into a
/// container, is the same one). A change means a copy: it syncs as a new device, so two
/// machines never write as one.
pub(crate) fn fingerprint(dir: &DataDir) -> String {
    let db = dir.db_path();
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(&db).map(|m| format!("{}:{}", m.dev(), m.ino())).unwrap_or_default()
    };
    #[cfg(not(unix))]
    let file = db.canonicalize().map(|p| p.display().to_string()).unwrap_or_default();
    file
}

pub(crate) fn new_device() -> Result<DeviceId, SyncError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(SetupProblem::NoRandom)?;
    Ok(DeviceId::from_random(bytes))
}

/// Sync's configuration, or `None` when it is off.
pub fn config(store: &Store) -> Result<Option<Config>, SyncError> {
    let state = store.sync_state()?;
    let (Some(kind), Some(target), Some(device)) = (state.get("transport"), state.get("target"), state.get("device"))
    else {
        return Ok(None);
    };
    let transport = match kind.as_str() {
        "git" => Transport::Git(target.clone()),
        _ => Transport::Folder(PathBuf::from(target)),
    };
    let device = DeviceId::new(device).map_err(|_| SetupProblem::BadDeviceId(device.clone()))?;
    Ok(Some(Config {
        transport,
        device,
        name: state.get("name").cloned().unwrap_or_else(host_name),
        encrypted: state.get("encrypted").is_some_and(|v| v == "yes"),
        every_minutes: state.get("every").and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_EVERY_MINUTES),
        last_sync: state.get("last_sync").and_then(|v| parse_timestamp(v).ok()),
        last_error: state.get("last_error").cloned(),
    }))
}

/// Why this data folder took a new device id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renamed {
    /// It is a copy of another device's data folder (its database is another file).
    Copied,
    /// Another machine writes files under its id (a cloned disk or virtual machine).
    SharedId,
}

/// Gives this data folder a new device id. The files it wrote under the old one stay applied
/// here (they are recorded, and kept in its own copy); the old id is another device's from now on.
pub(crate) fn rekey(
    store: &mut Store,
    config: &mut Config,
    report: &mut SyncReport,
    why: Renamed,
) -> Result<(), SyncError> {
    let old = config.device.clone();
    let new = new_device()?;
    store.set_sync_state(&[("device", Some(new.as_str()))], false)?;
    config.device = new.clone();
    report.renamed = Some((old, new, why));
    Ok(())
}

fn io(path: &Path, e: std::io::Error) -> SyncError {
    SyncError::Path { path: path.to_owned(), problem: PathProblem::Io(e) }
}

/// Holds the data folder's sync lock while it lives.
pub(crate) struct Lock(#[allow(dead_code)] File);

pub(crate) fn lock(dir: &DataDir) -> Result<Lock, SyncError> {
    let path = sync_dir(dir).join("lock");
    std::fs::create_dir_all(sync_dir(dir)).map_err(|e| io(&sync_dir(dir), e))?;
    let file =
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(|e| io(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(Lock(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(SyncError::Busy),
        Err(std::fs::TryLockError::Error(e)) => Err(io(&path, e)),
    }
}

pub(crate) fn read_key(dir: &DataDir) -> Result<Key, SyncError> {
    let path = key_path(dir);
    let text = devcoach_files::read_to_string(&path, limits::SYNC_SMALL_FILE_BYTES, devcoach_files::Links::Refuse)
        .map_err(|_| KeyProblem::Missing { path: path.clone() })?;
    Key::parse(&text)
}

pub(crate) fn save_key(dir: &DataDir, key: &Key) -> Result<(), SyncError> {
    let path = key_path(dir);
    folder::write_new(&path, key.secret().as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(|e| io(&path, e))?;
    }
    Ok(())
}
