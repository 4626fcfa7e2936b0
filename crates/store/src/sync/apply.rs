//! Bringing the tables in line with their records: the records that hang from the changed
//! ones, the rows to write, and the files recorded as applied.

use std::collections::{BTreeMap, BTreeSet};

use devcoach_core::limits;
use devcoach_core::sync::merge::bound;
use devcoach_core::sync::tables::{Key, synced};
use devcoach_core::sync::{RecordKey, Row, SYNCED};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use serde_json::Value;

use super::Mark;
use super::compare::{CompareAt, TRIGGER_EVENTS, ensure_tracking};
use super::records::{Affected, alive, live_row, load, note_value_group, set_rid};
use super::rows::{find_row, fits_type, key_of, present_tables, sql_ref, to_sql, typed_tables};
use crate::Result;

/// Adds to `affected` what hangs from the records in it: the children of a record that came
/// into being or ceased to be (a lesson's cards and reviews, a topic's group), and the other
/// records of a one-per-value group. A row here always has its record (every row written here
/// is compared and logged before), so the records name every child.
pub(super) fn with_dependents(
    conn: &Connection,
    mut affected: Affected,
) -> Result<BTreeMap<&'static str, BTreeSet<RecordKey>>> {
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
pub(super) fn save_unapplied(conn: &Connection, affected: &Affected) -> Result<()> {
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
pub(super) fn take_unapplied(conn: &Connection, affected: &mut Affected) -> Result<()> {
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
pub(super) fn passed_rows(
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
pub(super) enum Todo {
    Remove(i64),
    Update(i64, Option<(Row, Row)>),
    Insert(Option<Row>),
}

/// Makes the rows of `affected` what their records say: removals first (a unique index may name
/// a record's new place), then changes, then additions. A record this file refuses is noted, so
/// the next round does not read its absence as a local deletion.
pub(super) fn apply(
    conn: &Connection,
    affected: &BTreeMap<&'static str, BTreeSet<RecordKey>>,
) -> Result<(usize, usize)> {
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

pub(super) fn is_constraint(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::ConstraintViolation))
}

pub(super) fn write_mark(conn: &Connection, mark: &Mark) -> Result<()> {
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

pub(super) fn state_value(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT value FROM ext_sync_state WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}
