//! Sync's side of the store: reading every synced table as records, and one round — log what
//! changed here since the last round, then make the synced tables what every device's changes
//! merge to — in one `IMMEDIATE` transaction.
//!
//! The store keeps each record's merge state (`ext_sync_records`), so a round folds only the
//! changes it has not seen and writes only the records they touch: its cost follows the change,
//! not the history. What changed here is found by comparing a record with what its applied
//! changes merge to, so a write by any program (this devcoach, the TypeScript one, a restore, a
//! hand edit) is logged the same way; which records to compare comes from triggers on the synced
//! tables (`ext_sync_dirty`), present while sync is on. When they were missing for a while (sync
//! was off, someone dropped them), every record is compared once.
//!
//! A crash between writing the log and committing loses nothing: the logged changes count as
//! applied (they came from this store), so they are never logged twice.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use devcoach_core::limits;
use devcoach_core::sync::merge::bound;
use devcoach_core::sync::tables::{DOCUMENTS, is_seed, synced};
use devcoach_core::sync::{Change, DeviceId, Hlc, Op, RecordKey, RecordState, Row, SYNCED};
use rusqlite::{Connection, OptionalExtension, params};

use crate::{Result, Store, StoreError};

mod apply;
mod compare;
mod records;
mod rows;

use self::apply::{apply, passed_rows, save_unapplied, state_value, take_unapplied, with_dependents, write_mark};
use self::compare::{CompareAt, Local, drop_tracking, ensure_tracking, local_changes, tracking_complete};
use self::records::{Affected, fold, live_documents, live_row, load, record_keys, set_rid};
use self::rows::{apply_documents, present_tables, read_documents, read_rows};

/// A file of the shared folder, by its device and digest: applied here once recorded. Its name
/// and header are kept too, so a later sync knows it by its name without reading it again.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Mark {
    pub device: String,
    pub digest: String,
    pub name: Option<String>,
    pub first: u64,
    pub last: u64,
    pub written_at: Option<String>,
    /// The part of a snapshot the file is, if it is one.
    pub snapshot: Option<devcoach_core::sync::segment::SnapshotPart>,
}

/// A snapshot of one device's, as the parts applied here tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotSeen {
    pub upto: u64,
    pub parts: u32,
    /// (part number, file name) of each part applied here.
    pub names: Vec<(u32, String)>,
}

impl SnapshotSeen {
    /// Whether every part is here, counting only the names `ours` accepts (a device's own
    /// snapshot counts only with parts it wrote itself).
    pub fn complete(&self, ours: impl Fn(&str) -> bool) -> Option<BTreeSet<String>> {
        let mut numbers = BTreeSet::new();
        let mut names = BTreeSet::new();
        for (part, name) in &self.names {
            if ours(name) {
                numbers.insert(*part);
                names.insert(name.clone());
            }
        }
        (u32::try_from(numbers.len()).unwrap_or(u32::MAX) >= self.parts && self.parts > 0).then_some(names)
    }
}

/// One round's inputs, read from the folder by the caller.
pub struct SyncRound<'a> {
    pub device: &'a DeviceId,
    /// This device's next sequence number.
    pub next_seq: u64,
    /// The clock, already past every change read.
    pub clock: Hlc,
    pub now_ms: i64,
    /// Changes the store already shows that its records do not hold yet: every applied file's
    /// when the records are not built ([`Store::sync_records_ready`]), else those of files this
    /// data folder wrote in a round that died before it committed.
    pub history: Vec<Op>,
    /// The other devices' changes read this round.
    pub incoming: Vec<Op>,
    /// The files of `history` read this round, to record as applied once the round commits.
    pub marks: Vec<Mark>,
    /// The files of `incoming`, recorded as applied only if the round takes them in (see
    /// [`RoundOutcome::held`]).
    pub incoming_marks: Vec<Mark>,
    /// This device's first round after joining a folder other devices use: where both hold a
    /// record, the folder's wins (a fresh install's default settings must not replace the
    /// learner's); what only this device holds is added.
    pub joining: bool,
    /// Whether this round compares and logs what changed here. A join that takes several rounds
    /// compares only in its last, once every file of the folder is applied (so the folder's
    /// records win where both hold one); until then its rounds only apply.
    pub compare: bool,
}

