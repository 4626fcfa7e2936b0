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
use std::fmt::Write as _;

use devcoach_core::course::CourseId;
use devcoach_core::limits;
use devcoach_core::sync::merge::bound;
use devcoach_core::sync::op::record_key;
use devcoach_core::sync::tables::{DOCUMENTS, Key, is_seed, synced};
use devcoach_core::sync::{Change, DeviceId, Hlc, Op, RecordKey, RecordState, Row, SYNCED, SyncTable, diff, state};
use rusqlite::types::{ToSqlOutput, Value as Sql, ValueRef};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use serde_json::Value;

use crate::{DataDir, Result, Store, StoreError};

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

/// Where a comparison of everything stands.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct CompareAt {
    table: usize,
    /// Past the table's rows: its records without a row are being compared.
    records: bool,
    rowid: i64,
    key: String,
    /// Each table's last rowid when the comparison began: it compares the rows that were there
    /// then (a row written since has a note, and a higher rowid, `INSERT OR REPLACE` included).
    /// Absent in a state an earlier build left: every row.
    #[serde(default)]
    ends: BTreeMap<String, i64>,
    /// The table `table` numbers (a newer file may have more tables, numbered otherwise).
    #[serde(default)]
    name: String,
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

/// A value as a statement's parameter, its text borrowed rather than copied.
fn sql_ref(value: &Value) -> ToSqlOutput<'_> {
    match value {
        Value::String(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        other => ToSqlOutput::Owned(to_sql(other)),
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
            && let Ok(bytes) = devcoach_files::read(&path, limits::COURSE_DOCUMENT_BYTES, devcoach_files::Links::Refuse)
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

/// Writes and removes documents until the files match `wanted`; what it could not write is refused.
/// `seen` is what the round's comparison read: a document that changed since (the learner or an
/// agent wrote the notebook while the sync ran) is left alone, and the next sync sends it.
fn apply_documents(
    conn: &Connection,
    dir: &DataDir,
    wanted: &BTreeMap<RecordKey, Row>,
    seen: &BTreeMap<RecordKey, Row>,
) -> Result<(usize, usize)> {
    let local = read_documents(conn, dir)?;
    let edited = |key: &str| local.get(key) != seen.get(key);
    conn.execute("DELETE FROM ext_sync_refused WHERE tbl = ?1", [DOCUMENTS.name])?;
    let (mut written, mut refused) = (0, 0);
    let mut refuse = |key: &str| -> Result<()> {
        refused += 1;
        conn.prepare_cached("INSERT OR IGNORE INTO ext_sync_refused (tbl, key) VALUES (?1, ?2)")?
            .execute([DOCUMENTS.name, key])?;
        Ok(())
    };
    for (key, row) in &local {
        if !wanted.contains_key(key)
            && !edited(key)
            && let Some(path) = row.get("name").and_then(Value::as_str).and_then(|n| document_path(dir, n))
        {
            let _ = std::fs::remove_file(path);
            written += 1;
        }
    }
    for (key, row) in wanted {
        let key = key.as_str();
        let (Some(name), Some(text)) =
            (row.get("name").and_then(Value::as_str), row.get("text").and_then(Value::as_str))
        else {
            refuse(key)?;
            continue;
        };
        let cap = if name == "notebook" { limits::NOTEBOOK_BYTES } else { limits::COURSE_DOCUMENT_BYTES };
        let Some(path) = document_path(dir, name).filter(|_| text.len() as u64 <= cap) else {
            refuse(key)?;
            continue;
        };
        if local.get(key).and_then(|r| r.get("text")).and_then(Value::as_str) == Some(text) || edited(key) {
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

/// The key a record has in a table keyed by one column holding `id`.
fn parent_key(id: &Value) -> RecordKey {
    serde_json::to_string(&[id]).unwrap_or_default()
}

/// A key as the triggers write it (SQLite's JSON), in the form every record key has.
fn canonical_key(raw: &str) -> Option<RecordKey> {
    let values: Vec<Value> = serde_json::from_str(raw).ok()?;
    serde_json::to_string(&values).ok()
}

/// The columns a key's values belong to, in order: the key columns, or for a log row every
/// column of the row (by name, as [`key_of`] writes them).
fn key_columns(table: &SyncTable, columns: &[String]) -> Vec<String> {
    match table.key {
        Key::Columns(names) => names.iter().map(|c| (*c).to_owned()).collect(),
        Key::Content => {
            let mut sorted = columns.to_vec();
            sorted.sort();
            sorted
        }
    }
}

/// The row `key` names in this file, with its rowid (not synced rows are left out).
fn find_row(conn: &Connection, table: &SyncTable, columns: &[String], key: &str) -> Result<Option<(i64, Row)>> {
    let Ok(values) = serde_json::from_str::<Vec<Value>>(key) else { return Ok(None) };
    let names = key_columns(table, columns);
    if names.len() != values.len() || names.iter().any(|n| !columns.contains(n)) {
        return Ok(None);
    }
    let list = columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let filter = names.iter().enumerate().map(|(i, c)| format!("\"{c}\" IS ?{}", i + 1)).collect::<Vec<_>>();
    let sql = format!("SELECT rowid, {list} FROM \"{}\" WHERE {} LIMIT 1", table.name, filter.join(" AND "));
    let found = conn
        .prepare_cached(&sql)?
        .query_row(params_from_iter(values.iter().map(to_sql)), |r| {
            let mut row = Row::new();
            for (i, column) in columns.iter().enumerate() {
                row.insert(column.clone(), to_json(r.get_ref(i + 1)?));
            }
            Ok((r.get::<_, i64>(0)?, row))
        })
        .optional()?;
    Ok(found.filter(|(_, row)| !is_local(table, row) && key_of(table, row) == key))
}

/// The row at `rowid`, if there is one.
fn row_at(conn: &Connection, table: &SyncTable, columns: &[String], rowid: i64) -> Result<Option<Row>> {
    let list = columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let sql = format!("SELECT {list} FROM \"{}\" WHERE rowid = ?1", table.name);
    Ok(conn
        .prepare_cached(&sql)?
        .query_row([rowid], |r| {
            let mut row = Row::new();
            for (i, column) in columns.iter().enumerate() {
                row.insert(column.clone(), to_json(r.get_ref(i)?));
            }
            Ok(row)
        })
        .optional()?)
}

/// A record's merge state and the rowid it was last matched at.
fn load(conn: &Connection, table: &str, key: &str) -> Result<Option<(RecordState, Option<i64>)>> {
    Ok(conn
        .prepare_cached("SELECT state, rid FROM ext_sync_records WHERE tbl = ?1 AND key = ?2")?
        .query_row([table, key], |r| Ok((read_state(r.get_ref(0)?), r.get(1)?)))
        .optional()?)
}

/// A kept state: packed (what this build writes) or JSON text (what earlier builds wrote). A
/// damaged one reads as a record with no change at all, as it always has.
fn read_state(stored: ValueRef<'_>) -> RecordState {
    match stored {
        ValueRef::Blob(bytes) => state::packed::decode(bytes).unwrap_or_default(),
        ValueRef::Text(text) => serde_json::from_slice(text).unwrap_or_default(),
        _ => RecordState::default(),
    }
}

/// Where the parent and one-per-value rules look a record up: its parent's key and its value.
fn lookups(table: &SyncTable, state: &RecordState) -> (Option<RecordKey>, Option<String>) {
    if table.parent.is_none() && table.unique.is_none() {
        return (None, None);
    }
    let Some((row, _)) = state.row() else { return (None, None) };
    let parent = table.parent.map(|(column, _)| parent_key(row.get(column).unwrap_or(&Value::Null)));
    let uniq = table.unique.map(|column| row.get(column).map(Value::to_string).unwrap_or_default());
    (parent, uniq)
}

fn save(conn: &Connection, table: &SyncTable, key: &str, state: &RecordState) -> Result<()> {
    let (parent, uniq) = lookups(table, state);
    conn.prepare_cached(
        "INSERT INTO ext_sync_records (tbl, key, state, alive, parent, uniq) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT (tbl, key) DO UPDATE SET state = excluded.state, alive = excluded.alive, \
         parent = excluded.parent, uniq = excluded.uniq",
    )?
    .execute(params![table.name, key, state::packed::encode(state), state.exists(), parent, uniq])?;
    Ok(())
}

/// Whether a record exists (without reading its state).
fn alive(conn: &Connection, table: &str, key: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT alive FROM ext_sync_records WHERE tbl = ?1 AND key = ?2")?
        .query_row([table, key], |r| r.get::<_, bool>(0))
        .optional()?
        .unwrap_or(false))
}

fn set_rid(conn: &Connection, table: &str, key: &str, rid: Option<i64>) -> Result<()> {
    conn.prepare_cached("UPDATE ext_sync_records SET rid = ?3 WHERE tbl = ?1 AND key = ?2")?
        .execute(params![table, key, rid])?;
    Ok(())
}

/// The records a round must bring the tables in line with, per table; and, for the parent
/// rule, the records that came into being or ceased to be (their children follow them).
#[derive(Default)]
struct Affected {
    keys: BTreeMap<&'static str, BTreeSet<RecordKey>>,
    flipped: BTreeMap<&'static str, BTreeSet<RecordKey>>,
}

/// Folds `ops` into the records they change, noting every record whose merge moved (and, for
/// the one-per-value rule, the other records of the value it left).
fn fold<'a>(conn: &Connection, ops: impl IntoIterator<Item = Cow<'a, Op>>, affected: &mut Affected) -> Result<()> {
    let mut by_record: BTreeMap<(&'static str, RecordKey), Vec<Cow<'a, Op>>> = BTreeMap::new();
    for op in ops {
        // A table this build does not sync (a newer device's) has nowhere to go here.
        let Some(table) = synced(&op.table) else { continue };
        // A change that sets a key column to another value than its key's (no devcoach makes
        // one: a new key is a new record) would take the record away everywhere: dropped. (Not
        // marked refused: that would stop this record's own changes from being sent.)
        if let (Key::Columns(columns), Change::Create(fields) | Change::Update(fields)) = (table.key, &op.change) {
            let key: Vec<Value> = serde_json::from_str(&op.key).unwrap_or_default();
            if columns.iter().enumerate().any(|(i, c)| fields.get(*c).is_some_and(|v| key.get(i) != Some(v))) {
                continue;
            }
        }
        by_record.entry((table.name, op.key.clone())).or_default().push(op);
    }
    for ((name, key), ops) in by_record {
        let Some(table) = synced(name) else { continue };
        let mut state = load(conn, name, &key)?.map(|(s, _)| s).unwrap_or_default();
        let before = state.clone();
        for op in ops {
            match op {
                Cow::Borrowed(op) => state.fold(op),
                Cow::Owned(op) => state.fold_owned(op),
            }
        }
        if state == before {
            continue;
        }
        if let (_, Some(value)) = lookups(table, &before) {
            note_value_group(conn, table, &value, affected)?;
        }
        save(conn, table, &key, &state)?;
        if before.exists() != state.exists() {
            affected.flipped.entry(table.name).or_default().insert(key.clone());
        }
        affected.keys.entry(table.name).or_default().insert(key);
    }
    Ok(())
}

/// Every record that holds `value` in the table's one-per-value column: one of them may win now.
fn note_value_group(conn: &Connection, table: &'static SyncTable, value: &str, affected: &mut Affected) -> Result<()> {
    let mut stmt = conn.prepare_cached("SELECT key FROM ext_sync_records WHERE tbl = ?1 AND uniq = ?2")?;
    let keys = stmt.query_map([table.name, value], |r| r.get::<_, String>(0))?;
    let entry = affected.keys.entry(table.name).or_default();
    for key in keys {
        entry.insert(key?);
    }
    Ok(())
}

/// The record `key` as the store should hold it (counters unbounded): it exists, is not a row
/// this machine keeps to itself, its parent exists, and it wins its value.
fn live_row(conn: &Connection, table: &SyncTable, key: &str) -> Result<Option<Row>> {
    let Some((state, _)) = load(conn, table.name, key)? else { return Ok(None) };
    let Some((row, stamp)) = state.into_row() else { return Ok(None) };
    // A record exists only under its own key: a change keyed one way whose row names another
    // record (forged) would otherwise land on that record, and devices would differ over it.
    if is_local(table, &row) || key_of(table, &row) != key {
        return Ok(None);
    }
    if let Some((column, parent)) = table.parent {
        let pkey = parent_key(row.get(column).unwrap_or(&Value::Null));
        if !alive(conn, parent, &pkey)? {
            return Ok(None);
        }
    }
    if let Some(column) = table.unique {
        let value = row.get(column).map(Value::to_string).unwrap_or_default();
        let mut stmt =
            conn.prepare_cached("SELECT key, state FROM ext_sync_records WHERE tbl = ?1 AND uniq = ?2 AND key <> ?3")?;
        let others = stmt.query_map([table.name, value.as_str(), key], |r| {
            Ok((r.get::<_, String>(0)?, read_state(r.get_ref(1)?)))
        })?;
        for other in others {
            let (other_key, other_state) = other?;
            if let Some((_, other_stamp)) = other_state.row()
                && (other_stamp, other_key.as_str()) > (&stamp, key)
            {
                return Ok(None);
            }
        }
    }
    Ok(Some(row))
}

/// The row the record `key` holds, whether or not a rule (its parent, its one-per-value group)
/// lets it show.
fn record_row(conn: &Connection, table: &SyncTable, key: &str) -> Result<Option<Row>> {
    let Some((state, _)) = load(conn, table.name, key)? else { return Ok(None) };
    let Some((row, _)) = state.into_row() else { return Ok(None) };
    Ok((!is_local(table, &row) && key_of(table, &row) == key).then_some(row))
}

/// Every record key of `table` the records hold.
fn record_keys(conn: &Connection, table: &str) -> Result<Vec<RecordKey>> {
    let mut stmt = conn.prepare_cached("SELECT key FROM ext_sync_records WHERE tbl = ?1")?;
    let keys = stmt.query_map([table], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    Ok(keys)
}

/// The documents the records say the data folder should hold.
fn live_documents(conn: &Connection) -> Result<BTreeMap<RecordKey, Row>> {
    let mut out = BTreeMap::new();
    for key in record_keys(conn, DOCUMENTS.name)? {
        if let Some(row) = live_row(conn, &DOCUMENTS, &key)? {
            out.insert(key, row);
        }
    }
    Ok(out)
}

const TRIGGER_EVENTS: [(&str, &str); 3] = [("i", "INSERT"), ("u", "UPDATE"), ("d", "DELETE")];

/// What a trigger writes to name the row it saw: the key (a table keyed by columns) or the rowid
/// (a log, whose rowid is its own id and whose key would be every value, reals included).
fn row_ref(table: &SyncTable, row: &str) -> String {
    match table.key {
        Key::Columns(columns) => {
            // A blob (no devcoach writes one) is read as text, as the sync reads it, and never
            // makes the trigger (and so the write) fail.
            let values = columns
                .iter()
                .map(|c| format!("CASE WHEN typeof({row}.\"{c}\") = 'blob' THEN CAST({row}.\"{c}\" AS TEXT) ELSE {row}.\"{c}\" END"))
                .collect::<Vec<_>>();
            format!("json_array({})", values.join(", "))
        }
        Key::Content => format!("CAST({row}.rowid AS TEXT)"),
    }
}

/// Makes sure every synced table of this file notes its writes in `ext_sync_dirty`; `false` when
/// any trigger was missing (so writes may have gone unnoted: the round compares everything).
fn ensure_tracking(conn: &Connection) -> Result<bool> {
    let mut complete = true;
    for (table, _) in present_tables(conn)? {
        for (suffix, event) in TRIGGER_EVENTS {
            let name = format!("ext_sync_dirty_{}_{suffix}", table.name);
            let exists = conn
                .prepare_cached("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?1")?
                .query_row([&name], |_| Ok(()))
                .optional()?
                .is_some();
            if exists {
                continue;
            }
            complete = false;
            let refs: Vec<String> = match event {
                "INSERT" => vec![row_ref(table, "NEW")],
                "DELETE" => vec![row_ref(table, "OLD")],
                _ => vec![row_ref(table, "OLD"), row_ref(table, "NEW")],
            };
            // Not `INSERT OR IGNORE`: a writer's own conflict clause (`INSERT OR REPLACE`, an
            // upsert) overrides a trigger's, and the write would fail on a second note.
            let t = table.name;
            let body = refs.iter().fold(String::new(), |mut body, r| {
                let _ = write!(
                    body,
                    "INSERT INTO ext_sync_dirty (tbl, ref) SELECT '{t}', {r} \
                     WHERE NOT EXISTS (SELECT 1 FROM ext_sync_dirty WHERE tbl = '{t}' AND ref = {r});"
                );
                body
            });
            conn.execute_batch(&format!(
                "CREATE TRIGGER IF NOT EXISTS \"{name}\" AFTER {event} ON \"{}\" BEGIN {body} END;",
                table.name
            ))?;
        }
    }
    Ok(complete)
}

/// Whether every synced table's triggers are there (read only).
fn tracking_complete(conn: &Connection) -> Result<bool> {
    let tables = present_tables(conn)?.len();
    let have: i64 = conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ext\\_sync\\_dirty\\_%' ESCAPE '\\'",
        [],
        |r| r.get(0),
    )?;
    Ok(usize::try_from(have).unwrap_or(0) >= tables * TRIGGER_EVENTS.len())
}

fn drop_tracking(conn: &Connection) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ext\\_sync\\_dirty\\_%' ESCAPE '\\'",
    )?;
    let names: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    for name in names {
        conn.execute_batch(&format!("DROP TRIGGER IF EXISTS \"{name}\""))?;
    }
    conn.execute("DELETE FROM ext_sync_dirty", [])?;
    Ok(())
}

/// A change found here, with the record it is about.
type Found = Vec<(&'static str, RecordKey, Change)>;

/// What a round's look at the tables found.
#[derive(Default)]
struct Local {
    /// The changes made here; in a join, the folder's record wins over one of these.
    changes: Found,
    /// Changes made after a join's comparison began (between its rounds): the learner's latest
    /// word, logged whatever the folder holds.
    since_join: Found,
    /// For each log row compared, the rowid its record now matches.
    rids: Vec<(&'static str, RecordKey, Option<i64>)>,
    /// The documents beside the database, as read.
    documents: BTreeMap<RecordKey, Row>,
    /// Every record compared (whether or not it changed), per table.
    compared: BTreeMap<&'static str, BTreeSet<RecordKey>>,
    /// The notes of writes looked at, when some were left for a later round (`notes_left`).
    notes_done: Vec<(&'static str, String)>,
    notes_left: bool,
}

impl CompareAt {
    /// Whether a comparison of everything standing here has passed the row `rowid` of the
    /// table at `index` (a table's records without a row come after all its rows).
    fn passed(&self, index: usize, table: &str, rowid: i64) -> bool {
        index < self.table || (index == self.table && (self.records || rowid <= self.rowid)) || rowid > self.end(table)
    }

    /// The last rowid of `table` this comparison compares.
    fn end(&self, table: &str) -> i64 {
        self.ends.get(table).copied().unwrap_or(i64::MAX)
    }

    /// Whether it has got anywhere yet (a first round starts at the beginning).
    fn started(&self) -> bool {
        self.table > 0 || self.records || self.rowid > 0 || !self.key.is_empty()
    }

    /// Where this comparison stands in this file's tables, found by the table's name.
    fn relocated(mut self, conn: &Connection) -> Result<Self> {
        if !self.name.is_empty()
            && let Some(index) = present_tables(conn)?.iter().position(|(t, _)| t.name == self.name)
        {
            self.table = index;
        }
        Ok(self)
    }

    /// A comparison beginning now, at the first row of the first table.
    fn begin(conn: &Connection) -> Result<Self> {
        let mut ends = BTreeMap::new();
        for (table, _) in present_tables(conn)? {
            let end: Option<i64> =
                conn.query_row(&format!("SELECT MAX(rowid) FROM \"{}\"", table.name), [], |r| r.get(0))?;
            ends.insert(table.name.to_owned(), end.unwrap_or(0));
        }
        Ok(Self { ends, ..Self::default() })
    }

    /// Past every table: a comparison of everything that has looked at every record, while
    /// notes of writes are still being compared.
    fn past(self, tables: usize) -> Self {
        Self { table: tables, records: true, rowid: 0, key: String::new(), name: String::new(), ..self }
    }
}

/// Every change made here since the records were last matched: the records the triggers
/// noted, and with `from` a comparison of every record going on from there until `budget`
/// changes are found (then it says where it stopped; `None` once it is through). One record at
/// a time, so what is held is the changes found, not the tables. At most `notes` notes of
/// writes are looked at (`notes_left` says some wait for a later round).
///
/// In a join (`joining`) the comparison of everything finds what this device held before it
/// joined (all new to the folder: the folder's record wins where both hold one). Once that
/// comparison has begun, a write noted between its rounds is the learner's latest word: its row
/// is compared with its record like any other write (before the comparison of everything looks
/// at the table, so that one finds it compared already), wherever the comparison stands.
fn local_changes(
    conn: &Connection,
    dir: &DataDir,
    from: Option<&CompareAt>,
    joining: bool,
    budget: usize,
    notes: usize,
) -> Result<(Local, Option<CompareAt>)> {
    let mut stopped: Option<CompareAt> = None;
    let mut out = Local::default();
    let refused = refused_keys(conn)?;
    let keep = |table: &str, k: &str| !refused.contains(&(table.to_owned(), k.to_owned()));
    // A join whose comparison of everything began in an earlier round.
    let resumed = joining && from.is_some_and(CompareAt::started);
    // The documents are few and live beside the database: always compared whole.
    out.documents = read_documents(conn, dir)?;
    let local: BTreeMap<RecordKey, Row> =
        out.documents.iter().filter(|(k, _)| keep(DOCUMENTS.name, k)).map(|(k, r)| (k.clone(), r.clone())).collect();
    let was_rows = if joining && !resumed { BTreeMap::new() } else { live_documents(conn)? };
    let was: BTreeMap<&RecordKey, &Row> = was_rows.iter().filter(|(k, _)| keep(DOCUMENTS.name, k)).collect();
    let found = diff(&DOCUMENTS, &was, &local).into_iter().map(|(k, c)| (DOCUMENTS.name, k, c));
    if resumed {
        out.since_join.extend(found);
    } else {
        out.changes.extend(found);
    }
    for (index, (table, columns)) in present_tables(conn)?.into_iter().enumerate() {
        let log = table.key == Key::Content;
        // One record: its row here (if any) against what its record says the store held; as
        // new to the folder when `new` (a join's first look).
        // `noted`: a note of a write here led to it; a row it names that is gone was this
        // device's, so its record is what it held, even one a rule now hides (another record
        // won its value, its parent went in an earlier round of this sync).
        let compare = |key: &str, here: Option<(i64, Row)>, new: bool, noted: bool, out: &mut Local| -> Result<()> {
            // Once a round: a noted record the comparison of everything also reaches.
            if !out.compared.entry(table.name).or_default().insert(key.to_owned()) {
                return Ok(());
            }
            if log {
                out.rids.push((table.name, key.to_owned(), here.as_ref().map(|(rowid, _)| *rowid)));
            }
            if !keep(table.name, key) {
                return Ok(());
            }
            let was_row = if new {
                None
            } else if noted && here.is_none() {
                record_row(conn, table, key)?
            } else {
                live_row(conn, table, key)?
            };
            let key = key.to_owned();
            let was: BTreeMap<&RecordKey, &Row> = was_row.as_ref().map(|r| (&key, r)).into_iter().collect();
            let now: BTreeMap<RecordKey, Row> = here.map(|(_, r)| (key.clone(), r)).into_iter().collect();
            // Columns the records have and this file lacks (a newer device's) are never
            // compared: the diff reads only the local row's columns.
            let found = diff(table, &was, &now).into_iter().map(|(k, c)| (table.name, k, c));
            if joining && !new {
                out.since_join.extend(found);
            } else {
                out.changes.extend(found);
            }
            Ok(())
        };
        let found = |out: &Local| out.changes.len() + out.since_join.len();
        // The records written here since the last round, up to `notes` of them (the rest wait
        // for the next round, which takes in nothing from elsewhere until they are through);
        // first, so a noted row is compared as a write even where the comparison of everything
        // would meet it as something held before a join.
        if !out.notes_left {
            let room = notes.saturating_sub(out.notes_done.len());
            let mut stmt =
                conn.prepare_cached("SELECT ref FROM ext_sync_dirty WHERE tbl = ?1 ORDER BY ref LIMIT ?2")?;
            let limit = i64::try_from(room.saturating_add(1)).unwrap_or(i64::MAX);
            let mut refs: Vec<String> =
                stmt.query_map(params![table.name, limit], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            if refs.len() > room {
                refs.truncate(room);
                out.notes_left = true;
            }
            let mut candidates = BTreeSet::new();
            for raw in &refs {
                if !log {
                    candidates.extend(canonical_key(raw));
                    continue;
                }
                let Ok(rowid) = raw.parse::<i64>() else { continue };
                if let Some(row) = row_at(conn, table, &columns, rowid)? {
                    candidates.insert(key_of(table, &row));
                }
                let mut stmt = conn.prepare_cached("SELECT key FROM ext_sync_records WHERE tbl = ?1 AND rid = ?2")?;
                let was: Vec<String> =
                    stmt.query_map(params![table.name, rowid], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
                candidates.extend(was);
            }
            if notes != usize::MAX {
                out.notes_done.extend(refs.into_iter().map(|r| (table.name, r)));
            }
            for key in candidates {
                let here = find_row(conn, table, &columns, &key)?;
                compare(&key, here, joining && !resumed, true, &mut out)?;
            }
        }
        if let Some(at) = from.filter(|at| stopped.is_none() && index >= at.table) {
            let start = if index == at.table { at.clone() } else { CompareAt { table: index, ..CompareAt::default() } };
            if !start.records {
                let list = columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
                let mut stmt = conn.prepare(&format!(
                    "SELECT rowid, {list} FROM \"{}\" WHERE rowid > ?1 AND rowid <= ?2 ORDER BY rowid",
                    table.name
                ))?;
                let mut rows = stmt.query([start.rowid, at.end(table.name)])?;
                while let Some(r) = rows.next()? {
                    let rowid: i64 = r.get(0)?;
                    if found(&out) >= budget {
                        stopped = Some(CompareAt {
                            table: index,
                            records: false,
                            rowid: rowid - 1,
                            name: table.name.to_owned(),
                            ..at.clone()
                        });
                        break;
                    }
                    let mut row = Row::new();
                    for (i, column) in columns.iter().enumerate() {
                        row.insert(column.clone(), to_json(r.get_ref(i + 1)?));
                    }
                    if is_local(table, &row) {
                        continue;
                    }
                    // A log row written twice is one record, compared once.
                    compare(&key_of(table, &row), Some((rowid, row)), joining, false, &mut out)?;
                }
            }
            // The records whose row is gone, in key order (a joining device held nothing the
            // folder knows of).
            if stopped.is_none() && !joining {
                let after = if start.records { start.key.clone() } else { String::new() };
                let mut stmt = conn.prepare_cached(
                    "SELECT key FROM ext_sync_records WHERE tbl = ?1 AND alive = 1 AND key > ?2 ORDER BY key",
                )?;
                let mut keys = stmt.query(params![table.name, after])?;
                let mut last = after;
                while let Some(r) = keys.next()? {
                    let key: String = r.get(0)?;
                    if found(&out) >= budget {
                        // Resumed after the last key looked at, so this one comes first next.
                        stopped = Some(CompareAt {
                            table: index,
                            records: true,
                            rowid: 0,
                            key: last,
                            name: table.name.to_owned(),
                            ..at.clone()
                        });
                        break;
                    }
                    if find_row(conn, table, &columns, &key)?.is_none() {
                        compare(&key, None, false, false, &mut out)?;
                    }
                    last = key;
                }
            }
        }
    }
    Ok((out, stopped))
}

/// Adds to `affected` what hangs from the records in it: the children of a record that came
/// into being or ceased to be (a lesson's cards and reviews, a topic's group), and the other
/// records of a one-per-value group. A row here always has its record (every row written here
/// is compared and logged before), so the records name every child.
fn with_dependents(conn: &Connection, mut affected: Affected) -> Result<BTreeMap<&'static str, BTreeSet<RecordKey>>> {
    for table in SYNCED {
        if let Some((_, parent)) = table.parent
            && let Some(parents) = affected.flipped.get(parent).cloned()
        {
            let entry = affected.keys.entry(table.name).or_default();
            for pkey in parents {
                let mut stmt =
                    conn.prepare_cached("SELECT key FROM ext_sync_records WHERE tbl = ?1 AND parent = ?2")?;
                let keys = stmt.query_map([table.name, pkey.as_str()], |r| r.get::<_, String>(0))?;
                for key in keys {
                    entry.insert(key?);
                }
            }
        }
        if table.unique.is_some()
            && let Some(keys) = affected.keys.get(table.name).cloned()
        {
            for key in keys {
                let values: Vec<Option<String>> = conn
                    .prepare_cached("SELECT uniq FROM ext_sync_records WHERE tbl = ?1 AND key = ?2")?
                    .query_map([table.name, key.as_str()], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
                for value in values.into_iter().flatten() {
                    note_value_group(conn, table, &value, &mut affected)?;
                }
            }
        }
    }
    Ok(affected.keys)
}

/// Keeps what a round changed and did not write (see `ext_sync_unapplied`).
fn save_unapplied(conn: &Connection, affected: &Affected) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO ext_sync_unapplied (tbl, key, flipped) VALUES (?1, ?2, ?3) \
         ON CONFLICT (tbl, key) DO UPDATE SET flipped = MAX(flipped, excluded.flipped)",
    )?;
    for (table, keys) in &affected.keys {
        let flipped = affected.flipped.get(table);
        for key in keys {
            stmt.execute(params![table, key, flipped.is_some_and(|f| f.contains(key))])?;
        }
    }
    Ok(())
}

/// Adds what earlier rounds changed and did not write to `affected`, and forgets it.
fn take_unapplied(conn: &Connection, affected: &mut Affected) -> Result<()> {
    let mut stmt = conn.prepare_cached("SELECT tbl, key, flipped FROM ext_sync_unapplied")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let table: String = r.get(0)?;
        // A table this build does not sync has nothing to write.
        let Some(table) = synced(&table) else { continue };
        let key: String = r.get(1)?;
        if r.get::<_, bool>(2)? {
            affected.flipped.entry(table.name).or_default().insert(key.clone());
        }
        affected.keys.entry(table.name).or_default().insert(key);
    }
    drop(rows);
    conn.execute("DELETE FROM ext_sync_unapplied", [])?;
    Ok(())
}

/// Of the records in `affected` and `compared`, those whose row here a comparison stopped at
/// `at` has passed.
fn passed_rows(
    conn: &Connection,
    at: &CompareAt,
    mut affected: BTreeMap<&'static str, BTreeSet<RecordKey>>,
    compared: BTreeMap<&'static str, BTreeSet<RecordKey>>,
) -> Result<BTreeMap<&'static str, BTreeSet<RecordKey>>> {
    for (table, keys) in compared {
        affected.entry(table).or_default().extend(keys);
    }
    let mut out: BTreeMap<&'static str, BTreeSet<RecordKey>> = BTreeMap::new();
    for (index, (table, columns)) in present_tables(conn)?.into_iter().enumerate() {
        let Some(keys) = affected.remove(table.name) else { continue };
        for key in keys {
            // Only a record says what a row should be: a row compared without one stays.
            if load(conn, table.name, &key)?.is_none() {
                continue;
            }
            if let Some((rowid, _)) = find_row(conn, table, &columns, &key)?
                && at.passed(index, table.name, rowid)
            {
                out.entry(table.name).or_default().insert(key);
            }
        }
    }
    Ok(out)
}

/// What one record needs: its row removed, changed (rowid, and the row here and the record when
/// held), or added (the record, when held).
enum Todo {
    Remove(i64),
    Update(i64, Option<(Row, Row)>),
    Insert(Option<Row>),
}

/// Makes the rows of `affected` what their records say: removals first (a unique index may name
/// a record's new place), then changes, then additions. A record this file refuses is noted, so
/// the next round does not read its absence as a local deletion.
fn apply(conn: &Connection, affected: &BTreeMap<&'static str, BTreeSet<RecordKey>>) -> Result<(usize, usize)> {
    let (mut written, mut refused) = (0, 0);
    // Nothing refused before: no note to clear for each record.
    let any_refused: bool = conn.query_row("SELECT EXISTS (SELECT 1 FROM ext_sync_refused)", [], |r| r.get(0))?;
    // Rows written here are this round's own (the notes they leave are cleared at its end): a
    // table with many to write (a join's last round, a first sync) has its triggers set aside
    // meanwhile rather than note every row. Within the round's transaction, so never lost.
    let mut set_aside = false;
    for (table, typed) in typed_tables(conn)? {
        let Some(keys) = affected.get(table.name) else { continue };
        if keys.len() > limits::SYNC_ROUND_CHANGES / 4 {
            for (suffix, _) in TRIGGER_EVENTS {
                conn.execute_batch(&format!("DROP TRIGGER IF EXISTS \"ext_sync_dirty_{}_{suffix}\"", table.name))?;
            }
            set_aside = true;
        }
        let columns: Vec<String> = typed.iter().map(|(c, _)| c.clone()).collect();
        let known: std::collections::HashSet<&str> = columns.iter().map(String::as_str).collect();
        let log = table.key == Key::Content;
        // One record as this file stores it: its own columns, counters within their range.
        let stored = |mut row: Row| -> Row {
            row.retain(|c, _| known.contains(c.as_str()));
            bound(table, &mut row);
            row
        };
        let fits = |row: &Row| {
            row.iter().all(|(c, v)| typed.iter().find(|(name, _)| name == c).is_some_and(|(_, t)| fits_type(t, v)))
        };
        // What every other door would refuse (a range, a size, a timestamp, a name rule) is
        // refused here too, whichever device sent it.
        let valid = |row: &Row| devcoach_core::records::check(table.name, row).is_ok();
        // A record whose row names another key is refused where it can be seen.
        let forged = |key: &str| -> Result<bool> {
            Ok(load(conn, table.name, key)?
                .and_then(|(state, _)| state.row().map(|(row, _)| key_of(table, &row) != *key))
                .unwrap_or(false))
        };
        let mut refuse = |key: &str| -> Result<()> {
            refused += 1;
            conn.prepare_cached("INSERT OR IGNORE INTO ext_sync_refused (tbl, key) VALUES (?1, ?2)")?
                .execute([table.name, key])?;
            Ok(())
        };
        // Adds a record's row; `false` when this file refuses it. Rows of one table mostly
        // carry the same columns: the statement is built again only when they differ.
        let mut insert_sql: Option<(Vec<String>, String)> = None;
        let mut insert = |key: &str, row: Row| -> Result<bool> {
            let row = stored(row);
            if !fits(&row) || !valid(&row) {
                return Ok(false);
            }
            let same = insert_sql
                .as_ref()
                .is_some_and(|(names, _)| names.iter().map(String::as_str).eq(row.keys().map(String::as_str)));
            if !same {
                let names = row.keys().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
                let marks = (1..=row.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
                let sql = format!("INSERT INTO \"{}\" ({names}) VALUES ({marks})", table.name);
                insert_sql = Some((row.keys().cloned().collect(), sql));
            }
            let Some((_, sql)) = &insert_sql else { return Ok(false) };
            match conn.prepare_cached(sql).and_then(|mut s| s.execute(params_from_iter(row.values().map(sql_ref)))) {
                Ok(_) => {
                    if log {
                        set_rid(conn, table.name, key, Some(conn.last_insert_rowid()))?;
                    }
                    Ok(true)
                }
                Err(e) if is_constraint(&e) => Ok(false),
                Err(e) => Err(e.into()),
            }
        };
        // A table with no row yet (what a join's last round meets) has
        // nothing to remove or change and none to look up per record: each row is added as
        // its record is read.
        let empty: bool =
            conn.query_row(&format!("SELECT NOT EXISTS (SELECT 1 FROM \"{}\")", table.name), [], |r| r.get(0))?;
        // What each record needs (a round's worth of records: what a round reads is bounded):
        // removals first (a unique index may name a record's new place), then changes, then
        // additions. More records than a round reads (a first sync, a join's last round): the
        // rows are read again when written rather than held.
        let hold = keys.len() <= 2 * limits::SYNC_ROUND_CHANGES;
        let mut todo: Vec<(&RecordKey, Todo)> = Vec::new();
        for key in keys {
            if any_refused {
                conn.prepare_cached("DELETE FROM ext_sync_refused WHERE tbl = ?1 AND key = ?2")?
                    .execute([table.name, key.as_str()])?;
            }
            if empty {
                match live_row(conn, table, key)? {
                    Some(row) => {
                        if insert(key, row)? {
                            written += 1;
                        } else {
                            refuse(key)?;
                        }
                    }
                    None if forged(key)? => refuse(key)?,
                    None => {}
                }
                continue;
            }
            let here = find_row(conn, table, &columns, key)?;
            // Without a row here, a record that exists is to be added: when rows are not held,
            // its state is read once, when it is written, not also now.
            if here.is_none() && !hold {
                if alive(conn, table.name, key)? {
                    todo.push((key, Todo::Insert(None)));
                } else if forged(key)? {
                    refuse(key)?;
                }
                continue;
            }
            match (here, live_row(conn, table, key)?) {
                (Some((rowid, _)), None) => todo.push((key, Todo::Remove(rowid))),
                (Some((rowid, have)), Some(row)) if have != stored(row.clone()) => {
                    todo.push((key, Todo::Update(rowid, hold.then_some((have, row)))));
                }
                (None, Some(row)) => todo.push((key, Todo::Insert(hold.then_some(row)))),
                (None, None) if forged(key)? => refuse(key)?,
                _ => {}
            }
        }
        let delete = format!("DELETE FROM \"{}\" WHERE rowid = ?1", table.name);
        for (key, what) in &todo {
            let Todo::Remove(rowid) = what else { continue };
            conn.prepare_cached(&delete)?.execute([rowid])?;
            written += 1;
            if log {
                // A log row written twice is one record: every copy goes.
                while let Some((copy, _)) = find_row(conn, table, &columns, key)? {
                    conn.prepare_cached(&delete)?.execute([copy])?;
                }
                set_rid(conn, table.name, key, None)?;
            }
        }
        for (key, what) in &todo {
            let Todo::Update(rowid, held) = what else { continue };
            let (have, row) = match held {
                Some((have, row)) => (have.clone(), stored(row.clone())),
                None => match (find_row(conn, table, &columns, key)?, live_row(conn, table, key)?) {
                    (Some((_, have)), Some(row)) => (have, stored(row)),
                    _ => continue,
                },
            };
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
        for (key, what) in todo {
            let Todo::Insert(held) = what else { continue };
            let row = match held {
                Some(row) => row,
                None => match live_row(conn, table, key)? {
                    Some(row) => row,
                    None => {
                        if forged(key)? {
                            refuse(key)?;
                        }
                        continue;
                    }
                },
            };
            if insert(key, row)? {
                written += 1;
            } else {
                refuse(key)?;
            }
        }
    }
    if set_aside {
        ensure_tracking(conn)?;
    }
    Ok((written, refused))
}

fn is_constraint(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::ConstraintViolation))
}

fn write_mark(conn: &Connection, mark: &Mark) -> Result<()> {
    conn.prepare_cached("INSERT OR IGNORE INTO ext_sync_files (device, file) VALUES (?1, ?2)")?
        .execute([&mark.device, &mark.digest])?;
    if let (Some(part), Some(name)) = (mark.snapshot, &mark.name) {
        conn.prepare_cached(
            "INSERT OR IGNORE INTO ext_sync_snapshots (device, upto, part, parts, name) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            mark.device,
            i64::try_from(part.upto).unwrap_or(i64::MAX),
            part.part,
            part.parts,
            name
        ])?;
    }
    if mark.name.is_none() {
        return Ok(());
    }
    conn.prepare_cached(
        "INSERT OR REPLACE INTO ext_sync_known (device, file, name, first, last, written_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        mark.device,
        mark.digest,
        mark.name,
        i64::try_from(mark.first).unwrap_or(i64::MAX),
        i64::try_from(mark.last).unwrap_or(i64::MAX),
        mark.written_at.as_deref().unwrap_or_default()
    ])?;
    Ok(())
}

fn state_value(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT value FROM ext_sync_state WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

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
