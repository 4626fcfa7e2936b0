//! Portable records of what the learner did, for tools outside devcoach: the FSRS optimizer's
//! review-log CSV, and xAPI statements for a company's learning-record store. Pure: the caller
//! hands in the rows and writes the text.

use crate::encoding::percent_encode;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::checked::{CheckGrade, CheckKind, CheckedAnswer};
use crate::fsrs::Grade;
use crate::lesson::Feedback;

/// One graded review, as the log keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewEvent {
    pub lesson_id: String,
    pub grade: Grade,
    pub at: DateTime<Utc>,
    /// Whether the agent checked the answer (else the learner graded themselves).
    pub checked: bool,
}

/// The review log in the columns the FSRS optimizer reads (`card_id, review_time,
/// review_rating, review_state, review_duration`): times in milliseconds since 1970, ratings
/// 1–4, states 0 new, 2 review, 3 relearning (devcoach has no learning steps, so never 1), and
/// the duration left empty (devcoach does not time answers). Card ids number the cards 1, 2, …
/// in the order of their first review, so an export taken later keeps the earlier numbers.
pub fn fsrs_log(reviews: &[ReviewEvent]) -> String {
    let mut sorted: Vec<&ReviewEvent> = reviews.iter().collect();
    sorted.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.lesson_id.cmp(&b.lesson_id)));
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut last: HashMap<&str, Grade> = HashMap::new();
    let mut out = String::from("card_id,review_time,review_rating,review_state,review_duration\n");
    for r in sorted {
        let next = ids.len() + 1;
        let id = *ids.entry(r.lesson_id.as_str()).or_insert(next);
        let state = match last.get(r.lesson_id.as_str()) {
            None => 0,
            Some(Grade::Again) => 3,
            Some(_) => 2,
        };
        last.insert(r.lesson_id.as_str(), r.grade);
        out.push_str(&format!("{id},{},{},{state},\n", r.at.timestamp_millis(), r.grade.number()));
    }
    out
}

/// A lesson, for its "experienced" statement.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonEvent {
    pub id: String,
    pub title: String,
    pub topic: String,
    pub at: DateTime<Utc>,
}

/// A lesson's answer (feedback), at the moment it was given.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackEvent {
    pub lesson_id: String,
    pub topic: String,
    pub feedback: Feedback,
    pub at: DateTime<Utc>,
}

/// Everything an xAPI export says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    pub lessons: Vec<LessonEvent>,
    pub feedback: Vec<FeedbackEvent>,
    pub checks: Vec<CheckedAnswer>,
    pub reviews: Vec<ReviewEvent>,
    /// Lesson id → topic, for the reviews' context.
    pub topics: HashMap<String, String>,
}

/// Where devcoach's own identifiers live (activities and extensions): the project's address,
/// so a learning-record store can tell devcoach's statements from others'.
pub const XAPI_BASE: &str = "https://github.com/devcoach-rs/devcoach/xapi";

const EXPERIENCED: &str = "http://adlnet.gov/expapi/verbs/experienced";
const RESPONDED: &str = "http://adlnet.gov/expapi/verbs/responded";
const ANSWERED: &str = "http://adlnet.gov/expapi/verbs/answered";
const LESSON_TYPE: &str = "http://adlnet.gov/expapi/activities/lesson";
const QUESTION_TYPE: &str = "http://adlnet.gov/expapi/activities/cmi.interaction";

/// One thing the learner did, as an xAPI export tells it.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Lesson(LessonEvent),
    Feedback(FeedbackEvent),
    Check(CheckedAnswer),
    /// A review the learner graded themselves, with its lesson's topic.
    Review(ReviewEvent, String),
}

impl Event {
    fn at(&self) -> DateTime<Utc> {
        match self {
            Self::Lesson(l) => l.at,
            Self::Feedback(f) => f.at,
            Self::Check(c) => c.at,
            Self::Review(r, _) => r.at,
        }
    }

    /// At the same moment: the lesson, then its answer, checks and reviews.
    fn rank(&self) -> u8 {
        match self {
            Self::Lesson(_) => 0,
            Self::Feedback(_) => 1,
            Self::Check(_) => 2,
            Self::Review(..) => 3,
        }
    }
}

/// Everything but the lessons, in the order the statements go: by time, then by kind, each
/// kind in the order given. Checked reviews are left out: their check says it, with the
/// learner's words.
pub fn other_events(
    feedback: Vec<FeedbackEvent>,
    checks: Vec<CheckedAnswer>,
    reviews: Vec<(ReviewEvent, String)>,
) -> Vec<Event> {
    let mut events: Vec<Event> = feedback
        .into_iter()
        .map(Event::Feedback)
        .chain(checks.into_iter().map(Event::Check))
        .chain(reviews.into_iter().filter(|(r, _)| !r.checked).map(|(r, topic)| Event::Review(r, topic)))
        .collect();
    events.sort_by_key(|e| (e.at(), e.rank()));
    events
}

