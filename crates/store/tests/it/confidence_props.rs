//! The learner's confidence under any mix of events: feedback, review grades, course checks,
//! practice, manual edits and time passing. Whatever the knowledge model thinks, the number on
//! the map stays in 0–10, moves only in the event's own direction and by at most one point (a
//! rating is the one event that sets it), and every evidence row's `value_after` is the
//! confidence stored by the same transaction.

use chrono::{DateTime, Duration, Utc};
use devcoach_core::course::{CourseId, StepKind, StepStatus};
use devcoach_core::evidence::Evidence;
use devcoach_core::feedback::{FeedbackChoice, confidence_delta};
use devcoach_core::fsrs::Grade;
use devcoach_core::git::GitContext;
use devcoach_core::ids::LessonId;
use devcoach_core::knowledge_model::PracticeResult;
use devcoach_core::lesson::{Feedback, LessonContext, Level, NewLesson};
use devcoach_store::{DataDir, NewCourse, Store};
use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use tempfile::TempDir;

use crate::now;

const TOPICS: [&str; 3] = ["rust", "sqlite", "redis"];
const LESSONS_PER_TOPIC: usize = 2;
const CHECKS: i64 = 12;

#[derive(Debug, Clone)]
enum Event {
    Feedback { lesson: usize, choice: Option<Feedback> },
    Grade { lesson: usize, grade: Grade },
    Check { topic: usize, done: bool },
    Practice { topic: usize, result: PracticeResult },
    Rate { topic: usize, value: i64 },
    Nudge { topic: usize, delta: i64 },
    Wait { hours: i64 },
}

fn grade() -> impl Strategy<Value = Grade> {
    prop_oneof![Just(Grade::Again), Just(Grade::Hard), Just(Grade::Good), Just(Grade::Easy)]
}

fn event() -> impl Strategy<Value = Event> {
    let lessons = TOPICS.len() * LESSONS_PER_TOPIC;
    let feedback = prop_oneof![
        Just(None),
        Just(Some(Feedback::Know)),
        Just(Some(Feedback::Understood)),
        Just(Some(Feedback::DontKnow))
    ];
    let result = prop_oneof![Just(PracticeResult::Alone), Just(PracticeResult::Helped), Just(PracticeResult::Revealed)];
    prop_oneof![
        3 => (0..lessons, feedback).prop_map(|(lesson, choice)| Event::Feedback { lesson, choice }),
        5 => (0..lessons, grade()).prop_map(|(lesson, grade)| Event::Grade { lesson, grade }),
        2 => (0..TOPICS.len(), any::<bool>()).prop_map(|(topic, done)| Event::Check { topic, done }),
        2 => (0..TOPICS.len(), result).prop_map(|(topic, result)| Event::Practice { topic, result }),
        1 => (0..TOPICS.len(), -3i64..14).prop_map(|(topic, value)| Event::Rate { topic, value }),
        1 => (0..TOPICS.len(), -2i64..=2).prop_map(|(topic, delta)| Event::Nudge { topic, delta }),
        3 => (1i64..24 * 40).prop_map(|hours| Event::Wait { hours }),
    ]
}

/// The confidence of every topic, in `TOPICS` order.
fn confidences(store: &Store) -> Vec<Option<i64>> {
    TOPICS.iter().map(|t| store.confidence(t).expect("read")).collect()
}

fn lesson_id(i: usize) -> String {
    format!("lesson-{i}")
}

fn topic_of(lesson: usize) -> usize {
    lesson / LESSONS_PER_TOPIC
}

/// A data directory in memory where the machine has one: thousands of transactions on a disk
/// would spend the test's time in fsync.
fn temp_dir() -> TempDir {
    TempDir::new_in("/dev/shm").or_else(|_| TempDir::new()).expect("temp dir")
}

struct World {
    _tmp: TempDir,
    store: Store,
    at: DateTime<Utc>,
    courses: Vec<CourseId>,
    next_check: Vec<i64>,
    practice: usize,
}

