//! The demo learner tells one story: the map, the evidence log and the review log agree at every
//! moment, because the demo is built by replaying its events through the real operations.

use devcoach_store::DEMO_LESSON_COUNT;

use crate::{fresh, now};

#[test]
fn the_map_and_the_evidence_log_agree_at_every_moment() {
    let (_t, mut store) = fresh();
    store.seed_demo(now()).expect("demo");
    let profile = store.profile().expect("profile");
    let evidence = store.evidence(None).expect("evidence");
    assert!(evidence.windows(2).all(|w| w[0].at <= w[1].at), "the log is in time order");
    for entry in &profile.knowledge {
        let rows: Vec<_> = evidence.iter().filter(|e| e.topic == entry.topic).collect();
        assert!(!rows.is_empty(), "{} has a history", entry.topic);
        for pair in rows.windows(2) {
            let (before, after) = (pair[0], pair[1]);
            assert_eq!(
                before.value_after.zip(after.delta).map(|(v, d)| v + d),
                after.value_after,
                "{}: {before:?} then {after:?}",
                entry.topic
            );
        }
        assert_eq!(
            rows.last().and_then(|e| e.value_after),
            Some(entry.confidence),
            "{}: the chart ends where the map is",
            entry.topic
        );
    }
    let log = store.review_log().expect("reviews");
    assert!(
        !log.is_empty() && log.windows(2).all(|w| w[0].reviewed_at < w[1].reviewed_at),
        "reviews, each at its own moment"
    );
    assert_eq!(
        store.lessons(&devcoach_core::query::LessonQuery::default(), now()).expect("lessons").len(),
        DEMO_LESSON_COUNT
    );
    assert!(store.data_dir().read_notebook().expect("notebook").contains("Coaching Notebook"));
}
