//! Checked recall: explain-backs and checked reviews are stored beside the lesson's answer,
//! weigh more in the knowledge model, and calibrate the learner's own word.

use chrono::Duration;
use devcoach_core::checked::{Check, CheckGrade, CheckKind, Verdict};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::fsrs::Grade;
use devcoach_core::lesson::Feedback;

use crate::{fresh, now};

fn check(answer: &str) -> Check {
    Check::new(answer, Some("the piece that was missing")).expect("fits")
}

#[test]
fn an_explain_back_is_kept_and_moves_the_number_one_step_at_most() {
    let (_t, mut store) = fresh();
    store.seed_demo(now() - Duration::days(1)).expect("demo");
    // redis-ttl-jitter has no answer yet; redis is at 3 on the map.
    let id = "redis-ttl-jitter";
    let before = store.topic_estimates(now()).expect("estimates");
    let learned = |estimates: &[devcoach_store::TopicEstimate]| {
        estimates.iter().find(|e| e.topic == "redis").map(|e| e.mastery).expect("redis estimate")
    };
    let out = store.record_explain_back(id, CheckGrade::Correct, &check("jitter spreads the expiries"), now());
    let out = out.expect("write").expect("lesson");
    assert_eq!((out.topic_id.as_str(), out.confidence_before), ("redis", Some(3)));
    assert!(out.confidence == Some(3) || out.confidence == Some(4), "one step at most: {out:?}");
    let after = store.topic_estimates(now()).expect("estimates");
    assert!(learned(&after) > learned(&before) + 0.2, "a correct explanation is strong evidence");
    let redis = after.iter().find(|e| e.topic == "redis").expect("redis");
    assert_eq!(redis.checked, 1);

    let rows = store.checked_answers(Some(id)).expect("rows");
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].kind, rows[0].grade), (CheckKind::ExplainBack, CheckGrade::Correct));
    assert_eq!(rows[0].answer, "jitter spreads the expiries");
    assert_eq!(rows[0].missing.as_deref(), Some("the piece that was missing"));
    // The lesson's own answer is untouched: an explain-back is not feedback.
    assert_eq!(store.lesson(id).expect("read").expect("lesson").feedback, None);
    let logged = store.evidence(Some("redis")).expect("log");
    assert!(logged.iter().any(|e| e.cause == EvidenceCause::ExplainBack && e.detail.as_deref() == Some("correct")));

    // A retry of the same words with the same grade changes nothing.
    let again = store.record_explain_back(id, CheckGrade::Correct, &check("jitter spreads the expiries"), now());
    let again = again.expect("write").expect("lesson");
    assert!(again.repeated && again.confidence == out.confidence, "{again:?}");
    assert_eq!(store.checked_answers(Some(id)).expect("rows").len(), 1);
    assert!(store.record_explain_back("no-such", CheckGrade::Wrong, &check("x"), now()).expect("write").is_none());
    assert!(store.checked_answers(Some("no-such")).expect("rows").is_empty(), "nothing stored for no lesson");
}

#[test]
fn a_checked_review_is_told_apart_from_a_self_graded_one() {
    let (_t, mut store) = fresh();
    store.seed_demo(now() - Duration::days(3)).expect("demo");
    let self_graded = store.grade_review("git-bisect", Grade::Good, now()).expect("grade").expect("lesson");
    let checked = store
        .grade_checked_review("docker-healthcheck", Grade::Hard, &check("it restarts unhealthy containers"), now())
        .expect("grade")
        .expect("lesson");
    assert_eq!((self_graded.grade, checked.grade), (Grade::Good, Grade::Hard));
    let docker = store.checked_answers(Some("docker-healthcheck")).expect("rows");
    assert_eq!(docker.len(), 1);
    assert_eq!((docker[0].kind, docker[0].grade), (CheckKind::Review, CheckGrade::Partly), "hard reads as partly");
    assert!(store.checked_answers(Some("git-bisect")).expect("rows").is_empty());
    let estimates = store.topic_estimates(now()).expect("estimates");
    let git = estimates.iter().find(|e| e.topic == "git").expect("git");
    assert!(git.self_reported >= 2, "feedback and the self-graded review: {git:?}");
    let docker = estimates.iter().find(|e| e.topic == "docker").expect("docker");
    assert!(docker.checked >= 1, "{docker:?}");
}

