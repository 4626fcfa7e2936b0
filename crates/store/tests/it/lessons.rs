//! Saving and listing lessons with every filter.

use chrono::Duration;
use devcoach_core::git::GitContext;
use devcoach_core::ids::LessonId;
use devcoach_core::lesson::{Feedback, Lesson, LessonContext, Level, NewLesson, Platform};
use devcoach_core::query::{FeedbackFilter, LessonQuery, SortColumn, SortOrder};
use devcoach_core::time::{Period, lesson_stamp};
use devcoach_store::Store;
use serde_json::json;

use crate::{fresh, now};

fn lesson(id: &str, hours_ago: i64) -> Lesson {
    Lesson {
        title: format!("Title {id}"),
        summary: "summary".into(),
        body: Some("body".into()),
        ..Lesson::example(id).at(now() - Duration::hours(hours_ago))
    }
}

fn ids(store: &Store, q: &LessonQuery) -> Vec<String> {
    store.lessons(q, now()).expect("query").into_iter().map(|l| l.id).collect()
}

fn seeded() -> (tempfile::TempDir, Store) {
    let (tmp, mut store) = fresh();
    let mut a = lesson("a", 1);
    a.title = "Borrow checker basics".into();
    a.categories = vec!["rust".into(), "memory".into()];
    a.starred = true;
    a.feedback = Some(Feedback::Know);
    a.context.git.project = Some("widgets".into());
    a.context.git.branch = Some("feature/login".into());
    a.context.git.commit_hash = Some("abc1234".into());
    let mut b = lesson("b", 30);
    b.topic_id = "git".into();
    b.title = "Rebase onto".into();
    b.level = Level::Senior;
    b.body = Some("Use rebase --onto to move the borrow.".into());
    b.categories = vec!["git".into(), "mem%ory".into()];
    b.feedback = Some(Feedback::DontKnow);
    let mut c = lesson("c", 24 * 40);
    c.imported = true;
    c.shared_by = Some("Grace".into());
    c.title = "Shared lesson".into();
    let mut d = lesson("d", 24 * 400);
    d.level = Level::Junior;
    d.context.git.repository = Some("acme/widgets".into());
    for l in [a, b, c, d] {
        store.put_lesson(&l).expect("put");
    }
    (tmp, store)
}

#[test]
fn default_is_everything_newest_first() {
    let (_t, store) = seeded();
    assert_eq!(ids(&store, &LessonQuery::default()), ["a", "b", "c", "d"]);
}

#[test]
fn periods() {
    let (_t, store) = seeded();
    let q = |p| LessonQuery { period: Some(p), ..LessonQuery::default() };
    assert_eq!(ids(&store, &q(Period::Today)), ["a"]);
    assert_eq!(ids(&store, &q(Period::Week)), ["a", "b"]);
    assert_eq!(ids(&store, &q(Period::Month)), ["a", "b"]);
    assert_eq!(ids(&store, &q(Period::Year)), ["a", "b", "c"]);
    assert_eq!(ids(&store, &q(Period::All)), ["a", "b", "c", "d"]);
}

#[test]
fn date_range_overrides_period_and_is_inclusive() {
    let (_t, store) = seeded();
    let mut q = LessonQuery { period: Some(Period::Today), ..LessonQuery::default() };
    let b_day = &lesson_stamp(now() - Duration::hours(30))[..10];
    q.dates.set_from(b_day).expect("from");
    q.dates.set_to(b_day).expect("to");
    assert_eq!(ids(&store, &q), ["b"]);
}

#[test]
fn field_filters() {
    let (_t, store) = seeded();
    let base = LessonQuery::default;
    assert_eq!(ids(&store, &LessonQuery { category: Some("memory".into()), ..base() }), ["a"]);
    // Wildcards in a category are literal.
    assert_eq!(ids(&store, &LessonQuery { category: Some("mem%ory".into()), ..base() }), ["b"]);
    assert_eq!(ids(&store, &LessonQuery { level: Some(Level::Senior), ..base() }), ["b"]);
    assert_eq!(ids(&store, &LessonQuery { project: Some("widg".into()), ..base() }), ["a"]);
    assert_eq!(ids(&store, &LessonQuery { repository: Some("acme".into()), ..base() }), ["d"]);
    assert_eq!(ids(&store, &LessonQuery { branch: Some("login".into()), ..base() }), ["a"]);
    assert_eq!(ids(&store, &LessonQuery { commit: Some("abc".into()), ..base() }), ["a"]);
    assert_eq!(ids(&store, &LessonQuery { starred: Some(true), ..base() }), ["a"]);
    assert_eq!(ids(&store, &LessonQuery { starred: Some(false), ..base() }), ["b", "c", "d"]);
    assert_eq!(ids(&store, &LessonQuery { imported: Some(true), ..base() }), ["c"]);
    assert_eq!(ids(&store, &LessonQuery { imported: Some(false), ..base() }), ["a", "b", "d"]);
    assert_eq!(ids(&store, &LessonQuery { shared_by: Some("Grace".into()), ..base() }), ["c"]);
    assert_eq!(ids(&store, &LessonQuery { shared_by: Some("grace".into()), ..base() }), Vec::<String>::new());
    assert_eq!(ids(&store, &LessonQuery { feedback: Some(FeedbackFilter::Is(Feedback::DontKnow)), ..base() }), ["b"]);
    assert_eq!(ids(&store, &LessonQuery { feedback: Some(FeedbackFilter::Missing), ..base() }), ["c", "d"]);
}

