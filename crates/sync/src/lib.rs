//! One learner's record on many machines, without a devcoach server and without trusting the
//! transport: each device logs its changes to its own files in a shared folder (one another tool
//! keeps in sync, or a clone of the learner's git repository), reads everyone else's, and makes
//! its store what all of them merge to. The merge rules and the file format are in
//! `devcoach_core::sync`; the store's side (finding local changes, applying, in one transaction)
//! in `devcoach_store`. This crate holds the rest: where things are, the transports, the key.
//!
//! Nothing here runs in a hook: sync runs when the learner asks, from the dashboard, or in the
//! background of a command (see [`due`]).

pub mod crypt;
pub mod folder;
pub mod git;

use std::collections::BTreeSet;
use std::fs::File;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use devcoach_core::limits;
use devcoach_core::limits::SYNC_ROUND_CHANGES;
use devcoach_core::sync::segment::Header;
use devcoach_core::sync::{DeviceId, Hlc, Op};
use devcoach_core::time::{iso_ms, parse_timestamp};
use devcoach_store::{DataDir, Mark, SYNC_JOINING, Store, StoreError, SyncRound};

use crate::crypt::Key;
use crate::folder::{DeviceInfo, Folder, Marker, Problem};

/// How often a command the learner runs syncs in the background, unless set otherwise.
pub const DEFAULT_EVERY_MINUTES: u32 = 10;
/// How many refused records `sync status` names.
const REFUSED_NAMED: usize = 5;
/// The least time between two new ids taken because another machine writes under this one's.
const REKEY_EVERY_DAYS: i64 = 7;

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("sync is not set up on this machine; run `devcoach sync init <folder|git-url>`")]
    NotSetUp,
    #[error("another `devcoach sync` is running for this data folder; wait for it to finish")]
    Busy,
    #[error("{0}")]
    Folder(String),
    #[error("{0}")]
    Git(String),
    #[error("{0}")]
    Key(String),
    #[error("the passphrase does not open this sync folder's key; nothing was changed — try again")]
    WrongPassphrase,
    #[error("this sync folder is encrypted: give its passphrase (DEVCOACH_SYNC_PASSPHRASE, or type it when asked)")]
    NeedPassphrase,
    #[error("{0}")]
    Newer(String),
    #[error("{0}")]
    Setup(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl devcoach_store::Kinded for SyncError {
    fn kind(&self) -> devcoach_store::ErrorKind {
        use devcoach_store::ErrorKind;
        match self {
            Self::NotSetUp => ErrorKind::NotFound,
            Self::Busy => ErrorKind::Busy,
            // The folder, the git remote or the key file could not be used.
            Self::Folder(_) | Self::Git(_) | Self::Key(_) => ErrorKind::Io,
            Self::WrongPassphrase | Self::NeedPassphrase | Self::Setup(_) => ErrorKind::InvalidInput,
            // Written by a newer devcoach: as with a newer database, nothing is written.
            Self::Newer(_) => ErrorKind::ReadOnly,
            Self::Store(e) => e.kind(),
        }
    }
}

/// What `sync init` was asked.
#[derive(Debug, Clone, Default)]
pub struct InitOptions {
    pub encrypt: bool,
    /// Given, it says an encrypted folder is expected: a plain one is refused (it may be an
    /// encrypted folder stripped by its host).
    pub passphrase: Option<String>,
    /// The name other devices see (the host name when not given).
    pub name: Option<String>,
    pub every_minutes: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Folder(PathBuf),
    Git(String),
}

impl Transport {
    pub fn describe(&self) -> String {
        match self {
            Self::Folder(p) => format!("folder {}", p.display()),
            Self::Git(url) => format!("git {url}"),
        }
    }
}

/// Sync as this data folder is set up.
#[derive(Debug, Clone)]
pub struct Config {
    pub transport: Transport,
    pub device: DeviceId,
    pub name: String,
    pub encrypted: bool,
    pub every_minutes: u32,
    pub last_sync: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

#[derive(Debug)]
pub struct InitReport {
    pub config: Config,
    /// The folder already held other devices' files.
    pub joined: bool,
    /// Sync was already set up here, to the same place: nothing changed.
    pub already: bool,
    /// Sync was parked by `sync off` and goes on as the same device.
    pub resumed: bool,
}

/// What one sync did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// Changes made here, now logged.
    pub logged: usize,
    /// Other devices' changes applied here for the first time.
    pub received: usize,
    /// Rows written here.
    pub written: usize,
    pub devices: usize,
    pub refused: usize,
    pub pushed: bool,
    /// Files read from the folder (or this data folder's copies) this time: the ones not
    /// applied here before.
    pub read: usize,
    /// Rounds (transactions) the sync took: more than one when more changes waited than one
    /// round reads.
    pub rounds: usize,
    pub problems: Vec<Problem>,
    /// This data folder took a new device id this time (old, new, why).
    pub renamed: Option<(DeviceId, DeviceId, Renamed)>,
    /// This device wrote a snapshot this time, superseding its older files.
    pub snapshot: bool,
}

#[derive(Debug)]
pub struct DeviceStatus {
    pub device: DeviceId,
    pub name: Option<String>,
    pub this: bool,
    pub files: usize,
    /// How many of its files are applied here.
    pub applied: usize,
    pub written_at: Option<String>,
    /// Some of its files wait: a problem below names them.
    pub blocked: bool,
}

impl DeviceStatus {
    /// Where this device stands here, in the words every front end shows.
    pub fn state(&self) -> String {
        if self.this {
            "this device".to_owned()
        } else if self.blocked {
            "waiting (see below)".to_owned()
        } else if self.applied >= self.files {
            "applied here".to_owned()
        } else {
            let n = self.files - self.applied;
            format!("{n} {} to apply", if n == 1 { "file" } else { "files" })
        }
    }

    /// Its name, or its id when it never said.
    pub fn label(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.device.to_string())
    }
}

#[derive(Debug)]
pub struct Status {
    pub config: Config,
    pub devices: Vec<DeviceStatus>,
    /// Changes made here that the next sync logs (unknown while the folder is not there).
    pub pending: Option<usize>,
    pub refused: usize,
    /// The first of them, as (table, key): what a sync refused, named.
    pub refused_records: Vec<(String, String)>,
    pub problems: Vec<Problem>,
    /// Set up, but the first sync (the join) has not run yet.
    pub joining: bool,
}

