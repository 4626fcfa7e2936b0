//! The knowledge model: per topic, the probability that the learner knows it now.
//!
//! Two parts (see `docs/knowledge-model.md`):
//! - **Bayesian knowledge tracing.** `learned` is the probability the topic was ever learned
//!   (encoded). Each piece of evidence is an observation with its own guess and slip rates (a
//!   review answer is strong evidence, an "I knew that" weak), followed by a chance of learning
//!   from the event itself.
//! - **Forgetting.** The topic also has an FSRS memory, updated by the same evidence. What was
//!   learned is retrieved with FSRS's retrievability `R`: a success is expected with probability
//!   `learned × R × (1 − slip) + (1 − learned) × guess`, and a failure of a learned topic is
//!   explained by forgetting before it counts against having learned it. The probability the
//!   learner knows the topic now is `learned × R(elapsed)`.
//!
//! The 0–10 `confidence` on the map is the learner's record, not the model's: a rating sets it,
//! feedback moves it by the original's rule, and the other evidence (reviews, course checks,
//! practice) may move it one step toward the model's estimate, in the event's own direction only
//! ([`step_toward`]). The estimate itself (`round(10 × now)`) is shown beside it, labelled.

use chrono::{DateTime, Utc};

use crate::checked::CheckGrade;
use crate::fsrs::{Grade, Memory, Scheduler};
use crate::lesson::Feedback;

/// One piece of evidence about a topic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Observation {
    /// The learner (or onboarding) rated the topic 0–10: resets the estimate.
    Assessment(i64),
    /// Feedback on a lesson of the topic.
    Feedback(Feedback),
    /// A review card of the topic was graded: `checked` when the agent graded an answer in the
    /// learner's own words, else the learner's own grade.
    Review { grade: Grade, checked: bool },
    /// The learner explained a lesson of the topic back and the agent graded it.
    ExplainBack(CheckGrade),
    /// A course check step was done (`true`) or skipped (`false`).
    CourseCheck(bool),
    /// A practice problem on the topic ended.
    Practice(PracticeResult),
}

/// Which way an event may move the learner's confidence on the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A success (a good or easy review, a check done, a problem solved): never lowers it.
    Up,
    /// A miss or a struggle (again, hard, a check skipped, the answer revealed): never raises it.
    Down,
}

impl Observation {
    /// The direction of an event that nudges the map toward the model (`None` for ratings,
    /// which set the number, and feedback, which keeps the original's rule).
    pub fn direction(self) -> Option<Direction> {
        match self {
            Self::Assessment(_) | Self::Feedback(_) => None,
            Self::Review { grade: Grade::Again | Grade::Hard, .. }
            | Self::ExplainBack(CheckGrade::Wrong | CheckGrade::Partly)
            | Self::CourseCheck(false)
            | Self::Practice(PracticeResult::Revealed) => Some(Direction::Down),
            Self::Review { grade: Grade::Good | Grade::Easy, .. }
            | Self::ExplainBack(CheckGrade::Correct)
            | Self::CourseCheck(true)
            | Self::Practice(PracticeResult::Alone | PracticeResult::Helped) => Some(Direction::Up),
        }
    }
}

/// The confidence after an event of `direction`: one step from `current` toward the model's
/// `estimate` when the estimate lies that way, else unchanged. The bound is the one feedback
/// has (one point per event), so no single answer can rewrite the learner's record.
pub fn step_toward(current: i64, estimate: i64, direction: Direction) -> i64 {
    let current = current.clamp(0, 10);
    match direction {
        Direction::Up if estimate > current => current + 1,
        Direction::Down if estimate < current => current - 1,
        _ => current,
    }
}

/// How a practice session on a topic ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PracticeResult {
    /// Without the answer, with at most small nudges (highest hint rung H1–H2).
    Alone,
    /// Without the answer, but after revealing hints (H3 or higher).
    Helped,
    /// The learner asked for the answer.
    Revealed,
}

impl PracticeResult {
    /// From what the session log says; `None` when it ended before any code went through and
    /// without the answer (nothing to learn about the learner from it).
    pub fn from_session(revealed: bool, code_passed: bool, highest_rung: Option<u8>) -> Option<Self> {
        match (revealed, code_passed, highest_rung) {
            (true, _, _) => Some(Self::Revealed),
            (false, false, _) => None,
            (false, true, Some(r)) if r >= 3 => Some(Self::Helped),
            (false, true, _) => Some(Self::Alone),
        }
    }
}