#[test]
fn search_is_multi_word_and() {
    let (_t, store) = seeded();
    let search = |s: &str| {
        let mut q = LessonQuery::default();
        q.set_search(s);
        ids(&store, &q)
    };
    assert_eq!(search("borrow"), ["a", "b"]);
    assert_eq!(search("borrow rebase"), ["b"]);
    assert_eq!(search("BORROW checker"), ["a"]);
    assert_eq!(search("grace"), ["c"]);
    assert_eq!(search("100%"), Vec::<String>::new());
}

#[test]
fn sort_limit_offset_and_count() {
    let (_t, store) = seeded();
    let q = LessonQuery { sort: SortColumn::Title, order: SortOrder::Asc, ..LessonQuery::default() };
    assert_eq!(ids(&store, &q), ["a", "b", "c", "d"]);
    let q = LessonQuery { sort: SortColumn::Level, order: SortOrder::Asc, ..LessonQuery::default() };
    assert_eq!(ids(&store, &q)[0], "d");
    let q = LessonQuery { limit: Some(2), offset: 1, ..LessonQuery::default() };
    assert_eq!(ids(&store, &q), ["b", "c"]);
    let q = LessonQuery { offset: 3, ..LessonQuery::default() };
    assert_eq!(ids(&store, &q), ["d"]);
    assert_eq!(
        store.count_lessons(&LessonQuery { limit: Some(1), ..LessonQuery::default() }, now()).expect("count"),
        4
    );
}

#[test]
fn star_delete_and_taught_topics() {
    let (_t, mut store) = seeded();
    assert!(store.set_star("b", true).expect("star"));
    assert!(!store.set_star("missing", true).expect("star"));
    assert!(store.lesson("b").expect("read").expect("exists").starred);
    assert!(store.delete_lesson("d").expect("delete"));
    assert!(!store.delete_lesson("d").expect("delete again"));
    assert_eq!(store.delete_lessons(&["a".into(), "zzz".into()]).expect("bulk"), 1);
    assert_eq!(store.taught_topics().expect("topics"), ["git", "rust"]);
    assert_eq!(store.categories().expect("categories"), ["git", "mem%ory", "rust"]);
    // Lists written by other tools: not an array, or holding more than names.
    let mut odd = lesson("odd", 2);
    odd.id = "odd".into();
    store.put_lesson(&odd).expect("put");
    let conn = rusqlite::Connection::open(store.data_dir().db_path()).expect("raw");
    conn.execute("UPDATE lessons SET categories = '[\"zeta\", 3, null]' WHERE id = 'odd'", []).expect("odd");
    conn.execute("UPDATE lessons SET categories = 'not json' WHERE id = 'b'", []).expect("bad");
    assert_eq!(store.categories().expect("categories"), ["rust", "zeta"]);
}

