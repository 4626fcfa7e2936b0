//! Review cards: one recall question per lesson, scheduled with FSRS so what was taught is
//! asked again just before it would be forgotten.

use crate::limits;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use thiserror::Error;

use crate::Lesson;
use crate::fsrs::{Grade, Memory, Scheduler, Step};
use crate::time::{iso_ms, parse_timestamp};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReviewError {
    #[error("a review card needs a {0}")]
    Empty(&'static str),
    #[error("the {what} is {got} characters; keep it under {max}")]
    TooLong { what: &'static str, got: usize, max: usize },
}

/// Who wrote a card's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardSource {
    /// The agent, when it logged the lesson (or later with `add_review_card`).
    Agent,
    /// devcoach, from the lesson's title and summary (lessons logged without one).
    Derived,
}

impl CardSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Derived => "derived",
        }
    }

    pub fn parse(raw: &str) -> Self {
        if raw == "agent" { Self::Agent } else { Self::Derived }
    }
}

/// A validated question and its expected answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardText {
    question: String,
    answer: String,
}

impl CardText {
    pub fn new(question: &str, answer: &str) -> Result<Self, ReviewError> {
        let check = |what: &'static str, text: &str, max: usize| {
            let text = text.trim();
            if text.is_empty() {
                return Err(ReviewError::Empty(what));
            }
            let n = text.chars().count();
            if n > max {
                return Err(ReviewError::TooLong { what, got: n, max });
            }
            Ok(text.to_owned())
        };
        Ok(Self {
            question: check("question", question, limits::QUESTION_CHARS)?,
            answer: check("answer", answer, limits::ANSWER_CHARS)?,
        })
    }

    /// A card for a lesson that came without one: recall the idea behind the title; the
    /// summary (or the start of the body) is the answer.
    pub fn derived(lesson: &Lesson) -> Self {
        Self::derived_from(&lesson.title, &lesson.topic_id, &lesson.summary, lesson.body.as_deref())
    }

    /// [`CardText::derived`] from the fields it reads.
    pub fn derived_from(title: &str, topic: &str, summary: &str, body: Option<&str>) -> Self {
        let title = title.trim();
        let question = if title.is_empty() {
            format!("What was the lesson on {topic} about, and when does it apply?")
        } else {
            format!("“{title}”: what is the idea, and when would you use it?")
        };
        let answer = [summary, body.unwrap_or_default(), title]
            .into_iter()
            .map(str::trim)
            .find(|t| !t.is_empty())
            .unwrap_or("(no summary)");
        Self { question: truncate(&question, limits::QUESTION_CHARS), answer: truncate(answer, limits::ANSWER_CHARS) }
    }

    pub fn question(&self) -> &str {
        &self.question
    }

    pub fn answer(&self) -> &str {
        &self.answer
    }
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// A card with its schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewCard {
    pub lesson_id: String,
    pub question: String,
    pub answer: String,
    pub source: CardSource,
    /// `None` until the first review.
    pub memory: Option<Memory>,
    /// When it is due (`iso_ms`).
    pub due: String,
    pub last_review: Option<String>,
    pub reps: i64,
    pub lapses: i64,
}

/// When a review is offered instead of a new lesson, if both are possible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReviewMix {
    /// Never from the cue engine (reviews only on request).
    Off,
    /// Every other cue, when a card is due.
    #[default]
    Alternate,
    /// Every cue while a card is due.
    ReviewsFirst,
}

impl ReviewMix {
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.trim() {
            "off" => Some(Self::Off),
            "alternate" => Some(Self::Alternate),
            "reviews_first" => Some(Self::ReviewsFirst),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Alternate => "alternate",
            Self::ReviewsFirst => "reviews_first",
        }
    }
}

/// Whether a cue that is due anyway should offer a review instead of a new lesson: never when
/// the mix is off or nothing is due; with `alternate`, only when the previous cue was not a
/// review.
pub fn offer_review(mix: ReviewMix, due: i64, last_cue_was_review: bool) -> bool {
    due > 0
        && match mix {
            ReviewMix::Off => false,
            ReviewMix::Alternate => !last_cue_was_review,
            ReviewMix::ReviewsFirst => true,
        }
}

/// The review settings (our own, kept apart from the shared settings table).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReviewSettings {
    /// The recall probability reviews aim for (0.7–0.99).
    pub retention: f64,
    pub mix: ReviewMix,
    /// Parameters fitted to this learner's reviews (`devcoach review optimize`); `None` uses
    /// FSRS's defaults.
    pub parameters: Option<crate::fsrs::Parameters>,
}

