//! Lessons, the rows: reading, listing with every filter, starring, counting. Writes that also
//! touch a review card or pacing (saving a taught lesson, importing, deleting) are in `teaching`.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use devcoach_core::git::{GitContext, UsageDefaults};
use devcoach_core::lesson::{self, Feedback, LessonContext, Level, Platform};
use devcoach_core::query::{FeedbackFilter, LessonQuery, SortOrder};
use devcoach_core::{Lesson, rate_limit};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params, params_from_iter};

use crate::error::StoreError;
use crate::{Result, Store};

/// The stored column order, also the JSON key order.
const COLUMNS: &str = "id, timestamp, topic_id, categories, title, level, summary, body, task_context, project, \
    repository, branch, commit_hash, folder, repository_platform, starred, feedback, imported, shared_by";
/// The list view: the same shape, without the long text and the paths a table never shows.
const LIST_COLUMNS: &str = "id, timestamp, topic_id, categories, title, level, '' AS summary, NULL AS body, \
    NULL AS task_context, project, NULL AS repository, branch, commit_hash, NULL AS folder, \
    NULL AS repository_platform, starred, feedback, imported, shared_by";

/// Where a lesson sits in the table. Valid only while nothing commits: a `VACUUM` may renumber
/// rows, so holders key what they keep on [`Store::data_version`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RowKey(i64);

/// Which columns a visit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fields {
    /// Every field.
    Full,
    /// What a list shows: `summary` is empty and `body`, `task_context`, `repository`, `folder`
    /// and `repository_platform` are `None`.
    List,
}

impl Fields {
    fn columns(self) -> &'static str {
        match self {
            Self::Full => COLUMNS,
            Self::List => LIST_COLUMNS,
        }
    }
}

const PLACEHOLDERS: &str = "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19";

/// What an import of lesson records did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportCounts {
    pub inserted: usize,
    /// Records whose id already exists (the existing lesson wins).
    pub duplicated: usize,
    pub invalid: usize,
}

/// A row of [`LIST_COLUMNS`]: the columns that view leaves empty are not read at all, and the
/// ones only parsed are read in place (a list reads a thousand rows; each read column costs a
/// call into SQLite, each copy an allocation).
fn row_to_listed_lesson(row: &Row<'_>) -> rusqlite::Result<Lesson> {
    Ok(Lesson {
        id: text(row, 0)?,
        timestamp: text(row, 1)?,
        topic_id: text(row, 2)?,
        categories: read_text(row, 3, |t| lesson::categories_from_column(t.unwrap_or_default()))?,
        title: text(row, 4)?,
        level: read_text(row, 5, |t| t.and_then(|l| Level::parse(l).ok()).unwrap_or(Level::Mid))?,
        summary: String::new(),
        body: None,
        context: LessonContext {
            task_context: None,
            git: GitContext {
                project: opt_text(row, 9)?,
                repository: None,
                branch: opt_text(row, 11)?,
                commit_hash: opt_text(row, 12)?,
                folder: None,
                repository_platform: None,
            },
        },
        starred: row.get::<_, i64>(15)? != 0,
        feedback: read_text(row, 16, |t| t.and_then(|f| Feedback::parse(f).ok()))?,
        imported: row.get::<_, i64>(17)? != 0,
        shared_by: opt_text(row, 18)?,
    })
}

/// The columns of a [`LessonLine`], in its order.
const LINE_COLUMNS: &str = "id, timestamp, topic_id, categories, title, level, project, branch, commit_hash, \
    starred, feedback, imported, shared_by";

