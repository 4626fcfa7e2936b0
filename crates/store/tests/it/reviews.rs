//! Review cards: made with the lesson or afterwards, scheduled by FSRS, graded, logged, gone
//! with their lesson; and a database the TypeScript build wrote gets cards without errors.

use chrono::Duration;
use devcoach_core::fsrs::{Grade, Scheduler};
use devcoach_core::git::GitContext;
use devcoach_core::ids::LessonId;
use devcoach_core::lesson::{LessonContext, Level, NewLesson};
use devcoach_core::review::{CardSource, CardText, ReviewMix, ReviewSettings};
use devcoach_store::Store;

use crate::{fixture_dir, fresh, now};

fn new_lesson(id: &str) -> NewLesson {
    NewLesson {
        id: LessonId::new(id.to_owned()).expect("id"),
        topic_id: "redis".into(),
        categories: vec!["redis".into()],
        title: format!("Lesson {id}"),
        level: Level::Mid,
        summary: format!("The summary of {id}."),
        body: "Body.".into(),
        context: LessonContext::default(),
    }
}

#[test]
fn cards_come_with_lessons_and_follow_fsrs() {
    let (_t, mut store) = fresh();
    let git = GitContext::default();
    let text =
        CardText::new("Why add jitter to TTLs?", "So keys written together do not expire together.").expect("text");
    store.log_lesson(new_lesson("with-card"), Some(&text), &git, now() - Duration::days(3)).expect("log");
    store.log_lesson(new_lesson("without"), None, &git, now() - Duration::hours(2)).expect("log");

    let own = store.review_card("with-card").expect("read").expect("card");
    assert_eq!((own.question.as_str(), own.source), ("Why add jitter to TTLs?", CardSource::Agent));
    assert_eq!(own.due, "2026-11-28T12:00:00.000Z", "due a day after its lesson");
    let derived = store.review_card("without").expect("read").expect("card");
    assert_eq!((derived.source, derived.answer.as_str()), (CardSource::Derived, "The summary of without."));

    // Only the card whose day has passed is due.
    let (due, total) = store.due_reviews(now(), 10).expect("due");
    assert_eq!((due.len(), total), (1, 1));
    assert_eq!((due[0].card.lesson_id.as_str(), due[0].retrievability), ("with-card", None));

    // Grading follows the scheduler exactly and is logged.
    let first = store.grade_review("with-card", Grade::Good, now()).expect("grade").expect("lesson");
    let expected = Scheduler::default().review(None, 0, Grade::Good);
    assert_eq!(first.graded.step, expected);
    assert_eq!(first.card.due, "2026-12-02T12:00:00.000Z");
    assert_eq!((first.card.reps, first.card.lapses, first.topic.as_str()), (1, 0, "redis"));
    let later = now() + Duration::days(4);
    let second = store.grade_review("with-card", Grade::Again, later).expect("grade").expect("lesson");
    assert_eq!(second.graded.step, Scheduler::default().review(Some(expected.memory), 4, Grade::Again));
    assert_eq!(second.card.lapses, 1);
    let log = store.review_log().expect("log");
    assert_eq!(log.len(), 2);
    assert_eq!((log[0].retrievability, log[1].elapsed_days), (None, 4));
    assert!(log[1].retrievability.is_some_and(|r| r > 0.0 && r < 1.0));

    // The agent can rewrite a card without resetting its schedule.
    let better = CardText::new("What goes wrong when many keys share one TTL?", "They expire at once.").expect("text");
    assert!(store.set_review_card("with-card", &better, later).expect("set"));
    let rewritten = store.review_card("with-card").expect("read").expect("card");
    assert_eq!((rewritten.question.as_str(), rewritten.reps), (better.question(), 2));
    assert!(!store.set_review_card("nope", &better, later).expect("set"));
    assert!(store.grade_review("nope", Grade::Good, later).expect("grade").is_none());

    // A deleted lesson takes its card along.
    assert!(store.delete_lesson("with-card").expect("delete"));
    assert!(store.review_card("with-card").expect("read").is_none());
}

