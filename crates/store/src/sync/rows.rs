//! Sync's rows as values: the synced tables a file has, reading their rows and documents as
//! JSON records and writing them back as SQL values.

use std::collections::{BTreeMap, BTreeSet};

use devcoach_core::course::CourseId;
use devcoach_core::limits;
use devcoach_core::sync::op::record_key;
use devcoach_core::sync::tables::{DOCUMENTS, Key};
use devcoach_core::sync::{RecordKey, Row, SYNCED, SyncTable};
use rusqlite::types::{ToSqlOutput, Value as Sql, ValueRef};
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use serde_json::Value;

use crate::{DataDir, Result};

/// The synced tables this file has, with their columns.
pub(super) fn present_tables(conn: &Connection) -> Result<Vec<(&'static SyncTable, Vec<String>)>> {
    Ok(typed_tables(conn)?.into_iter().map(|(t, cols)| (t, cols.into_iter().map(|(c, _)| c).collect())).collect())
}

/// A column's name and declared type (upper case).
pub(super) type TypedColumn = (String, String);

/// The synced tables this file has, with their columns and declared types.
pub(super) fn typed_tables(conn: &Connection) -> Result<Vec<(&'static SyncTable, Vec<TypedColumn>)>> {
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
pub(super) fn fits_type(declared: &str, value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(_) => declared.contains("TEXT") || declared.is_empty(),
        Value::Number(n) if declared.contains("INT") => n.is_i64(),
        Value::Number(_) => declared.contains("REAL") || declared.is_empty(),
        Value::Bool(_) => declared.contains("INT"),
        _ => false,
    }
}

pub(super) fn to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) | ValueRef::Blob(t) => Value::from(String::from_utf8_lossy(t).into_owned()),
    }
}

pub(super) fn to_sql(value: &Value) -> Sql {
    match value {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => n.as_i64().map_or_else(|| Sql::Real(n.as_f64().unwrap_or(0.0)), Sql::Integer),
        Value::String(s) => Sql::Text(s.clone()),
        other => Sql::Text(other.to_string()),
    }
}

/// A value as a statement's parameter, its text borrowed rather than copied.
pub(super) fn sql_ref(value: &Value) -> ToSqlOutput<'_> {
    match value {
        Value::String(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        other => ToSqlOutput::Owned(to_sql(other)),
    }
}

pub(super) fn key_of(table: &SyncTable, row: &Row) -> RecordKey {
    match table.key {
        Key::Columns(columns) => record_key(row, columns),
        // Every value, in column-name order: a key is always a JSON array, as the file holds it.
        Key::Content => serde_json::to_string(&row.values().collect::<Vec<_>>()).unwrap_or_default(),
    }
}

/// Whether the row stays on this machine (the consent, this machine's pacing, the schema stamp).
pub(super) fn is_local(table: &SyncTable, row: &Row) -> bool {
    let first = match table.key {
        Key::Columns(columns) => columns.first().and_then(|c| row.get(*c)),
        Key::Content => None,
    };
    first.and_then(Value::as_str).is_some_and(|v| table.local_keys.contains(&v))
}

/// The table's records as the store holds them, each with its rowid.
pub(super) fn read_rows(
    conn: &Connection,
    table: &SyncTable,
    columns: &[String],
) -> Result<BTreeMap<RecordKey, (i64, Row)>> {
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

pub(super) fn refused_keys(conn: &Connection) -> Result<BTreeSet<(String, String)>> {
    let mut stmt = conn.prepare_cached("SELECT tbl, key FROM ext_sync_refused")?;
    let keys = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    Ok(keys)
}

/// The notebook and the course documents as records (`{name, text}`), read the way every other
/// reader reads them: regular files only, under their caps.
pub(super) fn read_documents(conn: &Connection, dir: &DataDir) -> Result<BTreeMap<RecordKey, Row>> {
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
pub(super) fn document_path(dir: &DataDir, name: &str) -> Option<std::path::PathBuf> {
    if name == "notebook" {
        return Some(dir.notebook_path());
    }
    let id = CourseId::parse(name.strip_prefix("course:")?).ok()?;
    Some(dir.course_document_path(&id))
}

/// Writes and removes documents until the files match `wanted`; what it could not write is refused.
/// `seen` is what the round's comparison read: a document that changed since (the learner or an
/// agent wrote the notebook while the sync ran) is left alone, and the next sync sends it.
pub(super) fn apply_documents(
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
pub(super) fn parent_key(id: &Value) -> RecordKey {
    serde_json::to_string(&[id]).unwrap_or_default()
}

/// A key as the triggers write it (SQLite's JSON), in the form every record key has.
pub(super) fn canonical_key(raw: &str) -> Option<RecordKey> {
    let values: Vec<Value> = serde_json::from_str(raw).ok()?;
    serde_json::to_string(&values).ok()
}

/// The columns a key's values belong to, in order: the key columns, or for a log row every
/// column of the row (by name, as [`key_of`] writes them).
pub(super) fn key_columns(table: &SyncTable, columns: &[String]) -> Vec<String> {
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
pub(super) fn find_row(
    conn: &Connection,
    table: &SyncTable,
    columns: &[String],
    key: &str,
) -> Result<Option<(i64, Row)>> {
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
pub(super) fn row_at(conn: &Connection, table: &SyncTable, columns: &[String], rowid: i64) -> Result<Option<Row>> {
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
