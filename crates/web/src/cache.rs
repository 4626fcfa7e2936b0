//! Answers remembered until the database changes.
//!
//! Filtering and sorting 10,000 lessons in SQL takes milliseconds (a search scans every body),
//! and the progress page reads every lesson, while people page through the same filter and
//! reload the same pages. So each filter's ordered result is kept as row keys (8 bytes a lesson),
//! the rows a page showed as formatted, the list's frame (chrome, categories) once, and whole
//! summary pages as rendered.
//! "Changes" is asked of SQLite itself: `PRAGMA data_version` on one connection kept for that
//! purpose moves whenever any process commits (a hook, the MCP server, the TypeScript build, our
//! own writes through the pool). SQL stays the only definition of what matches; the cache only
//! remembers answers, and an answer read while someone committed is used once, not kept.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use devcoach_core::query::LessonQuery;
use devcoach_store::{DataDir, Fields, RowKey, Store};

use crate::error::WebError;
use crate::pool::{Pool, file_identity};
use crate::views::Chrome;
use crate::views::Row;

/// Distinct filters remembered per database version.
const MAX_RESULTS: usize = 256;
/// Row keys remembered across all filters (8 bytes each).
const MAX_KEYS: usize = 2_000_000;
/// Formatted rows remembered per database version (a few hundred bytes each).
const MAX_ROWS: usize = 20_000;
/// Rendered pages remembered per database version.
const MAX_PAGES: usize = 32;

/// Which state of which file the cached answers describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    /// Bumped each time the watched file is (re)opened: `data_version` restarts with a new
    /// connection, and a recreated file may even get the old inode back.
    watch: u64,
    data: i64,
}

/// What the list page shows around its rows.
pub(crate) struct Frame {
    pub chrome: Chrome,
    pub categories: Vec<String>,
}

#[derive(Default)]
struct Entries {
    version: Option<Version>,
    frame: Option<Arc<Frame>>,
    results: HashMap<String, Arc<Vec<RowKey>>>,
    order: VecDeque<String>,
    keys: usize,
    /// Rows already shown, formatted for the table.
    rows: HashMap<RowKey, Arc<Row>>,
    pages: HashMap<String, Arc<String>>,
}

impl Entries {
    fn keep_row(&mut self, key: RowKey, row: Arc<Row>) {
        if self.rows.len() >= MAX_ROWS {
            // Rare (a very long session of paging without any write): start over.
            self.rows.clear();
        }
        self.rows.insert(key, row);
    }

    fn remember(&mut self, key: String, found: Arc<Vec<RowKey>>) {
        if found.len() > MAX_KEYS || self.results.contains_key(&key) {
            return;
        }
        while self.results.len() >= MAX_RESULTS || self.keys + found.len() > MAX_KEYS {
            let Some(old) = self.order.pop_front() else { break };
            if let Some(gone) = self.results.remove(&old) {
                self.keys -= gone.len();
            }
        }
        self.keys += found.len();
        self.order.push_back(key.clone());
        self.results.insert(key, found);
    }
}

#[derive(Default)]
struct Watcher {
    /// The file identity it was opened on, and the connection (never used to write).
    store: Option<(u64, Store)>,
    opened: u64,
}

pub(crate) struct Cache {
    dir: DataDir,
    watcher: Mutex<Watcher>,
    entries: Mutex<Entries>,
}

/// One page of a filter's result.
pub(crate) struct Listing {
    pub frame: Arc<Frame>,
    /// Matches in all.
    pub total: usize,
    pub rows: Vec<Arc<Row>>,
}

impl Cache {
    pub fn new(dir: DataDir) -> Self {
        Self { dir, watcher: Mutex::new(Watcher::default()), entries: Mutex::new(Entries::default()) }
    }

    /// The current version, or `None` without a database. Blocking.
    fn version(&self) -> Result<Option<Version>, WebError> {
        let mut w = self.watcher.lock().map_err(|_| poisoned())?;
        let Some(file) = file_identity(&self.dir.db_path()) else {
            // Deleted: forget the connection so a new file is watched from its start.
            w.store = None;
            return Ok(None);
        };
        if w.store.as_ref().is_none_or(|(f, _)| *f != file) {
            w.store = Store::open_for_reading(&self.dir)?.map(|s| (file, s));
            w.opened += 1;
        }
        match &w.store {
            Some((_, store)) => Ok(Some(Version { watch: w.opened, data: store.data_version()? })),
            None => Ok(None),
        }
    }