#[test]
fn an_overrater_is_found_out_and_their_words_go_with_a_deleted_lesson() {
    let (_t, mut store) = fresh();
    store.seed_demo(now() - Duration::days(10)).expect("demo");
    // Three redis lessons the learner says they knew, each explained back wrong.
    for (i, id) in ["redis-ttl-jitter", "redis-ttl-jitter", "redis-ttl-jitter"].iter().enumerate() {
        let at = now() - Duration::days(6) + Duration::days(i64::try_from(i).expect("small")) * 2;
        store.record_feedback(id, FeedbackChoice(None), at).expect("clear");
        store.record_feedback(id, FeedbackChoice(Some(Feedback::Know)), at).expect("know");
        // Different words each time: a retry of the same words would count once.
        let words = format!("no idea, really ({i})");
        store.record_explain_back(id, CheckGrade::Wrong, &check(&words), at + Duration::minutes(1)).expect("x");
    }
    let calibration = store.calibration().expect("calibration");
    let redis = calibration.iter().find(|c| c.topic == "redis").expect("redis");
    assert_eq!((redis.pairs(), redis.verdict), (3, Verdict::Overrates), "{redis:?}");
    assert!(redis.line().starts_with("you tend to overrate redis"), "{}", redis.line());
    // The learner's words go with the lesson they were about.
    assert!(store.delete_lesson("redis-ttl-jitter").expect("delete"));
    assert!(store.checked_answers(Some("redis-ttl-jitter")).expect("rows").is_empty());
    assert!(store.calibration().expect("calibration").iter().all(|c| c.topic != "redis"));
}

#[test]
fn a_cleared_answer_is_taken_back_and_counts_follow_what_the_estimate_rests_on() {
    let (_t, mut store) = fresh();
    store.seed_demo(now() - Duration::days(1)).expect("demo");
    let id = "redis-ttl-jitter";
    let redis = |store: &devcoach_store::Store| {
        store.topic_estimates(now()).expect("estimates").into_iter().find(|e| e.topic == "redis").expect("redis")
    };
    let start = redis(&store);
    // "I knew that", then cleared: the word is withdrawn, the model back where it stood.
    store.record_feedback(id, FeedbackChoice(Some(Feedback::Know)), now()).expect("know");
    assert!(redis(&store).known_now > start.known_now, "know reads as a success");
    store.record_feedback(id, FeedbackChoice(None), now() + Duration::minutes(1)).expect("clear");
    let cleared = redis(&store);
    assert!((cleared.known_now - start.known_now).abs() < 1e-9, "{cleared:?} vs {start:?}");
    assert_eq!(
        (cleared.self_reported, cleared.evidence),
        (start.self_reported, start.evidence),
        "a withdrawn word is not counted"
    );
    // A self-report after a checked answer the same day changes nothing, and is not counted.
    store
        .record_explain_back(
            id,
            CheckGrade::Correct,
            &check("jitter spreads the expiries"),
            now() + Duration::minutes(2),
        )
        .expect("check");
    let checked = redis(&store);
    store
        .record_feedback(id, FeedbackChoice(Some(Feedback::Understood)), now() + Duration::minutes(3))
        .expect("understood");
    let after = redis(&store);
    assert_eq!(after.confidence_now, checked.confidence_now);
    assert_eq!(
        (after.checked, after.self_reported, after.evidence),
        (checked.checked, checked.self_reported, checked.evidence)
    );
    assert_eq!(after.evidence, after.checked + after.self_reported + after.other);
}
