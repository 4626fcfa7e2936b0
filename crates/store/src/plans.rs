//! The reads an agent or a hook makes before every lesson and at every stop cost the same at
//! 50,000 lessons as at 1,000: none of their statements walks the lessons table (or an index of
//! it) from end to end. Every statement each path runs is recorded as it runs, and SQLite's own
//! query plan for it is checked.

use std::sync::Mutex;

use chrono::{DateTime, Utc};
use devcoach_core::ids::SessionId;
use devcoach_core::query::LessonQuery;

use crate::{DataDir, Store};

static RAN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// One front end's reads, run against the store.
type Path = Box<dyn FnOnce(&mut Store)>;

fn now() -> DateTime<Utc> {
    devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("now")
}

/// The statements `path` ran, each once.
fn statements(store: &mut Store, path: impl FnOnce(&mut Store)) -> Vec<String> {
    RAN.lock().expect("lock").clear();
    let record = |event: rusqlite::trace::TraceEvent<'_>| {
        if let rusqlite::trace::TraceEvent::Stmt(stmt, _) = event
            && let Ok(mut ran) = RAN.lock()
        {
            ran.push(stmt.sql().into_owned());
        }
    };
    store.conn_mut().trace_v2(rusqlite::trace::TraceEventCodes::SQLITE_TRACE_STMT, Some(record)).expect("trace");
    path(store);
    store
        .conn_mut()
        .trace_v2(rusqlite::trace::TraceEventCodes::empty(), None::<fn(rusqlite::trace::TraceEvent<'_>)>)
        .expect("untrace");
    let mut ran = std::mem::take(&mut *RAN.lock().expect("lock"));
    ran.sort();
    ran.dedup();
    ran
}

/// The steps of a statement's plan that read all of `lessons` (a scan of the table or of one
/// of its indexes, not a search).
fn full_scans(store: &Store, sql: &str) -> Vec<String> {
    let trimmed = sql.trim_start();
    let upper = trimmed.to_ascii_uppercase();
    if !(upper.starts_with("SELECT")
        || upper.starts_with("WITH")
        || upper.starts_with("UPDATE")
        || upper.starts_with("DELETE")
        || upper.starts_with("INSERT"))
    {
        return Vec::new();
    }
    let mut stmt = store.conn().prepare(&format!("EXPLAIN QUERY PLAN {trimmed}")).expect("a statement that ran plans");
    // The plan does not depend on the values: each parameter is bound to NULL.
    let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
    let rows = stmt.query_map(rusqlite::params_from_iter(nulls), |r| r.get::<_, String>(3)).expect("plan");
    rows.map(|detail| detail.expect("plan step"))
        .filter(|detail| detail.starts_with("SCAN lessons") && !allowed(sql, detail))
        .collect()
}

/// Walks of the lessons that stay cheap at any size, and why.
fn allowed(sql: &str, detail: &str) -> bool {
    // SQLite counts a table by its pages' cell counts, not row by row: 0.01 ms at 50,000.
    let count = sql.trim() == "SELECT COUNT(*) FROM lessons";
    // Newest first through the timestamp index, stopping after the rows asked for (a page, or
    // the first row that qualifies).
    let newest = detail.contains("USING INDEX idx_lessons_timestamp")
        && sql.contains("ORDER BY timestamp DESC")
        && sql.contains(" LIMIT ");
    count || newest
}

fn store_with_lessons() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut store = Store::open(&DataDir::new(tmp.path())).expect("open");
    for i in 0..30 {
        let mut lesson = devcoach_core::Lesson::example(&format!("l{i:02}"));
        lesson.topic_id = ["rust", "git", "sql"][i % 3].to_owned();
        store.put_lesson(&lesson).expect("lesson");
    }
    store.set_topic("rust", 5, None, now()).expect("topic");
    (tmp, store)
}

#[test]
fn the_reads_before_every_lesson_and_at_every_stop_never_walk_every_lesson() {
    let (_tmp, mut store) = store_with_lessons();
    let session = SessionId::from_payload(Some("s1"));
    let paths: Vec<(&str, Path)> = vec![
        (
            "briefing",
            Box::new(|s: &mut Store| {
                let _ = s.profile();
                let _ = s.rate_limit(now());
                let _ = s.topic_estimates(now());
                let _ = s.work_insights();
                let _ = s.work_last_days(now(), 7);
                let _ = s.total_lessons();
                let _ = s.next_lesson(now());
                let _ = s.taught_topics();
                let _ = s.is_onboarded();
            }),
        ),
        (
            "profile",
            Box::new(|s: &mut Store| {
                let _ = s.profile();
                let _ = s.compat();
            }),
        ),
        (
            "onboarding",
            Box::new(|s: &mut Store| {
                let _ = s.is_onboarded();
                let _ = s.compat();
            }),
        ),
        (
            "rate limit",
            Box::new(|s: &mut Store| {
                let _ = s.rate_limit(now());
                let _ = s.next_lesson(now());
                let _ = s.total_lessons();
            }),
        ),
        ("stop hook", Box::new(move |s: &mut Store| drop(s.evaluate_stop(&session, false, None, now())))),
        (
            "prompt hook",
            Box::new(|s: &mut Store| {
                let session = SessionId::from_payload(Some("s1"));
                drop(s.take_held_cue(&session, now()));
                drop(s.explain_cue(&session, now()));
            }),
        ),
        (
            "ten lessons",
            Box::new(|s: &mut Store| {
                let q = LessonQuery { limit: Some(10), ..LessonQuery::default() };
                drop(s.lessons(&q, now()));
                drop(s.count_lessons(&q, now()));
                drop(s.lesson_id_neighbours(&["l03", "l17"]));
            }),
        ),
    ];
    let mut found = Vec::new();
    for (name, path) in paths {
        for sql in statements(&mut store, path) {
            for scan in full_scans(&store, &sql) {
                found.push(format!("{name}: {scan} in {sql}"));
            }
        }
    }
    assert!(found.is_empty(), "full scans of the lessons:\n{}", found.join("\n"));
}
