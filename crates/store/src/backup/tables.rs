//! Our own tables in a backup: one JSON array per table (`ext/<table>.json`), rows as objects
//! keyed by column, and one merge rule per table. The TypeScript devcoach ignores these entries.
//!
//! Restoring checks every value against its column (type, range, timestamp) before it reaches
//! SQL: a damaged or hostile row is counted as invalid and skipped, never stored for a reader to
//! trip over.

use devcoach_core::records::{self, Column, ColumnRule};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};
use serde_json::{Map, Value};

/// How a restored row meets a row already there with the same key.
#[derive(Debug, Clone, Copy)]
pub(super) enum Merge {
    /// The row is added when no row has its key (the key may be every column: a log).
    AddMissing,
    /// The row replaces ours when its stamp column is later (the state with more history wins).
    Newer(&'static str),
}

#[derive(Debug)]
pub(super) struct Table {
    pub entry: &'static str,
    pub name: &'static str,
    pub columns: &'static [ColumnRule],
    pub key: &'static [&'static str],
    pub merge: Merge,
    /// A row is restored only when its lesson exists.
    pub needs_lesson: bool,
}

/// Our tables, in restore order (cards after lessons; the model and the evidence before the
/// knowledge map reads them).
pub(super) const TABLES: &[Table] = &[
    Table {
        entry: "ext/evidence.json",
        name: "ext_evidence",
        columns: records::EVIDENCE,
        key: &["topic", "delta", "value_after", "cause", "lesson_id", "detail", "at"],
        merge: Merge::AddMissing,
        needs_lesson: false,
    },
    Table {
        entry: "ext/topic_model.json",
        name: "ext_topic_model",
        columns: records::TOPIC_MODEL,
        key: &["topic"],
        merge: Merge::Newer("last_at"),
        needs_lesson: false,
    },
    Table {
        entry: "ext/review_cards.json",
        name: "ext_review_cards",
        columns: records::REVIEW_CARDS,
        key: &["lesson_id"],
        merge: Merge::Newer("last_review"),
        needs_lesson: true,
    },
    Table {
        entry: "ext/lesson_kinds.json",
        name: "ext_lesson_kinds",
        columns: records::LESSON_KINDS,
        key: &["lesson_id"],
        merge: Merge::AddMissing,
        needs_lesson: true,
    },
    Table {
        entry: "ext/review_log.json",
        name: "ext_review_log",
        columns: records::REVIEW_LOG,
        key: &["lesson_id", "reviewed_at", "grade"],
        merge: Merge::AddMissing,
        needs_lesson: false,
    },
    Table {
        entry: "ext/checked_answers.json",
        name: "ext_checked_answers",
        columns: records::CHECKED_ANSWERS,
        key: &["lesson_id", "kind", "at"],
        merge: Merge::AddMissing,
        needs_lesson: false,
    },
    Table {
        entry: "ext/work_sessions.json",
        name: "ext_work_sessions",
        columns: records::WORK_SESSIONS,
        key: &["agent", "session_id"],
        merge: Merge::Newer("last_at"),
        needs_lesson: false,
    },
    Table {
        entry: "ext/handson.json",
        name: "ext_handson",
        columns: records::HANDSON,
        key: &["lesson_id"],
        merge: Merge::AddMissing,
        needs_lesson: true,
    },
];

/// One row of `table` as a JSON object, from `SELECT <columns>`.
fn row_json(table: &Table, row: &rusqlite::Row<'_>) -> rusqlite::Result<Value> {
    let mut out = Map::new();
    for (i, (name, _, _)) in table.columns.iter().enumerate() {
        let v = match row.get::<_, Sql>(i)? {
            Sql::Integer(n) => Value::from(n),
            Sql::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
            Sql::Text(s) => Value::String(s),
            // Our tables hold no blobs.
            Sql::Null | Sql::Blob(_) => Value::Null,
        };
        out.insert((*name).to_owned(), v);
    }
    Ok(Value::Object(out))
}

