//! The cue engine on SQLite: the same transitions as the core's unit tests, through the real
//! tables, plus what only the database knows (pruning, the rate limit over stored lessons).

use chrono::Duration;
use devcoach_core::SessionId;
use devcoach_core::lesson::{Lesson, Level};
use devcoach_core::pacing::{Across, Count, NextLesson, OnboardingCall, Outlook, Reason};
use devcoach_core::rate_limit::RateLimit;
use devcoach_core::settings::SettingUpdate;
use devcoach_store::Store;

use crate::{fresh, now};

fn s(id: &str) -> SessionId {
    SessionId::from_payload(Some(id))
}

/// A learner who has had a cue before (so the first lesson's warm-up is over).
fn onboarded(nudge_every: i64) -> (tempfile::TempDir, Store) {
    let (tmp, store) = new_learner(nudge_every);
    rusqlite::Connection::open(tmp.path().join("coaching.db"))
        .expect("raw")
        .execute("INSERT INTO cue_state (id, pending, last_cue_at) VALUES (1, 0, '2026-11-01T00:00:00.000Z')", [])
        .expect("an old cue");
    (tmp, store)
}

/// A learner who has just finished onboarding.
fn new_learner(nudge_every: i64) -> (tempfile::TempDir, Store) {
    let (tmp, mut store) = fresh();
    store.complete_onboarding(&[("rust".into(), 5)], &[], now()).expect("onboard");
    set(&mut store, "nudge_every", &nudge_every.to_string());
    (tmp, store)
}

fn set(store: &mut Store, key: &str, value: &str) {
    store.apply_setting(&SettingUpdate::for_agent(key, value).expect("valid")).expect("write");
}

/// Where the counters stand with per-session pacing: this session's, and every session's
/// against twice `nudge_every`.
fn at(stops: i64, threshold: i64, retry_window: bool, total: i64, nudge_every: i64) -> Count {
    let across = Some(Across { stops: total, threshold: 2 * nudge_every, warm_up: false });
    Count { stops, threshold, retry_window, across }
}

fn paced(stops: i64, threshold: i64, retry_window: bool) -> Reason {
    Reason::Paced(at(stops, threshold, retry_window, stops, threshold))
}

fn due(stops: i64, threshold: i64, retry_window: bool) -> Reason {
    Reason::Due(Some(at(stops, threshold, retry_window, stops, threshold)))
}

fn reason(store: &mut Store, session: &str) -> Reason {
    store.evaluate_cue(&s(session), false, now()).expect("evaluate").reason
}

fn own_lesson(id: &str, minutes_ago: i64, imported: bool) -> Lesson {
    Lesson { imported, ..Lesson::example(id).at(now() - Duration::minutes(minutes_ago)) }
}

#[test]
fn no_profile_means_onboarding_and_no_counting() {
    let (_t, mut store) = fresh();
    assert_eq!(reason(&mut store, "a"), Reason::NotOnboarded(OnboardingCall::Ask));
    assert_eq!(reason(&mut store, "a"), Reason::NotOnboarded(OnboardingCall::AskedThisSession), "once a session");
    assert!(store.nudge_sessions().expect("read").is_empty());
    // "Not now" through skip_lesson: quiet for 20 hours, then asked again.
    assert_eq!(store.skip_lesson("not now", now()).expect("skip"), devcoach_store::Skipped::Onboarding { hours: 20 });
    assert_eq!(reason(&mut store, "b"), Reason::NotOnboarded(OnboardingCall::Postponed { minutes: 1200 }));
    assert_eq!(
        store.next_lesson(now()).expect("next"),
        NextLesson::NeedsProfile(OnboardingCall::Postponed { minutes: 1200 })
    );
    let later = store.evaluate_cue(&s("b"), false, now() + Duration::hours(21)).expect("evaluate");
    assert!(later.needs_onboarding);
}

#[test]
fn the_first_lesson_comes_at_the_third_stop_after_onboarding() {
    let (_t, mut store) = new_learner(10);
    assert!(!store.evaluate_cue(&s("a"), false, now()).expect("evaluate").cue);
    assert!(!store.evaluate_cue(&s("b"), false, now()).expect("evaluate").cue);
    let d = store.evaluate_cue(&s("c"), false, now()).expect("evaluate");
    assert!(d.cue, "{d:?}");
}

