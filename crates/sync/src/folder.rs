//! The shared folder's layout, the same whether another tool syncs it or it is a git clone:
//!
//! ```text
//! devcoach-sync.json            what the folder is: format, encrypted or not, the key's public half
//! key.age                       (encrypted mode) the folder's key, sealed with the passphrase
//! devices/<device>/device.json  the device's name (device.json.age when encrypted)
//! devices/<device>/<first>-<digest>.dcs[.age]   one file per sync that logged something
//! ```
//!
//! Each device writes only under its own `devices/<device>/`, and never changes a file once
//! written, so no two devices ever write the same file and a sync tool never sees a conflict.
//! Files are written under a hidden temporary name and renamed into place; hidden names are
//! never read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use devcoach_core::limits;
use devcoach_core::limits::{SYNC_CLOCK_AHEAD_MS, SYNC_DEVICE_FILES};
use devcoach_core::sync::segment::{self, Header, Segment, SegmentError};
use devcoach_core::sync::{DeviceId, Op};
use devcoach_files::{FileError, Links, Overwrite};
use serde::{Deserialize, Serialize};

use crate::SyncError;
use crate::crypt::{Key, Refused, Role};
use crate::error::PathProblem;

pub const MARKER: &str = "devcoach-sync.json";
pub const KEY_FILE: &str = "key.age";
pub const DEVICES: &str = "devices";
const MARKER_FORMAT: &str = "devcoach-sync";
/// The folder layout this build writes and the newest it reads.
pub const LAYOUT_VERSION: u32 = 1;
/// How many unpacked bytes count as one change of a round's budget: a round reads about 16 MiB
/// of text at most, whatever its files' changes hold.
const ROUND_BYTES_PER_CHANGE: usize = 8 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    pub format: String,
    pub version: u32,
    pub encrypted: bool,
    /// The public half of the folder's key (encrypted mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient: Option<String>,
}

impl Marker {
    pub fn new(key: Option<&Key>) -> Self {
        Self {
            format: MARKER_FORMAT.to_owned(),
            version: LAYOUT_VERSION,
            encrypted: key.is_some(),
            recipient: key.map(Key::recipient),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub device: DeviceId,
    pub name: String,
}

/// Something in the folder that was not read, and why; nothing of it was applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub what: String,
}

/// One file of a device's, read whole.
#[derive(Debug)]
pub struct FileRead {
    pub name: String,
    pub path: PathBuf,
    pub digest: String,
    /// The file's bytes as they lie in the folder (sealed, when encrypted), hashed: what a kept
    /// copy must match.
    pub raw_digest: String,
    pub first: u64,
    pub last: u64,
    pub written_at: String,
    pub ops: Vec<Op>,
    /// Applied here earlier and known by its name: not read again, `ops` left empty.
    pub known: bool,
    /// Not read this time (the round's changes were used up): only its name and path are set.
    pub deferred: bool,
    /// The part of a snapshot it is, if it is one (read files only).
    pub snapshot: Option<devcoach_core::sync::segment::SnapshotPart>,
}

/// A file applied here earlier, as the store recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    pub digest: String,
    pub first: u64,
    pub last: u64,
    pub written_at: String,
}

/// The files applied here, by device id and file name.
pub type KnownFiles = BTreeMap<(String, String), Known>;

/// A file that did not read, as it lay when it was tried: its size, its modification time (ns),
/// and why. Until either changes it is not read again; what it said is said again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub len: u64,
    pub modified: i64,
    pub what: String,
    /// When to try it again even unchanged (ms; 0: never): a file stamped ahead of this
    /// clock may read later.
    pub retry_at: i64,
}

/// How often a file stamped ahead of this machine's clock is tried again.
const AHEAD_RETRY_MS: i64 = 60 * 60 * 1000;

/// The files that did not read, by device id and file name.
pub type FailedFiles = BTreeMap<(String, String), Failed>;