/// How one kind of evidence reads.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Reading {
    /// `Some(true)`: a success, `Some(false)`: a failure, `None`: no observation (only learning).
    success: Option<bool>,
    /// P(success | not known).
    guess: f64,
    /// P(failure | known).
    slip: f64,
    /// P(known afterwards | not known before): what the event itself teaches.
    learn: f64,
    /// How the event updates the topic's memory.
    grade: Grade,
}

fn reading(o: Observation) -> Option<Reading> {
    let r = |success, guess, slip, learn, grade| Some(Reading { success, guess, slip, learn, grade });
    match o {
        Observation::Assessment(_) => None,
        // "I knew it" is self-report: people who did not know often say so too.
        Observation::Feedback(Feedback::Know) => r(Some(true), 0.5, 0.05, 0.0, Grade::Easy),
        // New, and now clear: the lesson taught it (most of the time).
        Observation::Feedback(Feedback::Understood) => r(None, 0.0, 0.0, 0.8, Grade::Good),
        // Could not follow: some who know the topic still miss one lesson on it, and some of
        // the lesson sticks anyway.
        Observation::Feedback(Feedback::DontKnow) => r(Some(false), 0.5, 0.2, 0.1, Grade::Again),
        // Checked against the card's answer, a review is strong evidence; graded by the learner,
        // a "good" is partly what they believe (see `docs/knowledge-model.md`, checked recall).
        Observation::Review { grade, checked: true } => {
            r(Some(grade.recalled()), REVIEW_GUESS, REVIEW_SLIP, 0.2, grade)
        }
        Observation::Review { grade, checked: false } => {
            r(Some(grade.recalled()), SELF_GRADED_GUESS, SELF_GRADED_SLIP, 0.2, grade)
        }
        // Saying the idea in one's own words right after the lesson: a correct answer is hard to
        // fake, a partial one is weak evidence either way, a wrong one is a miss that the
        // one-line correction mends only a little.
        Observation::ExplainBack(CheckGrade::Correct) => r(Some(true), 0.1, 0.05, 0.1, Grade::Good),
        Observation::ExplainBack(CheckGrade::Partly) => r(Some(true), 0.5, 0.3, 0.15, Grade::Hard),
        Observation::ExplainBack(CheckGrade::Wrong) => r(Some(false), 0.1, 0.1, 0.1, Grade::Again),
        Observation::CourseCheck(done) => r(Some(done), 0.3, 0.15, 0.1, if done { Grade::Good } else { Grade::Hard }),
        // Solving alone is good evidence; with strong hints, weaker (the hints carried part of
        // it); asking for the answer is a miss, though reading the solution teaches a little.
        Observation::Practice(PracticeResult::Alone) => r(Some(true), 0.25, 0.1, 0.15, Grade::Good),
        Observation::Practice(PracticeResult::Helped) => r(Some(true), 0.55, 0.1, 0.25, Grade::Hard),
        Observation::Practice(PracticeResult::Revealed) => r(Some(false), 0.3, 0.25, 0.15, Grade::Again),
    }
}

/// P(recalled | not known) for a checked review question: a lucky or partial answer.
const REVIEW_GUESS: f64 = 0.15;
/// P(not recalled | known): known, and blanked anyway (beyond forgetting, which `R` covers).
const REVIEW_SLIP: f64 = 0.03;
/// The same for a review the learner graded themselves. A "good" from someone who did not recall
/// it is common, so a self-graded success says less about having learned the topic (its grade
/// still moves the topic's memory), while a self-admitted miss stays believed. Chosen on the
/// simulation's two learners (docs/knowledge-model.md): higher guesses fit the overrater
/// better, but from about 0.9 a miss says nothing at all; 0.5 keeps it telling.
const SELF_GRADED_GUESS: f64 = 0.5;
const SELF_GRADED_SLIP: f64 = 0.05;

/// What the model holds for a topic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopicState {
    /// P(known) right after the last evidence.
    pub learned: f64,
    pub memory: Memory,
    pub last_at: DateTime<Utc>,
    pub evidence: i64,
}

const P_MIN: f64 = 0.01;
const P_MAX: f64 = 0.99;

/// The stability (days) an assessment implies: a topic rated 10 holds for months, one rated 2
/// for a few days.
fn assessed_memory(confidence: i64) -> Memory {
    let c = confidence.clamp(0, 10);
    let p = f64::from(u8::try_from(c).unwrap_or(0)) / 10.0;
    Memory { stability: 1.0 + 89.0 * p * p, difficulty: 5.0 }
}