#[test]
fn short_sessions_add_up_and_pruned_sessions_still_count() {
    let (_t, mut store) = onboarded(10);
    for i in 0..19 {
        let d = store.evaluate_cue(&s(&format!("short{}", i / 9)), false, now()).expect("evaluate");
        assert!(!d.cue, "stop {i}: {d:?}");
    }
    assert_eq!(store.next_lesson(now()).expect("next"), NextLesson::NextTurn);
    assert!(store.evaluate_cue(&s("short2"), false, now()).expect("evaluate").cue, "the 20th stop across sessions");
}

#[test]
fn full_cycle_with_retry_window_and_resolution() {
    let (_t, mut store) = onboarded(5);
    for i in 1..5 {
        assert_eq!(reason(&mut store, "a"), paced(i, 5, false));
    }
    let cue = store.evaluate_cue(&s("a"), false, now()).expect("cue");
    assert!(cue.cue);
    assert_eq!((cue.reason, cue.next_lesson_number), (due(5, 5, false), 1));
    let state = store.cue_state().expect("state");
    assert!(state.pending);
    assert_eq!(state.last_cue_at.as_deref(), Some("2026-11-30T12:00:00.000Z"));
    assert!(store.nudge_sessions().expect("read").is_empty());

    assert_eq!(reason(&mut store, "a"), Reason::Paced(at(1, 3, true, 1, 5)));
    assert_eq!(reason(&mut store, "a"), Reason::Paced(at(2, 3, true, 2, 5)));
    assert_eq!(reason(&mut store, "a"), Reason::Due(Some(at(3, 3, true, 3, 5))));

    store.skip_lesson("just a question", now()).expect("skip");
    let state = store.cue_state().expect("state");
    assert!(!state.pending);
    assert_eq!(state.last_skip_reason.as_deref(), Some("just a question"));
    assert_eq!(reason(&mut store, "a"), paced(1, 5, false));
}

#[test]
fn plan_mode_and_an_active_course_are_not_counted() {
    let (tmp, mut store) = onboarded(1);
    let plan = store.evaluate_cue(&s("a"), true, now()).expect("plan");
    assert_eq!((plan.cue, plan.reason), (false, Reason::PlanMode));
    drop(store);
    let conn = rusqlite::Connection::open(tmp.path().join("coaching.db")).expect("raw");
    conn.execute(
        "INSERT INTO courses (id, topic_id, title, status, created_at, updated_at) VALUES ('c', 'rust', 'C', 'active', 'x', 'x')",
        [],
    )
    .expect("course");
    drop(conn);
    let mut store = Store::open(&devcoach_store::DataDir::new(tmp.path())).expect("reopen");
    assert_eq!(reason(&mut store, "a"), Reason::CourseActive);
    assert!(store.nudge_sessions().expect("read").is_empty());
}

#[test]
fn global_scope_sums_and_session_scope_separates() {
    let (_t, mut store) = onboarded(3);
    reason(&mut store, "a");
    assert_eq!(reason(&mut store, "b"), Reason::Paced(at(1, 3, false, 2, 3)));
    set(&mut store, "nudge_scope", "global");
    assert_eq!(
        reason(&mut store, "c"),
        Reason::Due(Some(Count { stops: 3, threshold: 3, retry_window: false, across: None }))
    );
}

#[test]
fn sessions_are_pruned_to_fifty() {
    let (_t, mut store) = onboarded(1000);
    for i in 0..60 {
        store.evaluate_cue(&s(&format!("s{i:02}")), false, now() + Duration::seconds(i)).expect("bump");
    }
    let sessions = store.nudge_sessions().expect("read");
    assert_eq!(sessions.len(), 50);
    assert_eq!(sessions[0].session_id, "s59");
    assert!(sessions.iter().all(|x| x.session_id.as_str() >= "s10"));
    // An existing session bumping does not prune, and the pruned sessions' stops still add up.
    assert_eq!(reason(&mut store, "s59"), Reason::Paced(at(2, 1000, false, 61, 1000)));
}