/// One lesson as a list shows it, borrowed from the row being read: a table of a thousand
/// lessons copies each field once, into its own rows, not once more on the way. The fields are
/// read as [`Fields::List`] reads them (text that is not UTF-8 with replacement characters, a
/// number its digits, an unknown level as mid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LessonLine<'r> {
    pub id: Cow<'r, str>,
    pub timestamp: Cow<'r, str>,
    pub topic_id: Cow<'r, str>,
    /// The stored column, as it is: `devcoach_core::lesson::push_categories_joined` reads it.
    pub categories: Cow<'r, str>,
    pub title: Cow<'r, str>,
    pub level: Level,
    pub project: Option<Cow<'r, str>>,
    pub branch: Option<Cow<'r, str>>,
    pub commit_hash: Option<Cow<'r, str>>,
    pub starred: bool,
    pub feedback: Option<Feedback>,
    pub imported: bool,
    pub shared_by: Option<Cow<'r, str>>,
}

fn row_to_line<'r>(row: &'r Row<'_>) -> rusqlite::Result<LessonLine<'r>> {
    let text = |i| borrowed_text(row, i).map(Option::unwrap_or_default);
    Ok(LessonLine {
        id: text(0)?,
        timestamp: text(1)?,
        topic_id: text(2)?,
        categories: text(3)?,
        title: text(4)?,
        level: read_text(row, 5, |t| t.and_then(|l| Level::parse(l).ok()).unwrap_or(Level::Mid))?,
        project: borrowed_text(row, 6)?,
        branch: borrowed_text(row, 7)?,
        commit_hash: borrowed_text(row, 8)?,
        starred: row.get::<_, i64>(9)? != 0,
        feedback: read_text(row, 10, |t| t.and_then(|f| Feedback::parse(f).ok()))?,
        imported: row.get::<_, i64>(11)? != 0,
        shared_by: borrowed_text(row, 12)?,
    })
}

/// A text column as [`opt_text`] reads it, borrowed from the row when it is UTF-8 text (the
/// one reader of a lesson's text columns).
fn borrowed_text<'r>(row: &'r Row<'_>, i: usize) -> rusqlite::Result<Option<Cow<'r, str>>> {
    use rusqlite::types::ValueRef;
    Ok(match row.get_ref(i)? {
        ValueRef::Null => None,
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => Some(match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => Cow::Owned(String::from_utf8_lossy(bytes).into_owned()),
        }),
        ValueRef::Integer(n) => Some(Cow::Owned(n.to_string())),
        ValueRef::Real(x) => Some(Cow::Owned(x.to_string())),
    })
}

/// Reads a text column in place (as [`opt_text`] reads it, without the copy).
fn read_text<T>(row: &Row<'_>, i: usize, f: impl FnOnce(Option<&str>) -> T) -> rusqlite::Result<T> {
    Ok(f(borrowed_text(row, i)?.as_deref()))
}

fn row_to_lesson(row: &Row<'_>) -> rusqlite::Result<Lesson> {
    // Rows written by hand or by other tools are read leniently: an unknown level reads as mid,
    // an unknown feedback or platform as none, text that is not UTF-8 with replacement
    // characters, so one odd row never hides the whole list.
    let level = text(row, 5)?;
    let platform = opt_text(row, 14)?;
    let feedback = opt_text(row, 16)?;
    let categories = text(row, 3)?;
    Ok(Lesson {
        id: text(row, 0)?,
        timestamp: text(row, 1)?,
        topic_id: text(row, 2)?,
        categories: lesson::categories_from_column(&categories),
        title: text(row, 4)?,
        level: Level::parse(&level).unwrap_or(Level::Mid),
        summary: text(row, 6)?,
        body: opt_text(row, 7)?,
        context: LessonContext {
            task_context: opt_text(row, 8)?,
            git: GitContext {
                project: opt_text(row, 9)?,
                repository: opt_text(row, 10)?,
                branch: opt_text(row, 11)?,
                commit_hash: opt_text(row, 12)?,
                folder: opt_text(row, 13)?,
                repository_platform: platform.as_deref().and_then(|p| Platform::parse(p).ok()),
            },
        },
        starred: row.get::<_, i64>(15)? != 0,
        feedback: feedback.as_deref().and_then(|f| Feedback::parse(f).ok()),
        imported: row.get::<_, i64>(17)? != 0,
        shared_by: opt_text(row, 18)?,
    })
}

