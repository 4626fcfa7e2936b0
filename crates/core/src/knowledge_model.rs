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
    /// How it is stored and reported: `alone`, `helped`, `revealed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Alone => "alone",
            Self::Helped => "helped",
            Self::Revealed => "revealed",
        }
    }

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

/// How far one kind of evidence is trusted to move the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Weight {
    /// The learner's own word (lesson feedback, a review they graded themselves): at most
    /// [`SELF_REPORT_STEP`] either way.
    SelfReport,
    /// What the learner did (a course check, a practice problem).
    Observed,
    /// An answer in the learner's own words graded by the agent (explain-back, a checked review).
    Checked,
}

impl Weight {
    /// The most one event of this kind moves the estimate on the 0–1 scale: just under 2, 3
    /// and 4 points of the 0–10 display (rounding never shows one more). One answer, however
    /// well graded, is one answer: it does not make a beginner an expert.
    pub fn max_step(self) -> f64 {
        match self {
            Self::SelfReport => SELF_REPORT_STEP,
            Self::Observed => 0.295,
            Self::Checked => 0.395,
        }
    }
}

impl Observation {
    /// How the event is trusted; `None` for a rating, which sets the estimate.
    pub fn weight(self) -> Option<Weight> {
        match self {
            Self::Assessment(_) => None,
            Self::Feedback(_) | Self::Review { checked: false, .. } => Some(Weight::SelfReport),
            Self::CourseCheck(_) | Self::Practice(_) => Some(Weight::Observed),
            Self::Review { checked: true, .. } | Self::ExplainBack(_) => Some(Weight::Checked),
        }
    }
}