#[derive(Debug, Clone, Default)]
pub struct RoundOutcome {
    /// This device's changes logged this round.
    pub logged: Vec<Op>,
    /// Rows inserted, changed or removed here.
    pub written: usize,
    /// Records from other devices this database could not take (a constraint, a missing column).
    pub refused: usize,
    pub clock: Hlc,
    /// A comparison of everything stopped at a round's worth of changes: another round goes on
    /// from where it stopped.
    pub more: bool,
    /// The other devices' changes were not taken in (a comparison of everything is not through):
    /// their files count as unread, to be read again.
    pub held: bool,
}

/// A folder file that did not read: device, name, size, modification time (ns), why, and when
/// to try it again even unchanged (ms, 0: never).
pub type FailedFile = (String, String, u64, i64, String, i64);

/// The state key saying this device is joining a folder others use (set by `sync init`, to
/// "yes"; ended by the round that compares the last of what it held).
pub const SYNC_JOINING: &str = "joining";
/// The state key saying the records hold every applied file's changes.
const RECORDS_READY: &str = "records";
/// The state key saying the next comparing round compares every record: the records were built
/// afresh, or the triggers were missing for a while, so some writes may have gone unnoted.
const COMPARE_ALL: &str = "compare_all";
/// How far a comparison of everything has got (it runs a round's worth of changes at a time):
/// the table, then the last rowid compared (its rows) or the last record key (records without
/// a row), as JSON.
const COMPARE_AT: &str = "compare_at";