/// The lessons and courses every case starts from, built once and copied per case.
fn template() -> &'static TempDir {
    static TEMPLATE: OnceLock<TempDir> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let tmp = temp_dir();
        let mut store = Store::open(&DataDir::new(tmp.path())).expect("open");
        let at = start_time();
        for i in 0..TOPICS.len() * LESSONS_PER_TOPIC {
            let new = NewLesson {
                id: LessonId::new(lesson_id(i)).expect("id"),
                topic_id: TOPICS[topic_of(i)].into(),
                categories: vec![TOPICS[topic_of(i)].into()],
                title: format!("Lesson {i}"),
                level: Level::Mid,
                summary: format!("What lesson {i} says."),
                body: "Body.".into(),
                context: LessonContext::default(),
            };
            store.log_lesson(new, None, &GitContext::default(), at).expect("lesson");
        }
        for topic in TOPICS {
            let id = course_id(topic);
            let new = NewCourse {
                title: format!("A course on {topic}"),
                topic_id: topic.into(),
                goal: None,
                lesson_id: None,
                prerequisites: Vec::new(),
            };
            assert_eq!(store.create_course(&new, at).expect("course").id, id.as_str());
            let sections = (0..CHECKS).fold(String::new(), |mut html, n| {
                html.push_str(&format!("<section id=\"c{n}\">Check {n}</section>"));
                html
            });
            let path = store.data_dir().course_document_path(&id);
            std::fs::write(&path, format!("<!doctype html><html><body>{sections}</body></html>")).expect("document");
            for n in 0..CHECKS {
                store
                    .add_course_step(&id, &format!("Check {n}"), StepKind::Check, &format!("c{n}"), None, at)
                    .expect("step");
            }
        }
        tmp
    })
}

fn start_time() -> DateTime<Utc> {
    now() - Duration::days(400)
}