/// The lessons (oldest first, as they are read) and `others` (from [`other_events`]) as one
/// sequence in time: only the two next events are looked at, so a long record of lessons is
/// never held. A lesson that could not be read is passed on as its error, and nothing follows it.
pub fn in_time<E>(
    lessons: impl Iterator<Item = Result<LessonEvent, E>>,
    others: Vec<Event>,
) -> impl Iterator<Item = Result<Event, E>> {
    let mut lessons = lessons.peekable();
    let mut others = others.into_iter().peekable();
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let next = match (lessons.peek(), others.peek()) {
            (Some(Err(_)), _) => lessons.next().map(|e| e.map(Event::Lesson)),
            (Some(Ok(l)), Some(o)) if l.at <= o.at() => lessons.next().map(|l| l.map(Event::Lesson)),
            (_, Some(_)) => others.next().map(Ok),
            (Some(_), None) => lessons.next().map(|l| l.map(Event::Lesson)),
            (None, None) => None,
        };
        failed = matches!(next, Some(Err(_)));
        next
    })
}

/// Who every statement is about: an account on devcoach's home page (devcoach knows no e-mail
/// address).
pub fn xapi_actor(learner: &str) -> Value {
    json!({
        "objectType": "Agent",
        "account": { "homePage": "https://github.com/devcoach-rs/devcoach", "name": learner }
    })
}

/// xAPI 1.0.3 statements, oldest first: a lesson taught (`experienced`), the learner's answer to
/// it (`responded`, the answer as the response), an explain-back and a review (`answered`, with
/// success, a scaled score and whether it was checked). `learner` names the actor.
pub fn xapi(record: &Record, learner: &str) -> Vec<Value> {
    let actor = xapi_actor(learner);
    let mut lessons = record.lessons.clone();
    lessons.sort_by_key(|l| l.at);
    let reviews = record
        .reviews
        .iter()
        .map(|r| (r.clone(), record.topics.get(&r.lesson_id).cloned().unwrap_or_default()))
        .collect();
    let others = other_events(record.feedback.clone(), record.checks.clone(), reviews);
    in_time(lessons.into_iter().map(Ok::<_, std::convert::Infallible>), others)
        .flatten()
        .map(|e| xapi_statement(&actor, &e))
        .collect()
}

/// The statement for one event.
pub fn xapi_statement(actor: &Value, event: &Event) -> Value {
    let lesson_object = |id: &str, title: Option<&str>| {
        let mut definition = json!({ "type": LESSON_TYPE });
        if let Some(title) = title {
            definition["name"] = json!({ "en": title });
        }
        json!({ "objectType": "Activity", "id": format!("{XAPI_BASE}/lessons/{}", percent_encode(id)), "definition": definition })
    };
    let context =
        |topic: &str| json!({ "platform": "devcoach", "extensions": { format!("{XAPI_BASE}/topic"): topic } });
    let verb = |id: &str, word: &str| json!({ "id": id, "display": { "en": word } });
    let stamp = |at: &DateTime<Utc>| at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    match event {
        Event::Lesson(l) => json!({
            "actor": actor, "verb": verb(EXPERIENCED, "experienced"),
            "object": lesson_object(&l.id, Some(&l.title)), "context": context(&l.topic), "timestamp": stamp(&l.at)
        }),
        Event::Feedback(f) => json!({
            "actor": actor, "verb": verb(RESPONDED, "responded"), "object": lesson_object(&f.lesson_id, None),
            "result": { "response": f.feedback.as_str() }, "context": context(&f.topic), "timestamp": stamp(&f.at)
        }),
        Event::Check(c) => {
            let mut result = json!({
                "response": c.answer, "success": c.grade == CheckGrade::Correct,
                "score": { "scaled": c.grade.score() },
                "extensions": { format!("{XAPI_BASE}/grade"): c.grade.as_str(), format!("{XAPI_BASE}/checked"): true }
            });
            if let Some(missing) = &c.missing {
                result["extensions"][format!("{XAPI_BASE}/missing")] = json!(missing);
            }
            let object = match c.kind {
                CheckKind::ExplainBack => lesson_object(&c.lesson_id, None),
                CheckKind::Review => card_object(&c.lesson_id),
            };
            json!({
                "actor": actor, "verb": verb(ANSWERED, "answered"), "object": object,
                "result": result, "context": context(&c.topic), "timestamp": stamp(&c.at)
            })
        }
        Event::Review(r, topic) => {
            let result = json!({
                "success": r.grade.recalled(),
                "score": { "raw": r.grade.number(), "min": 1, "max": 4 },
                "extensions": { format!("{XAPI_BASE}/grade"): r.grade.as_str(), format!("{XAPI_BASE}/checked"): false }
            });
            json!({
                "actor": actor, "verb": verb(ANSWERED, "answered"), "object": card_object(&r.lesson_id),
                "result": result, "context": context(topic), "timestamp": stamp(&r.at)
            })
        }
    }
}