impl Store {
    /// One round: logs what changed here (through `log`, which writes this device's files and
    /// returns their marks), then makes the synced tables what all changes merge to. `log` runs
    /// inside the transaction: if it fails nothing is applied, and if the process dies after it
    /// the logged changes still count as this store's.
    pub fn sync_round(
        &mut self,
        round: SyncRound<'_>,
        log: impl FnOnce(&[Op]) -> std::result::Result<Vec<Mark>, String>,
    ) -> Result<RoundOutcome> {
        let dir = self.data_dir().clone();
        let SyncRound { device, next_seq, clock, now_ms, history, incoming, marks, incoming_marks, joining, compare } =
            round;
        self.write(|tx| {
            let ready = state_value(tx, RECORDS_READY)?.as_deref() == Some("1");
            if !ready {
                tx.execute("DELETE FROM ext_sync_records", [])?;
                set_state(tx, COMPARE_ALL, "1")?;
                tx.execute("DELETE FROM ext_sync_state WHERE key = ?1", [COMPARE_AT])?;
            }
            if !ensure_tracking(tx)? {
                set_state(tx, COMPARE_ALL, "1")?;
                tx.execute("DELETE FROM ext_sync_state WHERE key = ?1", [COMPARE_AT])?;
            }
            let all = state_value(tx, COMPARE_ALL)?.as_deref() == Some("1");
            // A comparison of everything runs a round's worth of changes at a time, so what a
            // round holds stays bounded (a first sync of a large record); writes noted before
            // it starts are all in it, so their notes go.
            let from: Option<CompareAt> = if all {
                match state_value(tx, COMPARE_AT)?.and_then(|v| serde_json::from_str::<CompareAt>(&v).ok()) {
                    Some(at) => Some(at.relocated(tx)?),
                    None => {
                        tx.execute("DELETE FROM ext_sync_dirty", [])?;
                        Some(CompareAt::begin(tx)?)
                    }
                }
            } else {
                None
            };
            let mut affected = Affected::default();
            fold(tx, history.into_iter().map(Cow::Owned), &mut affected)?;
            let (found, stopped) = if compare {
                // The writes noted between a join's rounds are few (the learner's, while it
                // ran): compared all at once, so none waits behind a row the join writes.
                let notes = if joining { usize::MAX } else { limits::SYNC_ROUND_CHANGES };
                local_changes(tx, &dir, from.as_ref(), joining, limits::SYNC_ROUND_CHANGES, notes)?
            } else {
                (Local::default(), None)
            };
            let Local { mut changes, since_join, rids, documents: documents_seen, compared, notes_done, notes_left } =
                found;
            let more = stopped.is_some() || notes_left;
            // Until every write made here is compared (a comparison of everything, a bulk import
            // compared a round's worth at a time), another device's change could land on a row
            // not compared yet and take with it a write made here: what other devices sent
            // waits (its files are read again) — except in a join, where the folder's record
            // wins anyway and must be known before it is compared.
            let held = more && !joining;
            if !held {
                fold(tx, incoming.into_iter().map(Cow::Owned), &mut affected)?;
            }
            if joining {
                // Where the folder holds the record, the folder's wins; but a learner's own
                // setting wins over a fresh install's default, whichever came first.
                let mut kept = Vec::with_capacity(changes.len());
                for (table, key, change) in changes {
                    let Change::Create(mine) = &change else { continue };
                    let Some(rule) = synced(table) else { continue };
                    let keep = match live_row(tx, rule, &key)? {
                        None => true,
                        Some(their) => is_seed(table, &their) && !is_seed(table, mine),
                    };
                    if keep {
                        kept.push((table, key, change));
                    }
                }
                changes = kept;
            }
            changes.extend(since_join);
            let mut clock = clock;
            let mut logged = Vec::new();
            for (i, (table, key, change)) in changes.into_iter().enumerate() {
                let seq = next_seq + i as u64;
                // A seeded default is logged at the lowest reading: any chosen value outranks it.
                let at = match &change {
                    Change::Create(row) if is_seed(table, row) => Hlc(0, u32::try_from(seq).unwrap_or(u32::MAX)),
                    _ => {
                        clock = clock.next(now_ms);
                        clock
                    }
                };
                logged.push(Op { device: device.clone(), seq, at, table: table.to_owned(), key, change });
            }
            let own = log(&logged).map_err(StoreError::SyncLog)?;
            fold(tx, logged.iter().map(Cow::Borrowed), &mut affected)?;
            // Where each log row compared here lies, now that a new one has its record.
            for (table, key, rid) in rids {
                set_rid(tx, table, &key, rid)?;
            }
            if compare && more && !joining {
                // Nothing is written while writes wait to be compared (a row one of them is
                // about would be written over): what this round changed is written by the
                // round that compares the last of them, or, after a comparison of
                // everything, with every record.
                if !all {
                    save_unapplied(tx, &affected)?;
                }
                affected = Affected::default();
            }
            if compare && !more {
                take_unapplied(tx, &mut affected)?;
            }
            let mut affected = with_dependents(tx, affected)?;
            if compare && all && !more {
                // Every record, once: earlier rounds of a join only folded theirs, and after a
                // comparison of everything any record may differ from its row.
                for table in SYNCED {
                    affected.entry(table.name).or_default().extend(record_keys(tx, table.name)?);
                }
            }
            if let Some(at) = stopped.as_ref().filter(|_| compare && joining) {
                // A join's comparison stopped part way writes the rows it has passed (a row
                // further on is still what this device held): they become the folder's, so a
                // write between rounds is compared with that.
                affected = passed_rows(tx, at, affected, compared)?;
            }
            let (mut written, mut refused) = if compare { apply(tx, &affected)? } else { (0, 0) };
            if compare {
                let (documents, refused_documents) = apply_documents(tx, &dir, &live_documents(tx)?, &documents_seen)?;
                written += documents;
                refused += refused_documents;
            }
            let taken = if held { &[][..] } else { &incoming_marks[..] };
            for mark in marks.iter().chain(taken).chain(&own) {
                write_mark(tx, mark)?;
            }
            set_state(tx, "clock", &serde_json::to_string(&clock).unwrap_or_default())?;
            set_state(tx, RECORDS_READY, "1")?;
            if joining && compare && !more {
                // The join is over once what this device held is compared: a write from now
                // on is sent like any other, even if this sync stops before its end.
                tx.execute("DELETE FROM ext_sync_state WHERE key = ?1", [SYNC_JOINING])?;
            }
            if compare {
                if notes_left {
                    // Only the notes compared go (nothing was written here this round).
                    let mut stmt = tx.prepare_cached("DELETE FROM ext_sync_dirty WHERE tbl = ?1 AND ref = ?2")?;
                    for (table, raw) in &notes_done {
                        stmt.execute(params![table, raw])?;
                    }
                } else {
                    // Every write noted so far is either logged above or this round's own.
                    tx.execute("DELETE FROM ext_sync_dirty", [])?;
                }
                let at =
                    if more && all { stopped.or_else(|| from.clone().map(|at| at.past(SYNCED.len()))) } else { None };
                match at {
                    Some(at) => set_state(tx, COMPARE_AT, &serde_json::to_string(&at).unwrap_or_default())?,
                    None => {
                        tx.execute("DELETE FROM ext_sync_state WHERE key IN (?1, ?2)", [COMPARE_ALL, COMPARE_AT])?;
                    }
                }
            }
            Ok(RoundOutcome { logged, written, refused, clock, more, held })
        })
    }