/// What a read skips and how much it reads: files applied before, files that did not read and
/// have not changed since, and the changes a round may hold.
pub struct ReadPlan<'a> {
    pub known: &'a KnownFiles,
    pub failed: &'a FailedFiles,
    pub budget: usize,
    /// Whether a file stamped ahead of this clock is tried again once its hour is up (`sync`);
    /// `sync status` and `doctor` only say it again.
    pub retry: bool,
}

/// Per device id, its newest complete snapshot's end and parts.
pub type Superseded = BTreeMap<String, (u64, std::collections::BTreeSet<String>)>;

/// A file's size and modification time, as [`Failed`] keeps them.
fn stamp_of(path: &Path) -> Option<(u64, i64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some((meta.len(), i64::try_from(modified.as_nanos()).unwrap_or(i64::MAX)))
}

impl FileRead {
    fn from_known(name: String, path: PathBuf, known: &Known) -> Self {
        Self {
            name,
            path,
            digest: known.digest.clone(),
            raw_digest: String::new(),
            first: known.first,
            last: known.last,
            written_at: known.written_at.clone(),
            ops: Vec::new(),
            known: true,
            deferred: false,
            snapshot: None,
        }
    }

    fn from_segment(name: String, path: PathBuf, seg: Segment, raw_digest: String) -> Self {
        Self {
            name,
            path,
            digest: seg.digest,
            raw_digest,
            first: seg.header.first,
            last: seg.header.last,
            written_at: seg.header.written_at,
            snapshot: seg.header.snapshot,
            ops: seg.ops,
            known: false,
            deferred: false,
        }
    }

    fn deferred(name: String, path: PathBuf) -> Self {
        Self {
            name,
            path,
            digest: String::new(),
            raw_digest: String::new(),
            first: 0,
            last: 0,
            written_at: String::new(),
            ops: Vec::new(),
            known: false,
            deferred: true,
            snapshot: None,
        }
    }
}

/// Every file of one device's that reads. A file that does not is only named in a problem: the
/// merge is a function of the set of changes, so the others count whatever their order.
#[derive(Debug, Default)]
pub struct DeviceLog {
    pub name: Option<String>,
    /// By first sequence number.
    pub files: Vec<FileRead>,
}

impl DeviceLog {
    /// The highest sequence number in its files.
    pub fn last(&self) -> u64 {
        self.files.iter().map(|f| f.last).max().unwrap_or(0)
    }

    /// When its latest file was written (its own clock).
    pub fn written_at(&self) -> Option<&str> {
        self.files.iter().filter(|f| !f.deferred).max_by_key(|f| f.last).map(|f| f.written_at.as_str())
    }
}

/// Everything the folder holds.
#[derive(Debug, Default)]
pub struct Contents {
    pub devices: BTreeMap<DeviceId, DeviceLog>,
    pub problems: Vec<Problem>,
    /// Files not read this time because the round's changes were used up: the next round
    /// of the same sync reads them.
    pub deferred: usize,
    /// Every file that did not read (tried now, or remembered as it lay), for the store to keep.
    pub failed: FailedFiles,
}

/// A device's folder as listed: its files (name, sealed or not, path), and its name file.
type Planned = (DeviceId, Vec<(String, bool, PathBuf)>, Option<PathBuf>);

/// A shared folder, opened with the key when it is encrypted.
pub struct Folder<'a> {
    pub root: PathBuf,
    pub key: Option<&'a Key>,
    /// This device's own copy of every file it wrote (`<data>/sync/sent/<device>/`): what puts
    /// a file of ours back when it leaves the folder, and tells our files from a clone's.
    pub sent: Option<PathBuf>,
}

fn err(path: &Path, problem: PathProblem) -> SyncError {
    SyncError::Path { path: path.to_owned(), problem }
}

/// Reads the folder's marker; `None` when there is none.
pub fn read_marker(root: &Path) -> Result<Option<Marker>, SyncError> {
    let path = root.join(MARKER);
    let bytes = devcoach_files::read_optional(&path, limits::SYNC_SMALL_FILE_BYTES, Links::Refuse)?;
    let Some(bytes) = bytes else { return Ok(None) };
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| err(&path, PathProblem::NotJson))?;
    if value.get("format").and_then(serde_json::Value::as_str) != Some(MARKER_FORMAT) {
        return Err(err(&path, PathProblem::NotAMarker));
    }
    if let Some(v) = value.get("version").and_then(serde_json::Value::as_u64)
        && v > u64::from(LAYOUT_VERSION)
    {
        return Err(SyncError::NewerLayout { found: v, reads: LAYOUT_VERSION });
    }
    serde_json::from_value(value).map(Some).map_err(|e| err(&path, PathProblem::Damaged(e)))
}

pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), SyncError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| err(parent, PathProblem::CannotCreate(e)))?;
    }
    devcoach_files::write(path, bytes, Overwrite::Replace).map_err(SyncError::File)
}

/// A plain file is named by its first change and digest; an encrypted one by its digest alone,
/// so the host cannot count the changes in each file from the names.
pub fn segment_name(first: u64, digest: &str, encrypted: bool) -> String {
    if encrypted {
        format!("{}.dcs.age", &digest[..16.min(digest.len())])
    } else {
        format!("{first:012}-{}.dcs", &digest[..12.min(digest.len())])
    }
}

/// Whether a name is one [`segment_name`] makes; and whether it is sealed.
pub(crate) fn parse_segment_name(name: &str) -> Option<bool> {
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
    if let Some(stem) = name.strip_suffix(".dcs.age") {
        return (stem.len() == 16 && hex(stem)).then_some(true);
    }
    let (first, digest) = name.strip_suffix(".dcs")?.split_once('-')?;
    (first.len() == 12 && first.bytes().all(|b| b.is_ascii_digit()) && digest.len() == 12 && hex(digest))
        .then_some(false)
}

/// A device folder's name: the 16 hex digits devcoach makes ids of.
fn is_device_name(name: &str) -> bool {
    name.len() == 16 && name.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// `root/<parts…>`, each part a real folder (made when absent and `create`): never a link, so
/// whoever writes the shared folder or the remote cannot point devcoach's reads or writes
/// elsewhere. The root itself is the learner's choice and may be a link.
fn real_dir(root: &Path, parts: &[&str], create: bool) -> Result<PathBuf, SyncError> {
    let mut path = root.to_owned();
    for part in parts {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                match std::fs::create_dir(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(err(&path, PathProblem::CannotCreate(e))),
                }
                if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
                    return Err(err(&path, PathProblem::LinkOrNotFolder));
                }
            }
            Err(e) => return Err(err(&path, PathProblem::CannotRead(e))),
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(err(&path, PathProblem::LinkOrNotFolder));
            }
        }
    }
    Ok(path)
}