impl Default for ReviewSettings {
    fn default() -> Self {
        Self { retention: crate::fsrs::DEFAULT_RETENTION, mix: ReviewMix::default(), parameters: None }
    }
}

impl ReviewSettings {
    pub fn scheduler(&self) -> Scheduler {
        let w = self.parameters.unwrap_or_default();
        Scheduler::new(w, self.retention, crate::fsrs::DEFAULT_MAXIMUM_INTERVAL).unwrap_or_default()
    }
}

/// When a new card is first due: a day after its lesson.
pub fn first_due(lesson_timestamp: &str, now: DateTime<Utc>) -> String {
    let taught = parse_timestamp(lesson_timestamp).map_or(now, |t| t.min(now));
    iso_ms(taught + Duration::days(1))
}

/// Whole days between two instants (what FSRS counts), never negative.
pub fn elapsed_days(from: DateTime<Utc>, to: DateTime<Utc>) -> u32 {
    u32::try_from((to - from).num_days().max(0)).unwrap_or(u32::MAX)
}

/// What grading a card did.
#[derive(Debug, Clone, PartialEq)]
pub struct Graded {
    pub step: Step,
    pub elapsed_days: u32,
    pub due: String,
    pub reps: i64,
    pub lapses: i64,
}

/// Grades `card` at `now`.
pub fn grade(scheduler: &Scheduler, card: &ReviewCard, g: Grade, now: DateTime<Utc>) -> Graded {
    let last = card.last_review.as_deref().and_then(|t| parse_timestamp(t).ok());
    let elapsed = last.map_or(0, |l| elapsed_days(l, now));
    let step = scheduler.review(card.memory, elapsed, g);
    Graded {
        due: iso_ms(now + Duration::days(i64::from(step.interval))),
        elapsed_days: elapsed,
        reps: card.reps + 1,
        lapses: card.lapses + i64::from(!g.recalled() && card.memory.is_some()),
        step,
    }
}

/// The predicted recall of `card` at `now` (`None` before its first review).
pub fn retrievability(scheduler: &Scheduler, card: &ReviewCard, now: DateTime<Utc>) -> Option<f64> {
    let memory = card.memory?;
    let last = parse_timestamp(card.last_review.as_deref()?).ok()?;
    // Seconds since a review fit an i32 for 68 years; beyond that recall is 0 anyway.
    let seconds = i32::try_from((now - last).num_seconds().max(0)).unwrap_or(i32::MAX);
    let days = f64::from(seconds) / 86_400.0;
    Some(scheduler.retrievability(memory.stability, days))
}

/// Reviews in the thirty days behind and ahead of a day: what the progress page draws.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewActivity {
    /// Reviews done on each of the last 30 days, oldest first, today last.
    pub done: Vec<(NaiveDate, u32)>,
    /// Cards falling due on each of the next 30 days, today first (overdue cards count today).
    pub ahead: Vec<(NaiveDate, u32)>,
    /// Every review ever done.
    pub total: usize,
    /// Cards due now, overdue included.
    pub due_now: i64,
    /// For each repeat review: the recall predicted just before it, and whether it was recalled.
    pub predicted: Vec<(f64, bool)>,
}

impl ReviewActivity {
    /// Reviews in the last 30 days.
    pub fn done_recently(&self) -> u32 {
        self.done.iter().map(|(_, n)| n).sum()
    }

    /// Cards falling due in the next 30 days beyond those due now.
    pub fn due_soon(&self) -> i64 {
        (i64::from(self.ahead.iter().map(|(_, n)| n).sum::<u32>()) - self.due_now).max(0)
    }

    /// Repeat reviews recalled.
    pub fn recalled(&self) -> usize {
        self.predicted.iter().filter(|(_, r)| *r).count()
    }
}

/// One review as the activity counts it: when (`YYYY-MM-DD…`), the recall predicted before it
/// (none for a first review), and whether it was recalled.
pub type ReviewMark<'a> = (&'a str, Option<f64>, bool);

