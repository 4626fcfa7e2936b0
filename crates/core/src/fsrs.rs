//! The FSRS scheduler (version 6, the model Anki uses): how stable a memory is, how hard the
//! card is, when it is due.
//!
//! Written here rather than taken from the `fsrs` crate, which brings a machine-learning
//! framework into every build for its optimiser; the scheduler itself is a handful of formulas.
//! They are checked against vectors produced by py-fsrs, the reference implementation
//! (`tests/fixtures/fsrs/reference-vectors.json`, `scripts/fsrs-vectors.py`).
//!
//! Lessons are reviewed days apart, not drilled within minutes, so there are no learning or
//! relearning steps: every review schedules whole days, and a review on the same day as the one
//! before uses FSRS's short-term stability formula. No fuzz: the interval shown is the one kept.

use thiserror::Error;

/// The number of FSRS-6 parameters.
pub const PARAMETER_COUNT: usize = 21;

/// FSRS-6's default parameters (trained on a large public review collection).
pub const DEFAULT_PARAMETERS: [f64; PARAMETER_COUNT] = [
    0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629,
    1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
];

/// The recall probability reviews are timed for, unless the user sets another.
pub const DEFAULT_RETENTION: f64 = 0.9;
/// The longest interval, in days (100 years).
pub const DEFAULT_MAXIMUM_INTERVAL: u32 = 36_500;

const STABILITY_MIN: f64 = 0.001;
const DIFFICULTY_MIN: f64 = 1.0;
const DIFFICULTY_MAX: f64 = 10.0;

const LOWER: [f64; PARAMETER_COUNT] = [
    STABILITY_MIN,
    STABILITY_MIN,
    STABILITY_MIN,
    STABILITY_MIN,
    1.0,
    0.001,
    0.001,
    0.001,
    0.0,
    0.0,
    0.001,
    0.001,
    0.001,
    0.001,
    0.0,
    0.0,
    1.0,
    0.0,
    0.0,
    0.0,
    0.1,
];
const UPPER: [f64; PARAMETER_COUNT] = [
    100.0, 100.0, 100.0, 100.0, 10.0, 4.0, 4.0, 0.75, 4.5, 0.8, 3.5, 5.0, 0.25, 0.9, 4.0, 1.0, 6.0, 2.0, 2.0, 0.8, 0.8,
];

#[derive(Debug, Clone, PartialEq, Error)]
pub enum FsrsError {
    #[error("FSRS needs {PARAMETER_COUNT} parameters, got {0}")]
    ParameterCount(usize),
    #[error("FSRS parameter {index} is {value}, outside {low}..={high}")]
    ParameterOutOfRange { index: usize, value: f64, low: f64, high: f64 },
    #[error("desired retention must be between 0.7 and 0.99, got {0}")]
    Retention(f64),
    #[error("the maximum interval must be at least 1 day")]
    MaximumInterval,
    #[error("a grade is again, hard, good or easy (or 1-4), got {0:?}")]
    Grade(String),
}

/// How well the learner recalled the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grade {
    /// Forgot it.
    Again = 1,
    /// Recalled it with serious effort.
    Hard = 2,
    /// Recalled it.
    Good = 3,
    /// Recalled it at once.
    Easy = 4,
}

impl Grade {
    pub const ALL: [Self; 4] = [Self::Again, Self::Hard, Self::Good, Self::Easy];

    /// `again`/`hard`/`good`/`easy`, or `1`–`4`.
    pub fn parse(raw: &str) -> Result<Self, FsrsError> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "again" | "1" => Ok(Self::Again),
            "hard" | "2" => Ok(Self::Hard),
            "good" | "3" => Ok(Self::Good),
            "easy" | "4" => Ok(Self::Easy),
            _ => Err(FsrsError::Grade(raw.to_owned())),
        }
    }

    pub fn from_number(n: i64) -> Option<Self> {
        Self::ALL.into_iter().find(|g| *g as i64 == n)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Again => "again",
            Self::Hard => "hard",
            Self::Good => "good",
            Self::Easy => "easy",
        }
    }

    pub fn number(self) -> i64 {
        self as i64
    }

    /// Whether the answer was recalled at all.
    pub fn recalled(self) -> bool {
        self != Self::Again
    }

    fn value(self) -> f64 {
        f64::from(self as u8)
    }
}

/// A memory's state: days until recall falls to 90 % (stability) and how hard it is to build
/// (difficulty, 1–10).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Memory {
    pub stability: f64,
    pub difficulty: f64,
}