fn sync_dir(dir: &DataDir) -> PathBuf {
    dir.root().join("sync")
}

fn key_path(dir: &DataDir) -> PathBuf {
    sync_dir(dir).join("key")
}

fn repo_dir(dir: &DataDir) -> PathBuf {
    sync_dir(dir).join("repo")
}

fn sent_dir(dir: &DataDir, device: &DeviceId) -> PathBuf {
    sync_dir(dir).join("sent").join(device.as_str())
}

/// This data folder's copies of the other devices' files it has read.
fn kept_dir(dir: &DataDir, device: &DeviceId) -> PathBuf {
    sync_dir(dir).join("kept").join(device.as_str())
}

/// Every device this data folder holds copies for, under `sent/` (its own ids) or `kept/`.
fn copy_ids(dir: &DataDir, kind: &str) -> Vec<DeviceId> {
    std::fs::read_dir(sync_dir(dir).join(kind))
        .map(|entries| entries.flatten().filter_map(|e| DeviceId::new(&e.file_name().to_string_lossy()).ok()).collect())
        .unwrap_or_default()
}

/// What the folder holds, completed by this data folder's own copies: a file applied here
/// still counts when the folder lost it or it does not read there any more (evicted, cut short,
/// the folder restored from an old copy), so what this store matched never moves under it.
/// Also the names of the files this data folder wrote, per id.
fn gather(
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
fn holds_sealed(root: &std::path::Path) -> bool {
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
fn failed_files(store: &Store) -> folder::FailedFiles {
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
fn known_files(marks: &BTreeSet<Mark>) -> folder::KnownFiles {
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
const PARKED: [&str; 9] =
    ["transport", "target", "device", "name", "encrypted", "every", "fingerprint", "recipient", SYNC_JOINING];

/// A folder path as people type it: `~/…` is the home folder even when the shell left it alone.
fn expand_home(target: &str) -> PathBuf {
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
fn fingerprint(dir: &DataDir) -> String {
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

fn new_device() -> Result<DeviceId, SyncError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| SyncError::Setup(format!("no random numbers for a device id: {e}")))?;
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
    let device = DeviceId::new(device).map_err(SyncError::Setup)?;
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
fn rekey(store: &mut Store, config: &mut Config, report: &mut SyncReport, why: Renamed) -> Result<(), SyncError> {
    let old = config.device.clone();
    let new = new_device()?;
    store.set_sync_state(&[("device", Some(new.as_str()))], false)?;
    config.device = new.clone();
    report.renamed = Some((old, new, why));
    Ok(())
}

/// Holds the data folder's sync lock while it lives.
struct Lock(#[allow(dead_code)] File);

fn lock(dir: &DataDir) -> Result<Lock, SyncError> {
    let path = sync_dir(dir).join("lock");
    std::fs::create_dir_all(sync_dir(dir))
        .map_err(|e| SyncError::Folder(format!("{}: {e}", sync_dir(dir).display())))?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| SyncError::Folder(format!("{}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(Lock(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(SyncError::Busy),
        Err(std::fs::TryLockError::Error(e)) => Err(SyncError::Folder(format!("{}: {e}", path.display()))),
    }
}

fn read_key(dir: &DataDir) -> Result<Key, SyncError> {
    let path = key_path(dir);
    let text = devcoach_files::read_to_string(&path, 4096, devcoach_files::Links::Refuse).map_err(|_| {
        SyncError::Key(format!(
            "the sync key is missing from {} — run `devcoach sync off`, then `devcoach sync init` again with the passphrase",
            path.display()
        ))
    })?;
    Key::parse(&text)
}

fn save_key(dir: &DataDir, key: &Key) -> Result<(), SyncError> {
    let path = key_path(dir);
    folder::write_new(&path, key.secret().as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| SyncError::Folder(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// Sets sync up: `target` is a folder (made if missing) or a git remote (cloned). A folder or
/// repository that already holds a devcoach sync is joined (its passphrase opens its key); one
/// holding anything else is refused.
pub fn init(store: &mut Store, dir: &DataDir, target: &str, options: &InitOptions) -> Result<InitReport, SyncError> {
    store.check_writable()?;
    if let Some(config) = config(store)? {
        let same = match &config.transport {
            Transport::Git(url) => url == target.trim(),
            Transport::Folder(path) => std::path::absolute(expand_home(target)).is_ok_and(|p| &p == path),
        };
        if same {
            return Ok(InitReport { config, joined: true, already: true, resumed: false });
        }
        return Err(SyncError::Setup(format!(
            "sync is already set up here ({}); run `devcoach sync off` first to change it",
            config.transport.describe()
        )));
    }
    if let Some(why) = git::unsupported(target) {
        return Err(SyncError::Setup(why));
    }
    let _lock = lock(dir)?;
    // A clone left by an earlier attempt (a wrong passphrase, another URL) is not ours to keep.
    if git::Repo::origin(&repo_dir(dir)).is_some_and(|url| url != target.trim()) {
        let _ = std::fs::remove_dir_all(repo_dir(dir));
    }
    let (transport, root) = if git::is_remote(target) {
        let repo = git::Repo::open(&repo_dir(dir), target.trim())?;
        if repo.is_foreign() {
            let _ = std::fs::remove_dir_all(repo_dir(dir));
            return Err(SyncError::Setup(format!(
                "{target} holds files that are not devcoach's; give devcoach a repository of its own (an empty private one)"
            )));
        }
        (Transport::Git(target.trim().to_owned()), repo_dir(dir))
    } else {
        let path = std::path::absolute(expand_home(target)).map_err(|e| SyncError::Setup(format!("{target}: {e}")))?;
        if path.starts_with(dir.root()) {
            return Err(SyncError::Setup("the sync folder cannot be inside devcoach's own data folder".into()));
        }
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {
                let empty = std::fs::read_dir(&path).is_ok_and(|mut e| e.next().is_none());
                if !empty && !path.join(folder::MARKER).exists() {
                    return Err(SyncError::Setup(format!(
                        "{} holds files that are not devcoach's; give an empty folder (or one another devcoach set up)",
                        path.display()
                    )));
                }
            }
            Ok(_) => return Err(SyncError::Setup(format!("{} is not a folder", path.display()))),
            Err(_) => std::fs::create_dir_all(&path)
                .map_err(|e| SyncError::Setup(format!("cannot create {}: {e}", path.display())))?,
        }
        (Transport::Folder(path.clone()), path)
    };
    let existing = folder::read_marker(&root)?;
    let joined = existing.is_some();
    let key = match &existing {
        Some(marker) if marker.encrypted => {
            let passphrase = options.passphrase.as_deref().ok_or(SyncError::NeedPassphrase)?;
            let sealed = devcoach_files::read(&root.join(folder::KEY_FILE), 64 * 1024, devcoach_files::Links::Refuse)
                .map_err(|e| {
                SyncError::Folder(format!("the folder is encrypted but its key file is unreadable: {e}"))
            })?;
            let key = Key::unseal(&sealed, passphrase)?;
            if marker.recipient.as_deref() != Some(key.recipient().as_str()) {
                return Err(SyncError::Key(
                    "the folder's marker names another key than the one its passphrase opens: the folder was changed by someone else; nothing was set up".into(),
                ));
            }
            Some(key)
        }
        // A marker that says plain over a folder holding a sealed key: someone rewrote the
        // marker, and joining would send this record in the clear.
        Some(_) if holds_sealed(&root) => {
            return Err(SyncError::Key(format!(
                "{} says the folder is not encrypted, but the folder holds encrypted files: the marker was changed by someone else; nothing was set up and nothing was sent",
                folder::MARKER
            )));
        }
        Some(_) if options.encrypt => {
            return Err(SyncError::Setup(
                "this sync folder is not encrypted and other devices use it as it is; pick a new folder for an encrypted sync".into(),
            ));
        }
        // A passphrase given for a folder that says plain: whoever gave it expects an encrypted
        // folder, and one stripped of its key and sealed files looks exactly like this. Joining
        // would send this record in the clear.
        Some(_) if options.passphrase.is_some() => {
            return Err(SyncError::Key(
                "a passphrase was given, but this sync folder is not encrypted: if it was, someone removed its key and sealed files. Nothing was set up and nothing was sent; to join a plain folder, give no passphrase".into(),
            ));
        }
        None if options.passphrase.is_some() && !options.encrypt => {
            return Err(SyncError::Setup(
                "a passphrase was given without --encrypt: add --encrypt to set up an encrypted sync, or give no passphrase for a plain one; nothing was set up".into(),
            ));
        }
        None if options.encrypt => {
            let passphrase = options.passphrase.as_deref().ok_or(SyncError::NeedPassphrase)?;
            let key = Key::generate();
            folder::write_new(&root.join(folder::KEY_FILE), &key.seal(passphrase)?)?;
            Some(key)
        }
        Some(_) | None => None,
    };
    if existing.is_none() {
        let marker = Marker::new(key.as_ref());
        folder::write_new(&root.join(folder::MARKER), &serde_json::to_vec_pretty(&marker).unwrap_or_default())?;
    }
    if let Some(key) = &key {
        save_key(dir, key)?;
    }
    let (kind, target_text) = match &transport {
        Transport::Folder(p) => ("folder", p.display().to_string()),
        Transport::Git(url) => ("git", url.clone()),
    };
    // Back to where this device synced before `sync off`: the same device, its marks kept, so
    // what changed here meanwhile is sent as this device's, not lost to a join.
    let state = store.sync_state()?;
    let parked = |k: &str| state.get(&format!("parked_{k}")).cloned();
    // The same place, the same data folder, and the same folder behind it (a folder made again
    // at the same path, with another key, is another sync).
    let recipient = key.as_ref().map(Key::recipient);
    let resume = parked("target").as_deref() == Some(target_text.as_str())
        && parked("transport").as_deref() == Some(kind)
        && parked("fingerprint").as_deref() == Some(fingerprint(dir).as_str())
        && parked("recipient") == recipient
        && joined;
    let device = match parked("device").filter(|_| resume).and_then(|d| DeviceId::new(&d).ok()) {
        Some(device) => device,
        None => new_device()?,
    };
    let name = options.name.clone().or_else(|| parked("name")).unwrap_or_else(host_name);
    let every = options.every_minutes.unwrap_or(DEFAULT_EVERY_MINUTES).to_string();
    let fp = fingerprint(dir);
    let mut pairs: Vec<(String, Option<String>)> = vec![
        ("transport".into(), Some(kind.into())),
        ("target".into(), Some(target_text.clone())),
        ("device".into(), Some(device.to_string())),
        ("name".into(), Some(name.clone())),
        ("encrypted".into(), Some(if key.is_some() { "yes" } else { "no" }.into())),
        ("every".into(), Some(every)),
        ("fingerprint".into(), Some(fp)),
        ("recipient".into(), recipient),
        (SYNC_JOINING.into(), (!resume || parked(SYNC_JOINING).as_deref() == Some("yes")).then(|| "yes".to_owned())),
    ];
    pairs.extend(PARKED.iter().map(|k| (format!("parked_{k}"), None)));
    if !resume {
        let _ = std::fs::remove_dir_all(sync_dir(dir).join("sent"));
        let _ = std::fs::remove_dir_all(sync_dir(dir).join("kept"));
    }
    let pairs: Vec<(&str, Option<&str>)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_deref())).collect();
    store.set_sync_state(&pairs, !resume)?;
    Folder { root: root.clone(), key: key.as_ref(), sent: None }
        .write_device_info(&DeviceInfo { device: device.clone(), name: name.clone() })?;
    let config = config(store)?.ok_or(SyncError::NotSetUp)?;
    Ok(InitReport { config, joined, already: false, resumed: resume })
}

/// Turns sync off here: forgets the device, its key and its clone. The shared folder is left as
/// it is (other devices use it); this device's files stay in it.
pub fn off(store: &mut Store, dir: &DataDir) -> Result<bool, SyncError> {
    let was = config(store)?.is_some();
    let _lock = lock(dir)?;
    if was {
        // Parked, not forgotten: `sync init` to the same place resumes as the same device.
        let state = store.sync_state()?;
        let mut pairs: Vec<(String, Option<String>)> = Vec::new();
        for key in PARKED {
            pairs.push((format!("parked_{key}"), state.get(key).cloned()));
            pairs.push((key.to_owned(), None));
        }
        for key in ["last_error", "last_attempt"] {
            pairs.push((key.to_owned(), None));
        }
        let pairs: Vec<(&str, Option<&str>)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_deref())).collect();
        store.set_sync_state(&pairs, false)?;
    }
    // Writes stop being noted for sync; a later `sync init` compares every record once.
    store.sync_stop_tracking()?;
    let _ = std::fs::remove_dir_all(repo_dir(dir));
    let _ = std::fs::remove_file(key_path(dir));
    Ok(was)
}

/// Whether sync may be set up in this data folder, asked of the file system alone: `false` means
/// it never was (no `sync/` folder), so an everyday command need not open the database to ask
/// [`due`].
pub fn may_be_on(dir: &DataDir) -> bool {
    sync_dir(dir).is_dir()
}

/// Whether a background sync is due: sync is on, syncs every few minutes, and the last one (or
/// its last attempt) is older than that.
pub fn due(store: &Store, now: DateTime<Utc>) -> bool {
    let Ok(Some(config)) = config(store) else { return false };
    if config.every_minutes == 0 {
        return false;
    }
    let attempted = store.sync_state().ok().and_then(|s| s.get("last_attempt").and_then(|v| parse_timestamp(v).ok()));
    let last = config.last_sync.max(attempted);
    last.is_none_or(|at| now - at >= chrono::Duration::minutes(i64::from(config.every_minutes)))
}

struct Opened {
    config: Config,
    key: Option<Key>,
    root: PathBuf,
    repo: Option<git::Repo>,
}

fn open(store: &Store, dir: &DataDir) -> Result<Opened, SyncError> {
    let config = config(store)?.ok_or(SyncError::NotSetUp)?;
    let key = if config.encrypted { Some(read_key(dir)?) } else { None };
    let (root, repo) = match &config.transport {
        Transport::Folder(path) => (path.clone(), None),
        Transport::Git(url) => {
            let repo = git::Repo::open(&repo_dir(dir), url)?;
            (repo.dir.clone(), Some(repo))
        }
    };
    Ok(Opened { config, key, root, repo })
}

fn check_marker(opened: &Opened) -> Result<(), SyncError> {
    let marker = folder::read_marker(&opened.root)?.ok_or_else(|| {
        SyncError::Folder(format!(
            "{} holds no {} (is the folder there, mounted, synced?); nothing was changed",
            opened.root.display(),
            folder::MARKER
        ))
    })?;
    if marker.encrypted != opened.config.encrypted
        || (marker.encrypted && marker.recipient != opened.key.as_ref().map(Key::recipient))
    {
        return Err(SyncError::Key(
            "the sync folder's marker no longer matches this device's key (the folder was replaced or changed by someone else); nothing was changed — run `devcoach sync off` and `sync init` again if it was you".into(),
        ));
    }
    Ok(())
}

/// One sync: fetch (git), read every device's files, log this device's changes, apply the
/// others', push (git). `progress` hears (files read, files in all) while the folder is read.
pub fn sync(
    store: &mut Store,
    dir: &DataDir,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SyncReport, SyncError> {
    store.check_writable()?;
    let _lock = lock(dir)?;
    let _ = store.set_sync_state(&[("last_attempt", Some(&iso_ms(now)))], false);
    let result = sync_locked(store, dir, now, progress);
    let error = result.as_ref().err().map(ToString::to_string);
    let _ = store.set_sync_state(&[("last_error", error.as_deref())], false);
    // Stops a hook left while this sync held the database are counted now, not at the next stop.
    let _ = store.count_waiting_stops(now);
    result
}

fn sync_locked(
    store: &mut Store,
    dir: &DataDir,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SyncReport, SyncError> {
    let mut report = SyncReport::default();
    let mut opened = open(store, dir)?;
    // A copied data folder: the copy becomes a new device (what it had stays applied).
    let fp = fingerprint(dir);
    if store.sync_state()?.get("fingerprint") != Some(&fp) {
        rekey(store, &mut opened.config, &mut report, Renamed::Copied)?;
        store.set_sync_state(&[("fingerprint", Some(&fp))], false)?;
    }
    // Encrypted, a commit names nothing the files hide (not even the device's name).
    let message = if opened.config.encrypted {
        "devcoach sync".to_owned()
    } else {
        format!("devcoach sync from {} ({})", opened.config.name, opened.config.device)
    };
    if let Some(repo) = &opened.repo {
        repo.recover()?;
        // Whatever an earlier sync left uncommitted (killed between `add` and `commit`) goes
        // in first, so the rebase starts from a clean clone.
        repo.commit_all(&message)?;
        repo.pull()?;
    }
    check_marker(&opened)?;
    // Round after round, each its own transaction, until every new file is applied: a round
    // reads at most SYNC_ROUND_CHANGES changes, so memory stays bounded whatever the folder holds
    // (an agent's stop hook does not wait for a round: it leaves its stop to be counted after).
    let named = loop {
        let read_before = report.read;
        report.rounds += 1;
        let (more, named, tried_failures, comparing) = round(store, dir, &mut opened, &mut report, now, progress)?;
        // Each round applies (and so knows) every file it read, and remembers every one that did
        // not read: a round that did neither is the last, unless a comparison of everything
        // this device holds goes on (a round's worth of changes at a time).
        if !comparing && (!more || (report.read == read_before && !tried_failures)) {
            break named;
        }
    };
    if write_snapshot(store, dir, &opened, now)? {
        report.snapshot = true;
    }
    forget_superseded(store, dir, &opened)?;
    // After the rounds, and after what snapshots superseded is forgotten (so a file a snapshot
    // replaced is not put back):
    // every file this data folder wrote or applied goes back into the folder if it left it or
    // was cut short there (moved, evicted by a sync tool, an old copy of the folder restored):
    // same name, same bytes, so nothing forks and the others can still read it.
    // Once a day the bytes are compared too, not only the sizes: a file swapped for other bytes
    // of the same size (a disk, or the folder's writer) would otherwise keep every device that
    // joins later from ever reading it.
    let verified: Option<DateTime<Utc>> = store.sync_state()?.get("verified_at").and_then(|v| parse_timestamp(v).ok());
    let thorough = verified.is_none_or(|at| now - at >= chrono::Duration::days(1) || at > now);
    for (kind, ids) in [("sent", copy_ids(dir, "sent")), ("kept", copy_ids(dir, "kept"))] {
        for id in ids {
            let copies = if kind == "sent" { sent_dir(dir, &id) } else { kept_dir(dir, &id) };
            let folder = Folder { root: opened.root.clone(), key: opened.key.as_ref(), sent: None };
            folder.clean_own(&id);
            match folder.restore_from(&id, &copies, thorough) {
                Ok(_) => {}
                // Another device's folder replaced by a link (or unwritable) is that device's
                // problem to report, not a reason for this sync to fail.
                Err(e) if id != opened.config.device => {
                    report.problems.push(Problem {
                        path: opened.root.join(folder::DEVICES).join(id.as_str()),
                        what: e.to_string(),
                    });
                }
                Err(e) => return Err(e),
            }
        }
    }
    if thorough {
        store.set_sync_state(&[("verified_at", Some(&iso_ms(now)))], false)?;
    }
    let device = opened.config.device.clone();
    let folder = Folder { root: opened.root.clone(), key: opened.key.as_ref(), sent: Some(sent_dir(dir, &device)) };
    if !named || report.renamed.is_some() {
        folder.write_device_info(&DeviceInfo { device: device.clone(), name: opened.config.name.clone() })?;
    }
    if let Some(repo) = &opened.repo {
        report.pushed = repo.push(&message)?;
    }
    store.set_sync_state(&[("last_sync", Some(&iso_ms(now))), (SYNC_JOINING, None)], false)?;
    Ok(report)
}

/// How the store records a file this device wrote with `header`.
fn written_mark(header: &Header, digest: &str, encrypted: bool) -> Mark {
    Mark {
        device: header.device.to_string(),
        digest: digest.to_owned(),
        name: Some(folder::segment_name(header.first, digest, encrypted)),
        first: header.first,
        last: header.last,
        written_at: Some(header.written_at.clone()),
        snapshot: header.snapshot,
    }
}

/// Writes a snapshot of this device's changes once it has written enough files since its last
/// one: every change of its own files that still counts in the records here, unchanged, in
/// parts of at most a file's worth; then its older files add nothing ([`forget_superseded`]
/// removes them). Own files are read one at a time, twice (to count the parts, then to write
/// them), so memory stays at a file's worth. Whether one was written.
fn write_snapshot(store: &mut Store, dir: &DataDir, opened: &Opened, now: DateTime<Utc>) -> Result<bool, SyncError> {
    use devcoach_core::sync::segment::SnapshotPart;
    use limits::{SYNC_FILE_CHANGES, SYNC_SEGMENT_BYTES, SYNC_SNAPSHOT_AFTER_FILES};
    let device = &opened.config.device;
    let sent = sent_dir(dir, device);
    let snaps = honored_snapshots(store, dir, device)?;
    let parts_now = snaps.get(device.as_str()).map(|(_, names)| names.clone()).unwrap_or_default();
    let Ok(entries) = std::fs::read_dir(&sent) else { return Ok(false) };
    let mut own: Vec<(u64, String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            folder::parse_segment_name(&name).is_some().then(|| (0, name, e.path()))
        })
        .collect();
    let since = own.iter().filter(|(_, name, _)| !parts_now.contains(name)).count();
    let after: usize = store
        .sync_state()?
        .get("snapshot_after")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| SYNC_SNAPSHOT_AFTER_FILES.max(2 * parts_now.len()));
    if since < after.max(1) {
        return Ok(false);
    }
    let folder = Folder { root: opened.root.clone(), key: opened.key.as_ref(), sent: Some(sent.clone()) };
    let now_ms = now.timestamp_millis();
    let none = folder::KnownFiles::new();
    let read = |path: &std::path::Path| folder.read_copy(device, path, now_ms, &none);
    // In the order the device numbered them (an earlier snapshot's parts first).
    // A copy of its own that does not read leaves a snapshot out: it would leave that file's
    // changes out too, and then take the file away.
    for file in &mut own {
        match read(&file.2) {
            Some(f) => file.0 = f.first,
            None => return Ok(false),
        }
    }
    own.sort();
    // First pass: what each part will hold (changes, about half a file's bytes at most).
    // Each change once, in its number's order: own files may overlap (the parts of an earlier
    // snapshot, or of one a failed sync left half written, beside the files they replaced);
    // read by where they start, a change numbered at or below the last one taken is already
    // in (a part holds every change of its range that still counted when it was written).
    let (mut sizes, mut count, mut bytes, mut upto, mut prev, mut through) =
        (Vec::new(), 0usize, 0usize, 0u64, None, 0u64);
    for (_, _, path) in &own {
        let Some(file) = read(path) else { return Ok(false) };
        upto = upto.max(file.last);
        prev = Some(file.digest.clone());
        let keep = store.sync_still_counting(&file.ops)?;
        for (op, kept) in file.ops.iter().zip(keep) {
            if !kept || op.seq <= through {
                continue;
            }
            through = op.seq;
            let size = serde_json::to_string(&op.change).map_or(0, |t| t.len()) + op.key.len() + 128;
            if count > 0 && (count >= SYNC_FILE_CHANGES || bytes + size > SYNC_SEGMENT_BYTES / 2) {
                sizes.push(count);
                (count, bytes) = (0, 0);
            }
            count += 1;
            bytes += size;
        }
    }
    if count > 0 || sizes.is_empty() {
        sizes.push(count);
    }
    let parts = u32::try_from(sizes.len()).unwrap_or(u32::MAX);
    if upto == 0 || parts > limits::SYNC_SNAPSHOT_PARTS {
        return Ok(false);
    }
    // Second pass: the parts, each written (own copy first) as soon as it is full.
    let encrypted = folder.key.is_some();
    let mut marks = Vec::new();
    let mut buffer: Vec<Op> = Vec::new();
    let written = std::cell::Cell::new(0u32);
    let mut flush = |buffer: &mut Vec<Op>, prev: &mut Option<String>| -> Result<(), SyncError> {
        written.set(written.get() + 1);
        let part = written.get();
        // A part without a change (nothing of this device's still counts) names the end alone.
        let (first, last) = match (buffer.first(), buffer.last()) {
            (Some(f), Some(l)) => (f.seq, l.seq),
            _ => (upto, upto),
        };
        let header = Header::snapshot(
            device.clone(),
            first,
            last,
            prev.clone(),
            iso_ms(now),
            SnapshotPart { upto, part, parts },
        );
        let digest = folder.write_segment(&header, buffer)?;
        marks.push(written_mark(&header, &digest, encrypted));
        *prev = Some(digest);
        buffer.clear();
        Ok(())
    };
    let mut sizes = sizes.into_iter();
    let mut want = sizes.next().unwrap_or(0);
    let mut through = 0u64;
    for (_, _, path) in &own {
        let Some(file) = read(path) else { return Ok(false) };
        let keep = store.sync_still_counting(&file.ops)?;
        for (op, kept) in file.ops.into_iter().zip(keep) {
            if !kept || op.seq <= through {
                continue;
            }
            through = op.seq;
            buffer.push(op);
            if buffer.len() >= want {
                flush(&mut buffer, &mut prev)?;
                want = sizes.next().unwrap_or(usize::MAX);
            }
        }
    }
    if written.get() < parts {
        flush(&mut buffer, &mut prev)?;
    }
    // Every part reads back as written before the snapshot counts (and the older files go): a
    // part that did not would take their changes with it.
    let sent_copies = sent_dir(dir, device);
    let whole = marks.iter().all(|m| {
        m.name.as_ref().is_some_and(|name| {
            read(&sent_copies.join(name)).is_some_and(|f| f.digest == m.digest && f.snapshot == m.snapshot)
        })
    });
    if !whole {
        for name in marks.iter().filter_map(|m| m.name.as_ref()) {
            let _ = std::fs::remove_file(sent_copies.join(name));
            folder.remove_own(device, name);
        }
        return Ok(false);
    }
    store.sync_record_files(&marks)?;
    Ok(true)
}

/// The complete snapshots this data folder goes by, the newest per device: under this
/// device's own id only one it wrote itself (every part among its own copies), since in a plain
/// folder anyone can write one in its name and its own copies are what puts its files back.
fn honored_snapshots(store: &Store, dir: &DataDir, device: &DeviceId) -> Result<folder::Superseded, SyncError> {
    let sent = sent_dir(dir, device);
    let mut out = folder::Superseded::new();
    for (id, seen) in store.sync_snapshots()? {
        let own = id == device.as_str();
        let ours = |name: &str| !own || sent.join(name).is_file();
        if let Some((upto, names)) = seen.iter().find_map(|s| s.complete(ours).map(|names| (s.upto, names))) {
            out.insert(id, (upto, names));
        }
    }
    Ok(out)
}

/// Drops what complete snapshots supersede: this data folder's copies of the older files (so
/// they are never put back) and, for this device's own snapshot, the older files themselves
/// from the folder. What the store knows of them stays, so such a file put back by someone is
/// known and never read again.
fn forget_superseded(store: &mut Store, dir: &DataDir, opened: &Opened) -> Result<(), SyncError> {
    let device = &opened.config.device;
    let folder = Folder { root: opened.root.clone(), key: opened.key.as_ref(), sent: None };
    for (id, (upto, parts)) in honored_snapshots(store, dir, device)? {
        let Ok(id) = DeviceId::new(&id) else { continue };
        let own = id == *device;
        for name in store.sync_superseded(id.as_str(), upto, &parts)? {
            let copies = if own { sent_dir(dir, &id) } else { kept_dir(dir, &id) };
            let _ = std::fs::remove_file(copies.join(&name));
            if own {
                folder.remove_own(&id, &name);
            }
        }
    }
    Ok(())
}

/// One round of a sync: reads the files not applied yet (up to a round's worth of changes),
/// logs what changed here, applies everything, in one transaction. Returns whether files wait
/// for another round, whether this device's name file is in the folder, whether files that
/// do not read were tried (and are remembered now), and whether a comparison of everything
/// goes on in the next round.
fn round(
    store: &mut Store,
    dir: &DataDir,
    opened: &mut Opened,
    report: &mut SyncReport,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(bool, bool, bool, bool), SyncError> {
    let now_ms = now.timestamp_millis();
    let marks = store.sync_marks()?;
    let recorded: BTreeSet<(String, String)> = marks.iter().map(|m| (m.device.clone(), m.digest.clone())).collect();
    // Until the store's records hold every applied file's changes (the first sync of this
    // build), every file is read; after that, only the ones not applied yet.
    let ready = store.sync_records_ready()?;
    let known = if ready { known_files(&marks) } else { folder::KnownFiles::new() };
    drop(marks);
    let joining = store.sync_joining()?;
    // A store an earlier build synced reads every file it applied once, in one round, to build
    // its records; otherwise a round reads at most a round's worth of new changes.
    let budget = if !ready && !recorded.is_empty() { usize::MAX } else { SYNC_ROUND_CHANGES };
    let mut device = opened.config.device.clone();
    let folder = Folder { root: opened.root.clone(), key: opened.key.as_ref(), sent: Some(sent_dir(dir, &device)) };
    let failed_before = failed_files(store);
    let (mut contents, written_here) = gather(
        &folder,
        dir,
        &recorded,
        &folder::ReadPlan { known: &known, failed: &failed_before, budget, retry: true },
        now_ms,
        progress,
    )?;
    // Files that did not read count as this round's work: the next round skips them.
    let tried_failures = contents.failed != failed_before;
    // What did not read is remembered as it lies, so the next sync (and status, and doctor)
    // does not read it again until it changes.
    let failed: Vec<_> = contents
        .failed
        .iter()
        .map(|((device, name), f)| (device.clone(), name.clone(), f.len, f.modified, f.what.clone(), f.retry_at))
        .collect();
    store.set_sync_failed(&failed)?;
    // A file is applied here when it is recorded, or when this data folder wrote it (a sync
    // killed after writing it and before committing: its changes came from this store).
    let applied_here = |id: &DeviceId, f: &folder::FileRead| {
        recorded.contains(&(id.to_string(), f.digest.clone()))
            || written_here.contains(&(id.to_string(), f.name.clone()))
    };
    // A file under this device's id that it never wrote: another machine writes as it (a cloned
    // disk keeps even the database file's identity). That file is read like any other device's;
    // this machine goes on under a new id, so the two stop sharing one.
    // At most once a week, though: in a plain folder anyone can write under any id, and each
    // forged file would otherwise fork this device again. Within the week such a file is read
    // like any other device's (every device then applies it alike, so none splits from the
    // others), and this device goes on under its id.
    if contents.devices.get(&device).is_some_and(|log| log.files.iter().any(|f| !applied_here(&device, f))) {
        let last: Option<DateTime<Utc>> = store.sync_state()?.get("renamed_at").and_then(|v| parse_timestamp(v).ok());
        if last.is_none_or(|at| now - at >= chrono::Duration::days(REKEY_EVERY_DAYS)) {
            rekey(store, &mut opened.config, report, Renamed::SharedId)?;
            store.set_sync_state(&[("renamed_at", Some(&iso_ms(now)))], false)?;
            device = opened.config.device.clone();
        }
    }
    let folder = Folder { root: opened.root.clone(), key: opened.key.as_ref(), sent: Some(sent_dir(dir, &device)) };
    report.problems = contents.problems;
    report.devices = contents.devices.len().max(1);
    let more = contents.deferred > 0;
    let mut history: Vec<Op> = Vec::new();
    let mut incoming: Vec<Op> = Vec::new();
    let mut new_marks = Vec::new();
    let mut incoming_marks = Vec::new();
    // Counted once the round takes them in (a round may hold them back: see below).
    let mut incoming_files = 0;
    let mut clock: Hlc =
        store.sync_state()?.get("clock").and_then(|c| serde_json::from_str(c).ok()).unwrap_or_default();
    let mark = |id: &DeviceId, file: &folder::FileRead| Mark {
        device: id.to_string(),
        digest: file.digest.clone(),
        name: Some(file.name.clone()),
        first: file.first,
        last: file.last,
        written_at: Some(file.written_at.clone()),
        snapshot: file.snapshot,
    };
    // The files this data folder wrote under the id, as (first, last, digest): one written there
    // by anyone else (forged, or a machine sharing the id) sets neither our numbers nor our chain.
    let mut own: Vec<(u64, u64, String)> = Vec::new();
    for (id, log) in &mut contents.devices {
        for file in &mut log.files {
            if file.deferred {
                continue;
            }
            if *id == device && written_here.contains(&(id.to_string(), file.name.clone())) {
                own.push((file.first, file.last, file.digest.clone()));
            }
            if file.known {
                continue;
            }
            clock = file.ops.iter().map(|o| o.at).fold(clock, Hlc::observe);
            let ops = std::mem::take(&mut file.ops);
            if applied_here(id, file) {
                // Applied, but not (or not yet) in the store's records: the first sync of this
                // build, an earlier build's mark without a name, or a file of ours a killed
                // round wrote and did not record.
                let recorded_here = recorded.contains(&(id.to_string(), file.digest.clone()));
                if *id == device && !recorded_here && file.snapshot.is_none() {
                    // Left by a round that failed after writing it (and said nothing was
                    // sent): its changes go out with this sync, so they count as sent now.
                    report.logged += ops.len();
                }
                if !ready || !recorded_here {
                    history.extend(ops);
                }
                report.read += 1;
                new_marks.push(mark(id, file));
            } else {
                incoming.extend(ops);
                // Kept before it counts as applied: a kept file counts only once recorded.
                folder.keep(&kept_dir(dir, id), file);
                incoming_files += 1;
                incoming_marks.push(mark(id, file));
            }
        }
    }
    let received = incoming.len();
    // Numbers never repeat for this id: past every file of it in the folder and every one noted.
    let noted: u64 = store.sync_state()?.get("seq").and_then(|v| v.parse().ok()).unwrap_or(0);
    let next_seq = own.iter().map(|o| o.1).max().unwrap_or(0).max(noted).saturating_add(1);
    let prev = own.iter().max_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2))).map(|o| o.2.clone());
    let named = contents.devices.get(&device).is_some_and(|l| l.name.is_some());
    drop(contents.devices);
    // A join compares what this device holds only once the whole folder is applied, so the
    // folder's records win where both hold one.
    // Once that comparison has begun, it goes on (files that came meanwhile are taken in as it
    // goes, the folder still winning for the rows it has not reached).
    let compare = !(joining && more) || store.sync_comparing()?;
    let round = SyncRound {
        device: &device,
        next_seq,
        clock,
        now_ms,
        history,
        incoming,
        marks: new_marks,
        incoming_marks,
        joining,
        compare,
    };
    let encrypted = folder.key.is_some();
    let outcome = store.sync_round(round, |ops| {
        // Several files when there is more than one file may hold, chained and numbered on.
        let mut marks = Vec::new();
        let (mut first, mut prev) = (next_seq, prev.clone());
        for run in devcoach_core::sync::segment::split(ops) {
            let last = first + run.len() as u64 - 1;
            let header = Header::new(device.clone(), first, last, prev.clone(), iso_ms(now));
            let digest = folder
                .write_segment(&header, run)
                .map_err(|e| format!("writing this device's changes failed; nothing was applied — {e}"))?;
            marks.push(written_mark(&header, &digest, encrypted));
            (first, prev) = (last + 1, Some(digest));
        }
        Ok(marks)
    })?;
    if !outcome.held {
        report.read += incoming_files;
        report.received += received;
    }
    report.logged += outcome.logged.len();
    report.written += outcome.written;
    report.refused = outcome.refused;
    if !outcome.logged.is_empty() {
        let seq = (next_seq + outcome.logged.len() as u64 - 1).to_string();
        store.set_sync_state(&[("seq", Some(&seq))], false)?;
    }
    Ok((more, named, tried_failures, outcome.more))
}

/// Where sync stands, read from the folder as it is here (no fetch).
pub fn status(store: &Store, dir: &DataDir) -> Result<Status, SyncError> {
    let opened = open(store, dir)?;
    let marks = store.sync_marks()?;
    let recorded: BTreeSet<(String, String)> = marks.iter().map(|m| (m.device.clone(), m.digest.clone())).collect();
    // The files applied here are listed from what the store recorded, never read again.
    let known = known_files(&marks);
    drop(marks);
    let folder = Folder { root: opened.root.clone(), key: opened.key.as_ref(), sent: None };
    let mut problems = Vec::new();
    let reachable = match check_marker(&opened) {
        Ok(()) => true,
        Err(e) => {
            // Shown after the path: the message does not name it again.
            let what = e.to_string();
            let what = what.strip_prefix(&format!("{} ", opened.root.display())).map_or(what.clone(), str::to_owned);
            problems.push(Problem { path: opened.root.clone(), what });
            false
        }
    };
    let (contents, written_here) = gather(
        &folder,
        dir,
        &recorded,
        &folder::ReadPlan { known: &known, failed: &failed_files(store), budget: SYNC_ROUND_CHANGES, retry: false },
        Utc::now().timestamp_millis(),
        &mut |_, _| {},
    )?;
    problems.extend(contents.problems);
    let device = &opened.config.device;
    let mut devices = Vec::new();
    for (id, log) in &contents.devices {
        let mut done = 0;
        for file in &log.files {
            let key = (id.to_string(), file.digest.clone());
            if recorded.contains(&key) || written_here.contains(&(id.to_string(), file.name.clone())) {
                done += 1;
            }
        }
        let own_dir = opened.root.join(folder::DEVICES).join(id.as_str());
        devices.push(DeviceStatus {
            device: id.clone(),
            name: log.name.clone(),
            this: id == device,
            files: log.files.len(),
            applied: done,
            written_at: log.written_at().map(str::to_owned),
            blocked: problems.iter().any(|p| p.path.starts_with(&own_dir)),
        });
    }
    if !devices.iter().any(|d| d.this) {
        devices.push(DeviceStatus {
            device: device.clone(),
            name: Some(opened.config.name.clone()),
            this: true,
            files: 0,
            applied: 0,
            written_at: None,
            blocked: false,
        });
    }
    // This device first, then the others by name.
    devices.sort_by(|a, b| (!a.this, &a.name, &a.device).cmp(&(!b.this, &b.name, &b.device)));
    // Without the folder, what is waiting cannot be told from what was sent.
    let pending = if reachable { Some(store.sync_pending()?) } else { None };
    let joining = store.sync_state()?.get(SYNC_JOINING).is_some_and(|v| v == "yes");
    Ok(Status {
        config: opened.config,
        devices,
        pending,
        refused: store.sync_refused()?,
        refused_records: store.sync_refused_records(REFUSED_NAMED)?,
        problems,
        joining,
    })
}

/// How bad a [`health`] finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Ok,
    Info,
    Warn,
    Bad,
}

/// What `doctor` says about sync, read without changing anything (no fetch, no clone).
pub fn health(store: &Store, dir: &DataDir, now: DateTime<Utc>) -> Vec<(Health, String)> {
    let mut out = Vec::new();
    // A database only the TypeScript build has written has no sync table: off.
    let Ok(Some(config)) = config(store) else {
        out.push((
            Health::Info,
            "sync off: `devcoach sync init <folder|git-url>` keeps one record on all your machines".into(),
        ));
        return out;
    };
    let how = if config.encrypted { ", end-to-end encrypted" } else { "" };
    let last = config.last_sync.map_or_else(|| "never synced".to_owned(), |at| format!("last synced {}", iso_ms(at)));
    out.push((
        Health::Ok,
        format!("sync through {}{how}, as {} ({}); {last}", config.transport.describe(), config.name, config.device),
    ));
    let root = match &config.transport {
        Transport::Folder(path) => path.clone(),
        Transport::Git(_) => repo_dir(dir),
    };
    if !root.join(folder::MARKER).is_file() {
        let what = match &config.transport {
            Transport::Folder(p) => {
                format!("the sync folder {} is missing or not set up (unmounted, or not synced here yet?)", p.display())
            }
            Transport::Git(url) => format!("the clone of {url} is missing; the next `devcoach sync` clones it again"),
        };
        out.push((Health::Warn, what));
    }
    // Files in the folder that do not read, as `sync status` names them (read here, no fetch).
    if root.join(folder::MARKER).is_file() {
        let key = if config.encrypted { read_key(dir).ok() } else { None };
        if !config.encrypted || key.is_some() {
            let folder = Folder { root: root.clone(), key: key.as_ref(), sent: None };
            // Files applied here are not read again; of the others, at most a round's worth.
            let known = store.sync_marks().map(|marks| known_files(&marks)).unwrap_or_default();
            let failed = failed_files(store);
            let plan = folder::ReadPlan { known: &known, failed: &failed, budget: SYNC_ROUND_CHANGES, retry: false };
            if let Ok(contents) = folder.read_new(now.timestamp_millis(), &mut |_, _| {}, &plan)
                && let Some(first) = contents.problems.first()
            {
                let n = contents.problems.len();
                let more =
                    if n > 1 { format!(" (and {} more; see `devcoach sync status`)", n - 1) } else { String::new() };
                out.push((
                    Health::Warn,
                    format!(
                        "the sync folder holds a file that does not read: {} {}{more}",
                        first.path.display(),
                        first.what
                    ),
                ));
            }
        }
    }
    if config.encrypted && !key_path(dir).is_file() {
        out.push((Health::Bad, format!("the sync key is missing from {}: run `devcoach sync off`, then `devcoach sync init` again with the passphrase", key_path(dir).display())));
    }
    if let Some(e) = &config.last_error {
        out.push((Health::Warn, format!("the last sync failed: {e}")));
    } else if config.every_minutes > 0 && config.last_sync.is_some_and(|at| now - at > chrono::Duration::days(7)) {
        out.push((Health::Warn, "no sync for over a week: run `devcoach sync`".into()));
    }
    if let Ok(n) = store.sync_refused()
        && n > 0
    {
        out.push((
            Health::Warn,
            format!("{n} records from other devices could not be stored here (see `devcoach sync status`)"),
        ));
    }
    out
}
