//! Importing shared lessons: ids, duplicates, and pacing left alone.

use devcoach_core::SessionId;
use devcoach_core::share::payload::SharedLesson;
use devcoach_core::share::{SharedInput, parse_shared_input};
use devcoach_store::Store;
use serde_json::json;

use crate::{fresh, now};

fn payload(shared_by: Option<&str>) -> SharedLesson {
    let v = json!({
        "format": "devcoach.lesson", "version": 1,
        "lesson": {"title": "Rebase onto", "summary": "s", "body": "b", "topic_id": "git", "categories": ["git"], "level": "mid"},
        "origin": {"id": "rebase-onto", "timestamp": "2026-10-01T00:00:00Z"},
        "shared_by": shared_by, "shared_at": "2026-10-02T00:00:00Z", "app_version": "2.7.0"
    });
    SharedLesson::from_json(&v).expect("valid")
}

#[test]
fn ids_duplicates_and_suffixes() {
    let (_t, mut store) = fresh();
    let first = store.import_shared(&payload(Some("Ada")), now()).expect("import");
    assert_eq!((first.counts.inserted, first.topic_tracked), (1, Some(false)));
    let stored = first.lesson.expect("stored");
    assert_eq!(stored.id, "rebase-onto");
    assert!(stored.imported && stored.shared_by.as_deref() == Some("Ada"));
    assert_eq!(stored.timestamp, "2026-11-30T12:00:00Z", "stamped at import time");

    let again = store.import_shared(&payload(Some("Ada")), now()).expect("import");
    assert_eq!((again.counts.inserted, again.counts.duplicated), (0, 1));
    assert_eq!(again.lesson.map(|l| l.id).as_deref(), Some("rebase-onto"));

    // A different sender's lesson with the same id goes next to it, never over it.
    let other = store.import_shared(&payload(Some("Grace")), now()).expect("import");
    assert_eq!(other.lesson.map(|l| l.id).as_deref(), Some("rebase-onto-shared"));
    let anon = store.import_shared(&payload(None), now()).expect("import");
    assert_eq!(anon.lesson.map(|l| l.id).as_deref(), Some("rebase-onto-shared-2"));
    assert_eq!(store.import_shared(&payload(None), now()).expect("import").counts.duplicated, 1);
}

#[test]
fn an_own_lesson_with_the_same_id_is_never_overwritten_and_ids_run_out() {
    let (_t, mut store) = fresh();
    store.complete_onboarding(&[("git".into(), 5)], &[], now()).expect("onboard");
    let p = payload(Some("Ada"));
    for id in p.id_candidates() {
        let mut own = p.clone().into_lesson(id.clone(), "2026-01-01T00:00:00Z".into());
        own.imported = false;
        // Other lessons of the learner's own under every id the share could take.
        own.title = format!("My own {id}");
        store.put_lesson(&own).expect("own lesson");
    }
    let out = store.import_shared(&p, now()).expect("import");
    assert_eq!((out.counts.invalid, out.lesson, out.topic_tracked, out.own), (1, None, Some(true), false));
}

#[test]
fn ones_own_lesson_shared_back_is_recognised() {
    let (_t, mut store) = fresh();
    let p = payload(Some("Ada"));
    let mut own = p.clone().into_lesson(p.origin_id.clone(), "2026-01-01T00:00:00Z".into());
    own.imported = false;
    own.shared_by = None;
    store.put_lesson(&own).expect("own lesson");
    let out = store.import_shared(&p, now()).expect("import");
    assert!(out.own, "{out:?}");
    assert_eq!(out.counts.inserted, 0);
    assert_eq!(store.total_lessons().expect("count"), 1, "no copy from someone anonymous");
}

#[test]
fn imports_never_touch_pacing_or_the_daily_limit() {
    let (_t, mut store) = fresh();
    store.complete_onboarding(&[("git".into(), 5)], &[], now()).expect("onboard");
    store.evaluate_cue(&SessionId::from_payload(Some("s")), false, now()).expect("bump");
    store.import_shared(&payload(Some("Ada")), now()).expect("import");
    assert_eq!(store.nudge_sessions().expect("read").len(), 1);
    assert!(store.rate_limit(now()).allowed);
    assert_eq!(store.stats(now()).expect("stats").lessons_today, 0);
}

#[test]
fn legacy_exports_import_record_by_record() {
    let (_t, mut store) = fresh();
    let text = r#"[{"id": "a", "timestamp": "2026-01-01", "topic_id": "t", "categories": [], "title": "A", "level": "mid", "summary": "s"}, {"id": "bad"}]"#;
    let input = parse_shared_input(text).expect("parse");
    assert!(matches!(input, SharedInput::Lessons(_)));
    let out = store.import_input(input, now()).expect("import");
    assert!(!out.shared);
    assert_eq!((out.counts.inserted, out.counts.invalid), (1, 1));
    let _: &Store = &store;
}