/// The model's probability for an assessment.
fn assessed(confidence: i64) -> f64 {
    (f64::from(u8::try_from(confidence.clamp(0, 10)).unwrap_or(0)) / 10.0).clamp(P_MIN, P_MAX)
}

impl TopicState {
    /// A topic first seen through `o` (an assessment, or evidence on a topic never rated: then
    /// the prior is 0.3, as for a topic rated 3).
    pub fn start(o: Observation, at: DateTime<Utc>, scheduler: &Scheduler) -> Self {
        match o {
            Observation::Assessment(c) => {
                Self { learned: assessed(c), memory: assessed_memory(c), last_at: at, evidence: 1 }
            }
            other => Self { learned: assessed(3), memory: assessed_memory(3), last_at: at, evidence: 0 }
                .observe(other, at, scheduler),
        }
    }

    fn retrievability(&self, at: DateTime<Utc>, scheduler: &Scheduler) -> f64 {
        scheduler.retrievability(self.memory.stability, days_between(self.last_at, at))
    }

    /// The probability the topic is known at `at`: learned, and not forgotten since.
    pub fn now(&self, at: DateTime<Utc>, scheduler: &Scheduler) -> f64 {
        (self.learned * self.retrievability(at, scheduler)).clamp(0.0, P_MAX)
    }

    /// The predicted chance of recalling a review question on the topic at `at`.
    pub fn recall(&self, at: DateTime<Utc>, scheduler: &Scheduler) -> f64 {
        self.now(at, scheduler) * (1.0 - REVIEW_SLIP) + (1.0 - self.learned) * REVIEW_GUESS
    }

    /// The state after `o` at `at`.
    #[must_use]
    pub fn observe(&self, o: Observation, at: DateTime<Utc>, scheduler: &Scheduler) -> Self {
        let Some(r) = reading(o) else {
            let Observation::Assessment(c) = o else { return *self };
            return Self { learned: assessed(c), memory: assessed_memory(c), last_at: at, evidence: self.evidence + 1 };
        };
        let prior = self.learned.clamp(P_MIN, P_MAX);
        let retrieved = self.retrievability(at, scheduler) * (1.0 - r.slip);
        let posterior = match r.success {
            Some(true) => prior * retrieved / (prior * retrieved + (1.0 - prior) * r.guess),
            Some(false) => prior * (1.0 - retrieved) / (prior * (1.0 - retrieved) + (1.0 - prior) * (1.0 - r.guess)),
            None => prior,
        };
        let learned = (posterior + (1.0 - posterior) * r.learn).clamp(P_MIN, P_MAX);
        let elapsed = u32::try_from((at - self.last_at).num_days().max(0)).unwrap_or(u32::MAX);
        let memory = scheduler.review(Some(self.memory), elapsed, r.grade).memory;
        Self { learned, memory, last_at: at.max(self.last_at), evidence: self.evidence + 1 }
    }
}

fn days_between(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    let seconds = i32::try_from((to - from).num_seconds().max(0)).unwrap_or(i32::MAX);
    f64::from(seconds) / 86_400.0
}