/// A text column, read whatever another program stored there (bytes that are not UTF-8 get
/// replacement characters, a number its digits, NULL nothing).
fn opt_text(row: &Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    Ok(borrowed_text(row, i)?.map(Cow::into_owned))
}

fn text(row: &Row<'_>, i: usize) -> rusqlite::Result<String> {
    Ok(opt_text(row, i)?.unwrap_or_default())
}

fn insert_params(l: &Lesson) -> [SqlValue; 19] {
    let text = |s: &Option<String>| s.clone().map_or(SqlValue::Null, SqlValue::Text);
    let (c, g) = (&l.context, &l.context.git);
    [
        SqlValue::Text(l.id.clone()),
        SqlValue::Text(l.timestamp.clone()),
        SqlValue::Text(l.topic_id.clone()),
        SqlValue::Text(lesson::categories_to_column(&l.categories)),
        SqlValue::Text(l.title.clone()),
        SqlValue::Text(l.level.as_str().to_owned()),
        SqlValue::Text(l.summary.clone()),
        text(&l.body),
        text(&c.task_context),
        text(&g.project),
        text(&g.repository),
        text(&g.branch),
        text(&g.commit_hash),
        text(&g.folder),
        g.repository_platform.map_or(SqlValue::Null, |p| SqlValue::Text(p.as_str().to_owned())),
        SqlValue::Integer(i64::from(l.starred)),
        l.feedback.map_or(SqlValue::Null, |f| SqlValue::Text(f.as_str().to_owned())),
        SqlValue::Integer(i64::from(l.imported)),
        text(&l.shared_by),
    ]
}

/// `%word%` with LIKE's wildcards escaped (the queries use `ESCAPE '\'`).
fn like_contains(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('%');
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// `SELECT <columns>` of the lessons matching `q`, in its order (ties by rowid, so a page
/// boundary never splits or repeats a lesson), with its limit and offset.
fn select_matching(columns: &str, q: &LessonQuery, now: DateTime<Utc>) -> (String, Vec<SqlValue>) {
    let (clause, mut params) = where_clause(q, now);
    let dir = match q.order {
        SortOrder::Asc => "ASC",
        SortOrder::Desc => "DESC",
    };
    let mut sql = format!("SELECT {columns} FROM lessons {clause} ORDER BY {} {dir}, rowid {dir}", q.sort.column());
    if q.limit.is_some() || q.offset > 0 {
        sql.push_str(" LIMIT ? OFFSET ?");
        params.push(SqlValue::Integer(q.limit.map_or(-1, i64::from)));
        params.push(SqlValue::Integer(i64::try_from(q.offset).unwrap_or(i64::MAX)));
    }
    (sql, params)
}

fn where_clause(q: &LessonQuery, now: DateTime<Utc>) -> (String, Vec<SqlValue>) {
    let mut conds: Vec<&'static str> = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    let text = |s: &str| SqlValue::Text(s.to_owned());
    let (from, to) = q.time_bounds(now);
    if let Some(from) = from {
        conds.push("timestamp >= ?");
        params.push(SqlValue::Text(from));
    }
    if let Some(to) = to {
        conds.push("timestamp <= ?");
        params.push(SqlValue::Text(to));
    }
    if let Some(cat) = &q.category {
        conds.push(r"categories LIKE ? ESCAPE '\'");
        // Categories are stored as a JSON array: match the quoted, JSON-escaped name.
        let quoted = serde_json::to_string(cat).unwrap_or_default();
        params.push(SqlValue::Text(like_contains(&quoted)));
    }
    if let Some(level) = q.level {
        conds.push("level = ?");
        params.push(text(level.as_str()));
    }
    for (value, cond) in [
        (&q.project, r"project LIKE ? ESCAPE '\'"),
        (&q.repository, r"repository LIKE ? ESCAPE '\'"),
        (&q.branch, r"branch LIKE ? ESCAPE '\'"),
        (&q.commit, r"commit_hash LIKE ? ESCAPE '\'"),
    ] {
        if let Some(v) = value {
            conds.push(cond);
            params.push(SqlValue::Text(like_contains(v)));
        }
    }
    if let Some(starred) = q.starred {
        conds.push("starred = ?");
        params.push(SqlValue::Integer(i64::from(starred)));
    }
    if let Some(imported) = q.imported_filter() {
        conds.push("imported = ?");
        params.push(SqlValue::Integer(i64::from(imported)));
    }
    if let Some(sender) = &q.shared_by {
        conds.push("shared_by = ?");
        params.push(text(sender));
    }
    match q.feedback {
        Some(FeedbackFilter::Missing) => conds.push("feedback IS NULL"),
        Some(FeedbackFilter::Is(f)) => {
            conds.push("feedback = ?");
            params.push(text(f.as_str()));
        }
        None => {}
    }
    for word in &q.search {
        conds.push(
            r"(title LIKE ? ESCAPE '\' OR topic_id LIKE ? ESCAPE '\' OR summary LIKE ? ESCAPE '\' OR body LIKE ? ESCAPE '\' OR shared_by LIKE ? ESCAPE '\')",
        );
        let like = like_contains(word);
        params.extend(std::iter::repeat_n(SqlValue::Text(like), 5));
    }
    let clause = if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) };
    (clause, params)
}