    /// How many changes made here the next round would log (for `sync status`): only the
    /// records written since the last round are compared, unless the tracking was missing.
    pub fn sync_pending(&self) -> Result<usize> {
        let ready = state_value(self.conn(), RECORDS_READY)?.as_deref() == Some("1");
        if !ready {
            return Ok(0);
        }
        let all = !tracking_complete(self.conn())? || state_value(self.conn(), COMPARE_ALL)?.as_deref() == Some("1");
        // Counted up to a bound (then "more than"): a comparison of everything goes on from
        // where the rounds got to.
        let from: Option<CompareAt> = all.then(|| {
            state_value(self.conn(), COMPARE_AT)
                .ok()
                .flatten()
                .and_then(|v| serde_json::from_str(&v).ok())
                .unwrap_or_default()
        });
        let bound = limits::SYNC_PENDING_COUNTED;
        let (found, _) = local_changes(self.conn(), self.data_dir(), from.as_ref(), false, bound, bound)?;
        Ok(found.changes.len())
    }

    /// Whether this device is joining a folder (the flag `sync init` sets). A flag that outlived
    /// its join — an earlier build left it set when a sync stopped after the join's comparison:
    /// the records are built, the triggers in place, no comparison of everything pending — is
    /// cleared, so the writes made since are sent as writes.
    pub fn sync_joining(&mut self) -> Result<bool> {
        if state_value(self.conn(), SYNC_JOINING)?.as_deref() != Some("yes") {
            return Ok(false);
        }
        let conn = self.conn();
        let over = state_value(conn, RECORDS_READY)?.as_deref() == Some("1")
            && state_value(conn, COMPARE_ALL)?.is_none()
            && tracking_complete(conn)?;
        if over {
            self.write(|tx| Ok(tx.execute("DELETE FROM ext_sync_state WHERE key = ?1", [SYNC_JOINING])?))?;
        }
        Ok(!over)
    }

    /// Whether a comparison of everything stopped part way and goes on in the next round.
    pub fn sync_comparing(&self) -> Result<bool> {
        Ok(state_value(self.conn(), COMPARE_AT)?.is_some())
    }

    /// Whether the records hold every applied file's changes, so a round needs only new files.
    pub fn sync_records_ready(&self) -> Result<bool> {
        Ok(state_value(self.conn(), RECORDS_READY)?.as_deref() == Some("1"))
    }

    /// Stops noting writes for sync (`sync off`): the triggers go, the next round compares all.
    pub fn sync_stop_tracking(&mut self) -> Result<()> {
        self.write(|tx| drop_tracking(tx))
    }