#[test]
fn log_lesson_stamps_fills_context_and_resets_pacing() {
    let (_t, mut store) = fresh();
    let mut own = lesson("old", 5);
    own.context.git.project = Some("usual".into());
    own.context.git.repository_platform = Some(Platform::Gitlab);
    store.put_lesson(&own).expect("put");
    let mut shared = lesson("shared", 4);
    shared.imported = true;
    shared.context.git.project = Some("theirs".into());
    store.put_lesson(&shared).expect("put");
    store.complete_onboarding(&[("rust".into(), 5)], &[], now()).expect("onboard");
    let session = devcoach_core::SessionId::from_payload(Some("s"));
    store.evaluate_cue(&session, false, now()).expect("bump");
    assert_eq!(store.nudge_sessions().expect("sessions").len(), 1);

    let new = NewLesson {
        id: LessonId::new("fresh").expect("id"),
        topic_id: "rust".into(),
        categories: vec!["rust".into()],
        title: "T".into(),
        level: Level::Junior,
        summary: "S".into(),
        body: "B".into(),
        context: LessonContext { task_context: Some("task".into()), ..LessonContext::default() },
    };
    let git = GitContext {
        branch: Some("main".into()),
        commit_hash: Some("c0ffee".into()),
        folder: Some("/w".into()),
        ..GitContext::default()
    };
    let saved = store.log_lesson(new, None, &git, now()).expect("log");
    assert_eq!(saved.timestamp, "2026-11-30T12:00:00Z");
    assert_eq!(saved.context.git.project.as_deref(), Some("usual"), "usage default ignores shared lessons");
    assert_eq!(saved.context.git.repository_platform, Some(Platform::Gitlab));
    assert_eq!(saved.context.git.branch.as_deref(), Some("main"));
    assert_eq!(saved.context.git.commit_hash.as_deref(), Some("c0ffee"));
    assert_eq!(saved.context.task_context.as_deref(), Some("task"));
    assert_eq!(store.lesson("fresh").expect("read"), Some(saved));
    assert!(store.nudge_sessions().expect("sessions").is_empty());
}

#[test]
fn import_records_counts_and_never_overwrites() {
    let (_t, mut store) = seeded();
    let records = vec![
        json!({"id": "a", "timestamp": "2020-01-01", "topic_id": "x", "categories": [], "title": "dup", "level": "mid", "summary": "s"}),
        json!({"id": "new", "timestamp": "2020-01-01T10:00:00+01:00", "topic_id": "x", "categories": ["y"], "title": "n", "level": "senior", "summary": "s", "feedback": "know", "starred": true}),
        json!({"id": "bad", "timestamp": "2020-01-01", "topic_id": "x", "categories": [], "title": "n", "level": "guru", "summary": "s"}),
        json!("not an object"),
    ];
    let counts = store.import_lessons(&records, now()).expect("import");
    assert_eq!((counts.inserted, counts.duplicated, counts.invalid), (1, 1, 2));
    assert_eq!(store.lesson("a").expect("read").expect("kept").title, "Borrow checker basics");
    let new = store.lesson("new").expect("read").expect("inserted");
    assert_eq!(new.timestamp, "2020-01-01T09:00:00Z");
    assert!(new.starred);
    assert_eq!(new.feedback, Some(Feedback::Know));
}

#[test]
fn odd_rows_written_by_other_tools_still_read() {
    let (tmp, store) = fresh();
    drop(store);
    let conn = rusqlite::Connection::open(tmp.path().join("coaching.db")).expect("raw");
    conn.execute_batch(
        "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary, feedback, repository_platform) \
         VALUES ('odd', '2026-01-01T00:00:00Z', 't', 'not json', 'T', 'expert', 's', 'meh', 'sourcehut')",
    )
    .expect("odd row");
    drop(conn);
    let store = Store::open(&devcoach_store::DataDir::new(tmp.path())).expect("open");
    let odd = store.lesson("odd").expect("read").expect("exists");
    assert!(odd.categories.is_empty());
    assert_eq!((odd.level, odd.feedback, odd.context.git.repository_platform), (Level::Mid, None, None));
    // The list view reads the same row as leniently.
    let mut listed = Vec::new();
    store
        .visit_lessons(&LessonQuery::default(), now(), devcoach_store::Fields::List, |l| {
            listed.push(l);
            Ok::<_, devcoach_store::StoreError>(())
        })
        .expect("visit");
    let odd = listed.iter().find(|l| l.id == "odd").expect("listed");
    assert!(odd.categories.is_empty());
    assert_eq!((odd.level, odd.feedback, odd.summary.as_str()), (Level::Mid, None, ""));
    // And so do a table's lines: a topic of bytes that are not UTF-8, a project as a blob.
    let conn = rusqlite::Connection::open(tmp.path().join("coaching.db")).expect("raw");
    conn.execute_batch(
        "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary, project, starred) \
         VALUES ('odder', '2026-01-02T00:00:00Z', CAST(X'66FF6F' AS TEXT), '[\"a\", \"b\"]', 42, 'senior', 's', \
         X'7072', 3)",
    )
    .expect("odder row");
    drop(conn);
    assert_lines_read_as_the_list_does(&store, &LessonQuery::default());
}

