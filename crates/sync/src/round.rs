//! One sync: lock, fetch, the rounds that fold other devices' files in and log this device's
//! changes, snapshots, push.

use std::collections::BTreeSet;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use devcoach_core::limits;
use devcoach_core::limits::SYNC_ROUND_CHANGES;
use devcoach_core::sync::segment::Header;
use devcoach_core::sync::{DeviceId, Hlc, Op};
use devcoach_core::time::{iso_ms, parse_timestamp};
use devcoach_store::{DataDir, Mark, SYNC_JOINING, Store, SyncRound};

use crate::crypt::Key;
use crate::error::{KeyProblem, SyncError};
use crate::folder::{DeviceInfo, Folder, Problem};
use crate::local::{
    Renamed, config, copy_ids, failed_files, fingerprint, gather, kept_dir, known_files, lock, read_key, rekey,
    repo_dir, sent_dir,
};
use crate::{Config, REKEY_EVERY_DAYS, Transport, folder, git};

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

pub(crate) struct Opened {
    pub(crate) config: Config,
    pub(crate) key: Option<Key>,
    pub(crate) root: PathBuf,
    pub(crate) repo: Option<git::Repo>,
}

pub(crate) fn open(store: &Store, dir: &DataDir) -> Result<Opened, SyncError> {
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

pub(crate) fn check_marker(opened: &Opened) -> Result<(), SyncError> {
    let marker = folder::read_marker(&opened.root)?
        .ok_or_else(|| SyncError::NoMarker { root: opened.root.clone(), marker: folder::MARKER })?;
    if marker.encrypted != opened.config.encrypted
        || (marker.encrypted && marker.recipient != opened.key.as_ref().map(Key::recipient))
    {
        return Err(KeyProblem::MarkerChanged.into());
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
