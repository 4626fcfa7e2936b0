//! Turning sync on and off (`sync init`, `sync off`), and whether a background sync is due.

use chrono::{DateTime, Utc};
use devcoach_core::sync::DeviceId;
use devcoach_core::time::parse_timestamp;
use devcoach_store::{DataDir, SYNC_JOINING, Store};

use crate::crypt::Key;
use crate::error::{KeyProblem, SetupProblem, SyncError};
use crate::folder::{DeviceInfo, Folder, Marker};
use crate::local::{
    PARKED, config, expand_home, fingerprint, holds_sealed, host_name, key_path, lock, new_device, repo_dir, save_key,
    sync_dir,
};
use crate::{DEFAULT_EVERY_MINUTES, InitOptions, InitReport, Transport, folder, git};

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
        return Err(SetupProblem::AlreadySetUp { now: config.transport.describe() }.into());
    }
    if let Some(why) = git::unsupported(target) {
        return Err(why.into());
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
            return Err(SetupProblem::ForeignRepository { url: target.to_owned() }.into());
        }
        (Transport::Git(target.trim().to_owned()), repo_dir(dir))
    } else {
        let path = std::path::absolute(expand_home(target))
            .map_err(|source| SetupProblem::BadPath { target: target.to_owned(), source })?;
        if path.starts_with(dir.root()) {
            return Err(SetupProblem::InsideDataFolder.into());
        }
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {
                let empty = std::fs::read_dir(&path).is_ok_and(|mut e| e.next().is_none());
                if !empty && !path.join(folder::MARKER).exists() {
                    return Err(SetupProblem::ForeignFolder { path }.into());
                }
            }
            Ok(_) => return Err(SetupProblem::NotAFolder { path }.into()),
            Err(_) => std::fs::create_dir_all(&path)
                .map_err(|source| SetupProblem::CannotCreate { path: path.clone(), source })?,
        }
        (Transport::Folder(path.clone()), path)
    };
    let existing = folder::read_marker(&root)?;
    let joined = existing.is_some();
    let key = match &existing {
        Some(marker) if marker.encrypted => {
            let passphrase = options.passphrase.as_deref().ok_or(SyncError::NeedPassphrase)?;
            let sealed = devcoach_files::read(
                &root.join(folder::KEY_FILE),
                devcoach_core::limits::SYNC_SMALL_FILE_BYTES,
                devcoach_files::Links::Refuse,
            )
            .map_err(KeyProblem::SealedUnreadable)?;
            let key = Key::unseal(&sealed, passphrase)?;
            if marker.recipient.as_deref() != Some(key.recipient().as_str()) {
                return Err(KeyProblem::MarkerNamesAnother.into());
            }
            Some(key)
        }
        // A marker that says plain over a folder holding a sealed key: someone rewrote the
        // marker, and joining would send this record in the clear.
        Some(_) if holds_sealed(&root) => {
            return Err(KeyProblem::PlainMarkerOverSealed { marker: folder::MARKER }.into());
        }
        Some(_) if options.encrypt => {
            return Err(SetupProblem::PlainFolderForEncrypted.into());
        }
        // A passphrase given for a folder that says plain: whoever gave it expects an encrypted
        // folder, and one stripped of its key and sealed files looks exactly like this. Joining
        // would send this record in the clear.
        Some(_) if options.passphrase.is_some() => {
            return Err(KeyProblem::PassphraseForPlain.into());
        }
        None if options.passphrase.is_some() && !options.encrypt => {
            return Err(SetupProblem::PassphraseWithoutEncrypt.into());
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