    /// The entries for `version`, emptied first when they describe another one.
    fn entries_at(&self, version: Version) -> Result<MutexGuard<'_, Entries>, WebError> {
        let mut entries = self.entries.lock().map_err(|_| poisoned())?;
        if entries.version != Some(version) {
            *entries = Entries { version: Some(version), ..Entries::default() };
        }
        Ok(entries)
    }

    /// The entries, if no commit happened since `version` was read.
    fn still(&self, version: Version) -> Result<Option<MutexGuard<'_, Entries>>, WebError> {
        if self.version()? != Some(version) {
            return Ok(None);
        }
        let entries = self.entries.lock().map_err(|_| poisoned())?;
        Ok((entries.version == Some(version)).then_some(entries))
    }

    /// `take` lessons matching `query` from position `skip` (the query's own paging is ignored),
    /// with the total; `None` without a database. Blocking. Once this version has answered the
    /// filter and shown these rows, no SQL runs at all.
    pub fn listing(
        &self,
        pool: &Pool,
        query: &LessonQuery,
        now: DateTime<Utc>,
        skip: usize,
        take: usize,
    ) -> Result<Option<Listing>, WebError> {
        let Some(version) = self.version()? else { return Ok(None) };
        let key = list_key(query, now);
        let page_of = |found: &[RowKey]| -> Vec<RowKey> { found.iter().skip(skip).take(take).copied().collect() };
        let (frame, found, mut rows) = {
            let entries = self.entries_at(version)?;
            let found = entries.results.get(&key).cloned();
            let rows: Vec<Option<Arc<Row>>> = found
                .as_deref()
                .map(|f| page_of(f).iter().map(|k| entries.rows.get(k).cloned()).collect())
                .unwrap_or_default();
            (entries.frame.clone(), found, rows)
        };
        if let (Some(frame), Some(found)) = (&frame, &found)
            && rows.iter().all(Option::is_some)
        {
            let rows = rows.into_iter().flatten().collect();
            return Ok(Some(Listing { frame: frame.clone(), total: found.len(), rows }));
        }

        let Some(conn) = pool.take(false)? else { return Ok(None) };
        let read = (|| {
            let store = &conn.1;
            let new_frame = match frame {
                Some(_) => None,
                None => Some(Arc::new(Frame {
                    chrome: Chrome::new(Some(store), "lessons"),
                    categories: store.categories()?,
                })),
            };
            let new_found = match found {
                Some(_) => None,
                None => {
                    let all = LessonQuery { limit: None, offset: 0, ..query.clone() };
                    Some(Arc::new(store.lesson_keys(&all, now)?))
                }
            };
            Ok::<_, WebError>((new_frame, new_found))
        })();
        let (new_frame, new_found) = match read {
            Ok(r) => r,
            Err(e) => {
                pool.give(conn);
                return Err(e);
            }
        };
        let frame = new_frame.clone().or(frame).ok_or_else(poisoned)?;
        let found = new_found.clone().or(found).ok_or_else(poisoned)?;
        let keys = page_of(&found);
        if rows.len() != keys.len() {
            rows = vec![None; keys.len()];
        }
        let missing: Vec<RowKey> = keys.iter().zip(&rows).filter(|(_, r)| r.is_none()).map(|(k, _)| *k).collect();
        let fetched = conn.1.lessons_by_key(&missing, Fields::List);
        pool.give(conn);
        let mut fetched: HashMap<RowKey, Arc<Row>> =
            missing.iter().copied().zip(fetched?.into_iter().map(|l| Arc::new(Row::from(l)))).collect();
        // Keys of rows deleted meanwhile have no lesson and are left out.
        let page: Vec<Arc<Row>> =
            keys.iter().zip(rows).filter_map(|(k, cached)| cached.or_else(|| fetched.get(k).cloned())).collect();
        if let Some(mut entries) = self.still(version)? {
            if let Some(f) = new_frame {
                entries.frame = Some(f);
            }
            if let Some(f) = new_found {
                entries.remember(key, f);
            }
            for (k, row) in fetched.drain() {
                entries.keep_row(k, row);
            }
        }
        Ok(Some(Listing { frame, total: found.len(), rows: page }))
    }

    /// A whole page rendered from the database, remembered under `key` for this version;
    /// `None` without a database. Blocking.
    pub fn page(
        &self,
        pool: &Pool,
        key: String,
        render: impl FnOnce(&Store) -> Result<String, WebError>,
    ) -> Result<Option<Arc<String>>, WebError> {
        let Some(version) = self.version()? else { return Ok(None) };
        if let Some(page) = self.entries_at(version)?.pages.get(&key) {
            return Ok(Some(page.clone()));
        }
        let Some(conn) = pool.take(false)? else { return Ok(None) };
        let rendered = render(&conn.1);
        pool.give(conn);
        let page = Arc::new(rendered?);
        if let Some(mut entries) = self.still(version)?
            && entries.pages.len() < MAX_PAGES
        {
            entries.pages.insert(key, page.clone());
        }
        Ok(Some(page))
    }
}

fn poisoned() -> WebError {
    WebError::Internal("the page cache failed; restart the dashboard".into())
}

/// Two queries share a key exactly when they select the same rows in the same order: the
/// filter with paging removed, plus the time window it resolves to now (a "this week" filter
/// means something else next week).
fn list_key(query: &LessonQuery, now: DateTime<Utc>) -> String {
    let unpaged = LessonQuery { limit: None, offset: 0, ..query.clone() };
    format!("{unpaged:?}|{:?}", query.time_bounds(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(n: usize) -> Arc<Vec<RowKey>> {
        Arc::new(vec![RowKey::default(); n])
    }

    #[test]
    fn memory_stays_within_both_bounds() {
        let mut e = Entries::default();
        for i in 0..(MAX_RESULTS + 10) {
            e.remember(format!("k{i}"), found(10));
        }
        assert_eq!(e.results.len(), MAX_RESULTS);
        assert!(!e.results.contains_key("k0"), "the oldest filter goes first");
        e.remember("big".into(), found(MAX_KEYS - 5));
        assert!(e.keys <= MAX_KEYS);
        assert!(e.results.contains_key("big"));
        e.remember("huge".into(), found(MAX_KEYS + 1));
        assert!(!e.results.contains_key("huge"), "a result larger than the whole budget is not kept");
    }

    #[test]
    fn keys_ignore_paging_but_not_the_window() {
        let now = DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z").expect("time").with_timezone(&Utc);
        let a = LessonQuery { limit: Some(25), offset: 0, ..LessonQuery::default() };
        let b = LessonQuery { limit: Some(25), offset: 50, ..LessonQuery::default() };
        assert_eq!(list_key(&a, now), list_key(&b, now));
        let week = LessonQuery { period: Some(devcoach_core::time::Period::Week), ..LessonQuery::default() };
        let later = now + chrono::Duration::days(8);
        assert_ne!(list_key(&week, now), list_key(&week, later));
    }
}