/// The validated parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parameters([f64; PARAMETER_COUNT]);

impl Default for Parameters {
    fn default() -> Self {
        Self(DEFAULT_PARAMETERS)
    }
}

impl Parameters {
    pub fn new(values: &[f64]) -> Result<Self, FsrsError> {
        let values: [f64; PARAMETER_COUNT] = values.try_into().map_err(|_| FsrsError::ParameterCount(values.len()))?;
        for (index, value) in values.iter().enumerate() {
            if !(LOWER[index]..=UPPER[index]).contains(value) {
                return Err(FsrsError::ParameterOutOfRange {
                    index,
                    value: *value,
                    low: LOWER[index],
                    high: UPPER[index],
                });
            }
        }
        Ok(Self(values))
    }

    pub fn values(&self) -> &[f64; PARAMETER_COUNT] {
        &self.0
    }

    /// The forgetting curve's decay (negative).
    fn decay(&self) -> f64 {
        -self.0[20]
    }

    /// Chosen so that recall is 90 % after `stability` days.
    fn factor(&self) -> f64 {
        0.9_f64.powf(1.0 / self.decay()) - 1.0
    }
}

/// The scheduler: parameters, the retention reviews aim for, and the longest interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scheduler {
    w: Parameters,
    retention: f64,
    maximum_interval: u32,
}

impl Default for Scheduler {
    fn default() -> Self {
        Self { w: Parameters::default(), retention: DEFAULT_RETENTION, maximum_interval: DEFAULT_MAXIMUM_INTERVAL }
    }
}

/// What one review did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub memory: Memory,
    /// Days until the next review.
    pub interval: u32,
    /// The predicted recall just before this review (0 for a first review).
    pub retrievability: f64,
}

impl Scheduler {
    pub fn new(w: Parameters, retention: f64, maximum_interval: u32) -> Result<Self, FsrsError> {
        if !(0.7..=0.99).contains(&retention) {
            return Err(FsrsError::Retention(retention));
        }
        if maximum_interval == 0 {
            return Err(FsrsError::MaximumInterval);
        }
        Ok(Self { w, retention, maximum_interval })
    }

    pub fn with_retention(retention: f64) -> Result<Self, FsrsError> {
        Self::new(Parameters::default(), retention, DEFAULT_MAXIMUM_INTERVAL)
    }

    pub fn parameters(&self) -> &Parameters {
        &self.w
    }

    pub fn retention(&self) -> f64 {
        self.retention
    }

    /// The predicted probability of recall `elapsed_days` after the last review.
    pub fn retrievability(&self, stability: f64, elapsed_days: f64) -> f64 {
        (1.0 + self.w.factor() * elapsed_days.max(0.0) / stability).powf(self.w.decay())
    }

    /// Reviews a card: `memory` is `None` for a card never reviewed; `elapsed_days` are the
    /// whole days since its last review.
    pub fn review(&self, memory: Option<Memory>, elapsed_days: u32, grade: Grade) -> Step {
        let (memory, retrievability) = match memory {
            None => (
                Memory { stability: self.initial_stability(grade), difficulty: self.initial_difficulty(grade, true) },
                0.0,
            ),
            Some(m) => {
                let r = self.retrievability(m.stability, f64::from(elapsed_days));
                let stability = if elapsed_days == 0 {
                    self.short_term_stability(m.stability, grade)
                } else {
                    self.next_stability(m.difficulty, m.stability, r, grade)
                };
                (Memory { stability, difficulty: self.next_difficulty(m.difficulty, grade) }, r)
            }
        };
        Step { memory, interval: self.interval(memory.stability), retrievability }
    }

    /// Days until recall falls to the desired retention: at least 1, at most the maximum.
    pub fn interval(&self, stability: f64) -> u32 {
        let days = stability / self.w.factor() * (self.retention.powf(1.0 / self.w.decay()) - 1.0);
        // Whole days, rounded half to even as the reference does.
        let days = days.round_ties_even().clamp(1.0, f64::from(self.maximum_interval));
        // In range by the clamp above.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let days = days as u32;
        days
    }

    fn w(&self, i: usize) -> f64 {
        self.w.0[i]
    }

    fn initial_stability(&self, grade: Grade) -> f64 {
        self.w(grade as usize - 1).max(STABILITY_MIN)
    }