/// Own lessons that count against the pace: not shared with the learner, and not a practice
/// session's card (`ext_lesson_kinds`).
const PACED: &str = "imported = 0 AND id NOT IN \
     (SELECT lesson_id FROM ext_lesson_kinds WHERE kind IN ('practice', 'practice-unfinished'))";

pub(crate) fn count_own_since(conn: &Connection, since: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached(&format!("SELECT COUNT(*) FROM lessons WHERE {PACED} AND timestamp >= ?1"))?
        .query_row([since], |r| r.get(0))
}

pub(crate) fn last_own_timestamp(conn: &Connection) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(&format!("SELECT timestamp FROM lessons WHERE {PACED} ORDER BY timestamp DESC LIMIT 1"))?
        .query_row([], |r| r.get(0))
        .optional()
}

/// When the daily limit frees a place: the `nth` oldest own lesson of the last 24 hours turns
/// 24 hours old (`None` when there are fewer).
pub(crate) fn daily_window_frees_at(
    conn: &Connection,
    now: DateTime<Utc>,
    nth: i64,
) -> rusqlite::Result<Option<DateTime<Utc>>> {
    let since = devcoach_core::time::lesson_stamp(rate_limit::day_window_start(now));
    let stamp: Option<String> = conn
        .prepare_cached(&format!(
            "SELECT timestamp FROM lessons WHERE {PACED} AND timestamp >= ?1 ORDER BY timestamp LIMIT 1 OFFSET ?2"
        ))?
        .query_row(params![since, (nth - 1).max(0)], |r| r.get(0))
        .optional()?;
    Ok(stamp.and_then(|t| devcoach_core::time::parse_timestamp(&t).ok()).map(|t| t + chrono::Duration::hours(24)))
}

pub(crate) fn count_all(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT COUNT(*) FROM lessons", [], |r| r.get(0))
}

/// The rate limit, read from `conn`; fails open.
pub(crate) fn current_rate_limit(conn: &Connection, now: DateTime<Utc>) -> rate_limit::RateLimit {
    let read = || -> Result<rate_limit::RateLimit> {
        let settings = crate::settings::read(conn)?;
        let since = devcoach_core::time::lesson_stamp(rate_limit::day_window_start(now));
        let count = count_own_since(conn, &since)?;
        let last = last_own_timestamp(conn)?.and_then(|t| devcoach_core::time::parse_timestamp(&t).ok());
        Ok(rate_limit::check(&settings, count, last, now))
    };
    read().unwrap_or_else(|e| rate_limit::RateLimit::check_failed(&e))
}