/// Counts `reviews` and `due_by_day` (`YYYY-MM-DD`, cards) into the thirty days around `today`.
/// A review or due day that does not parse is left out.
pub fn activity<'a>(
    reviews: impl IntoIterator<Item = ReviewMark<'a>>,
    due_by_day: &[(String, i64)],
    due_now: i64,
    today: NaiveDate,
) -> ReviewActivity {
    let mut done = [0u32; 30];
    let mut total = 0;
    let mut predicted = Vec::new();
    for (at, retrievability, recalled) in reviews {
        total += 1;
        if let Some(p) = retrievability {
            predicted.push((p, recalled));
        }
        let Some(day) = at.get(..10).and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()) else { continue };
        let back = (today - day).num_days();
        if let Ok(back @ 0..30) = usize::try_from(back) {
            done[29 - back] += 1;
        }
    }
    let mut ahead = [0u32; 30];
    for (day, n) in due_by_day {
        let Ok(day) = NaiveDate::parse_from_str(day, "%Y-%m-%d") else { continue };
        let i = usize::try_from((day - today).num_days().max(0)).unwrap_or(0);
        if let Some(slot) = ahead.get_mut(i) {
            *slot = slot.saturating_add(u32::try_from(*n).unwrap_or(u32::MAX));
        }
    }
    let day = |offset: i64| today + Duration::days(offset);
    ReviewActivity {
        done: (0..30).zip(done).map(|(i, n)| (day(i - 29), n)).collect(),
        ahead: (0..30).zip(ahead).map(|(i, n)| (day(i), n)).collect(),
        total,
        due_now,
        predicted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(title: &str, summary: &str) -> Lesson {
        Lesson { title: title.into(), summary: summary.into(), body: None, ..Lesson::example("l").on_topic("redis") }
    }

    fn now() -> DateTime<Utc> {
        parse_timestamp("2026-11-30T12:00:00Z").expect("time")
    }

    #[test]
    fn reviews_are_offered_by_the_mix() {
        assert!(!offer_review(ReviewMix::Alternate, 0, false), "nothing due");
        assert!(!offer_review(ReviewMix::Off, 5, false));
        assert!(offer_review(ReviewMix::Alternate, 5, false));
        assert!(!offer_review(ReviewMix::Alternate, 5, true), "a lesson after a review");
        assert!(offer_review(ReviewMix::ReviewsFirst, 1, true));
        for mix in [ReviewMix::Off, ReviewMix::Alternate, ReviewMix::ReviewsFirst] {
            assert_eq!(ReviewMix::parse(mix.as_str()), Some(mix));
        }
    }

    #[test]
    fn texts_are_checked_and_derived() {
        assert_eq!(CardText::new("  ", "a"), Err(ReviewError::Empty("question")));
        assert!(matches!(CardText::new("q", &"x".repeat(2001)), Err(ReviewError::TooLong { what: "answer", .. })));
        let t = CardText::new(" Why jitter? ", " So keys expire apart. ").expect("text");
        assert_eq!((t.question(), t.answer()), ("Why jitter?", "So keys expire apart."));
        let d = CardText::derived(&lesson("Add jitter to cache expiry", "Spread TTLs."));
        assert!(d.question().contains("Add jitter to cache expiry"));
        assert_eq!(d.answer(), "Spread TTLs.");
        let bare = CardText::derived(&lesson("", ""));
        assert!(bare.question().contains("redis") && !bare.answer().is_empty());
        let long = CardText::derived(&lesson("t", &"é".repeat(3000)));
        assert_eq!(long.answer().chars().count(), limits::ANSWER_CHARS);
    }

    #[test]
    fn due_a_day_after_the_lesson_and_graded_from_then() {
        assert_eq!(first_due("2026-11-29T08:00:00Z", now()), "2026-11-30T08:00:00.000Z");
        assert_eq!(
            first_due("2030-01-01T00:00:00Z", now()),
            "2026-12-01T12:00:00.000Z",
            "a future stamp counts as now"
        );
        let s = Scheduler::default();
        let card = ReviewCard {
            lesson_id: "l".into(),
            question: "q".into(),
            answer: "a".into(),
            source: CardSource::Derived,
            memory: None,
            due: first_due("2026-11-29T08:00:00Z", now()),
            last_review: None,
            reps: 0,
            lapses: 0,
        };
        let g = grade(&s, &card, Grade::Good, now());
        assert_eq!((g.elapsed_days, g.reps, g.lapses, g.step.interval), (0, 1, 0, 2));
        assert_eq!(g.due, "2026-12-02T12:00:00.000Z");
        let reviewed = ReviewCard {
            memory: Some(g.step.memory),
            last_review: Some(iso_ms(now())),
            reps: g.reps,
            lapses: g.lapses,
            ..card
        };
        let later = now() + Duration::days(5);
        let again = grade(&s, &reviewed, Grade::Again, later);
        assert_eq!((again.elapsed_days, again.lapses), (5, 1));
        let r = retrievability(&s, &reviewed, later).expect("reviewed");
        assert!((r - again.step.retrievability).abs() < 1e-9);
    }

    #[test]
    fn activity_counts_each_review_and_due_card_on_its_day() {
        let today = NaiveDate::from_ymd_opt(2026, 12, 3).expect("date");
        let reviews = [
            ("2026-12-03T09:00:00.000Z", None, true),
            ("2026-12-03T10:00:00.000Z", Some(0.9), true),
            ("2026-11-04T10:00:00.000Z", Some(0.4), false),
            // 30 days back: outside the window, still in the total.
            ("2026-11-03T10:00:00.000Z", Some(0.8), true),
            ("not a date", None, false),
        ];
        let due = [
            ("2026-11-20".to_owned(), 2),
            ("2026-12-03".to_owned(), 1),
            ("2027-01-01".to_owned(), 5),
            ("x".to_owned(), 9),
        ];
        let a = activity(reviews, &due, 3, today);
        assert_eq!(a.done.len(), 30);
        assert_eq!(a.done[29], (today, 2));
        assert_eq!(a.done[0], (NaiveDate::from_ymd_opt(2026, 11, 4).expect("date"), 1));
        assert_eq!(a.done_recently(), 3);
        assert_eq!(a.total, 5);
        // Overdue and today's cards count today; 2027-01-01 is 29 days ahead, the last slot.
        assert_eq!(a.ahead[0], (today, 3));
        assert_eq!(a.ahead[29].1, 5);
        assert_eq!(a.due_soon(), 5);
        assert_eq!(a.predicted, vec![(0.9, true), (0.4, false), (0.8, true)]);
        assert_eq!(a.recalled(), 2);
        // Nothing at all: empty days, nothing due soon.
        let none = activity([], &[], 0, today);
        assert_eq!((none.done_recently(), none.due_soon(), none.total), (0, 0, 0));
    }

    proptest::proptest! {
        /// One more review, at any day from 40 back to 5 ahead, on any history: the total moves
        /// by one, the thirty days' count by one exactly when the day is inside them (and only
        /// that day's bar), nothing else moves; reviews in any order count the same.
        #[test]
        fn one_review_moves_one_day_by_one(
            history in proptest::collection::vec((0i64..45, proptest::option::of(0.0f64..1.0), proptest::bool::ANY), 0..40),
            back in -5i64..40,
            recalled in proptest::bool::ANY,
        ) {
            let today = NaiveDate::from_ymd_opt(2026, 12, 3).expect("date");
            let stamp = |back: i64| format!("{}T12:00:00.000Z", today - Duration::days(back));
            let stamps: Vec<(String, Option<f64>, bool)> = history.iter().map(|(b, p, r)| (stamp(*b), *p, *r)).collect();
            let marks = |extra: Option<(String, Option<f64>, bool)>| {
                let mut all: Vec<(String, Option<f64>, bool)> = stamps.clone();
                all.extend(extra);
                all
            };
            let count = |all: &[(String, Option<f64>, bool)]| activity(all.iter().map(|(a, p, r)| (a.as_str(), *p, *r)), &[], 0, today);
            let before = count(&marks(None));
            let after = count(&marks(Some((stamp(back), Some(0.5), recalled))));
            proptest::prop_assert_eq!(after.total, before.total + 1);
            let inside = (0..30).contains(&back);
            proptest::prop_assert_eq!(after.done_recently(), before.done_recently() + u32::from(inside));
            for (i, ((day, n), (_, m))) in before.done.iter().zip(&after.done).enumerate() {
                let this = inside && usize::try_from(29 - back).ok() == Some(i);
                proptest::prop_assert_eq!(*m, n + u32::from(this), "day {}", day);
            }
            proptest::prop_assert_eq!(after.predicted.len(), before.predicted.len() + 1);
            proptest::prop_assert_eq!(after.recalled(), before.recalled() + usize::from(recalled));
            // The same reviews in reverse order: the same counts.
            let mut reversed = marks(Some((stamp(back), Some(0.5), recalled)));
            reversed.reverse();
            let again = count(&reversed);
            proptest::prop_assert_eq!(again.done, after.done);
            proptest::prop_assert_eq!(again.total, after.total);
        }
    }
}