/// What a table's lines hold is what the list view reads, field for field, in the same order.
fn assert_lines_read_as_the_list_does(store: &Store, q: &LessonQuery) {
    let mut listed = Vec::new();
    store
        .visit_lessons(q, now(), devcoach_store::Fields::List, |l| {
            listed.push(l);
            Ok::<_, devcoach_store::StoreError>(())
        })
        .expect("visit");
    let mut lines = Vec::new();
    store
        .visit_lesson_lines(q, now(), |l| {
            let owned = |t: &Option<std::borrow::Cow<'_, str>>| t.as_deref().map(str::to_owned);
            lines.push(Lesson {
                id: l.id.to_string(),
                timestamp: l.timestamp.to_string(),
                topic_id: l.topic_id.to_string(),
                categories: devcoach_core::lesson::categories_from_column(&l.categories),
                title: l.title.to_string(),
                level: l.level,
                summary: String::new(),
                body: None,
                context: devcoach_core::lesson::LessonContext {
                    task_context: None,
                    git: devcoach_core::git::GitContext {
                        project: owned(&l.project),
                        branch: owned(&l.branch),
                        commit_hash: owned(&l.commit_hash),
                        ..devcoach_core::git::GitContext::default()
                    },
                },
                starred: l.starred,
                feedback: l.feedback,
                imported: l.imported,
                shared_by: owned(&l.shared_by),
            });
            Ok::<_, devcoach_store::StoreError>(())
        })
        .expect("lines");
    assert!(!lines.is_empty() || listed.is_empty());
    assert_eq!(lines, listed, "{q:?}");
}

#[test]
fn row_keys_read_back_what_the_query_lists() {
    let (_t, store) = seeded();
    let mut searched = LessonQuery::default();
    searched.set_search("borrow");
    let queries = [
        LessonQuery::default(),
        LessonQuery { sort: SortColumn::Title, order: SortOrder::Asc, ..LessonQuery::default() },
        LessonQuery { imported: Some(false), limit: Some(2), offset: 1, ..LessonQuery::default() },
        LessonQuery { feedback: Some(FeedbackFilter::Missing), ..LessonQuery::default() },
        LessonQuery { period: Some(Period::Week), ..LessonQuery::default() },
        searched,
    ];
    for q in queries {
        let listed: Vec<Lesson> = {
            let mut out = Vec::new();
            store
                .visit_lessons(&q, now(), devcoach_store::Fields::List, |l| {
                    out.push(l);
                    Ok::<_, devcoach_store::StoreError>(())
                })
                .expect("visit");
            out
        };
        let keys = store.lesson_keys(&q, now()).expect("keys");
        assert_eq!(store.lessons_by_key(&keys, devcoach_store::Fields::List).expect("by key"), listed, "{q:?}");
        assert_lines_read_as_the_list_does(&store, &q);
    }
    // A key whose row is gone is skipped.
    let mut store = store;
    let keys = store.lesson_keys(&LessonQuery::default(), now()).expect("keys");
    store.delete_lesson("b").expect("delete");
    assert_eq!(store.lessons_by_key(&keys, devcoach_store::Fields::List).expect("by key").len(), keys.len() - 1);
}

/// A listing tells each shown id apart from every other by its neighbours in id order, read
/// two rows each: the same widths as from every id, for any set shown.
#[test]
fn an_ids_neighbours_tell_it_apart_as_every_id_does() {
    let (_t, mut store) = fresh();
    // Ids that share long starts, and ones that start others (`ab` and `abc`).
    let mut all: Vec<String> = Vec::new();
    let mut x: u64 = 7;
    for i in 0..300 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let id = match i % 4 {
            0 => format!("2026-05-{:02}-{}", x % 28 + 1, x % 7),
            1 => format!("arch-{}", x % 500),
            2 => format!("ab{}", "c".repeat(usize::try_from(x % 4).expect("small"))),
            _ => format!("z{x:x}"),
        };
        if !all.contains(&id) {
            store.put_lesson(&lesson(&id, 1)).expect("put");
            all.push(id);
        }
    }
    all.sort();
    assert_eq!(store.lesson_ids().expect("ids"), all);
    for step in [1, 3, 7, 13, 50] {
        let shown: Vec<&str> = all.iter().step_by(step).map(String::as_str).collect();
        let near = store.lesson_id_neighbours(&shown).expect("neighbours");
        assert!(near.len() <= 3 * shown.len());
        for id in &shown {
            assert_eq!(
                devcoach_core::ids::unique_prefix_chars(&near, id),
                devcoach_core::ids::unique_prefix_chars(&all, id),
                "{id}"
            );
        }
    }
}
