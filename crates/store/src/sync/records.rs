//! Each record's merge state (`ext_sync_records`): loading, saving and folding changes into it,
//! and the row a record merges to.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use devcoach_core::sync::tables::{DOCUMENTS, Key, synced};
use devcoach_core::sync::{Change, Op, RecordKey, RecordState, Row, SyncTable, state};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::rows::{is_local, key_of, parent_key};
use crate::Result;

/// A record's merge state and the rowid it was last matched at.
pub(super) fn load(conn: &Connection, table: &str, key: &str) -> Result<Option<(RecordState, Option<i64>)>> {
    Ok(conn
        .prepare_cached("SELECT state, rid FROM ext_sync_records WHERE tbl = ?1 AND key = ?2")?
        .query_row([table, key], |r| Ok((read_state(r.get_ref(0)?), r.get(1)?)))
        .optional()?)
}

/// A kept state: packed (what this build writes) or JSON text (what earlier builds wrote). A
/// damaged one reads as a record with no change at all, as it always has.
pub(super) fn read_state(stored: ValueRef<'_>) -> RecordState {
    match stored {
        ValueRef::Blob(bytes) => state::packed::decode(bytes).unwrap_or_default(),
        ValueRef::Text(text) => serde_json::from_slice(text).unwrap_or_default(),
        _ => RecordState::default(),
    }
}

/// Where the parent and one-per-value rules look a record up: its parent's key and its value.
pub(super) fn lookups(table: &SyncTable, state: &RecordState) -> (Option<RecordKey>, Option<String>) {
    if table.parent.is_none() && table.unique.is_none() {
        return (None, None);
    }
    let Some((row, _)) = state.row() else { return (None, None) };
    let parent = table.parent.map(|(column, _)| parent_key(row.get(column).unwrap_or(&Value::Null)));
    let uniq = table.unique.map(|column| row.get(column).map(Value::to_string).unwrap_or_default());
    (parent, uniq)
}

pub(super) fn save(conn: &Connection, table: &SyncTable, key: &str, state: &RecordState) -> Result<()> {
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
pub(super) fn alive(conn: &Connection, table: &str, key: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT alive FROM ext_sync_records WHERE tbl = ?1 AND key = ?2")?
        .query_row([table, key], |r| r.get::<_, bool>(0))
        .optional()?
        .unwrap_or(false))
}

pub(super) fn set_rid(conn: &Connection, table: &str, key: &str, rid: Option<i64>) -> Result<()> {
    conn.prepare_cached("UPDATE ext_sync_records SET rid = ?3 WHERE tbl = ?1 AND key = ?2")?
        .execute(params![table, key, rid])?;
    Ok(())
}

/// The records a round must bring the tables in line with, per table; and, for the parent
/// rule, the records that came into being or ceased to be (their children follow them).
#[derive(Default)]
pub(super) struct Affected {
    pub(super) keys: BTreeMap<&'static str, BTreeSet<RecordKey>>,
    pub(super) flipped: BTreeMap<&'static str, BTreeSet<RecordKey>>,
}

/// Folds `ops` into the records they change, noting every record whose merge moved (and, for
/// the one-per-value rule, the other records of the value it left).
pub(super) fn fold<'a>(
    conn: &Connection,
    ops: impl IntoIterator<Item = Cow<'a, Op>>,
    affected: &mut Affected,
) -> Result<()> {
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
pub(super) fn note_value_group(
    conn: &Connection,
    table: &'static SyncTable,
    value: &str,
    affected: &mut Affected,
) -> Result<()> {
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
pub(super) fn live_row(conn: &Connection, table: &SyncTable, key: &str) -> Result<Option<Row>> {
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
pub(super) fn record_row(conn: &Connection, table: &SyncTable, key: &str) -> Result<Option<Row>> {
    let Some((state, _)) = load(conn, table.name, key)? else { return Ok(None) };
    let Some((row, _)) = state.into_row() else { return Ok(None) };
    Ok((!is_local(table, &row) && key_of(table, &row) == key).then_some(row))
}

/// Every record key of `table` the records hold.
pub(super) fn record_keys(conn: &Connection, table: &str) -> Result<Vec<RecordKey>> {
    let mut stmt = conn.prepare_cached("SELECT key FROM ext_sync_records WHERE tbl = ?1")?;
    let keys = stmt.query_map([table], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    Ok(keys)
}

/// The documents the records say the data folder should hold.
pub(super) fn live_documents(conn: &Connection) -> Result<BTreeMap<RecordKey, Row>> {
    let mut out = BTreeMap::new();
    for key in record_keys(conn, DOCUMENTS.name)? {
        if let Some(row) = live_row(conn, &DOCUMENTS, &key)? {
            out.insert(key, row);
        }
    }
    Ok(out)
}
