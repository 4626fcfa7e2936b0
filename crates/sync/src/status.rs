//! Where sync stands (`sync status`, the dashboard, doctor): devices, files waiting, problems.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use devcoach_core::limits::SYNC_ROUND_CHANGES;
use devcoach_core::sync::DeviceId;
use devcoach_store::{DataDir, SYNC_JOINING, Store};

use crate::error::SyncError;
use crate::folder::{Folder, Problem};
use crate::local::{config, failed_files, gather, key_path, known_files, read_key, repo_dir};
use crate::round::{check_marker, open};
use crate::{Config, REFUSED_NAMED, Transport, folder};

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

/// One thing `doctor` reports about sync. The facts only: the front end words them.
#[derive(Debug, Clone)]
pub enum Finding {
    /// Sync is not set up.
    Off,
    /// Sync is set up: how, as whom, and when it last succeeded.
    On { transport: Transport, encrypted: bool, name: String, device: DeviceId, last_sync: Option<DateTime<Utc>> },
    /// The shared folder is missing or holds no marker (unmounted, or not synced here yet).
    FolderMissing { path: std::path::PathBuf },
    /// The clone of the git remote is missing; the next sync makes it again.
    CloneMissing { url: String },
    /// Files in the folder that do not read: the first, and how many more.
    Unreadable { first: Problem, more: usize },
    /// An encrypted sync whose key file this data folder no longer holds.
    KeyMissing { path: std::path::PathBuf },
    /// The last sync failed, with what it said then.
    LastFailed { error: String },
    /// Sync runs on its own, but has not succeeded for over a week.
    Stale,
    /// Records from other devices that could not be stored here.
    Refused { records: usize },
}

impl Finding {
    pub fn health(&self) -> Health {
        match self {
            Self::Off => Health::Info,
            Self::On { .. } => Health::Ok,
            Self::KeyMissing { .. } => Health::Bad,
            Self::FolderMissing { .. }
            | Self::CloneMissing { .. }
            | Self::Unreadable { .. }
            | Self::LastFailed { .. }
            | Self::Stale
            | Self::Refused { .. } => Health::Warn,
        }
    }
}

/// What `doctor` finds about sync, read without changing anything (no fetch, no clone).
pub fn health(store: &Store, dir: &DataDir, now: DateTime<Utc>) -> Vec<Finding> {
    let mut out = Vec::new();
    // A database only the TypeScript build has written has no sync table: off.
    let Ok(Some(config)) = config(store) else {
        out.push(Finding::Off);
        return out;
    };
    out.push(Finding::On {
        transport: config.transport.clone(),
        encrypted: config.encrypted,
        name: config.name.clone(),
        device: config.device.clone(),
        last_sync: config.last_sync,
    });
    let root = match &config.transport {
        Transport::Folder(path) => path.clone(),
        Transport::Git(_) => repo_dir(dir),
    };
    if !root.join(folder::MARKER).is_file() {
        out.push(match &config.transport {
            Transport::Folder(path) => Finding::FolderMissing { path: path.clone() },
            Transport::Git(url) => Finding::CloneMissing { url: url.clone() },
        });
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
            if let Ok(mut contents) = folder.read_new(now.timestamp_millis(), &mut |_, _| {}, &plan)
                && !contents.problems.is_empty()
            {
                let more = contents.problems.len() - 1;
                out.push(Finding::Unreadable { first: contents.problems.swap_remove(0), more });
            }
        }
    }
    if config.encrypted && !key_path(dir).is_file() {
        out.push(Finding::KeyMissing { path: key_path(dir) });
    }
    if let Some(error) = &config.last_error {
        out.push(Finding::LastFailed { error: error.clone() });
    } else if config.every_minutes > 0 && config.last_sync.is_some_and(|at| now - at > chrono::Duration::days(7)) {
        out.push(Finding::Stale);
    }
    if let Ok(n) = store.sync_refused()
        && n > 0
    {
        out.push(Finding::Refused { records: n });
    }
    out
}