impl Folder<'_> {
    /// This device's folder, made when absent, checked to be a real folder all the way down.
    fn own_dir(&self, device: &DeviceId) -> Result<PathBuf, SyncError> {
        real_dir(&self.root, &[DEVICES, device.as_str()], true)
    }

    /// Writes one file into `device`'s folder, relative to the opened folders: never through a
    /// link, even one swapped in after [`Folder::own_dir`] looked.
    fn write_own(&self, device: &DeviceId, name: &str, bytes: &[u8]) -> Result<(), SyncError> {
        devcoach_files::write_below(&self.root, &[DEVICES, device.as_str()], name, bytes, Overwrite::Replace).map_err(
            |e| match e {
                FileError::NotRegular { path, .. } => err(&path, PathProblem::LinkOrNotFolder),
                other => SyncError::File(other),
            },
        )
    }

    fn seal(&self, role: Role, bytes: Vec<u8>) -> Result<Vec<u8>, SyncError> {
        match self.key {
            Some(key) => key.seal_file(role, &bytes),
            None => Ok(bytes),
        }
    }

    fn open(&self, role: Role, path: &Path, bytes: Vec<u8>, sealed: bool) -> Result<Vec<u8>, String> {
        match (self.key, sealed) {
            (Some(key), true) => key.open_file(role, &bytes).map_err(|e| match e {
                Refused::Undecryptable => "does not decrypt with this folder's key: cut short (still being copied?), changed, or sealed with another key; nothing from it was applied".to_owned(),
                Refused::Unsigned | Refused::Forged => "was not written by a device that holds this folder's key (anyone can encrypt to the folder, only its devices can sign); nothing from it was applied".to_owned(),
            }),
            (None, false) => Ok(bytes),
            (Some(_), false) => Err("is not encrypted, in an encrypted folder; it was not read".to_owned()),
            (None, true) => Err(format!("is encrypted, but this device syncs {} without a key", path.display())),
        }
    }

    /// Writes this device's name (once, or when it changed).
    pub fn write_device_info(&self, info: &DeviceInfo) -> Result<(), SyncError> {
        let name = if self.key.is_some() { "device.json.age" } else { "device.json" };
        let bytes = self.seal(Role::Device, serde_json::to_vec_pretty(info).unwrap_or_default())?;
        self.write_own(&info.device, name, &bytes)
    }

    /// Writes one new file of this device's changes (to its own copy first, then the folder);
    /// its digest.
    pub fn write_segment(&self, header: &Header, ops: &[Op]) -> Result<String, SyncError> {
        let (bytes, digest) = segment::encode(header, ops);
        let name = segment_name(header.first, &digest, self.key.is_some());
        let sealed = self.seal(Role::Changes, bytes)?;
        if let Some(sent) = &self.sent {
            write_new(&sent.join(&name), &sealed)?;
        }
        self.write_own(&header.device, &name, &sealed)?;
        Ok(digest)
    }

    /// Puts back in `device`'s folder every file of `copies` (this data folder's copies of the
    /// files it read or wrote) that is missing there or cut short: a file's name fixes its
    /// contents, so the copy is the file.
    ///
    /// `thorough` compares the bytes, not only the sizes: a file swapped for other bytes of the
    /// same size (damaged on a disk, or by the folder's writer) is put back too.
    pub fn restore_from(&self, device: &DeviceId, copies: &Path, thorough: bool) -> Result<usize, SyncError> {
        let Ok(entries) = std::fs::read_dir(copies) else { return Ok(0) };
        let dir = self.own_dir(device)?;
        let mut restored = 0;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if parse_segment_name(&name).is_none() {
                continue;
            }
            let target = dir.join(&name);
            let ours = entry.metadata().map_or(0, |m| m.len());
            let stale = match std::fs::symlink_metadata(&target) {
                Err(_) => true,
                // A link, a folder or a pipe where our file was: taken away (it is only removed,
                // never followed) and the file put back.
                Ok(m) if !m.is_file() => {
                    let removed =
                        if m.is_dir() { std::fs::remove_dir_all(&target) } else { std::fs::remove_file(&target) };
                    removed.is_ok()
                }
                Ok(m) if m.len() != ours => true,
                Ok(_) if thorough => {
                    let theirs = devcoach_files::read(&target, limits::SYNC_FILE_BYTES, Links::Refuse).ok();
                    let mine = devcoach_files::read(&entry.path(), limits::SYNC_FILE_BYTES, Links::Refuse).ok();
                    theirs.is_none() || theirs != mine
                }
                Ok(_) => false,
            };
            // Only a copy that reads whole goes back (checked as any file of the folder is read):
            // a copy a disk or a power cut damaged must not replace what the folder holds.
            let sealed = parse_segment_name(&name).unwrap_or(false);
            if stale && self.read_segment(&entry.path(), sealed, i64::MAX).is_ok() {
                let bytes = devcoach_files::read(&entry.path(), limits::SYNC_FILE_BYTES, Links::Refuse)
                    .map_err(SyncError::File)?;
                self.write_own(device, &name, &bytes)?;
                restored += 1;
            }
        }
        Ok(restored)
    }

    /// Keeps a copy of a file read from the folder (once), so what was applied here never
    /// depends on the folder keeping it.
    pub fn keep(&self, copies: &Path, file: &FileRead) {
        let target = copies.join(&file.name);
        if target.exists() {
            return;
        }
        // Read again without following a link, and kept only if it is still the file that was
        // applied: a file swapped for a link (or other bytes) since is never copied in.
        let Ok(bytes) = devcoach_files::read(&file.path, limits::SYNC_FILE_BYTES, Links::Refuse) else {
            return;
        };
        // Not waited for on disk (a flush per file was a sixth of a small join): a copy is put
        // back or read only once it reads whole, so one cut short by a power cut costs nothing
        // but itself.
        if raw_digest(&bytes) == file.raw_digest && std::fs::create_dir_all(copies).is_ok() {
            let _ = devcoach_files::write_unflushed(&target, &bytes, Overwrite::Replace);
        }
    }

    /// Reads this data folder's copy of a file (the folder's did not read, or is gone).
    pub fn read_copy(&self, device: &DeviceId, path: &Path, now_ms: i64, known: &KnownFiles) -> Option<FileRead> {
        let name = path.file_name()?.to_string_lossy().into_owned();
        if let Some(k) = known.get(&(device.to_string(), name.clone())) {
            return Some(FileRead::from_known(name, path.to_owned(), k));
        }
        let sealed = parse_segment_name(&name)?;
        let (seg, raw_digest) = self.read_segment(path, sealed, now_ms).ok()?;
        (seg.header.device == *device).then(|| FileRead::from_segment(name, path.to_owned(), seg, raw_digest))
    }

    /// Removes one of this device's files from its folder (one a snapshot superseded), without
    /// following a link: a link or folder in its place is left alone.
    pub fn remove_own(&self, device: &DeviceId, name: &str) {
        let Ok(dir) = real_dir(&self.root, &[DEVICES, device.as_str()], false) else { return };
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Removes temporary files a killed sync of this device left (this device holds the sync
    /// lock, so none of them is being written).
    pub fn clean_own(&self, device: &DeviceId) {
        let Ok(dir) = real_dir(&self.root, &[DEVICES, device.as_str()], false) else { return };
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".devcoach-tmp") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// Reads every device's files. A file that does not read (incomplete, damaged, foreign, from
    /// a newer devcoach, stamped far in the future) is named in a problem and waits for a later
    /// sync; the others are read whatever their order. `now_ms` is this machine's clock.
    pub fn read(&self, now_ms: i64, progress: &mut dyn FnMut(usize, usize)) -> Result<Contents, SyncError> {
        let (known, failed) = (KnownFiles::new(), FailedFiles::new());
        self.read_new(now_ms, progress, &ReadPlan { known: &known, failed: &failed, budget: usize::MAX, retry: true })
    }

    /// Reads every device's files but those `known` names (applied here earlier): a known file
    /// that is still a regular file in the folder is listed from what the store recorded, never
    /// read again, so a sync reads only what is new. Once the files read hold `budget` changes,
    /// the rest are only counted (`deferred`), for a later round.
    pub fn read_new(
        &self,
        now_ms: i64,
        progress: &mut dyn FnMut(usize, usize),
        plan: &ReadPlan<'_>,
    ) -> Result<Contents, SyncError> {
        let (known, budget, failed, retry) = (plan.known, plan.budget, plan.failed, plan.retry);
        let mut used = 0usize;
        let mut contents = Contents::default();
        let devices_dir = self.root.join(DEVICES);
        if std::fs::symlink_metadata(&devices_dir).is_ok_and(|m| !m.is_dir()) {
            contents.problems.push(Problem {
                path: devices_dir,
                what: "is a link or not a folder; nothing in it was read, and nothing is written through it".into(),
            });
            return Ok(contents);
        }
        let entries = match std::fs::read_dir(&devices_dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(contents),
            Err(e) => return Err(err(&devices_dir, PathProblem::CannotRead(e))),
        };
        let mut plan: Vec<Planned> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            // Never through a link: a device folder is a folder of the shared folder.
            let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            let device = if is_dir && is_device_name(&name) { DeviceId::new(&name).ok() } else { None };
            let Some(device) = device else {
                contents.problems.push(Problem { path, what: "is not a device's folder; left alone".into() });
                continue;
            };
            let mut files = Vec::new();
            let mut info = None;
            let mut listed = 0usize;
            for file in std::fs::read_dir(&path).map_err(|e| err(&path, PathProblem::CannotRead(e)))?.flatten() {
                // A device writes a snapshot long before this many: a folder holding more was
                // filled by someone else, and what is listed of it stays bounded.
                listed += 1;
                if listed > SYNC_DEVICE_FILES {
                    contents.problems.push(Problem {
                        path: path.clone(),
                        what: format!(
                            "holds more than {SYNC_DEVICE_FILES} files, more than a devcoach writes; only the first {SYNC_DEVICE_FILES} listed were looked at"
                        ),
                    });
                    break;
                }
                let file_name = file.file_name().to_string_lossy().into_owned();
                if file_name.starts_with('.') {
                    continue;
                }
                if file_name == "device.json" || file_name == "device.json.age" {
                    info = Some(file.path());
                } else if let Some(sealed) = parse_segment_name(&file_name) {
                    files.push((file_name, sealed, file.path()));
                } else {
                    contents
                        .problems
                        .push(Problem { path: file.path(), what: "is not a devcoach sync file; left alone".into() });
                }
            }
            files.sort();
            plan.push((device, files, info));
        }
        let total: usize = plan.iter().map(|(_, f, _)| f.len()).sum();
        let mut done = 0;
        for (device, files, info) in plan {
            let mut log = DeviceLog { name: info.and_then(|p| self.read_info(&device, &p)), ..DeviceLog::default() };
            for (name, sealed, path) in files {
                done += 1;
                progress(done, total);
                if let Some(k) = known.get(&(device.to_string(), name.clone()))
                    && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
                {
                    log.files.push(FileRead::from_known(name, path, k));
                    continue;
                }
                let id = (device.to_string(), name.clone());
                let stamp = stamp_of(&path);
                // A file that did not read and has not changed since: said again, not read again
                // (a folder of damaged files must not cost every sync, status and doctor).
                if let (Some(before), Some((len, modified))) = (failed.get(&id), stamp)
                    && before.len == len
                    && before.modified == modified
                    && (before.retry_at == 0 || now_ms < before.retry_at || !retry)
                {
                    contents.problems.push(Problem { path, what: before.what.clone() });
                    contents.failed.insert(id, before.clone());
                    continue;
                }
                if used >= budget {
                    contents.deferred += 1;
                    log.files.push(FileRead::deferred(name, path));
                    continue;
                }
                let named_for = |digest: &str| {
                    if sealed {
                        digest.get(..16).is_some_and(|d| name.starts_with(d))
                    } else {
                        name.get(13..25).is_some_and(|d| digest.starts_with(d))
                    }
                };
                // A file that did not read, or was refused once read: remembered as it lies and
                // counted against the round by its size (what it cost to find out).
                let mut refuse = |contents: &mut Contents, path: PathBuf, what: String, retry_at: i64| {
                    let (len, modified) = stamp.unwrap_or((0, 0));
                    used = used.saturating_add(usize::try_from(len).unwrap_or(usize::MAX) / ROUND_BYTES_PER_CHANGE);
                    if stamp.is_some() {
                        contents.failed.insert(id.clone(), Failed { len, modified, what: what.clone(), retry_at });
                    }
                    contents.problems.push(Problem { path, what });
                };
                match self.read_segment(&path, sealed, now_ms) {
                    Ok((seg, _)) if seg.header.device != device => {
                        refuse(&mut contents, path, "names another device than its folder; not read".into(), 0);
                    }
                    Ok((seg, _))
                        if !named_for(&seg.digest)
                            || (!sealed && !name.starts_with(&format!("{:012}-", seg.header.first))) =>
                    {
                        refuse(&mut contents, path, "holds other changes than its name says; not read".into(), 0);
                    }
                    Ok((seg, raw_digest)) => {
                        // Counted as it is read, by its changes or its size, whichever weighs
                        // more: the budget bounds what one round holds.
                        used = used.saturating_add(seg.ops.len().max(seg.text_bytes / ROUND_BYTES_PER_CHANGE));
                        log.files.push(FileRead::from_segment(name, path, seg, raw_digest));
                    }
                    Err(what) => {
                        // A file stamped ahead reads once this clock gets there: tried hourly.
                        let retry_at = if what.contains("ahead of this machine's clock") {
                            now_ms.saturating_add(AHEAD_RETRY_MS)
                        } else {
                            0
                        };
                        refuse(&mut contents, path, what, retry_at);
                    }
                }
            }
            log.files.sort_by(|a, b| (a.first, &a.digest).cmp(&(b.first, &b.digest)));
            contents.devices.insert(device, log);
        }
        Ok(contents)
    }

    fn read_info(&self, device: &DeviceId, path: &Path) -> Option<String> {
        let bytes = devcoach_files::read(path, limits::SYNC_SMALL_FILE_BYTES, Links::Refuse).ok()?;
        let sealed = path.extension().is_some_and(|e| e == "age");
        let plain = self.open(Role::Device, path, bytes, sealed).ok()?;
        let info: DeviceInfo = serde_json::from_slice(&plain).ok()?;
        // Another device's name file copied here does not rename this one.
        if info.device != *device {
            return None;
        }
        // Another device's words: short, and nothing a terminal or a page would act on.
        let name: String = info.name.chars().filter(|c| !c.is_control()).take(64).collect();
        (!name.trim().is_empty()).then_some(name)
    }

    fn read_segment(&self, path: &Path, sealed: bool, now_ms: i64) -> Result<(Segment, String), String> {
        // Refused by its size before a byte is read (a huge file would otherwise be read up to
        // the cap first).
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() > limits::SYNC_FILE_BYTES) {
            return Err(format!("is larger than a sync file can be ({} MiB); not read", limits::SYNC_FILE_BYTES >> 20));
        }
        let bytes = devcoach_files::read(path, limits::SYNC_FILE_BYTES, Links::Refuse).map_err(|e| match e {
            FileError::NotRegular { kind, .. } => format!("is {kind}; not read"),
            FileError::TooLarge { .. } => {
                format!("is larger than a sync file can be ({} MiB); not read", limits::SYNC_FILE_BYTES >> 20)
            }
            other => format!("could not be read ({other})"),
        })?;
        if bytes.is_empty() {
            return Err(format!("is {}", SegmentError::Incomplete));
        }
        let raw_digest = raw_digest(&bytes);
        let plain = self.open(Role::Changes, path, bytes, sealed)?;
        let segment = segment::decode(&plain).map_err(|e| match e {
            SegmentError::Newer(_) => e.to_string(),
            other => format!("is {other}"),
        })?;
        let ahead = segment.ops.iter().map(|op| op.at.millis()).max().unwrap_or(0).saturating_sub(now_ms);
        if ahead > SYNC_CLOCK_AHEAD_MS {
            return Err(format!(
                "is stamped {} ahead of this machine's clock (a clock off, or a forged file); it waits, unread, until this clock gets there",
                ahead_text(ahead)
            ));
        }
        Ok((segment, raw_digest))
    }
}