/// The most-used value per column among own lessons (ties: the most recent wins), in one scan.
pub(crate) fn usage_defaults(conn: &Connection) -> Result<UsageDefaults> {
    use std::collections::HashMap;
    // Per column: value -> (count, newest timestamp).
    let mut tallies: [HashMap<String, (u32, String)>; 4] = Default::default();
    let mut stmt = conn.prepare_cached(
        "SELECT project, repository, branch, repository_platform, timestamp FROM lessons WHERE imported = 0",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let ts: String = row.get(4)?;
        for (i, tally) in tallies.iter_mut().enumerate() {
            if let Some(v) = row.get::<_, Option<String>>(i)? {
                let slot = tally.entry(v).or_insert((0, String::new()));
                slot.0 += 1;
                if ts > slot.1 {
                    slot.1.clone_from(&ts);
                }
            }
        }
    }
    let mut best = tallies.into_iter().map(|t| t.into_iter().max_by(|a, b| a.1.cmp(&b.1)).map(|(v, _)| v));
    let mut next = || best.next().flatten();
    Ok(UsageDefaults {
        project: next(),
        repository: next(),
        branch: next(),
        repository_platform: next().and_then(|p| Platform::parse(&p).ok()),
    })
}

pub(crate) fn insert_or_replace(tx: &Transaction<'_>, l: &Lesson) -> rusqlite::Result<()> {
    tx.execute(
        &format!("INSERT OR REPLACE INTO lessons ({COLUMNS}) VALUES ({PLACEHOLDERS})"),
        params_from_iter(insert_params(l)),
    )?;
    Ok(())
}

pub(crate) fn lesson_by_id(conn: &Connection, id: &str) -> rusqlite::Result<Option<Lesson>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM lessons WHERE id = ?1"))?
        .query_row([id], row_to_lesson)
        .optional()
}

/// Inserts unless the id exists; true when inserted.
pub(crate) fn insert_if_absent(tx: &Transaction<'_>, l: &Lesson) -> rusqlite::Result<bool> {
    let n = tx.execute(
        &format!("INSERT OR IGNORE INTO lessons ({COLUMNS}) VALUES ({PLACEHOLDERS})"),
        params_from_iter(insert_params(l)),
    )?;
    Ok(n > 0)
}

impl Store {
    /// Stores a complete lesson as given, replacing one with the same id, without touching pacing
    /// (demo data, tests, the reliability suites).
    pub fn put_lesson(&mut self, lesson: &Lesson) -> Result<()> {
        self.write(|tx| Ok(insert_or_replace(tx, lesson)?))
    }

    pub fn lesson(&self, id: &str) -> Result<Option<Lesson>> {
        Ok(lesson_by_id(self.conn(), id)?)
    }

    /// Every lesson id, sorted (for cutting ids to a start that still names one lesson). Read
    /// as every list reads them (an id another program stored as bytes or a number too), and
    /// sorted as Rust orders text, which is what the prefix search expects.
    pub fn lesson_ids(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn().prepare_cached("SELECT id FROM lessons ORDER BY id")?;
        let mut ids: Vec<String> = stmt.query_map([], |r| text(r, 0))?.collect::<rusqlite::Result<_>>()?;
        ids.sort_unstable();
        Ok(ids)
    }

    /// `ids` and the ids just before and after each in id order, sorted: all that tells each of
    /// `ids` apart from every other lesson (`devcoach_core::ids::unique_prefix_chars` looks only
    /// at the neighbours), read through the index, two rows each, whatever the record holds.
    pub fn lesson_id_neighbours(&self, ids: &[&str]) -> Result<Vec<String>> {
        let conn = self.conn();
        let mut out: std::collections::BTreeSet<String> = ids.iter().map(|id| (*id).to_owned()).collect();
        for id in ids {
            for sql in [
                "SELECT id FROM lessons WHERE id < ?1 ORDER BY id DESC LIMIT 1",
                "SELECT id FROM lessons WHERE id > ?1 ORDER BY id LIMIT 1",
            ] {
                if let Some(next) = conn.prepare_cached(sql)?.query_row([id], |r| text(r, 0)).optional()? {
                    out.insert(next);
                }
            }
        }
        Ok(out.into_iter().collect())
    }

