//! Fitting FSRS's parameters to one learner's own review log.
//!
//! The reference optimiser trains all 21 parameters by backpropagation through each card's
//! history. Our logs are small (hundreds to a few thousand reviews), so a plain projected
//! gradient descent with numeric gradients does the job in well under a second, with a pull
//! towards the defaults so a short log cannot wander far from what millions of reviews taught.

use thiserror::Error;

use crate::fsrs::{DEFAULT_PARAMETERS, Grade, Memory, PARAMETER_COUNT, Parameters, Scheduler};

/// Repeat reviews (a card seen again at least a day later) needed before fitting.
pub const MIN_REPEAT_REVIEWS: usize = 200;

const STEPS: usize = 120;
const LEARNING_RATE: f64 = 0.02;
/// Pull towards the defaults, in the objective's units (mean log loss per review).
const PRIOR_WEIGHT: f64 = 0.02;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum FitError {
    #[error("fitting needs {MIN_REPEAT_REVIEWS} repeat reviews; the log has {0} so far")]
    NotEnoughReviews(usize),
}

/// One card's reviews in order: whole days since the review before (the first is ignored), and
/// the grade.
pub type History = Vec<(u32, Grade)>;

/// Folds of the cross-validation that decides whether a fit is kept.
pub const FOLDS: usize = 5;

/// The outcome of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The parameters to use: the fitted ones when they predicted better on cards they were not
    /// fitted to, else the current ones unchanged.
    pub parameters: Parameters,
    /// Mean log loss of the repeat reviews under the current and the returned parameters.
    pub log_loss_before: f64,
    pub log_loss_after: f64,
    pub repeat_reviews: usize,
    /// Cross-validated: mean log loss on the cards each fold's fit never saw, under the current
    /// parameters and under those fits.
    pub held_out_before: f64,
    pub held_out_after: f64,
    /// Whether the fit beat the current parameters on held-out cards (and so was kept).
    pub kept: bool,
}

/// Mean log loss of every repeat review's outcome under `w`, and how many there were. Same-day
/// reviews update the memory but are not scored (FSRS predicts across days).
pub fn log_loss(w: &Parameters, histories: &[History]) -> (f64, usize) {
    let losses = review_losses(w, histories);
    let n = losses.len();
    (if n == 0 { 0.0 } else { losses.iter().sum::<f64>() / count_f64(n) }, n)
}

/// Each repeat review's log loss under `w`, in order.
fn review_losses(w: &Parameters, histories: &[History]) -> Vec<f64> {
    let scheduler = Scheduler::new(*w, 0.9, crate::fsrs::DEFAULT_MAXIMUM_INTERVAL).unwrap_or_default();
    let mut out = Vec::new();
    for history in histories {
        let mut memory: Option<Memory> = None;
        for &(elapsed, grade) in history {
            if let Some(m) = memory
                && elapsed > 0
            {
                let r = scheduler.retrievability(m.stability, f64::from(elapsed)).clamp(1e-4, 1.0 - 1e-4);
                out.push(if grade.recalled() { -r.ln() } else { -(1.0 - r).ln() });
            }
            memory = Some(scheduler.review(memory, elapsed, grade).memory);
        }
    }
    out
}

fn count_f64(n: usize) -> f64 {
    f64::from(u32::try_from(n).unwrap_or(u32::MAX))
}

const LOWER: [f64; PARAMETER_COUNT] = [
    0.001, 0.001, 0.001, 0.001, 1.0, 0.001, 0.001, 0.001, 0.0, 0.0, 0.001, 0.001, 0.001, 0.001, 0.0, 0.0, 1.0, 0.0,
    0.0, 0.0, 0.1,
];
const UPPER: [f64; PARAMETER_COUNT] = [
    100.0, 100.0, 100.0, 100.0, 10.0, 4.0, 4.0, 0.75, 4.5, 0.8, 3.5, 5.0, 0.25, 0.9, 4.0, 1.0, 6.0, 2.0, 2.0, 0.8, 0.8,
];

/// Parameters in [0, 1] units, so one step size suits them all. The four initial stabilities
/// span 0.001–100 days and move on a log scale.
fn to_unit(w: &[f64; PARAMETER_COUNT]) -> [f64; PARAMETER_COUNT] {
    std::array::from_fn(|i| {
        if i < 4 {
            (w[i].ln() - LOWER[i].ln()) / (UPPER[i].ln() - LOWER[i].ln())
        } else {
            (w[i] - LOWER[i]) / (UPPER[i] - LOWER[i])
        }
    })
}

fn from_unit(x: &[f64; PARAMETER_COUNT]) -> [f64; PARAMETER_COUNT] {
    std::array::from_fn(|i| {
        let u = x[i].clamp(0.0, 1.0);
        if i < 4 {
            (LOWER[i].ln() + u * (UPPER[i].ln() - LOWER[i].ln())).exp().clamp(LOWER[i], UPPER[i])
        } else {
            (LOWER[i] + u * (UPPER[i] - LOWER[i])).clamp(LOWER[i], UPPER[i])
        }
    })
}

fn objective(x: &[f64; PARAMETER_COUNT], prior: &[f64; PARAMETER_COUNT], histories: &[History]) -> f64 {
    let w = Parameters::new(&from_unit(x)).unwrap_or_default();
    let pull: f64 = x.iter().zip(prior).map(|(a, b)| (a - b) * (a - b)).sum();
    log_loss(&w, histories).0 + PRIOR_WEIGHT * pull
}