/// The 0–10 confidence a probability reads as.
pub fn confidence(p: f64) -> i64 {
    // In 0..=10 by the clamp.
    #[allow(clippy::cast_possible_truncation)]
    let c = (p.clamp(0.0, 1.0) * 10.0).round() as i64;
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn t0() -> DateTime<Utc> {
        crate::time::parse_timestamp("2026-11-01T12:00:00Z").expect("time")
    }

    #[test]
    fn an_assessment_sets_the_estimate() {
        let s = Scheduler::default();
        let state = TopicState::start(Observation::Assessment(7), t0(), &s);
        assert_eq!(confidence(state.now(t0(), &s)), 7);
        assert_eq!(confidence(TopicState::start(Observation::Assessment(0), t0(), &s).now(t0(), &s)), 0);
        let again = state.observe(Observation::Assessment(3), t0() + Duration::days(1), &s);
        assert_eq!(confidence(again.now(t0() + Duration::days(1), &s)), 3, "a new rating replaces the estimate");
    }

    #[test]
    fn practice_outcomes_order_the_estimate() {
        let s = Scheduler::default();
        let start = TopicState::start(Observation::Assessment(5), t0(), &s);
        let after = |r| start.observe(Observation::Practice(r), t0(), &s).now(t0(), &s);
        let (alone, helped, revealed) =
            (after(PracticeResult::Alone), after(PracticeResult::Helped), after(PracticeResult::Revealed));
        let before = start.now(t0(), &s);
        assert!(alone > helped && helped > before && revealed < before, "{alone} {helped} {before} {revealed}");
        assert_eq!(PracticeResult::from_session(true, false, Some(1)), Some(PracticeResult::Revealed));
        assert_eq!(PracticeResult::from_session(false, true, Some(3)), Some(PracticeResult::Helped));
        assert_eq!(PracticeResult::from_session(false, true, None), Some(PracticeResult::Alone));
        assert_eq!(PracticeResult::from_session(false, false, Some(1)), None, "quit before any code");
    }

    #[test]
    fn knew_it_moves_about_one_point_like_the_original() {
        let s = Scheduler::default();
        for c in 2..=8 {
            let state = TopicState::start(Observation::Assessment(c), t0(), &s);
            let after = state.observe(Observation::Feedback(Feedback::Know), t0(), &s);
            let moved = confidence(after.now(t0(), &s)) - c;
            assert!((0..=2).contains(&moved), "{c}: moved {moved}");
        }
    }

    #[test]
    fn evidence_moves_the_estimate_the_right_way() {
        let s = Scheduler::default();
        let base = TopicState::start(Observation::Assessment(5), t0(), &s);
        let at = t0() + Duration::days(2);
        let p = |o| base.observe(o, at, &s).now(at, &s);
        let before = base.now(at, &s);
        assert!(p(Observation::Review { grade: Grade::Good, checked: true }) > before);
        assert!(p(Observation::Review { grade: Grade::Again, checked: true }) < before);
        assert!(p(Observation::Feedback(Feedback::Understood)) > before);
        assert!(p(Observation::Feedback(Feedback::DontKnow)) < before);
        assert!(p(Observation::CourseCheck(true)) > before);
        assert!(
            p(Observation::Review { grade: Grade::Good, checked: true })
                > p(Observation::Feedback(Feedback::Know)) - 0.2
        );
    }

    #[test]
    fn checked_evidence_counts_more_than_self_report() {
        let s = Scheduler::default();
        let base = TopicState::start(Observation::Assessment(4), t0(), &s);
        let at = t0() + Duration::days(3);
        let learned = |o| base.observe(o, at, &s).learned;
        let review = |grade, checked| Observation::Review { grade, checked };
        assert!(learned(review(Grade::Good, true)) > learned(review(Grade::Good, false)) + 0.1);
        // A miss the learner admits is believed about as much as a checked one.
        assert!(learned(review(Grade::Again, false)) < base.learned);
        assert!(
            learned(Observation::ExplainBack(CheckGrade::Correct)) > learned(Observation::Feedback(Feedback::Know))
        );
        assert!(learned(Observation::ExplainBack(CheckGrade::Wrong)) < base.learned);
        let partly = learned(Observation::ExplainBack(CheckGrade::Partly));
        assert!(partly < learned(Observation::ExplainBack(CheckGrade::Correct)));
        assert_eq!(Observation::ExplainBack(CheckGrade::Partly).direction(), Some(Direction::Down));
    }

    #[test]
    fn a_step_follows_the_event_and_the_estimate() {
        use Direction::{Down, Up};
        assert_eq!(step_toward(4, 10, Up), 5, "one step, however far the estimate");
        assert_eq!(step_toward(4, 0, Up), 4, "a success never lowers");
        assert_eq!(step_toward(7, 3, Down), 6);
        assert_eq!(step_toward(4, 6, Down), 4, "a miss never raises");
        assert_eq!(step_toward(10, 10, Up), 10);
        assert_eq!(step_toward(0, 0, Down), 0);
        assert_eq!(
            Observation::Review { grade: Grade::Hard, checked: false }.direction(),
            Some(Down),
            "hard never raises"
        );
        assert_eq!(Observation::Review { grade: Grade::Easy, checked: true }.direction(), Some(Up));
        assert_eq!(Observation::Feedback(Feedback::Know).direction(), None);
    }

    #[test]
    fn unused_knowledge_fades_slowly() {
        let s = Scheduler::default();
        let state = TopicState::start(Observation::Assessment(8), t0(), &s);
        let month = state.now(t0() + Duration::days(30), &s);
        let year = state.now(t0() + Duration::days(365), &s);
        assert!(month < 0.8 && month > 0.65, "{month}");
        assert!(year < month && year > 0.4, "{year}");
        let weak = TopicState::start(Observation::Assessment(3), t0(), &s);
        assert!(weak.now(t0() + Duration::days(30), &s) < 0.3 * 0.8, "a barely known topic fades faster");
    }
}
