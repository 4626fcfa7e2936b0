//! Sync's side of the store: reading every synced table as records, and one round — log what
//! changed here since the last round, then make the synced tables what every device's changes
//! merge to — in one `IMMEDIATE` transaction.
//!
//! What changed here is found by comparing the tables with what the changes applied so far
//! merge to, so a write by any program (this devcoach, the TypeScript one, a restore) is logged
//! the same way, and a crash between writing the log and committing loses nothing: the logged
//! changes count as applied (they came from this store), so they are never logged twice.

use std::collections::{BTreeMap, BTreeSet};

use devcoach_core::course::{CourseId, MAX_COURSE_DOCUMENT_BYTES};
use devcoach_core::sync::merge::bound;
use devcoach_core::sync::op::record_key;
use devcoach_core::sync::tables::{DOCUMENTS, Key, is_seed};
use devcoach_core::sync::{Change, DeviceId, Hlc, Merged, Op, RecordKey, Row, SYNCED, SyncTable, diff};
use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use serde_json::Value;

use crate::{DataDir, Result, Store, StoreError};

/// A file of the shared folder, by its device and digest: applied here once recorded.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark {
    pub device: String,
    pub digest: String,
}

/// One round's inputs, read from the folder by the caller.
pub struct SyncRound<'a> {
    pub device: &'a DeviceId,
    /// This device's next sequence number.
    pub next_seq: u64,
    /// The clock, already past every change read.
    pub clock: Hlc,
    pub now_ms: i64,
    /// What the changes the store already shows merge to: every one this device logged, and
    /// the other devices' up to their marks (merged before the transaction, which then only
    /// reads, compares and writes).
    pub shadow: &'a Merged,
    /// What those and the other devices' changes read this round merge to.
    pub theirs: Merged,
    /// The files read this round, to record as applied once the round commits.
    pub marks: Vec<Mark>,
    /// This device's first round after joining a folder other devices use: where both hold a
    /// record, the folder's wins (a fresh install's default settings must not replace the
    /// learner's); what only this device holds is added.
    pub joining: bool,
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
}

/// The synced tables this file has, with their columns.
fn present_tables(conn: &Connection) -> Result<Vec<(&'static SyncTable, Vec<String>)>> {
    Ok(typed_tables(conn)?.into_iter().map(|(t, cols)| (t, cols.into_iter().map(|(c, _)| c).collect())).collect())
}

/// A column's name and declared type (upper case).
type TypedColumn = (String, String);

/// The synced tables this file has, with their columns and declared types.
fn typed_tables(conn: &Connection) -> Result<Vec<(&'static SyncTable, Vec<TypedColumn>)>> {
    let mut out = Vec::new();
    for table in SYNCED {
        let mut stmt = conn.prepare_cached("SELECT name, type FROM pragma_table_info(?1)")?;
        let columns: Vec<TypedColumn> = stmt
            .query_map([table.name], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?.to_ascii_uppercase())))?
            .collect::<rusqlite::Result<_>>()?;
        let columns: Vec<_> = columns.into_iter().filter(|(c, _)| Some(c.as_str()) != table.local_id).collect();
        if !columns.is_empty() {
            out.push((table, columns));
        }
    }
    Ok(out)
}

/// Whether `value` is what a column of this declared type holds (SQLite would store a text in
/// an INTEGER column, and every reader of the file would then trip over it).
fn fits_type(declared: &str, value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(_) => declared.contains("TEXT") || declared.is_empty(),
        Value::Number(n) if declared.contains("INT") => n.is_i64(),
        Value::Number(_) => declared.contains("REAL") || declared.is_empty(),
        Value::Bool(_) => declared.contains("INT"),
        _ => false,
    }
}

fn to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) | ValueRef::Blob(t) => Value::from(String::from_utf8_lossy(t).into_owned()),
    }
}

fn to_sql(value: &Value) -> Sql {
    match value {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => n.as_i64().map_or_else(|| Sql::Real(n.as_f64().unwrap_or(0.0)), Sql::Integer),
        Value::String(s) => Sql::Text(s.clone()),
        other => Sql::Text(other.to_string()),
    }
}

fn key_of(table: &SyncTable, row: &Row) -> RecordKey {
    match table.key {
        Key::Columns(columns) => record_key(row, columns),
        // Every value, in column-name order: a key is always a JSON array, as the file holds it.
        Key::Content => serde_json::to_string(&row.values().collect::<Vec<_>>()).unwrap_or_default(),
    }
}

/// Whether the row stays on this machine (the consent, this machine's pacing, the schema stamp).
fn is_local(table: &SyncTable, row: &Row) -> bool {
    let first = match table.key {
        Key::Columns(columns) => columns.first().and_then(|c| row.get(*c)),
        Key::Content => None,
    };
    first.and_then(Value::as_str).is_some_and(|v| table.local_keys.contains(&v))
}