#[test]
fn rate_limit_boundaries_over_stored_lessons() {
    let (_t, mut store) = onboarded(0);
    set(&mut store, "max_per_day", "2");
    set(&mut store, "min_gap_minutes", "60");
    // Shared lessons never count, however recent.
    for i in 0..5 {
        store.put_lesson(&own_lesson(&format!("shared{i}"), 1, true)).expect("put");
    }
    assert!(store.rate_limit(now()).allowed);
    // Gap at exactly min_gap_minutes is allowed; one second less is not.
    store.put_lesson(&own_lesson("a", 60, false)).expect("put");
    assert!(store.rate_limit(now()).allowed);
    assert!(!store.rate_limit(now() - Duration::seconds(1)).allowed);
    // The daily limit is reached at exactly max_per_day.
    store.put_lesson(&own_lesson("b", 120, false)).expect("put");
    let r = store.rate_limit(now());
    assert_eq!(r.reason.as_deref(), Some("Daily limit reached (2/2 lessons in the last 24h)"));
    let d = store.evaluate_cue(&s("x"), false, now()).expect("evaluate");
    assert_eq!(d.reason, Reason::RateLimited(r));
    assert!(!store.cue_state().expect("state").pending);
}

#[test]
fn nudge_every_zero_cues_every_stop_without_counting() {
    let (_t, mut store) = onboarded(0);
    assert_eq!(reason(&mut store, "a"), Reason::Due(None));
    assert_eq!(reason(&mut store, "a"), Reason::Due(None));
    assert!(store.nudge_sessions().expect("read").is_empty());
}

#[test]
fn the_forecast_reads_without_writing() {
    let (_t, mut store) = onboarded(2);
    let f = store.explain_cue(&s("a"), now()).expect("forecast");
    assert_eq!(f.reasons, [Outlook::NextStop(at(1, 2, false, 1, 2)), Outlook::Rate(RateLimit::allowed())]);
    assert!(store.nudge_sessions().expect("read").is_empty());
    reason(&mut store, "a");
    assert!(store.explain_cue(&s("a"), now()).expect("forecast").would_cue);
    assert!(!store.explain_cue(&s("b"), now()).expect("forecast").would_cue);
}

#[test]
fn practice_cards_spend_none_of_the_lesson_budget() {
    use devcoach_core::ids::LessonId;
    use devcoach_core::knowledge_model::PracticeResult;
    use devcoach_core::lesson::{LessonContext, NewLesson};
    let (_t, mut store) = onboarded(3);
    set(&mut store, "max_per_day", "2");
    set(&mut store, "min_gap_minutes", "60");
    // Two stops counted towards the next cue.
    reason(&mut store, "a");
    reason(&mut store, "a");
    for i in 0..4 {
        let card = NewLesson {
            id: LessonId::new(format!("practice-two-sum-{i}")).expect("id"),
            topic_id: "algorithms".into(),
            categories: vec!["practice".into()],
            title: "Two Sum".into(),
            level: Level::Junior,
            summary: "Practice.".into(),
            body: "Body.".into(),
            context: LessonContext::default(),
        };
        let at = now() - Duration::minutes(10 * (4 - i));
        store.record_practice(card, &["rust".into()], Some(PracticeResult::Alone), true, at).expect("practice");
    }
    let stats = store.stats(now()).expect("stats");
    assert_eq!((stats.lessons_today, stats.total_lessons), (0, 4), "four practice cards, none against the budget");
    assert!(store.rate_limit(now()).allowed, "{:?}", store.rate_limit(now()));
    assert_eq!(
        store.nudge_sessions().expect("read").first().map(|n| n.interactions),
        Some(2),
        "the stop counter goes on"
    );
    assert_eq!(reason(&mut store, "a"), due(3, 3, false), "the cue comes when it would have");
    // A taught lesson still counts.
    store.put_lesson(&own_lesson("taught", 90, false)).expect("put");
    assert_eq!(store.stats(now()).expect("stats").lessons_today, 1);
}

#[test]
fn an_unanswered_cue_is_carried_once() {
    let (_t, mut store) = onboarded(1);
    let take = |store: &mut Store, session: &str| store.take_held_cue(&s(session), now()).expect("take").is_some();
    assert!(!take(&mut store, "a"), "no cue yet");
    assert!(store.evaluate_cue(&s("a"), false, now()).expect("evaluate").cue);
    assert!(!take(&mut store, "b"), "per-session pacing: another session's cue stays there");
    assert!(take(&mut store, "a"));
    assert!(!take(&mut store, "a"), "once per cue");
    // A later cue (the retry window) is carried again; an answered one is not.
    assert!(store.evaluate_cue(&s("a"), false, now() + Duration::minutes(5)).expect("evaluate").cue);
    assert!(take(&mut store, "a"));
    store.evaluate_cue(&s("a"), false, now() + Duration::minutes(10)).expect("evaluate");
    store.skip_lesson("not now", now()).expect("skip");
    assert!(!take(&mut store, "a"));
}