fn course_id(topic: &str) -> CourseId {
    CourseId::parse(&format!("a-course-on-{topic}")).expect("course id")
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

impl World {
    fn new(start: &[i64]) -> Self {
        let tmp = temp_dir();
        copy_dir(template().path(), tmp.path());
        let mut store = Store::open(&DataDir::new(tmp.path())).expect("open");
        let mut at = start_time();
        for (topic, c) in TOPICS.iter().zip(start) {
            store.set_topic(topic, *c, None, at).expect("rate");
        }
        at += Duration::hours(1);
        let courses = TOPICS.iter().map(|t| course_id(t)).collect();
        let next_check = vec![1; TOPICS.len()];
        Self { _tmp: tmp, store, at, courses, next_check, practice: 0 }
    }

    /// Applies one event; returns the topic it is about (if any) and the move its direction
    /// allows: `Some(1)` never lowers, `Some(-1)` never raises, `Some(0)` changes nothing,
    /// `None` may set any value (a rating).
    fn apply(&mut self, e: &Event) -> Option<(usize, Option<i64>)> {
        match *e {
            Event::Feedback { lesson, choice } => {
                let before = self.store.lesson(&lesson_id(lesson)).expect("read").expect("lesson").feedback;
                self.store.record_feedback(&lesson_id(lesson), FeedbackChoice(choice), self.at).expect("feedback");
                Some((topic_of(lesson), Some(confidence_delta(before, choice))))
            }
            Event::Grade { lesson, grade } => {
                self.store.grade_review(&lesson_id(lesson), grade, self.at).expect("grade").expect("lesson");
                Some((topic_of(lesson), Some(if grade.recalled() && grade != Grade::Hard { 1 } else { -1 })))
            }
            Event::Check { topic, done } => {
                let position = self.next_check[topic];
                if position > CHECKS {
                    return None;
                }
                self.next_check[topic] += 1;
                let status = if done { StepStatus::Done } else { StepStatus::Skipped };
                self.store.set_step_status(&self.courses[topic], position, status, self.at).expect("check");
                Some((topic, Some(if done { 1 } else { -1 })))
            }
            Event::Practice { topic, result } => {
                self.practice += 1;
                let new = NewLesson {
                    id: LessonId::new(format!("practice-{}", self.practice)).expect("id"),
                    topic_id: TOPICS[topic].into(),
                    categories: vec!["practice".into()],
                    title: "Practice".into(),
                    level: Level::Mid,
                    summary: "A practice session.".into(),
                    body: "Body.".into(),
                    context: LessonContext::default(),
                };
                self.store
                    .record_practice(new, &[TOPICS[topic].to_owned()], Some(result), true, self.at)
                    .expect("practice");
                Some((topic, Some(if result == PracticeResult::Revealed { -1 } else { 1 })))
            }
            Event::Rate { topic, value } => {
                self.store.set_topic(TOPICS[topic], value, None, self.at).expect("rate");
                Some((topic, None))
            }
            Event::Nudge { topic, delta } => {
                self.store.update_knowledge(TOPICS[topic], delta, self.at).expect("nudge");
                Some((topic, None))
            }
            Event::Wait { hours } => {
                self.at += Duration::hours(hours);
                None
            }
        }
    }
}

fn check(start: &[i64], events: &[Event]) -> Result<(), TestCaseError> {
    let mut w = World::new(start);
    let mut logged = w.store.evidence(None).expect("evidence").len();
    // When each card was first graded in the current day: a later grade within that day may
    // replace that grade's move (undoing its step, then taking its own).
    let mut first_grade: std::collections::HashMap<usize, DateTime<Utc>> = std::collections::HashMap::new();
    for e in events {
        let before = confidences(&w.store);
        let replaces = match e {
            Event::Grade { lesson, .. } => match first_grade.get(lesson) {
                Some(at) if w.at - *at < Duration::days(1) => true,
                _ => {
                    first_grade.insert(*lesson, w.at);
                    false
                }
            },
            _ => false,
        };
        let target = w.apply(e);
        // Every event gets its own moment, as it would in use.
        w.at += Duration::minutes(1);
        let after = confidences(&w.store);
        for (i, c) in after.iter().enumerate() {
            let c = c.expect("every topic stays on the map");
            prop_assert!((0..=10).contains(&c), "{} at {c} after {e:?}", TOPICS[i]);
            if target.map(|(t, _)| t) != Some(i) {
                prop_assert_eq!(Some(c), before[i], "{} moved by an event about another topic: {:?}", TOPICS[i], e);
            }
        }
        if let Some((t, Some(allowed))) = target {
            // Never against the event's direction; one step, or two for a grade that replaces
            // its card's earlier move that day. Where a day's events leave the map is
            // `one_lesson_moves_the_map_at_most_once_a_day`'s to check.
            let moved = after[t].unwrap_or(0) - before[t].unwrap_or(0);
            let most = if replaces { 2 } else { 1 };
            prop_assert!(moved.abs() <= most, "{} moved {moved} on {e:?}", TOPICS[t]);
            prop_assert!(
                moved * allowed >= 0 && (allowed != 0 || moved == 0),
                "{} moved {moved} against {e:?}",
                TOPICS[t]
            );
        }
        let evidence = w.store.evidence(None).expect("evidence");
        let new: &[Evidence] = &evidence[logged..];
        for row in new {
            let i = TOPICS.iter().position(|t| *t == row.topic).expect("a known topic");
            prop_assert_eq!(row.value_after, after[i], "evidence {:?} disagrees with the map after {:?}", row, e);
        }
        logged = evidence.len();
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn confidence_moves_one_step_in_the_events_direction(
        start in proptest::collection::vec(0i64..=10, TOPICS.len()),
        events in proptest::collection::vec(event(), 1..24),
    ) {
        check(&start, &events)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Feedback is a state: however it is set, changed and cleared, at any number on the map
    /// (10 included, where `know` has no room to add one), clearing every answer puts the map
    /// back where it started, and each reply's `delta` is the move that happened.
    #[test]
    fn feedback_set_and_cleared_leaves_the_map_where_it_was(
        start in proptest::collection::vec(prop_oneof![Just(0i64), Just(10i64), 0i64..=10], TOPICS.len()),
        choices in proptest::collection::vec(
            (0..TOPICS.len() * LESSONS_PER_TOPIC, prop_oneof![
                Just(None),
                Just(Some(Feedback::Know)),
                Just(Some(Feedback::Understood)),
                Just(Some(Feedback::DontKnow))
            ]),
            1..16,
        ),
    ) {
        let mut w = World::new(&start);
        for (lesson, choice) in &choices {
            let before = confidences(&w.store)[topic_of(*lesson)];
            let outcome = w
                .store
                .record_feedback(&lesson_id(*lesson), FeedbackChoice(*choice), w.at)
                .expect("feedback")
                .expect("lesson");
            let after = confidences(&w.store)[topic_of(*lesson)];
            prop_assert_eq!(Some(outcome.delta), after.zip(before).map(|(a, b)| a - b), "{:?} {:?}", lesson, choice);
            w.at += Duration::minutes(1);
        }
        for lesson in 0..TOPICS.len() * LESSONS_PER_TOPIC {
            w.store.record_feedback(&lesson_id(lesson), FeedbackChoice(None), w.at).expect("clear");
        }
        let end: Vec<i64> = confidences(&w.store).into_iter().map(|c| c.expect("on the map")).collect();
        prop_assert_eq!(end, start);
    }
}

#[test]
fn the_reported_grades_move_the_map_the_right_way() {
    // The three grades a learner reported (again raised 4 to 6 and lowered 7 to 3; one good
    // took 4 to 10), from the same starting values.
    for (start, grade) in [(4, Grade::Again), (7, Grade::Again), (4, Grade::Good)] {
        let mut w = World::new(&[start, start, start]);
        w.at += Duration::days(3);
        w.apply(&Event::Grade { lesson: 0, grade });
        let after = w.store.confidence("rust").expect("read").expect("on the map");
        let allowed = if grade == Grade::Good { start..=start + 1 } else { start - 1..=start };
        assert!(allowed.contains(&after), "{start} graded {} became {after}", grade.as_str());
    }
}

/// One event on lesson 0 (topic `rust`) or its card.
#[derive(Debug, Clone)]
enum Burst {
    Feedback(Option<Feedback>),
    SelfGraded(Grade),
    Checked(Grade, u8),
    ExplainBack(devcoach_core::checked::CheckGrade, u8),
}

impl Burst {
    /// How the model weighs it (as `knowledge_model::Weight` orders them).
    fn weight(&self) -> u8 {
        match self {
            Self::Feedback(_) | Self::SelfGraded(_) => 0,
            Self::Checked(..) | Self::ExplainBack(..) => 2,
        }
    }

    /// Whether the knowledge model reads it at all (clearing feedback is no evidence).
    fn is_evidence(&self) -> bool {
        !matches!(self, Self::Feedback(None))
    }
}

fn burst() -> impl Strategy<Value = Burst> {
    use devcoach_core::checked::CheckGrade;
    let feedback = prop_oneof![
        Just(None),
        Just(Some(Feedback::Know)),
        Just(Some(Feedback::Understood)),
        Just(Some(Feedback::DontKnow))
    ];
    let rubric = prop_oneof![Just(CheckGrade::Correct), Just(CheckGrade::Partly), Just(CheckGrade::Wrong)];
    // Answers differ by a word or repeat exactly: four variants of one sentence.
    prop_oneof![
        2 => feedback.prop_map(Burst::Feedback),
        3 => grade().prop_map(Burst::SelfGraded),
        3 => (grade(), 0u8..4).prop_map(|(g, v)| Burst::Checked(g, v)),
        3 => (rubric, 0u8..4).prop_map(|(g, v)| Burst::ExplainBack(g, v)),
    ]
}

fn answer(variant: u8) -> devcoach_core::checked::Check {
    devcoach_core::checked::Check::new(&format!("A borrow ends where its last use is, variant {variant}"), None)
        .expect("answer")
}

impl World {
    /// Sends one burst event; returns whether it should leave a row in the evidence log.
    fn send(&mut self, e: &Burst) -> bool {
        let lesson = lesson_id(0);
        match e {
            Burst::Feedback(choice) => {
                let before = self.store.lesson(&lesson).expect("read").expect("lesson").feedback;
                self.store.record_feedback(&lesson, FeedbackChoice(*choice), self.at).expect("feedback");
                before != *choice
            }
            Burst::SelfGraded(g) => {
                self.store.grade_review(&lesson, *g, self.at).expect("grade").expect("lesson");
                true
            }
            Burst::Checked(g, v) => {
                self.store.grade_checked_review(&lesson, *g, &answer(*v), self.at).expect("grade").expect("lesson");
                true
            }
            Burst::ExplainBack(g, v) => {
                let out =
                    self.store.record_explain_back(&lesson, *g, &answer(*v), self.at).expect("check").expect("lesson");
                !out.repeated
            }
        }
    }

    fn estimate(&self) -> (i64, f64) {
        let e = self.store.topic_estimates(self.at).expect("estimates");
        let rust = e.iter().find(|e| e.topic == "rust").expect("rust has an estimate");
        (rust.confidence_now, rust.known_now)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Whatever a learner or an agent sends about one lesson within a day (near-identical
    /// answers, repeated grades, checks and self-grades mixed), the map moves as one event
    /// would move it: the model as the day's strongest event alone (the last of the highest
    /// weight), the number by at most one step in that event's direction beside feedback's own
    /// rule; and the evidence log keeps every event.
    #[test]
    fn one_lesson_moves_the_map_at_most_once_a_day(
        start in 2i64..=8,
        idle_days in 0i64..200,
        events in proptest::collection::vec((burst(), 1i64..120), 1..10),
    ) {
        let mut a = World::new(&[start, 5, 5]);
        a.at += Duration::days(idle_days);
        let mut b = World::new(&[start, 5, 5]);
        b.at = a.at;
        let before_rows = a.store.evidence(Some("rust")).expect("evidence").len();
        let mut expected_rows = 0;
        let mut sent_at = Vec::new();
        let mut read = Vec::new();
        for (e, minutes) in &events {
            sent_at.push(a.at);
            let evidence = a.send(e);
            read.push(evidence && e.is_evidence());
            expected_rows += usize::from(evidence);
            a.at += Duration::minutes(*minutes);
        }
        let rows = a.store.evidence(Some("rust")).expect("evidence").len() - before_rows;
        prop_assert_eq!(rows, expected_rows, "every event is in the evidence log");

        // The day's strongest event, alone, on the same starting state.
        let strongest = events.iter().map(|(e, _)| e).zip(&sent_at).zip(&read).filter(|(_, r)| **r).map(|(x, _)| x).fold(None::<(&Burst, _)>, |best, (e, at)| match best {
            Some(b) if b.0.weight() > e.weight() => Some(b),
            _ => Some((e, *at)),
        });
        let final_feedback = a.store.lesson(&lesson_id(0)).expect("read").expect("lesson").feedback;
        // The feedback left standing on the lesson, for the number's own rule: set before the
        // strongest event (which then replaces its move, as in `a`), or after it when that
        // event is itself feedback (then only a clearing, which is no evidence, can follow).
        let align = |b: &mut World| {
            if b.store.lesson(&lesson_id(0)).expect("read").expect("lesson").feedback != final_feedback {
                b.send(&Burst::Feedback(final_feedback));
            }
        };
        match strongest {
            Some((e @ Burst::Feedback(_), at)) => {
                b.at = at;
                b.send(e);
                b.at += Duration::minutes(1);
                align(&mut b);
            }
            Some((e, at)) => {
                b.at = at - Duration::minutes(1);
                align(&mut b);
                b.at = at;
                b.send(e);
            }
            None => {
                b.at = a.at;
                align(&mut b);
            }
        }
        b.at = a.at;
        let (ca, pa) = a.estimate();
        let (cb, pb) = b.estimate();
        prop_assert_eq!(ca, cb, "the model moved as by {:?} alone", strongest.map(|s| s.0));
        prop_assert!((pa - pb).abs() < 1e-9, "estimate {} vs {}", pa, pb);
        // What the estimate rests on counts the lesson once a (UTC) date per kind, however often
        // sent: a burst within a day meets at most two dates.
        let rust = a.store.topic_estimates(a.at).expect("estimates").into_iter().find(|e| e.topic == "rust").expect("rust");
        prop_assert!(rust.checked <= 2 && rust.self_reported <= 2, "{:?}", rust);
        prop_assert_eq!(rust.evidence, rust.checked + rust.self_reported + rust.other);

        // The number: feedback's own rule (path-independent away from 0 and 10), plus at most
        // one step in the strongest event's direction.
        let compat = confidence_delta(None, final_feedback);
        let moved = a.store.confidence("rust").expect("read").expect("on the map") - start - compat;
        prop_assert!(moved.abs() <= 1, "moved {} beside feedback's rule", moved);

        // The card is reviewed once that day: as by its standing grade alone (the latest of the
        // strongest kind), at the time of the day's first grade, with one row in the review log.
        let grades: Vec<(u8, &Burst, DateTime<Utc>)> = events
            .iter()
            .zip(&sent_at)
            .filter_map(|((e, _), at)| match e {
                Burst::SelfGraded(_) | Burst::Checked(..) => Some((e.weight(), e, *at)),
                _ => None,
            })
            .collect();
        let card = |w: &World| {
            w.store.all_review_cards().expect("cards").into_iter().find(|(c, _)| c.lesson_id == lesson_id(0)).map(|(c, _)| c)
        };
        let logged = a.store.review_log().expect("log").iter().filter(|r| r.lesson_id == lesson_id(0)).count();
        if let Some(first) = grades.first() {
            let standing = grades.iter().fold(first, |best, g| if g.0 >= best.0 { g } else { best });
            let mut c = World::new(&[start, 5, 5]);
            c.at = first.2;
            c.send(standing.1);
            prop_assert_eq!(card(&a), card(&c), "the card as graded {:?} alone", standing.1);
            prop_assert_eq!(logged, 1, "one review of the card that day");
        } else {
            prop_assert_eq!(logged, 0);
        }
    }
}