#[test]
fn a_card_is_reviewed_once_a_day_and_each_reply_says_how_a_grade_counted() {
    use devcoach_store::CountsAs;
    let (_t, mut store) = fresh();
    store.log_lesson(new_lesson("l"), None, &GitContext::default(), now() - Duration::days(2)).expect("log");
    let graded = |store: &mut Store, g, minutes| {
        store.grade_review("l", g, now() + Duration::minutes(minutes)).expect("grade").expect("lesson")
    };
    let first = graded(&mut store, Grade::Good, 0);
    assert_eq!(first.counts_as, CountsAs::Reviewed);
    let again = graded(&mut store, Grade::Again, 1);
    assert_eq!(again.counts_as, CountsAs::Replaced);
    assert_eq!(again.graded.step, Scheduler::default().review(None, 0, Grade::Again), "as if graded again alone");
    let check = devcoach_core::checked::Check::new("Keys expire together", None).expect("answer");
    let checked = store.grade_checked_review("l", Grade::Hard, &check, now() + Duration::minutes(2)).expect("grade");
    assert_eq!(checked.expect("lesson").counts_as, CountsAs::Replaced);
    let own = graded(&mut store, Grade::Easy, 3);
    assert_eq!((own.counts_as, own.grade), (CountsAs::Kept, Grade::Hard), "the checked grade stands");
    assert_eq!(store.review_log().expect("log").len(), 1, "one review that day");
    // The next day is another review.
    let tomorrow = graded(&mut store, Grade::Good, 24 * 60 + 5);
    assert_eq!(tomorrow.counts_as, CountsAs::Reviewed);
    assert_eq!(store.review_log().expect("log").len(), 2);
}

#[test]
fn review_settings_round_trip_and_shape_the_schedule() {
    let (_t, mut store) = fresh();
    assert_eq!(store.review_settings().expect("read"), ReviewSettings::default());
    let s = ReviewSettings { retention: 0.8, mix: ReviewMix::ReviewsFirst, parameters: None };
    store.set_review_settings(&s).expect("write");
    assert_eq!(store.review_settings().expect("read"), s);
    store.log_lesson(new_lesson("a"), None, &GitContext::default(), now() - Duration::days(2)).expect("log");
    let graded = store.grade_review("a", Grade::Good, now()).expect("grade").expect("lesson");
    assert_eq!(graded.graded.step, Scheduler::with_retention(0.8).expect("scheduler").review(None, 0, Grade::Good));

    // Fitted parameters are kept exactly and used from then on.
    let mut w = devcoach_core::fsrs::DEFAULT_PARAMETERS;
    w[2] = 5.5;
    let w = devcoach_core::fsrs::Parameters::new(&w).expect("valid");
    store.set_review_settings(&ReviewSettings { parameters: Some(w), ..s }).expect("write");
    assert_eq!(store.review_settings().expect("read").parameters, Some(w));
    store.log_lesson(new_lesson("b"), None, &GitContext::default(), now() - Duration::days(2)).expect("log");
    let graded = store.grade_review("b", Grade::Good, now()).expect("grade").expect("lesson");
    assert_eq!(graded.graded.step, Scheduler::new(w, 0.8, 36_500).expect("scheduler").review(None, 0, Grade::Good));
    store.grade_review("b", Grade::Again, now() + Duration::days(3)).expect("grade");
    assert_eq!(
        store.review_histories().expect("histories"),
        [vec![(0, Grade::Good)], vec![(0, Grade::Good), (3, Grade::Again)]]
    );
}

#[test]
fn a_typescript_database_gets_cards_and_orphans_are_ignored() {
    let (_t, dir) = fixture_dir("ts-0.9.5/coaching.db");
    let mut store = Store::open(&dir).expect("open");
    let lessons = store.total_lessons().expect("count");
    assert!(lessons > 0);
    assert_eq!(store.ensure_review_cards(now()).expect("cards"), usize::try_from(lessons).expect("count"));
    assert_eq!(store.ensure_review_cards(now()).expect("again"), 0, "idempotent");
    assert_eq!(store.all_review_cards().expect("cards").len(), usize::try_from(lessons).expect("count"));

    // The TypeScript build deletes a lesson with plain SQL: the card is never shown, and goes on
    // the next write.
    let later = now() + Duration::days(400);
    let due = store.count_due_reviews(later).expect("count");
    let victim = store.all_review_cards().expect("cards")[0].0.lesson_id.clone();
    let raw = rusqlite::Connection::open(dir.db_path()).expect("raw");
    raw.execute("DELETE FROM lessons WHERE id = ?1", [&victim]).expect("delete");
    assert!(store.review_card(&victim).expect("read").is_none());
    assert_eq!(store.count_due_reviews(later).expect("count"), due - 1, "an orphan card is not due");
    assert_eq!(store.due_reviews(later, 1000).expect("due").0.len(), usize::try_from(due - 1).expect("n"), "one count");
    assert!(store.all_review_cards().expect("cards").iter().all(|(c, _)| c.lesson_id != victim));
    store.ensure_review_cards(now()).expect("clean");
    let left: i64 = raw
        .query_row("SELECT COUNT(*) FROM ext_review_cards WHERE lesson_id = ?1", [&victim], |r| r.get(0))
        .expect("count");
    assert_eq!(left, 0);
}

