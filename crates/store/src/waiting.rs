//! Stops a hook could not count because another process held the database.
//!
//! A sync writes in rounds, each one transaction; a hook at an agent's stop must not wait behind
//! one (a join's last round holds the database for seconds at 100,000 lessons). A hook that
//! cannot have the database within a few milliseconds leaves the stop here, one small file
//! each, and stays quiet; the next stop, or the end of the sync, counts what waits, in its own
//! transaction, as the stops they were.
//!
//! Each file is written whole under a new name (never appended to, so a reader never meets half
//! of one). Counting and forgetting cannot be one step: the names counted are noted in the same
//! transaction that counts them, and the files are removed after it commits, so a process that
//! dies between the two never counts a stop twice. What lies here is bounded
//! ([`WAITING_STOPS`] files of [`WAITING_STOP_BYTES`], a few more when many hooks leave one at
//! the same moment); what is not a stop this build wrote (a link, a folder, other bytes, other
//! names, a temporary file a killed hook left) is removed without being counted, and a folder
//! that is itself a link is neither read nor written through.

use chrono::{DateTime, Utc};
use devcoach_core::ids::SessionId;
use devcoach_core::limits::{WAITING_STOP_BYTES, WAITING_STOPS};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::{DataDir, Result};

/// The names the last count took (ours, kept on this machine): see the module's comment.
pub(crate) const COUNTED: &str = "stops_counted";

/// The folder the waiting stops lie in.
const FOLDER: &str = "ext-stops-waiting";

#[derive(Serialize, Deserialize)]
struct Waiting {
    session: String,
    plan_mode: bool,
    at: String,
}

fn folder(dir: &DataDir) -> std::path::PathBuf {
    dir.root().join(FOLDER)
}

/// Leaves a stop to be counted later. `Ok(false)` when too many already wait (it is not kept).
pub fn leave_stop(dir: &DataDir, session: &SessionId, plan_mode: bool, now: DateTime<Utc>) -> Result<bool> {
    // A folder that is a link reads as empty here, and the write below refuses to go through it.
    if look(dir).0.len() >= WAITING_STOPS {
        return Ok(false);
    }
    let stop = Waiting { session: session.as_str().to_owned(), plan_mode, at: devcoach_core::time::iso_ms(now) };
    let bytes = serde_json::to_vec(&stop).unwrap_or_default();
    // Unique without a random source: the time to the nanosecond, and this process.
    let nanos = now.timestamp_nanos_opt().unwrap_or_default();
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let name = format!("{nanos:020}-{}-{stamp:09}.stop", std::process::id());
    devcoach_files::write_below(dir.root(), &[FOLDER], &name, &bytes, devcoach_files::Overwrite::Never)?;
    Ok(true)
}

/// The folder's entries, looked at up to a bound: the stops (oldest first, at most
/// [`WAITING_STOPS`]) and what is no stop (to go). A stop still being written lies under a
/// hidden temporary name and is left alone for a minute; one left behind by a killed hook goes
/// after that. A folder that is a link (or no folder) holds nothing: it is never followed.
pub(crate) fn look(dir: &DataDir) -> (Vec<String>, Vec<String>) {
    let folder = folder(dir);
    let real = std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir());
    let Some(entries) = real.then(|| std::fs::read_dir(&folder).ok()).flatten() else {
        return (Vec::new(), Vec::new());
    };
    let (mut stops, mut junk) = (Vec::new(), Vec::new());
    for entry in entries.take(WAITING_STOPS * 16).flatten() {
        let Ok(name) = entry.file_name().into_string() else { continue };
        let hidden = name.starts_with('.');
        if !hidden && std::path::Path::new(&name).extension().is_some_and(|e| e == "stop") {
            stops.push(name);
        } else if !hidden
            || entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_mins(1))
        {
            junk.push(name);
        }
    }
    stops.sort();
    stops.truncate(WAITING_STOPS);
    (stops, junk)
}

/// Counts the waiting stops inside `tx` and notes their names; returns the names to remove once
/// `tx` has committed.
pub(crate) fn count(
    tx: &Connection,
    dir: &DataDir,
    now: DateTime<Utc>,
    mut count_stop: impl FnMut(&SessionId, DateTime<Utc>, bool) -> Result<()>,
) -> Result<Vec<String>> {
    let (names, junk) = look(dir);
    forget(dir, &junk);
    if names.is_empty() {
        return Ok(names);
    }
    let before = crate::settings::read_setting(tx, COUNTED)?.unwrap_or_default();
    let counted_before: Vec<&str> = before.split(' ').collect();
    for name in &names {
        if counted_before.contains(&name.as_str()) {
            continue;
        }
        let path = folder(dir).join(name);
        let Ok(bytes) = devcoach_files::read(&path, WAITING_STOP_BYTES as u64, devcoach_files::Links::Refuse) else {
            continue;
        };
        let Ok(stop) = serde_json::from_slice::<Waiting>(&bytes) else { continue };
        let Ok(at) = devcoach_core::time::parse_timestamp(&stop.at) else { continue };
        // Never later than the count itself (a clock set back, a pinned one).
        let at = at.min(now);
        let session = SessionId::from_payload(Some(&stop.session));
        count_stop(&session, at, stop.plan_mode)?;
    }
    crate::settings::write_setting(tx, COUNTED, &names.join(" "))?;
    Ok(names)
}

/// Removes what a committed count took (or what is no stop at all).
pub(crate) fn forget(dir: &DataDir, names: &[String]) {
    let folder = folder(dir);
    if !std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
        return;
    }
    for name in names {
        let path = folder.join(name);
        // A link or a folder put here is removed as the entry it is, never followed.
        let _ = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(_) => Ok(()),
        };
    }
}
