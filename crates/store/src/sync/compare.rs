//! What changed here: the triggers that note writes to the synced tables, and the comparison
//! of rows with their records (the noted ones, or every one a round's worth at a time).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use devcoach_core::sync::tables::{DOCUMENTS, Key};
use devcoach_core::sync::{Change, RecordKey, Row, SyncTable, diff};
use rusqlite::{Connection, OptionalExtension, params};

use super::records::{live_documents, live_row, record_row};
use super::rows::{
    canonical_key, find_row, is_local, key_of, present_tables, read_documents, refused_keys, row_at, to_json,
};
use crate::{DataDir, Result};

pub(super) const TRIGGER_EVENTS: [(&str, &str); 3] = [("i", "INSERT"), ("u", "UPDATE"), ("d", "DELETE")];

/// What a trigger writes to name the row it saw: the key (a table keyed by columns) or the rowid
/// (a log, whose rowid is its own id and whose key would be every value, reals included).
pub(super) fn row_ref(table: &SyncTable, row: &str) -> String {
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
pub(super) fn ensure_tracking(conn: &Connection) -> Result<bool> {
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
pub(super) fn tracking_complete(conn: &Connection) -> Result<bool> {
    let tables = present_tables(conn)?.len();
    let have: i64 = conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ext\\_sync\\_dirty\\_%' ESCAPE '\\'",
        [],
        |r| r.get(0),
    )?;
    Ok(usize::try_from(have).unwrap_or(0) >= tables * TRIGGER_EVENTS.len())
}

pub(super) fn drop_tracking(conn: &Connection) -> Result<()> {
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
pub(super) type Found = Vec<(&'static str, RecordKey, Change)>;

/// What a round's look at the tables found.
#[derive(Default)]
pub(super) struct Local {
    /// The changes made here; in a join, the folder's record wins over one of these.
    pub(super) changes: Found,
    /// Changes made after a join's comparison began (between its rounds): the learner's latest
    /// word, logged whatever the folder holds.
    pub(super) since_join: Found,
    /// For each log row compared, the rowid its record now matches.
    pub(super) rids: Vec<(&'static str, RecordKey, Option<i64>)>,
    /// The documents beside the database, as read.
    pub(super) documents: BTreeMap<RecordKey, Row>,
    /// Every record compared (whether or not it changed), per table.
    pub(super) compared: BTreeMap<&'static str, BTreeSet<RecordKey>>,
    /// The notes of writes looked at, when some were left for a later round (`notes_left`).
    pub(super) notes_done: Vec<(&'static str, String)>,
    pub(super) notes_left: bool,
}

/// Where a comparison of everything stands.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct CompareAt {
    pub(super) table: usize,
    /// Past the table's rows: its records without a row are being compared.
    pub(super) records: bool,
    pub(super) rowid: i64,
    pub(super) key: String,
    /// Each table's last rowid when the comparison began: it compares the rows that were there
    /// then (a row written since has a note, and a higher rowid, `INSERT OR REPLACE` included).
    /// Absent in a state an earlier build left: every row.
    #[serde(default)]
    pub(super) ends: BTreeMap<String, i64>,
    /// The table `table` numbers (a newer file may have more tables, numbered otherwise).
    #[serde(default)]
    pub(super) name: String,
}

impl CompareAt {
    /// Whether a comparison of everything standing here has passed the row `rowid` of the
    /// table at `index` (a table's records without a row come after all its rows).
    pub(super) fn passed(&self, index: usize, table: &str, rowid: i64) -> bool {
        index < self.table || (index == self.table && (self.records || rowid <= self.rowid)) || rowid > self.end(table)
    }

    /// The last rowid of `table` this comparison compares.
    pub(super) fn end(&self, table: &str) -> i64 {
        self.ends.get(table).copied().unwrap_or(i64::MAX)
    }

    /// Whether it has got anywhere yet (a first round starts at the beginning).
    pub(super) fn started(&self) -> bool {
        self.table > 0 || self.records || self.rowid > 0 || !self.key.is_empty()
    }

    /// Where this comparison stands in this file's tables, found by the table's name.
    pub(super) fn relocated(mut self, conn: &Connection) -> Result<Self> {
        if !self.name.is_empty()
            && let Some(index) = present_tables(conn)?.iter().position(|(t, _)| t.name == self.name)
        {
            self.table = index;
        }
        Ok(self)
    }

    /// A comparison beginning now, at the first row of the first table.
    pub(super) fn begin(conn: &Connection) -> Result<Self> {
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
    pub(super) fn past(self, tables: usize) -> Self {
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
pub(super) fn local_changes(
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