/// Hands every row of `table` to `f`, in insertion order.
pub(super) fn visit(
    conn: &Connection,
    table: &Table,
    mut f: impl FnMut(Value) -> crate::Result<()>,
) -> crate::Result<()> {
    let names: Vec<&str> = table.columns.iter().map(|c| c.0).collect();
    let sql = format!("SELECT {} FROM {} ORDER BY rowid", names.join(", "), table.name);
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        f(row_json(table, row)?)?;
    }
    Ok(())
}

/// The value a column will store, or `None` when the row's value does not fit the column (the
/// rule every door shares, `devcoach_core::records`).
fn checked(column: Column, nullable: bool, v: Option<&Value>) -> Option<Sql> {
    records::checked(column, nullable, v).map(|v| match v {
        Value::Null => Sql::Null,
        Value::String(s) => Sql::Text(s),
        Value::Number(n) => n.as_i64().map_or_else(|| Sql::Real(n.as_f64().unwrap_or(0.0)), Sql::Integer),
        other => Sql::Text(other.to_string()),
    })
}

/// What restoring one row did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Restored {
    Added,
    Replaced,
    Kept,
    Invalid,
}

/// Merges one restored row into `table` by the table's rule.
pub(super) fn restore_row(conn: &Connection, table: &Table, row: &Value) -> rusqlite::Result<Restored> {
    let Some(obj) = row.as_object() else { return Ok(Restored::Invalid) };
    let mut values = Vec::with_capacity(table.columns.len());
    for (name, column, nullable) in table.columns {
        match checked(*column, *nullable, obj.get(*name)) {
            Some(v) => values.push(v),
            None => return Ok(Restored::Invalid),
        }
    }
    let value_of = |name: &str| table.columns.iter().position(|c| c.0 == name).map_or(Sql::Null, |i| values[i].clone());
    if table.needs_lesson {
        let exists: bool = conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM lessons WHERE id = ?1)")?
            .query_row([value_of("lesson_id")], |r| r.get(0))?;
        if !exists {
            return Ok(Restored::Kept);
        }
    }
    let key_clause: Vec<String> = table.key.iter().enumerate().map(|(i, k)| format!("{k} IS ?{}", i + 1)).collect();
    let key_values: Vec<Sql> = table.key.iter().map(|k| value_of(k)).collect();
    let names: Vec<&str> = table.columns.iter().map(|c| c.0).collect();
    let placeholders: Vec<String> = (1..=names.len()).map(|i| format!("?{i}")).collect();
    let insert = format!("INSERT INTO {} ({}) VALUES ({})", table.name, names.join(", "), placeholders.join(", "));
    let existing: Option<Sql> = {
        let stamp = match table.merge {
            Merge::AddMissing => "1",
            Merge::Newer(column) => column,
        };
        let sql = format!("SELECT {stamp} FROM {} WHERE {} LIMIT 1", table.name, key_clause.join(" AND "));
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(key_values.iter()))?;
        rows.next()?.map(|r| r.get::<_, Sql>(0)).transpose()?
    };
    let Some(ours) = existing else {
        conn.prepare_cached(&insert)?.execute(params_from_iter(values.iter()))?;
        return Ok(Restored::Added);
    };
    let Merge::Newer(column) = table.merge else { return Ok(Restored::Kept) };
    let theirs = value_of(column);
    let later = match (&theirs, &ours) {
        (Sql::Text(t), Sql::Text(o)) => t > o,
        (Sql::Text(_), Sql::Null) => true,
        _ => false,
    };
    if !later {
        return Ok(Restored::Kept);
    }
    conn.prepare_cached(&format!("DELETE FROM {} WHERE {}", table.name, key_clause.join(" AND ")))?
        .execute(params_from_iter(key_values.iter()))?;
    conn.prepare_cached(&insert)?.execute(params_from_iter(values.iter()))?;
    Ok(Restored::Replaced)
}