/// The table's records as the store holds them, each with its rowid.
fn read_rows(conn: &Connection, table: &SyncTable, columns: &[String]) -> Result<BTreeMap<RecordKey, (i64, Row)>> {
    let list = columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let mut stmt = conn.prepare(&format!("SELECT rowid, {list} FROM \"{}\" ORDER BY rowid", table.name))?;
    let mut rows = stmt.query([])?;
    let mut out = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let rowid: i64 = r.get(0)?;
        let mut row = Row::new();
        for (i, column) in columns.iter().enumerate() {
            row.insert(column.clone(), to_json(r.get_ref(i + 1)?));
        }
        if !is_local(table, &row) {
            out.insert(key_of(table, &row), (rowid, row));
        }
    }
    Ok(out)
}

fn refused_keys(conn: &Connection) -> Result<BTreeSet<(String, String)>> {
    let mut stmt = conn.prepare_cached("SELECT tbl, key FROM ext_sync_refused")?;
    let keys = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    Ok(keys)
}

/// The notebook and the course documents as records (`{name, text}`), read the way every other
/// reader reads them: regular files only, under their caps.
fn read_documents(conn: &Connection, dir: &DataDir) -> Result<BTreeMap<RecordKey, Row>> {
    let mut out = BTreeMap::new();
    let mut add = |name: String, text: String| {
        let row: Row = [("name".to_owned(), Value::from(name)), ("text".to_owned(), Value::from(text))].into();
        out.insert(key_of(&DOCUMENTS, &row), row);
    };
    if std::fs::symlink_metadata(dir.notebook_path()).is_ok_and(|m| m.is_file()) {
        add("notebook".to_owned(), dir.read_notebook()?);
    }
    let mut stmt = conn.prepare("SELECT id FROM courses ORDER BY id")?;
    let ids: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    for id in ids.iter().filter_map(|id| CourseId::parse(id).ok()) {
        // A document that is not a safe regular file is left out, as the dashboard leaves it.
        if let Ok(Some(path)) = dir.course_document(&id)
            && let Ok(bytes) = devcoach_files::read(&path, MAX_COURSE_DOCUMENT_BYTES, devcoach_files::Links::Refuse)
        {
            add(format!("course:{}", id.as_str()), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    Ok(out)
}

/// Where a document record lives here; `None` for a name that is not one (a hostile record
/// never names a path).
fn document_path(dir: &DataDir, name: &str) -> Option<std::path::PathBuf> {
    if name == "notebook" {
        return Some(dir.notebook_path());
    }
    let id = CourseId::parse(name.strip_prefix("course:")?).ok()?;
    Some(dir.course_document_path(&id))
}

/// Writes and removes documents until the files match `target`; what it could not write is refused.
fn apply_documents(conn: &Connection, dir: &DataDir, target: &Merged) -> Result<(usize, usize)> {
    let local = read_documents(conn, dir)?;
    let wanted = target.live(&DOCUMENTS);
    let (mut written, mut refused) = (0, 0);
    let mut refuse = |key: &str| -> Result<()> {
        refused += 1;
        conn.prepare_cached("INSERT OR IGNORE INTO ext_sync_refused (tbl, key) VALUES (?1, ?2)")?
            .execute([DOCUMENTS.name, key])?;
        Ok(())
    };
    for (key, row) in &local {
        if !wanted.contains_key(key)
            && let Some(path) = row.get("name").and_then(Value::as_str).and_then(|n| document_path(dir, n))
        {
            let _ = std::fs::remove_file(path);
            written += 1;
        }
    }
    for (key, row) in wanted {
        let (Some(name), Some(text)) =
            (row.get("name").and_then(Value::as_str), row.get("text").and_then(Value::as_str))
        else {
            refuse(key)?;
            continue;
        };
        let cap = if name == "notebook" { crate::notebook::MAX_NOTEBOOK_BYTES } else { MAX_COURSE_DOCUMENT_BYTES };
        let Some(path) = document_path(dir, name).filter(|_| text.len() as u64 <= cap) else {
            refuse(key)?;
            continue;
        };
        if local.get(key).and_then(|r| r.get("text")).and_then(Value::as_str) == Some(text) {
            continue;
        }
        // Only into real folders of the data folder: never through a link.
        let parent = path.parent().map(std::path::Path::to_owned).unwrap_or_default();
        let ok = std::fs::create_dir_all(&parent).is_ok()
            && parent
                .ancestors()
                .take_while(|p| p.starts_with(dir.root()) && *p != dir.root())
                .all(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
            && devcoach_files::write(&path, text.as_bytes(), devcoach_files::Overwrite::Replace).is_ok();
        if ok { written += 1 } else { refuse(key)? }
    }
    Ok((written, refused))
}

/// Every change made here since `shadow` (the applied changes merged), by table.
fn local_changes(conn: &Connection, dir: &DataDir, shadow: &Merged) -> Result<Vec<(&'static str, RecordKey, Change)>> {
    let refused = refused_keys(conn)?;
    let mut changes = Vec::new();
    let keep = |table: &str, k: &RecordKey| !refused.contains(&(table.to_owned(), k.clone()));
    let local: BTreeMap<RecordKey, Row> =
        read_documents(conn, dir)?.into_iter().filter(|(k, _)| keep(DOCUMENTS.name, k)).collect();
    let was: BTreeMap<&RecordKey, &Row> =
        shadow.live(&DOCUMENTS).into_iter().filter(|(k, _)| keep(DOCUMENTS.name, k)).collect();
    changes.extend(diff(&DOCUMENTS, &was, &local).into_iter().map(|(k, c)| (DOCUMENTS.name, k, c)));
    for (table, columns) in present_tables(conn)? {
        let keep = |k: &RecordKey| !refused.contains(&(table.name.to_owned(), k.clone()));
        let local: BTreeMap<RecordKey, Row> =
            read_rows(conn, table, &columns)?.into_iter().filter(|(k, _)| keep(k)).map(|(k, (_, r))| (k, r)).collect();
        // Columns the shadow has and this file lacks (a newer device's) are never compared: the
        // diff reads only the local row's columns.
        let was: BTreeMap<&RecordKey, &Row> =
            shadow.live(table).into_iter().filter(|(k, row)| keep(k) && !is_local(table, row)).collect();
        changes.extend(diff(table, &was, &local).into_iter().map(|(k, c)| (table.name, k, c)));
    }
    Ok(changes)
}

/// Makes the synced tables hold `target`'s records: removals first (a unique index may name a
/// record's new place), then changes, then additions. A record this file refuses is noted, so
/// the next round does not read its absence as a local deletion.
fn apply(conn: &Connection, target: &Merged) -> Result<(usize, usize)> {
    conn.execute("DELETE FROM ext_sync_refused", [])?;
    let (mut written, mut refused) = (0, 0);
    for (table, typed) in typed_tables(conn)? {
        let columns: Vec<String> = typed.iter().map(|(c, _)| c.clone()).collect();
        let local = read_rows(conn, table, &columns)?;
        let wanted: BTreeMap<&RecordKey, &Row> =
            target.live(table).into_iter().filter(|(_, row)| !is_local(table, row)).collect();
        // One record as this file stores it: its own columns, counters within their range.
        let stored = |row: &Row| -> Row {
            let mut row: Row =
                row.iter().filter(|(c, _)| columns.contains(c)).map(|(c, v)| (c.clone(), v.clone())).collect();
            bound(table, &mut row);
            row
        };
        let mut refuse = |key: &str| -> Result<()> {
            refused += 1;
            conn.prepare_cached("INSERT OR IGNORE INTO ext_sync_refused (tbl, key) VALUES (?1, ?2)")?
                .execute([table.name, key])?;
            Ok(())
        };
        for (key, (rowid, _)) in &local {
            if !wanted.contains_key(&key) {
                conn.prepare_cached(&format!("DELETE FROM \"{}\" WHERE rowid = ?1", table.name))?.execute([rowid])?;
                written += 1;
            }
        }
        let fits = |row: &Row| {
            row.iter().all(|(c, v)| typed.iter().find(|(name, _)| name == c).is_some_and(|(_, t)| fits_type(t, v)))
        };
        // What every other door would refuse (a range, a size, a timestamp, a name rule) is
        // refused here too, whichever device sent it.
        let valid = |row: &Row| devcoach_core::records::check(table.name, row).is_ok();
        for (key, row) in &wanted {
            let Some((rowid, have)) = local.get(*key) else { continue };
            let row = stored(row);
            if !fits(&row) {
                refuse(key)?;
                continue;
            }
            let changed: Vec<(&String, &Value)> =
                row.iter().filter(|(c, v)| have.get(*c).unwrap_or(&Value::Null) != *v).collect();
            if changed.is_empty() {
                continue;
            }
            if !valid(&row) {
                refuse(key)?;
                continue;
            }
            let set = changed.iter().enumerate().map(|(i, (c, _))| format!("\"{c}\" = ?{}", i + 2)).collect::<Vec<_>>();
            let sql = format!("UPDATE \"{}\" SET {} WHERE rowid = ?1", table.name, set.join(", "));
            let values = std::iter::once(Sql::Integer(*rowid)).chain(changed.iter().map(|(_, v)| to_sql(v)));
            match conn.execute(&sql, params_from_iter(values)) {
                Ok(_) => written += 1,
                Err(e) if is_constraint(&e) => refuse(key)?,
                Err(e) => return Err(e.into()),
            }
        }
        for (key, row) in &wanted {
            if local.contains_key(*key) {
                continue;
            }
            let row = stored(row);
            if !fits(&row) || !valid(&row) {
                refuse(key)?;
                continue;
            }
            let names = row.keys().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
            let marks = (1..=row.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
            let sql = format!("INSERT INTO \"{}\" ({names}) VALUES ({marks})", table.name);
            match conn.execute(&sql, params_from_iter(row.values().map(to_sql))) {
                Ok(_) => written += 1,
                Err(e) if is_constraint(&e) => refuse(key)?,
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok((written, refused))
}

fn is_constraint(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::ConstraintViolation))
}

fn write_mark(conn: &Connection, mark: &Mark) -> Result<()> {
    conn.prepare_cached("INSERT OR IGNORE INTO ext_sync_files (device, file) VALUES (?1, ?2)")?
        .execute([&mark.device, &mark.digest])?;
    Ok(())
}

impl Store {
    /// One round: logs what changed here (through `log`, which writes this device's file and
    /// returns its mark), then makes the synced tables what all changes merge to. `log` runs
    /// inside the transaction: if it fails nothing is applied, and if the process dies after it
    /// the logged changes still count as this store's.
    pub fn sync_round(
        &mut self,
        round: SyncRound<'_>,
        log: impl FnOnce(&[Op]) -> std::result::Result<Option<Mark>, String>,
    ) -> Result<RoundOutcome> {
        let dir = self.data_dir().clone();
        self.write(|tx| {
            let mut changes = local_changes(tx, &dir, round.shadow)?;
            if round.joining {
                // Where the folder holds the record, the folder's wins; but a learner's own
                // setting wins over a fresh install's default, whichever came first.
                let theirs = &round.theirs;
                let live: BTreeMap<&str, BTreeMap<&RecordKey, &Row>> =
                    SYNCED.iter().chain([&DOCUMENTS]).map(|t| (t.name, theirs.live(t))).collect();
                changes.retain(|(table, key, change)| {
                    let Change::Create(mine) = change else { return false };
                    match live.get(table).and_then(|rows| rows.get(key)) {
                        None => true,
                        Some(their) => is_seed(table, their) && !is_seed(table, mine),
                    }
                });
            }
            let mut clock = round.clock;
            let mut logged = Vec::new();
            for (i, (table, key, change)) in changes.into_iter().enumerate() {
                let seq = round.next_seq + i as u64;
                // A seeded default is logged at the lowest reading: any chosen value outranks it.
                let at = match &change {
                    Change::Create(row) if is_seed(table, row) => Hlc(0, u32::try_from(seq).unwrap_or(u32::MAX)),
                    _ => {
                        clock = clock.next(round.now_ms);
                        clock
                    }
                };
                logged.push(Op { device: round.device.clone(), seq, at, table: table.to_owned(), key, change });
            }
            let own = log(&logged).map_err(StoreError::SyncLog)?;
            // This device's new changes are stamped past every change read (so folding them on
            // top is the merge of all), but for seeded defaults, stamped below every one.
            let mut target = round.theirs;
            let (under, later): (Vec<&Op>, Vec<&Op>) = logged.iter().partition(|op| op.at.millis() == 0);
            target.fold_later(later);
            target.fold_under(under);
            let (mut written, mut refused) = apply(tx, &target)?;
            let (documents, refused_documents) = apply_documents(tx, &dir, &target)?;
            written += documents;
            refused += refused_documents;
            for mark in round.marks.iter().chain(own.as_ref()) {
                write_mark(tx, mark)?;
            }
            set_state(tx, "clock", &serde_json::to_string(&clock).unwrap_or_default())?;
            Ok(RoundOutcome { logged, written, refused, clock })
        })
    }

    /// How many changes made here the next round would log (for `sync status`), given what the
    /// applied changes merge to.
    pub fn sync_pending(&self, shadow: &Merged) -> Result<usize> {
        Ok(local_changes(self.conn(), self.data_dir(), shadow)?.len())
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

    /// Sets sync's settings (`None` removes one); `reset` first forgets every one and every mark
    /// (`sync off`, or a new device id).
    pub fn set_sync_state(&mut self, pairs: &[(&str, Option<&str>)], reset: bool) -> Result<()> {
        self.write(|tx| {
            if reset {
                tx.execute_batch(
                    "DELETE FROM ext_sync_state; DELETE FROM ext_sync_files; DELETE FROM ext_sync_refused;",
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

    /// The files of the shared folder applied here (every device's, this one's included).
    pub fn sync_marks(&self) -> Result<BTreeSet<Mark>> {
        let mut stmt = self.conn().prepare_cached("SELECT device, file FROM ext_sync_files")?;
        let marks = stmt
            .query_map([], |r| Ok(Mark { device: r.get(0)?, digest: r.get(1)? }))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(marks)
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