/// A stop a hook could not count (another process held the database) waits in the data folder
/// and is counted, as the stop it was, by the next stop; nothing is counted twice.
#[test]
fn stops_left_waiting_are_counted_once_by_the_next_stop() {
    let (tmp, mut store) = onboarded(100);
    let dir = devcoach_store::DataDir::new(tmp.path());
    for minute in 0..3 {
        assert!(devcoach_store::leave_stop(&dir, &s("a"), false, now() + Duration::minutes(minute)).expect("left"));
    }
    // A stop in plan mode is never counted, left or not.
    assert!(devcoach_store::leave_stop(&dir, &s("a"), true, now()).expect("left"));
    assert_eq!(reason(&mut store, "a"), paced(4, 100, false));
    assert_eq!(std::fs::read_dir(tmp.path().join("ext-stops-waiting")).expect("folder").count(), 0);
    assert_eq!(reason(&mut store, "a"), paced(5, 100, false));
    // The end of a sync counts them too, without a stop of its own.
    assert!(devcoach_store::leave_stop(&dir, &s("b"), false, now()).expect("left"));
    assert_eq!(store.count_waiting_stops(now()).expect("counted"), 1);
    assert_eq!(store.count_waiting_stops(now()).expect("nothing"), 0);
    assert_eq!(reason(&mut store, "b"), Reason::Paced(at(2, 100, false, 7, 100)));
}

/// A process that dies after the count committed, before the files went: the next count
/// removes them without counting them again. What is not a stop is removed uncounted.
#[test]
fn a_count_that_died_before_forgetting_counts_nothing_twice() {
    let (tmp, mut store) = onboarded(100);
    let dir = devcoach_store::DataDir::new(tmp.path());
    let folder = tmp.path().join("ext-stops-waiting");
    assert!(devcoach_store::leave_stop(&dir, &s("a"), false, now()).expect("left"));
    assert!(devcoach_store::leave_stop(&dir, &s("a"), false, now()).expect("left"));
    let kept: Vec<_> = std::fs::read_dir(&folder)
        .expect("folder")
        .map(|e| {
            let path = e.expect("entry").path();
            (path.clone(), std::fs::read(&path).expect("bytes"))
        })
        .collect();
    assert_eq!(store.count_waiting_stops(now()).expect("counted"), 2);
    // Put back as if the removal never happened.
    for (path, bytes) in &kept {
        std::fs::write(path, bytes).expect("put back");
    }
    std::fs::write(folder.join("9-junk.stop"), b"not a stop").expect("junk");
    std::fs::create_dir(folder.join("8-folder.stop")).expect("a folder");
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.path().join("coaching.db"), folder.join("7-link.stop")).expect("a link");
    assert_eq!(reason(&mut store, "a"), paced(3, 100, false), "the two put back were counted again");
    assert_eq!(std::fs::read_dir(&folder).expect("folder").count(), 0, "junk stays");
    assert!(tmp.path().join("coaching.db").is_file(), "a link is removed, never followed");
}

/// What waits is bounded: past the cap a stop is not kept (and says so).
#[test]
fn waiting_stops_are_bounded() {
    let (tmp, _store) = onboarded(100);
    let dir = devcoach_store::DataDir::new(tmp.path());
    for i in 0..devcoach_core::limits::WAITING_STOPS {
        let at = now() + Duration::milliseconds(i64::try_from(i).expect("small"));
        assert!(devcoach_store::leave_stop(&dir, &s("a"), false, at).expect("left"));
    }
    assert!(!devcoach_store::leave_stop(&dir, &s("a"), false, now()).expect("refused, not failed"));
}