/// The most one self-report moves the estimate on the 0–1 scale: just under two points of the
/// 0–10 display, so that rounding can never show three.
pub const SELF_REPORT_STEP: f64 = 0.195;

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
        // "I knew it" is self-report: people who did not know often say so too. The lesson
        // refreshes a little, as much as an understood one teaches, so that "I knew it" never
        // ends below "understood".
        Observation::Feedback(Feedback::Know) => r(Some(true), 0.5, 0.05, 0.3, Grade::Easy),
        // New, and now clear: the learner's word that the lesson taught something, weighed as
        // the self-report it is (a lesson read is not a lesson kept).
        Observation::Feedback(Feedback::Understood) => r(None, 0.0, 0.0, 0.3, Grade::Good),
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
        // fake; a partial one misses a piece, which people who know the topic rarely do; a
        // wrong one is a miss that the one-line correction mends only a little.
        Observation::ExplainBack(CheckGrade::Correct) => r(Some(true), 0.1, 0.05, 0.3, Grade::Good),
        Observation::ExplainBack(CheckGrade::Partly) => r(Some(false), 0.5, 0.3, 0.15, Grade::Hard),
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

    /// The predicted chance of recalling a review question on the topic at `at`: known and not
    /// slipping, or a lucky answer from someone who does not know it (any more).
    pub fn recall(&self, at: DateTime<Utc>, scheduler: &Scheduler) -> f64 {
        let now = self.now(at, scheduler);
        now * (1.0 - REVIEW_SLIP) + (1.0 - now) * REVIEW_GUESS
    }

    /// The state after `o` at `at`.
    ///
    /// Bayes' rule reads the event, then the estimate as shown (`now`) is held to what a person
    /// expects of one event: a success never lowers it, a failure never raises it (a miss on a
    /// topic not touched for months restarts its forgetting clock, and without this bound would
    /// read as a gain), and one event moves it by at most its weight's step ([`Weight::max_step`]:
    /// 2 points for a self-report, 3 for what the learner did, 4 for a checked answer). Right after
    /// an event nothing is forgotten yet, so the bound is a bound on `learned`.
    #[must_use]
    pub fn observe(&self, o: Observation, at: DateTime<Utc>, scheduler: &Scheduler) -> Self {
        let Some(r) = reading(o) else {
            let Observation::Assessment(c) = o else { return *self };
            return Self { learned: assessed(c), memory: assessed_memory(c), last_at: at, evidence: self.evidence + 1 };
        };
        let before = self.now(at, scheduler);
        let prior = self.learned.clamp(P_MIN, P_MAX);
        let r_now = self.retrievability(at, scheduler);
        // Learned but forgotten, a learner guesses like one who never learned it.
        let success_if_learned = r_now * (1.0 - r.slip) + (1.0 - r_now) * r.guess;
        let posterior = match r.success {
            Some(true) => prior * success_if_learned / (prior * success_if_learned + (1.0 - prior) * r.guess),
            Some(false) => {
                prior * (1.0 - success_if_learned)
                    / (prior * (1.0 - success_if_learned) + (1.0 - prior) * (1.0 - r.guess))
            }
            None => prior,
        };
        let read = posterior + (1.0 - posterior) * r.learn;
        let mut learned = if r.success == Some(false) { read.min(before) } else { read.max(before) };
        if let Some(weight) = o.weight() {
            learned = learned.clamp(before - weight.max_step(), before + weight.max_step());
        }
        let elapsed = u32::try_from((at - self.last_at).num_days().max(0)).unwrap_or(u32::MAX);
        let memory = scheduler.review(Some(self.memory), elapsed, r.grade).memory;
        Self { learned: learned.clamp(0.0, P_MAX), memory, last_at: at.max(self.last_at), evidence: self.evidence + 1 }
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

    /// Every event a learner or agent can send, ratings aside.
    fn every_event() -> Vec<Observation> {
        let mut all = vec![
            Observation::Feedback(Feedback::Know),
            Observation::Feedback(Feedback::Understood),
            Observation::Feedback(Feedback::DontKnow),
            Observation::CourseCheck(true),
            Observation::CourseCheck(false),
        ];
        for grade in [Grade::Again, Grade::Hard, Grade::Good, Grade::Easy] {
            all.push(Observation::Review { grade, checked: true });
            all.push(Observation::Review { grade, checked: false });
        }
        all.extend([CheckGrade::Correct, CheckGrade::Partly, CheckGrade::Wrong].map(Observation::ExplainBack));
        all.extend(
            [PracticeResult::Alone, PracticeResult::Helped, PracticeResult::Revealed].map(Observation::Practice),
        );
        all
    }

    /// The estimate as the agent is shown it, before and right after `o` at `at`, on the
    /// 0–1 scale and on the 0–10 display.
    fn moved(state: &TopicState, o: Observation, at: DateTime<Utc>) -> ((f64, i64), (f64, i64)) {
        let s = Scheduler::default();
        let before = state.now(at, &s);
        let after = state.observe(o, at, &s).now(at, &s);
        ((before, confidence(before)), (after, confidence(after)))
    }

    /// The rules of one event, from the learner's side; `Err` names the broken one.
    fn check_one_event(state: &TopicState, at: DateTime<Utc>) -> Result<(), String> {
        let tiny = 1e-12;
        let shown = |o| moved(state, o, at).1;
        for o in every_event() {
            let ((p0, c0), (p1, c1)) = moved(state, o, at);
            let failure = reading(o).and_then(|r| r.success) == Some(false);
            if failure && (p1 > p0 + tiny || c1 > c0) {
                return Err(format!("{o:?}, a failure, raised the estimate {p0:.4} ({c0}) -> {p1:.4} ({c1})"));
            }
            if !failure && (p1 + tiny < p0 || c1 < c0) {
                return Err(format!("{o:?}, a success, lowered the estimate {p0:.4} ({c0}) -> {p1:.4} ({c1})"));
            }
            let most = match o.weight() {
                Some(Weight::SelfReport) => 2,
                Some(Weight::Observed) => 3,
                Some(Weight::Checked) => 4,
                None => 10,
            };
            if (c1 - c0).abs() > most {
                return Err(format!("{o:?} moved the estimate {c0} -> {c1}, more than {most} points"));
            }
        }
        let (know, understood) =
            (shown(Observation::Feedback(Feedback::Know)), shown(Observation::Feedback(Feedback::Understood)));
        if know.0 + tiny < understood.0 || know.1 < understood.1 {
            return Err(format!("know {know:?} below understood {understood:?}"));
        }
        let review = |grade, checked| shown(Observation::Review { grade, checked });
        for grade in [Grade::Hard, Grade::Good, Grade::Easy] {
            if review(grade, true).0 + tiny < review(grade, false).0 {
                return Err(format!("a checked {grade:?} counts less than a self-graded one"));
            }
        }
        if review(Grade::Again, true).0 > review(Grade::Again, false).0 + tiny {
            return Err("a checked miss counts less than a self-admitted one".into());
        }
        let correct = shown(Observation::ExplainBack(CheckGrade::Correct)).0;
        if correct + tiny < know.0 || correct + tiny < understood.0 {
            return Err(format!("a correct explain-back {correct:.4} counts less than a self-report"));
        }
        let wrong = shown(Observation::ExplainBack(CheckGrade::Wrong)).0;
        let dont_know = shown(Observation::Feedback(Feedback::DontKnow)).0;
        if wrong > dont_know + tiny || wrong > review(Grade::Again, false).0 + tiny {
            return Err(format!("a wrong explain-back {wrong:.4} counts less than a self-admitted miss"));
        }
        Ok(())
    }

    /// From the same instant to a year, in steps a learner meets.
    const ELAPSED_SECONDS: [i64; 17] = [
        0,
        60,
        3_600,
        21_600,
        86_400,
        2 * 86_400,
        3 * 86_400,
        7 * 86_400,
        14 * 86_400,
        30 * 86_400,
        45 * 86_400,
        60 * 86_400,
        90 * 86_400,
        120 * 86_400,
        180 * 86_400,
        270 * 86_400,
        365 * 86_400,
    ];

    #[test]
    fn one_event_moves_the_estimate_as_a_person_expects_at_every_rating_and_gap() {
        let s = Scheduler::default();
        for rating in 0..=10 {
            let state = TopicState::start(Observation::Assessment(rating), t0(), &s);
            for seconds in ELAPSED_SECONDS {
                let at = t0() + Duration::seconds(seconds);
                check_one_event(&state, at).unwrap_or_else(|e| panic!("rated {rating}, {seconds} s later: {e}"));
            }
        }
    }

    #[test]
    fn the_cases_the_issue_reported_are_gone() {
        let s = Scheduler::default();
        // One "understood" on a topic rated 2 no longer makes an expert of a beginner.
        let two = TopicState::start(Observation::Assessment(2), t0(), &s);
        let understood = two.observe(Observation::Feedback(Feedback::Understood), t0(), &s);
        assert!(confidence(understood.now(t0(), &s)) <= 4);
        assert!(confidence(understood.now(t0() + Duration::days(30), &s)) <= 4);
        // From 4: "I knew it" at least as far as "understood", both by at most two points.
        let four = TopicState::start(Observation::Assessment(4), t0(), &s);
        let after = |o| confidence(four.observe(o, t0(), &s).now(t0(), &s));
        let (know, understood) =
            (after(Observation::Feedback(Feedback::Know)), after(Observation::Feedback(Feedback::Understood)));
        assert_eq!((know, understood), (6, 6), "two points each, as docs/knowledge-model.md says");
        // Rated 10, 120 days untouched, "couldn't follow": no longer a gain.
        let ten = TopicState::start(Observation::Assessment(10), t0(), &s);
        let at = t0() + Duration::days(120);
        let before = ten.now(at, &s);
        assert!(ten.observe(Observation::Feedback(Feedback::DontKnow), at, &s).now(at, &s) <= before);
    }

    /// A random history: events at random gaps, ratings among them.
    fn history() -> impl Strategy<Value = Vec<(usize, i64)>> {
        proptest::collection::vec((0usize..every_event().len() + 11, 0i64..60 * 86_400), 0..16)
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// The same rules at whatever state a history leaves, and the estimate only fades
        /// while nothing happens.
        #[test]
        fn one_event_moves_the_estimate_as_a_person_expects_after_any_history(
            rating in 0i64..=10,
            events in history(),
            gap in 0usize..ELAPSED_SECONDS.len(),
            later in 0i64..400 * 86_400,
        ) {
            let s = Scheduler::default();
            let all = every_event();
            let mut at = t0();
            let mut state = TopicState::start(Observation::Assessment(rating), at, &s);
            for (which, seconds) in events {
                at += Duration::seconds(seconds);
                let o = all.get(which).copied().unwrap_or_else(|| Observation::Assessment(i64::try_from(which - all.len()).unwrap_or(0)));
                state = state.observe(o, at, &s);
            }
            let at = at + Duration::seconds(ELAPSED_SECONDS[gap]);
            if let Err(e) = check_one_event(&state, at) {
                prop_assert!(false, "{}", e);
            }
            let (now, then) = (state.now(at, &s), state.now(at + Duration::seconds(later), &s));
            prop_assert!(then <= now && confidence(then) <= confidence(now), "no event, yet {} -> {}", now, then);
        }
    }
}
