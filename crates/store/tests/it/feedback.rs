//! Feedback as the single writer of lesson answers.

use devcoach_core::evidence::EvidenceCause;
use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::lesson::Feedback;
use devcoach_core::query::LessonQuery;

use crate::{fresh, now};

fn choice(raw: &str) -> FeedbackChoice {
    FeedbackChoice::parse(raw).expect("valid choice")
}

#[test]
fn know_moves_confidence_in_and_out() {
    let (_t, mut store) = fresh();
    store.seed_demo(now()).expect("demo");
    let id = "redis-ttl-jitter"; // no feedback yet, topic redis at 3
    assert_eq!(store.confidence("redis").expect("read"), Some(3));

    let out = store.record_feedback(id, choice("know"), now()).expect("write").expect("lesson exists");
    assert_eq!((out.previous, out.delta, out.confidence), (None, 1, Some(4)));
    // Repeating the same answer is a no-op.
    let again = store.record_feedback(id, choice("know"), now()).expect("write").expect("exists");
    assert_eq!((again.previous, again.delta, again.confidence), (Some(Feedback::Know), 0, Some(4)));
    let out = store.record_feedback(id, choice("understood"), now()).expect("write").expect("exists");
    assert_eq!((out.previous, out.delta, out.confidence), (Some(Feedback::Know), -1, Some(3)));
    let out = store.record_feedback(id, choice("clear"), now()).expect("write").expect("exists");
    assert_eq!((out.previous, out.delta, out.confidence), (Some(Feedback::Understood), 0, Some(3)));
    assert_eq!(store.lesson(id).expect("read").expect("exists").feedback, None);

    let log: Vec<(Option<i64>, Option<String>)> = store
        .evidence(Some("redis"))
        .expect("log")
        .into_iter()
        .filter(|e| e.cause == EvidenceCause::Feedback && e.lesson_id.as_deref() == Some(id))
        .map(|e| (e.delta, e.detail))
        .collect();
    assert_eq!(
        log,
        [(Some(1), Some("know".into())), (Some(-1), Some("understood".into())), (Some(0), Some("clear".into()))]
    );
}

#[test]
fn feedback_on_an_untracked_topic_creates_it_only_for_know() {
    let (_t, mut store) = fresh();
    store.seed_demo(now()).expect("demo");
    store.remove_topic("rust").expect("untrack");
    let out = store.record_feedback("borrow-vs-clone", choice("dont_know"), now()).expect("write").expect("exists");
    assert_eq!((out.delta, out.confidence), (0, None));
    let out = store.record_feedback("borrow-vs-clone", choice("know"), now()).expect("write").expect("exists");
    assert_eq!((out.delta, out.confidence), (1, Some(6)));
}

#[test]
fn missing_lessons_report_none() {
    let (_t, mut store) = fresh();
    assert_eq!(store.record_feedback("nope", choice("know"), now()).expect("write"), None);
    assert!(store.lessons(&LessonQuery::default(), now()).expect("read").is_empty());
}