/// Fits parameters to `histories`, starting from (and pulled towards) the defaults, and keeps
/// them only when they beat `current` on reviews they were not fitted to: each of [`FOLDS`]
/// folds of the cards is predicted by a fit to the others, against `current` on the same cards.
/// An in-sample gain alone (a learner near the defaults) is not enough.
pub fn fit(histories: &[History], current: &Parameters) -> Result<Fit, FitError> {
    let (before, repeat_reviews) = log_loss(current, histories);
    if repeat_reviews < MIN_REPEAT_REVIEWS {
        return Err(FitError::NotEnoughReviews(repeat_reviews));
    }
    // Per held-out review: how much less the fold's fit lost than the current parameters.
    let mut gains: Vec<f64> = Vec::with_capacity(repeat_reviews);
    let (mut held_before, mut held_after, mut held_n) = (0.0, 0.0, 0usize);
    for fold in 0..FOLDS {
        let train: Vec<History> =
            histories.iter().enumerate().filter(|(i, _)| i % FOLDS != fold).map(|(_, h)| h.clone()).collect();
        let test: Vec<History> =
            histories.iter().enumerate().filter(|(i, _)| i % FOLDS == fold).map(|(_, h)| h.clone()).collect();
        let fitted = optimize(&train);
        let (was, now) = (review_losses(current, &test), review_losses(&fitted, &test));
        held_before += was.iter().sum::<f64>();
        held_after += now.iter().sum::<f64>();
        held_n += was.len();
        gains.extend(was.iter().zip(&now).map(|(a, b)| a - b));
    }
    let held = count_f64(held_n.max(1));
    let (held_out_before, held_out_after) = (held_before / held, held_after / held);
    let keep = |parameters: Parameters, after: f64| Fit {
        parameters,
        log_loss_before: before,
        log_loss_after: after,
        repeat_reviews,
        held_out_before,
        held_out_after,
        kept: parameters != *current,
    };
    // Kept only for a gain the held-out reviews show: more than one standard error above nothing
    // (a learner near the current parameters gains noise, not knowledge).
    if !clearly_positive(&gains) {
        return Ok(keep(*current, before));
    }
    let parameters = optimize(histories);
    let (after, _) = log_loss(&parameters, histories);
    // Never hand back parameters that explain the whole log worse than the current ones.
    if after >= before {
        return Ok(keep(*current, before));
    }
    Ok(keep(parameters, after))
}

/// Whether the mean of `gains` is more than one standard error above zero (a one-sided test at
/// about 84 %: a few hundred reviews cannot show more, and a fit that is merely not worse is
/// not worth changing a schedule for).
fn clearly_positive(gains: &[f64]) -> bool {
    if gains.len() < 2 {
        return false;
    }
    let n = count_f64(gains.len());
    let mean = gains.iter().sum::<f64>() / n;
    let variance = gains.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / (n - 1.0);
    mean > (variance / n).sqrt()
}

/// The parameters that fit `histories` best, from (and pulled towards) the defaults.
fn optimize(histories: &[History]) -> Parameters {
    let start = Parameters::default();
    let prior = to_unit(&DEFAULT_PARAMETERS);
    let mut x = prior;
    // Adam on numeric gradients, projected onto the box after each step.
    let (mut m, mut v) = ([0.0; PARAMETER_COUNT], [0.0; PARAMETER_COUNT]);
    let (b1, b2, eps, h) = (0.9_f64, 0.999_f64, 1e-8, 1e-4);
    let mut best = (objective(&x, &prior, histories), x);
    for step in 1..=STEPS {
        let mut grad = [0.0; PARAMETER_COUNT];
        for i in 0..PARAMETER_COUNT {
            let (mut up, mut down) = (x, x);
            up[i] = (x[i] + h).min(1.0);
            down[i] = (x[i] - h).max(0.0);
            let span = up[i] - down[i];
            if span > 0.0 {
                grad[i] = (objective(&up, &prior, histories) - objective(&down, &prior, histories)) / span;
            }
        }
        let t = i32::try_from(step).unwrap_or(i32::MAX);
        for i in 0..PARAMETER_COUNT {
            m[i] = b1 * m[i] + (1.0 - b1) * grad[i];
            v[i] = b2 * v[i] + (1.0 - b2) * grad[i] * grad[i];
            let m_hat = m[i] / (1.0 - b1.powi(t));
            let v_hat = v[i] / (1.0 - b2.powi(t));
            x[i] = (x[i] - LEARNING_RATE * m_hat / (v_hat.sqrt() + eps)).clamp(0.0, 1.0);
        }
        let value = objective(&x, &prior, histories);
        if value < best.0 {
            best = (value, x);
        }
    }
    Parameters::new(&from_unit(&best.1)).unwrap_or(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_scaling_round_trips() {
        let back = from_unit(&to_unit(&DEFAULT_PARAMETERS));
        for (a, b) in back.iter().zip(DEFAULT_PARAMETERS) {
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
    }

    #[test]
    fn a_short_log_is_not_fitted() {
        let histories = vec![vec![(0, Grade::Good), (3, Grade::Good)]; 10];
        assert_eq!(fit(&histories, &Parameters::default()), Err(FitError::NotEnoughReviews(10)));
        assert_eq!(log_loss(&Parameters::default(), &[]).1, 0);
    }
}