fn raw_digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    segment::hex(&Sha256::digest(bytes))
}

/// A time ahead, in the largest unit that says it.
fn ahead_text(ms: i64) -> String {
    let minutes = ms / 60_000;
    match minutes {
        0..=119 => format!("{minutes} minutes"),
        120..=2879 => format!("{} hours", minutes / 60),
        _ => format!("{} days", minutes / 1440),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_names_read_back() {
        let digest = "abcdef0123456789abcdef";
        assert_eq!(segment_name(42, digest, false), "000000000042-abcdef012345.dcs");
        assert_eq!(parse_segment_name(&segment_name(42, digest, false)), Some(false));
        // An encrypted file's name says nothing of how many changes it holds.
        assert_eq!(segment_name(7, digest, true), "abcdef0123456789.dcs.age");
        assert_eq!(parse_segment_name(&segment_name(7, digest, true)), Some(true));
        for foreign in
            ["notes.txt", "000000000001.dcs", "1-ab.dcs", "000000000001-zz.dcs", "000000000001-ab.dcs.bak", "x.dcs.age"]
        {
            assert_eq!(parse_segment_name(foreign), None, "{foreign}");
        }
        assert!(
            is_device_name("0123456789abcdef") && !is_device_name("junkdir") && !is_device_name("0123456789ABCDEF")
        );
    }
}