/// `statements` as one pretty JSON array and a final newline, as `serde_json::to_string_pretty`
/// writes a whole array, one statement at a time; `emit` takes each piece of text in turn.
/// Returns how many statements there were. A statement that failed ends the writing there,
/// without the closing bracket: what was written is not a whole export, and does not look like one.
pub fn xapi_pretty<E>(
    statements: impl Iterator<Item = Result<Value, E>>,
    mut emit: impl FnMut(&str) -> Result<(), E>,
) -> Result<usize, E> {
    let mut n = 0;
    for statement in statements {
        let statement = statement?;
        emit(if n == 0 { "[\n" } else { ",\n" })?;
        let text = serde_json::to_string_pretty(&statement).unwrap_or_default();
        for (i, line) in text.split('\n').enumerate() {
            emit(if i == 0 { "  " } else { "\n  " })?;
            emit(line)?;
        }
        n += 1;
    }
    emit(if n == 0 { "[]\n" } else { "\n]\n" })?;
    Ok(n)
}

fn card_object(lesson_id: &str) -> Value {
    json!({
        "objectType": "Activity",
        "id": format!("{XAPI_BASE}/cards/{}", percent_encode(lesson_id)),
        "definition": { "type": QUESTION_TYPE, "interactionType": "long-fill-in" }
    })
}

/// Every review card as Anki's plain-text import: a header naming the separator, then
/// question, answer and tags (`devcoach <topic>`), one card a line.
pub fn anki(cards: &[(crate::review::ReviewCard, String)]) -> String {
    let mut text = String::from("#separator:tab\n#html:true\n#tags column:3\n");
    for (card, topic) in cards {
        let tag: String = topic.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
        text.push_str(&format!("{}\t{}\tdevcoach {tag}\n", anki_field(&card.question), anki_field(&card.answer)));
    }
    text
}