    fn initial_difficulty(&self, grade: Grade, clamp: bool) -> f64 {
        let d = self.w(4) - (self.w(5) * (grade.value() - 1.0)).exp() + 1.0;
        if clamp { d.clamp(DIFFICULTY_MIN, DIFFICULTY_MAX) } else { d }
    }

    fn next_difficulty(&self, difficulty: f64, grade: Grade) -> f64 {
        let delta = -(self.w(6) * (grade.value() - 3.0));
        let damped = difficulty + (10.0 - difficulty) * delta / 9.0;
        let target = self.initial_difficulty(Grade::Easy, false);
        (self.w(7) * target + (1.0 - self.w(7)) * damped).clamp(DIFFICULTY_MIN, DIFFICULTY_MAX)
    }

    fn short_term_stability(&self, stability: f64, grade: Grade) -> f64 {
        let mut increase = (self.w(17) * (grade.value() - 3.0 + self.w(18))).exp() * stability.powf(-self.w(19));
        if grade.recalled() {
            increase = increase.max(1.0);
        }
        (stability * increase).max(STABILITY_MIN)
    }

    fn next_stability(&self, difficulty: f64, stability: f64, r: f64, grade: Grade) -> f64 {
        let next = if grade.recalled() {
            let hard = if grade == Grade::Hard { self.w(15) } else { 1.0 };
            let easy = if grade == Grade::Easy { self.w(16) } else { 1.0 };
            stability
                * (1.0
                    + self.w(8).exp()
                        * (11.0 - difficulty)
                        * stability.powf(-self.w(9))
                        * (((1.0 - r) * self.w(10)).exp() - 1.0)
                        * hard
                        * easy)
        } else {
            let long_term = self.w(11)
                * difficulty.powf(-self.w(12))
                * ((stability + 1.0).powf(self.w(13)) - 1.0)
                * ((1.0 - r) * self.w(14)).exp();
            let short_term = stability / (self.w(17) * self.w(18)).exp();
            long_term.min(short_term)
        };
        next.max(STABILITY_MIN)
    }

    /// Replays a card's history of (whole days since the previous review, grade).
    pub fn replay(&self, history: impl IntoIterator<Item = (u32, Grade)>) -> Vec<Step> {
        let mut memory = None;
        history
            .into_iter()
            .map(|(elapsed, grade)| {
                let step = self.review(memory, elapsed, grade);
                memory = Some(step.memory);
                step
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_parse_by_name_and_number() {
        for g in Grade::ALL {
            assert_eq!(Grade::parse(g.as_str()), Ok(g));
            assert_eq!(Grade::parse(&g.number().to_string()), Ok(g));
            assert_eq!(Grade::from_number(g.number()), Some(g));
        }
        assert_eq!(Grade::parse(" Good "), Ok(Grade::Good));
        assert!(Grade::parse("fine").is_err());
        assert_eq!(Grade::from_number(5), None);
    }

    #[test]
    fn parameters_and_settings_are_checked() {
        assert!(Parameters::new(&DEFAULT_PARAMETERS).is_ok());
        assert_eq!(Parameters::new(&[1.0; 19]), Err(FsrsError::ParameterCount(19)));
        let mut bad = DEFAULT_PARAMETERS;
        bad[7] = 0.9;
        assert!(matches!(Parameters::new(&bad), Err(FsrsError::ParameterOutOfRange { index: 7, .. })));
        assert!(Scheduler::with_retention(0.5).is_err());
        assert!(Scheduler::new(Parameters::default(), 0.9, 0).is_err());
    }

    #[test]
    fn stability_is_when_recall_reaches_ninety_percent() {
        let s = Scheduler::default();
        for stability in [0.5, 3.0, 40.0] {
            assert!((s.retrievability(stability, stability) - 0.9).abs() < 1e-12);
        }
        assert!((s.retrievability(3.0, 0.0) - 1.0).abs() < 1e-12);
        // At the default retention the interval is the stability, rounded.
        assert_eq!(s.interval(7.4), 7);
        assert_eq!(s.interval(0.2), 1, "never less than a day");
    }

    #[test]
    fn forgetting_shortens_and_recalling_lengthens() {
        let s = Scheduler::default();
        let first = s.review(None, 0, Grade::Good).memory;
        let good = s.review(Some(first), 3, Grade::Good).memory;
        let again = s.review(Some(first), 3, Grade::Again).memory;
        assert!(good.stability > first.stability && again.stability < first.stability);
        assert!(again.difficulty > first.difficulty);
    }
}