    /// The lesson id `typed` names: itself when a lesson has it, else the one id that starts
    /// with it; a start copied from a table with its `…` names only ids longer than it (see
    /// [`devcoach_core::ids::typed_prefix`]).
    pub fn find_lesson_id(&self, typed: &str) -> Result<devcoach_core::ids::IdLookup> {
        use devcoach_core::ids::{IdLookup, typed_prefix};
        let conn = self.conn();
        if conn.prepare_cached("SELECT 1 FROM lessons WHERE id = ?1")?.exists([typed])? {
            return Ok(IdLookup::Found(typed.to_owned()));
        }
        let (prefix, cut) = typed_prefix(typed);
        if prefix.is_empty() {
            return Ok(IdLookup::Missing);
        }
        // substr counts characters, as length does: no LIKE, so `%` and `_` in ids mean themselves.
        let mut stmt = conn.prepare_cached(
            "SELECT id FROM lessons WHERE substr(id, 1, length(?1)) = ?1 AND (?2 = 0 OR id <> ?1) ORDER BY id LIMIT 6",
        )?;
        let mut ids: Vec<String> =
            stmt.query_map(rusqlite::params![prefix, cut], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        // Typed whole (after trimming), an id is itself even when it starts others.
        if !cut && ids.iter().any(|i| i == prefix) {
            return Ok(IdLookup::Found(prefix.to_owned()));
        }
        Ok(match ids.len() {
            0 => IdLookup::Missing,
            1 => IdLookup::Found(ids.remove(0)),
            _ => IdLookup::Ambiguous(ids),
        })
    }

    /// The lessons matching `q`, in its order (ties: most recently written first).
    pub fn lessons(&self, q: &LessonQuery, now: DateTime<Utc>) -> Result<Vec<Lesson>> {
        // Sizing the result up front avoids copying a large list while it grows.
        let expected = match q.limit {
            Some(limit) => usize::try_from(limit).unwrap_or(usize::MAX).min(1024),
            None => usize::try_from(self.count_lessons(q, now)?).unwrap_or(0),
        };
        let mut out = Vec::with_capacity(expected);
        self.visit_lessons(q, now, Fields::Full, |l| {
            out.push(l);
            Ok::<(), StoreError>(())
        })?;
        Ok(out)
    }

    /// Hands each matching lesson to `f` in order, one at a time, so a long list never sits in
    /// memory whole.
    pub fn visit_lessons<E>(
        &self,
        q: &LessonQuery,
        now: DateTime<Utc>,
        fields: Fields,
        mut f: impl FnMut(Lesson) -> Result<(), E>,
    ) -> Result<(), E>
    where
        E: From<StoreError>,
    {
        let (sql, params) = select_matching(fields.columns(), q, now);
        let mut stmt = self.conn().prepare_cached(&sql).map_err(StoreError::from)?;
        let read = match fields {
            Fields::Full => row_to_lesson,
            Fields::List => row_to_listed_lesson,
        };
        let rows = stmt.query_map(params_from_iter(params), read).map_err(StoreError::from)?;
        for row in rows {
            f(row.map_err(StoreError::from)?)?;
        }
        Ok(())
    }

    /// Calls `f` with each lesson matching `q`, in its order, as a list shows it, borrowed from
    /// the row (see [`LessonLine`]).
    pub fn visit_lesson_lines<E>(
        &self,
        q: &LessonQuery,
        now: DateTime<Utc>,
        mut f: impl FnMut(&LessonLine<'_>) -> Result<(), E>,
    ) -> Result<(), E>
    where
        E: From<StoreError>,
    {
        let (sql, params) = select_matching(LINE_COLUMNS, q, now);
        let mut stmt = self.conn().prepare_cached(&sql).map_err(StoreError::from)?;
        let mut rows = stmt.query(params_from_iter(params)).map_err(StoreError::from)?;
        while let Some(row) = rows.next().map_err(StoreError::from)? {
            f(&row_to_line(row).map_err(StoreError::from)?)?;
        }
        Ok(())
    }

    /// The row keys of the lessons matching `q`, in its order (limit and offset apply). Cheaper
    /// than reading the lessons: a list can remember the keys of a whole result and read only
    /// the page it shows with [`Store::lessons_by_key`].
    pub fn lesson_keys(&self, q: &LessonQuery, now: DateTime<Utc>) -> Result<Vec<RowKey>> {
        let (sql, params) = select_matching("rowid", q, now);
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let keys = stmt.query_map(params_from_iter(params), |r| r.get(0).map(RowKey))?;
        Ok(keys.collect::<rusqlite::Result<_>>()?)
    }

    /// The lessons with these keys, in the order given; keys of rows gone since are skipped.
    pub fn lessons_by_key(&self, keys: &[RowKey], fields: Fields) -> Result<Vec<Lesson>> {
        let columns = fields.columns();
        let mut stmt = self.conn().prepare_cached(&format!("SELECT {columns} FROM lessons WHERE rowid = ?1"))?;
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            if let Some(lesson) = stmt.query_row([key.0], row_to_lesson).optional()? {
                out.push(lesson);
            }
        }
        Ok(out)
    }

    /// How many lessons match `q` (ignoring its limit and offset).
    pub fn count_lessons(&self, q: &LessonQuery, now: DateTime<Utc>) -> Result<i64> {
        let (clause, params) = where_clause(q, now);
        Ok(self
            .conn()
            .prepare_cached(&format!("SELECT COUNT(*) FROM lessons {clause}"))?
            .query_row(params_from_iter(params), |r| r.get(0))?)
    }

    /// True when the lesson exists.
    pub fn set_star(&mut self, id: &str, starred: bool) -> Result<bool> {
        self.write(|tx| {
            Ok(tx.execute("UPDATE lessons SET starred = ?1 WHERE id = ?2", params![i64::from(starred), id])? > 0)
        })
    }

    /// Every lesson, shared ones included.
    pub fn total_lessons(&self) -> Result<i64> {
        Ok(count_all(self.conn())?)
    }

    /// Every topic any lesson (own or shared) has taught, sorted.
    pub fn taught_topics(&self) -> Result<Vec<String>> {
        // One step through the topic index per topic, not one per lesson (`DISTINCT` reads
        // them all): the briefing asks before every lesson, at any size.
        let mut stmt = self.conn().prepare_cached(
            "WITH RECURSIVE taught(topic) AS ( \
                 SELECT MIN(topic_id) FROM lessons \
                 UNION ALL \
                 SELECT (SELECT MIN(topic_id) FROM lessons WHERE topic_id > taught.topic) FROM taught \
                 WHERE taught.topic IS NOT NULL) \
             SELECT topic FROM taught WHERE topic IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
    }

    /// Every category used by any lesson, sorted.
    pub fn categories(&self) -> Result<Vec<String>> {
        // Lessons share a few dozen distinct category lists: read those, split them here.
        let mut stmt = self.conn().prepare_cached("SELECT DISTINCT categories FROM lessons")?;
        let mut rows = stmt.query([])?;
        let mut all = std::collections::BTreeSet::new();
        while let Some(row) = rows.next()? {
            if let rusqlite::types::ValueRef::Text(raw) = row.get_ref(0)? {
                all.extend(lesson::categories_from_column(&String::from_utf8_lossy(raw)));
            }
        }
        Ok(all.into_iter().collect())
    }

    /// The most-used project, repository, branch and platform among own lessons.
    pub fn usage_defaults(&self) -> Result<UsageDefaults> {
        usage_defaults(self.conn())
    }

    /// The rate limit right now (fails open).
    pub fn rate_limit(&self, now: DateTime<Utc>) -> rate_limit::RateLimit {
        current_rate_limit(self.conn(), now)
    }
}

#[cfg(test)]
mod tests {
    use super::like_contains;

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(like_contains("50%_off"), r"%50\%\_off%");
        assert_eq!(like_contains(r"a\b"), r"%a\\b%");
    }
}