/// One field of Anki's HTML import: markup characters escaped first (a card about `Vec<T>` keeps
/// its `<T>`), then tabs and returns made spaces and newlines `<br>`.
fn anki_field(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace(['\t', '\r'], " ").replace('\n', "<br>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn at(hours: i64) -> DateTime<Utc> {
        crate::time::parse_timestamp("2026-11-01T12:00:00Z").expect("time") + Duration::hours(hours)
    }

    fn review(id: &str, grade: Grade, hours: i64, checked: bool) -> ReviewEvent {
        ReviewEvent { lesson_id: id.into(), grade, at: at(hours), checked }
    }

    #[test]
    fn the_fsrs_log_numbers_cards_and_states_as_the_optimizer_reads_them() {
        let log = fsrs_log(&[
            review("b", Grade::Good, 0, false),
            review("a", Grade::Again, 1, true),
            review("a", Grade::Hard, 30, false),
            review("b", Grade::Easy, 50, false),
            review("a", Grade::Good, 80, true),
        ]);
        let t = |h: i64| at(h).timestamp_millis();
        assert_eq!(
            log,
            format!(
                "card_id,review_time,review_rating,review_state,review_duration\n\
                 1,{},3,0,\n2,{},1,0,\n2,{},2,3,\n1,{},4,2,\n2,{},3,2,\n",
                t(0),
                t(1),
                t(30),
                t(50),
                t(80)
            )
        );
        assert_eq!(fsrs_log(&[]), "card_id,review_time,review_rating,review_state,review_duration\n");
    }

    fn sample_record() -> Record {
        Record {
            lessons: vec![LessonEvent { id: "a b/c".into(), title: "T".into(), topic: "rust".into(), at: at(0) }],
            feedback: vec![FeedbackEvent {
                lesson_id: "a b/c".into(),
                topic: "rust".into(),
                feedback: Feedback::Know,
                at: at(1),
            }],
            checks: vec![CheckedAnswer {
                lesson_id: "a b/c".into(),
                topic: "rust".into(),
                kind: CheckKind::ExplainBack,
                grade: CheckGrade::Partly,
                answer: "words".into(),
                missing: Some("the piece".into()),
                at: at(2),
            }],
            reviews: vec![review("a b/c", Grade::Good, 40, false), review("a b/c", Grade::Hard, 50, true)],
            topics: HashMap::from([("a b/c".to_owned(), "rust".to_owned())]),
        }
    }

    #[test]
    fn the_streamed_array_is_what_one_pretty_print_gives() {
        let record = sample_record();
        for take in [0, 1, 3, usize::MAX] {
            let statements: Vec<Value> = xapi(&record, "Ada").into_iter().take(take).collect();
            let whole = serde_json::to_string_pretty(&statements).expect("json") + "\n";
            let mut streamed = String::new();
            let n = xapi_pretty(statements.clone().into_iter().map(Ok), |piece| {
                streamed.push_str(piece);
                Ok::<(), ()>(())
            })
            .expect("stream");
            assert_eq!(n, statements.len());
            assert_eq!(streamed, whole);
        }
    }

    /// A failure part way stops the array unclosed: no reader takes it for a whole export.
    #[test]
    fn a_failure_part_way_leaves_no_whole_array() {
        let statements: Vec<Result<Value, &str>> =
            vec![Ok(json!({"a": 1})), Err("the disk went away"), Ok(json!({"b": 2}))];
        let mut streamed = String::new();
        let out = xapi_pretty(statements.into_iter(), |piece| {
            streamed.push_str(piece);
            Ok(())
        });
        assert_eq!(out, Err("the disk went away"));
        assert!(serde_json::from_str::<Value>(&streamed).is_err(), "{streamed}");
        assert!(!streamed.contains('b'), "nothing after the failure: {streamed}");
    }

    /// Lessons and the other events in time; a lesson that could not be read ends the sequence.
    #[test]
    fn in_time_merges_and_stops_at_a_failure() {
        let lesson = |id: &str, h: i64| LessonEvent { id: id.into(), title: id.into(), topic: "t".into(), at: at(h) };
        let answer = |h: i64| {
            Event::Feedback(FeedbackEvent {
                lesson_id: "l1".into(),
                topic: "t".into(),
                feedback: Feedback::Know,
                at: at(h),
            })
        };
        let ok: Vec<Result<LessonEvent, &str>> = vec![Ok(lesson("l1", 1)), Ok(lesson("l2", 3))];
        let merged: Vec<_> = in_time(ok.into_iter(), vec![answer(1), answer(2)]).collect();
        let kinds: Vec<u8> = merged.iter().map(|e| e.as_ref().map_or(9, Event::rank)).collect();
        assert_eq!(kinds, [0, 1, 1, 0], "at the same moment the lesson goes first");
        let broken: Vec<Result<LessonEvent, &str>> = vec![Ok(lesson("l1", 1)), Err("gone"), Ok(lesson("l3", 5))];
        let merged: Vec<_> = in_time(broken.into_iter(), vec![answer(4)]).collect();
        assert_eq!(merged.len(), 2, "{merged:?}");
        assert_eq!(merged[1], Err("gone"));
    }

    #[test]
    fn xapi_statements_say_who_did_what_and_keep_ids_safe() {
        let record = sample_record();
        let out = xapi(&record, "Ada");
        let verbs: Vec<&str> = out.iter().filter_map(|s| s["verb"]["display"]["en"].as_str()).collect();
        assert_eq!(verbs, ["experienced", "responded", "answered", "answered"], "the checked review is the check");
        assert_eq!(out[0]["object"]["id"], format!("{XAPI_BASE}/lessons/a%20b%2Fc"));
        assert_eq!(out[0]["actor"]["account"]["name"], "Ada");
        assert_eq!(out[1]["result"]["response"], "know");
        assert_eq!(out[2]["result"]["score"]["scaled"], 0.5);
        assert_eq!(out[2]["result"]["extensions"][format!("{XAPI_BASE}/missing")], "the piece");
        assert_eq!(out[3]["result"]["extensions"][format!("{XAPI_BASE}/checked")], false);
        assert_eq!(out[3]["context"]["extensions"][format!("{XAPI_BASE}/topic")], "rust");
        assert_eq!(out[3]["timestamp"], "2026-11-03T04:00:00.000Z");
    }

    #[test]
    fn anki_fields_keep_markup_characters_as_text() {
        assert_eq!(anki_field("Vec<T> & Box<dyn Fn()>"), "Vec&lt;T&gt; &amp; Box&lt;dyn Fn()&gt;");
        assert_eq!(anki_field("a\tb\r\nc"), "a b <br>c", "the <br> added after escaping stays markup");
        assert_eq!(anki_field("&lt;"), "&amp;lt;", "an entity in the text stays text");
    }
}