#[test]
fn every_evidence_source_feeds_the_knowledge_model() {
    use devcoach_core::evidence::EvidenceCause;
    use devcoach_core::feedback::FeedbackChoice;
    use devcoach_core::lesson::Feedback;

    let (_t, mut store) = fresh();
    let start = now() - Duration::days(10);
    store.complete_onboarding(&[("redis".to_owned(), 4), ("git".to_owned(), 8)], &[], start).expect("onboard");
    let estimates = store.topic_estimates(start).expect("estimates");
    assert_eq!(
        estimates.iter().map(|e| (e.topic.as_str(), e.confidence_now)).collect::<Vec<_>>(),
        [("redis", 4), ("git", 8)],
        "ratings seed the model, weakest first"
    );

    // Feedback keeps the original's rule for the shared number, and the model reads it too.
    store.log_lesson(new_lesson("a"), None, &GitContext::default(), start).expect("log");
    let fb = store.record_feedback("a", FeedbackChoice(Some(Feedback::Know)), start).expect("fb").expect("lesson");
    assert_eq!((fb.delta, fb.confidence), (1, Some(5)));
    let redis = |s: &Store, at| {
        s.topic_estimates(at).expect("estimates").into_iter().find(|e| e.topic == "redis").expect("redis")
    };
    assert_eq!(redis(&store, start).evidence, 2);

    // A review moves the shared confidence one step toward the model's estimate, with evidence;
    // the estimate itself is kept beside it.
    let before = redis(&store, now()).known_now;
    store.grade_review("a", Grade::Good, now()).expect("grade").expect("lesson");
    let after = redis(&store, now());
    assert!(after.known_now > before, "{before} -> {}", after.known_now);
    assert!(after.confidence_now > 6, "the model reads more than one step: {}", after.confidence_now);
    assert_eq!(store.confidence("redis").expect("read"), Some(6), "one step up from 5, not the model's reading");
    let last = store.evidence(Some("redis")).expect("evidence").pop().expect("row");
    assert_eq!(
        (last.cause, last.lesson_id.as_deref(), last.detail.as_deref()),
        (EvidenceCause::Review, Some("a"), Some("good"))
    );

    // Forgetting: a month without evidence, the estimate falls.
    assert!(redis(&store, now() + Duration::days(60)).known_now < after.known_now);

    // A manual rating resets it.
    store.set_topic("redis", 9, None, now()).expect("rate");
    assert_eq!(redis(&store, now()).confidence_now, 9);
}

#[test]
fn a_derived_card_follows_its_lesson_and_keeps_its_schedule() {
    let (_t, mut store) = fresh();
    let card = |summary: &str| NewLesson {
        summary: summary.into(),
        body: format!("{summary} The body."),
        ..new_lesson("practice-two-sum")
    };
    let first = now() - Duration::days(3);
    // Left unfinished: nothing to recall yet, so no card, not even from the fill every review
    // command runs.
    store
        .record_practice(card("Unfinished: the approach is hidden until it is solved."), &[], None, false, first)
        .expect("unfinished");
    store.ensure_review_cards(first).expect("fill");
    assert!(store.review_card("practice-two-sum").expect("read").is_none(), "an unfinished card is not reviewed");
    store
        .record_practice(card("Solved, first time: sort and walk two pointers."), &[], None, true, first)
        .expect("solved");
    let before = store.review_card("practice-two-sum").expect("read").expect("card");
    store.grade_review("practice-two-sum", Grade::Good, first + Duration::hours(1)).expect("grade");
    let graded = store.review_card("practice-two-sum").expect("read").expect("card");

    store
        .record_practice(
            card("Solved: keep a map from value to index."),
            &["redis".into()],
            Some(devcoach_core::knowledge_model::PracticeResult::Alone),
            true,
            now(),
        )
        .expect("solved");
    let after = store.review_card("practice-two-sum").expect("read").expect("card");
    assert_ne!((&after.question, &after.answer), (&before.question, &before.answer), "the text follows the lesson");
    assert!(
        after.answer.contains("map from value to index") || after.question.contains("map from value to index"),
        "{after:?}"
    );
    assert_eq!(
        (after.reps, &after.due, &after.last_review),
        (graded.reps, &graded.due, &graded.last_review),
        "the schedule stays"
    );

    // A card the agent wrote is not rewritten from the lesson.
    let text = CardText::new("What does the agent ask?", "Its own answer.").expect("text");
    store.set_review_card("practice-two-sum", &text, now()).expect("write");
    store.record_practice(card("Solved again."), &[], None, true, now()).expect("again");
    let kept = store.review_card("practice-two-sum").expect("read").expect("card");
    assert_eq!((kept.question.as_str(), kept.source), ("What does the agent ask?", CardSource::Agent));
}