    /// What the records say every synced table should hold (for tests and `doctor`-like checks):
    /// the merge of every change applied here, with each table's rules, counters within range.
    pub fn sync_merged(&self) -> Result<BTreeMap<&'static str, BTreeMap<RecordKey, Row>>> {
        let mut out = BTreeMap::new();
        for table in SYNCED.iter().chain(std::iter::once(&DOCUMENTS)) {
            let mut rows = BTreeMap::new();
            for key in record_keys(self.conn(), table.name)? {
                if let Some(mut row) = live_row(self.conn(), table, &key)? {
                    bound(table, &mut row);
                    rows.insert(key, row);
                }
            }
            out.insert(table.name, rows);
        }
        Ok(out)
    }

    /// Every synced record this store holds, by table (rowids left out): what two devices that
    /// are in sync hold alike.
    pub fn sync_records(&self) -> Result<BTreeMap<&'static str, BTreeMap<RecordKey, Row>>> {
        let mut out = BTreeMap::new();
        for (table, columns) in present_tables(self.conn())? {
            let rows = read_rows(self.conn(), table, &columns)?.into_iter().map(|(k, (_, mut r))| {
                bound(table, &mut r);
                (k, r)
            });
            out.insert(table.name, rows.collect());
        }
        out.insert(DOCUMENTS.name, read_documents(self.conn(), self.data_dir())?);
        Ok(out)
    }

    /// Sync's settings (device id, where, mode), as stored.
    pub fn sync_state(&self) -> Result<BTreeMap<String, String>> {
        let mut stmt = self.conn().prepare_cached("SELECT key, value FROM ext_sync_state")?;
        let pairs = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(pairs)
    }

    /// Sets sync's settings (`None` removes one); `reset` first forgets every one, every mark
    /// and the records built from them (`sync off`, or a new device id).
    pub fn set_sync_state(&mut self, pairs: &[(&str, Option<&str>)], reset: bool) -> Result<()> {
        self.write(|tx| {
            if reset {
                tx.execute_batch(
                    "DELETE FROM ext_sync_state; DELETE FROM ext_sync_files; DELETE FROM ext_sync_refused; \
                     DELETE FROM ext_sync_records; DELETE FROM ext_sync_known; DELETE FROM ext_sync_failed; DELETE FROM ext_sync_snapshots; \
                     DELETE FROM ext_sync_unapplied;",
                )?;
            }
            for (key, value) in pairs {
                match value {
                    Some(v) => set_state(tx, key, v)?,
                    None => {
                        tx.execute("DELETE FROM ext_sync_state WHERE key = ?1", [key])?;
                    }
                }
            }
            Ok(())
        })
    }

    /// Records files written or read outside a round (a snapshot's parts), as applied.
    pub fn sync_record_files(&mut self, marks: &[Mark]) -> Result<()> {
        self.write(|tx| {
            for mark in marks {
                write_mark(tx, mark)?;
            }
            Ok(())
        })
    }

    /// Per device, every snapshot of which a part is applied here: its end, how many parts it
    /// says it has, and each part's name by number (a part number may come with several names
    /// in a plain folder, where anyone can write one), newest first.
    pub fn sync_snapshots(&self) -> Result<BTreeMap<String, Vec<SnapshotSeen>>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT device, upto, parts, part, name FROM ext_sync_snapshots ORDER BY device, upto DESC, part",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
            ))
        })?;
        let mut out: BTreeMap<String, Vec<SnapshotSeen>> = BTreeMap::new();
        for row in rows {
            let (device, upto, parts, part, name) = row?;
            let (upto, parts, part) = (
                u64::try_from(upto).unwrap_or(0),
                u32::try_from(parts).unwrap_or(u32::MAX),
                u32::try_from(part).unwrap_or(0),
            );
            let seen = out.entry(device).or_default();
            match seen.last_mut() {
                Some(s) if s.upto == upto && s.parts == parts => s.names.push((part, name)),
                _ => seen.push(SnapshotSeen { upto, parts, names: vec![(part, name)] }),
            }
        }
        Ok(out)
    }

    /// The names of the files of `device` applied here that a complete snapshot (ending at
    /// `upto`, parts `keep`) supersedes.
    pub fn sync_superseded(&self, device: &str, upto: u64, keep: &BTreeSet<String>) -> Result<Vec<String>> {
        let mut stmt =
            self.conn().prepare_cached("SELECT name FROM ext_sync_known WHERE device = ?1 AND last <= ?2")?;
        let names: Vec<String> = stmt
            .query_map(params![device, i64::try_from(upto).unwrap_or(i64::MAX)], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(names.into_iter().filter(|n| !keep.contains(n)).collect())
    }

    /// Of `ops` (one device's, as it logged them), which still count in the records here: a
    /// snapshot keeps those and leaves the rest out.
    pub fn sync_still_counting(&self, ops: &[Op]) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(ops.len());
        let mut cache: Option<(String, String, Option<RecordState>)> = None;
        for op in ops {
            let fresh = cache.as_ref().is_none_or(|(t, k, _)| *t != op.table || *k != op.key);
            if fresh {
                let state = load(self.conn(), &op.table, &op.key)?.map(|(s, _)| s);
                cache = Some((op.table.clone(), op.key.clone(), state));
            }
            let holds = cache
                .as_ref()
                .and_then(|(_, _, s)| s.as_ref())
                .is_some_and(|s| s.holds(&devcoach_core::sync::state::Stamp::of(op)));
            out.push(holds);
        }
        Ok(out)
    }

    /// The files of the shared folder applied here (every device's, this one's included).
    pub fn sync_marks(&self) -> Result<BTreeSet<Mark>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT f.device, f.file, k.name, k.first, k.last, k.written_at FROM ext_sync_files f \
             LEFT JOIN ext_sync_known k ON k.device = f.device AND k.file = f.file",
        )?;
        let marks = stmt
            .query_map([], |r| {
                Ok(Mark {
                    device: r.get(0)?,
                    digest: r.get(1)?,
                    name: r.get(2)?,
                    first: r.get::<_, Option<i64>>(3)?.and_then(|v| u64::try_from(v).ok()).unwrap_or(0),
                    last: r.get::<_, Option<i64>>(4)?.and_then(|v| u64::try_from(v).ok()).unwrap_or(0),
                    written_at: r.get(5)?,
                    snapshot: None,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(marks)
    }

    /// The folder's files that did not read when last tried, as (device, name, size, modified,
    /// why, retry), by this build only (a newer build may read what this one could not).
    pub fn sync_failed(&self) -> Result<Vec<FailedFile>> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT device, name, len, modified, what, retry_at FROM ext_sync_failed WHERE app = ?1")?;
        let rows = stmt
            .query_map([devcoach_core::APP_VERSION], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Replaces what [`Store::sync_failed`] remembers.
    pub fn set_sync_failed(&mut self, failed: &[FailedFile]) -> Result<()> {
        self.write(|tx| {
            tx.execute("DELETE FROM ext_sync_failed", [])?;
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO ext_sync_failed (device, name, len, modified, what, retry_at, app) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for (device, name, len, modified, what, retry_at) in failed {
                insert.execute(params![
                    device,
                    name,
                    i64::try_from(*len).unwrap_or(i64::MAX),
                    modified,
                    what,
                    retry_at,
                    devcoach_core::APP_VERSION
                ])?;
            }
            Ok(())
        })
    }

    /// The first `limit` records another device sent that this file could not store, as
    /// (table, key).
    pub fn sync_refused_records(&self, limit: usize) -> Result<Vec<(String, String)>> {
        let mut stmt =
            self.conn().prepare_cached("SELECT tbl, key FROM ext_sync_refused ORDER BY tbl, key LIMIT ?1")?;
        let rows = stmt
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// How many records another device sent that this file could not store.
    pub fn sync_refused(&self) -> Result<usize> {
        let n: i64 =
            self.conn().query_row("SELECT COUNT(*) FROM ext_sync_refused", [], |r| r.get(0)).optional()?.unwrap_or(0);
        Ok(usize::try_from(n).unwrap_or(0))
    }
}

fn set_state(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO ext_sync_state (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )?
    .execute([key, value])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use devcoach_core::sync::tables::synced;

    /// Our settings that belong to one machine (its consent, its pacing, a cache of its own
    /// tables) never travel: another machine's value would be wrong there.
    #[test]
    fn this_machines_own_settings_stay_here() {
        let ext = synced("ext_settings").expect("ext_settings");
        for key in [
            crate::work::WORK_INSIGHTS_KEY,
            crate::pacing::HELD_CUE_KEY,
            crate::pacing::HELD_CUE_FOR,
            crate::reviews::LAST_OFFER,
            crate::reviews::CARDS_SIGNATURE,
        ] {
            assert!(ext.local_keys.contains(&key), "{key} would travel");
        }
        let settings = synced("settings").expect("settings");
        assert!(settings.local_keys.contains(&"schema_app_version"));
    }
}