/// The waiting folder replaced by a link to somewhere else: nothing there is read, counted or
/// removed. Junk of every other name, and temporary files a killed hook left, go; the stops
/// among thousands of them are all counted.
#[test]
fn the_waiting_folder_is_never_followed_and_junk_never_hides_a_stop() {
    let (tmp, mut store) = onboarded(100);
    let dir = devcoach_store::DataDir::new(tmp.path());
    let folder = tmp.path().join("ext-stops-waiting");
    #[cfg(unix)]
    {
        let victim = tempfile::tempdir().expect("victim");
        std::fs::create_dir(victim.path().join("project.stop")).expect("a folder");
        std::fs::write(victim.path().join("project.stop/notes.txt"), b"precious").expect("notes");
        std::fs::write(
            victim.path().join("valid.stop"),
            br#"{"session":"victim","plan_mode":false,"at":"2026-12-02T10:00:00.000Z"}"#,
        )
        .expect("a stop elsewhere");
        std::os::unix::fs::symlink(victim.path(), &folder).expect("link");
        assert!(devcoach_store::leave_stop(&dir, &s("a"), false, now()).is_err(), "never written through");
        assert_eq!(reason(&mut store, "a"), paced(1, 100, false));
        assert_eq!(
            reason(&mut store, "victim"),
            Reason::Paced(at(1, 100, false, 2, 100)),
            "the stop elsewhere was not counted"
        );
        assert!(victim.path().join("project.stop/notes.txt").is_file() && victim.path().join("valid.stop").is_file());
        std::fs::remove_file(&folder).expect("unlink");
    }
    std::fs::create_dir(&folder).expect("folder");
    for i in 0..2_000 {
        std::fs::write(folder.join(format!("junk-{i:05}.txt")), b"x").expect("junk");
    }
    let temp = folder.join(".0001-1-2.stop.1-0.devcoach-tmp");
    let file = std::fs::File::create(&temp).expect("a killed hook's temporary file");
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_hours(1)).expect("old");
    drop(file);
    for minute in 0..3 {
        assert!(devcoach_store::leave_stop(&dir, &s("b"), false, now() + Duration::minutes(minute)).expect("left"));
    }
    assert_eq!(store.count_waiting_stops(now() + Duration::minutes(5)).expect("counted"), 3);
    assert_eq!(std::fs::read_dir(&folder).expect("folder").count(), 0, "junk and the old temporary file go");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..proptest::prelude::ProptestConfig::default() })]
    /// Stops that waited and stops that did not, in any order, across sessions, with counts
    /// taken at any moment (a stop, the end of a sync, a count repeated): the counters end where
    /// counting every stop as it happened puts them — each stop once, plan-mode stops never.
    #[test]
    fn waiting_stops_count_exactly_once_in_any_order(
        events in proptest::collection::vec((0u8..4, 0u8..3, proptest::prelude::any::<bool>()), 1..40),
    ) {
        let (tmp, mut store) = onboarded(1000);
        let dir = devcoach_store::DataDir::new(tmp.path());
        let sessions = ["a", "b", "c"];
        let mut expected = [0i64; 3];
        for (i, (kind, who, plan)) in events.iter().enumerate() {
            let at = now() + Duration::seconds(i64::try_from(i).expect("small"));
            let session = s(sessions[usize::from(*who)]);
            match kind {
                // A stop that could not have the database, in or out of plan mode.
                0 | 1 => {
                    proptest::prop_assert!(devcoach_store::leave_stop(&dir, &session, *plan, at).expect("left"));
                    if !*plan {
                        expected[usize::from(*who)] += 1;
                    }
                }
                // A stop that could (it counts what waits, then itself).
                2 => {
                    store.evaluate_cue(&session, false, at).expect("stop");
                    expected[usize::from(*who)] += 1;
                }
                // The end of a sync, counting what waits.
                _ => {
                    store.count_waiting_stops(at).expect("count");
                }
            }
        }
        store.count_waiting_stops(now() + Duration::hours(1)).expect("count");
        for (i, name) in sessions.iter().enumerate() {
            let counted: i64 = rusqlite::Connection::open(tmp.path().join("coaching.db"))
                .expect("raw")
                .query_row("SELECT COALESCE(MAX(interactions), 0) FROM nudge_state WHERE session_id = ?1", [name], |r| r.get(0))
                .expect("counter");
            proptest::prop_assert_eq!(counted, expected[i], "session {}", name);
        }
    }
}
