//! Fitting FSRS to a learner whose memory follows FSRS with other parameters than the defaults:
//! the fitted parameters must predict unseen cards of that learner better than the defaults.

use crate::Rng;
use devcoach_core::fsrs::{DEFAULT_PARAMETERS, Grade, Memory, Parameters, Scheduler};
use devcoach_core::fsrs_fit::{History, fit, log_loss};

/// Cards reviewed on the default schedule by a learner whose true memory uses `truth`.
fn learner(truth: &Parameters, cards: usize, rng: &mut Rng) -> Vec<History> {
    let schedule = Scheduler::default();
    let real = Scheduler::new(*truth, 0.9, 36_500).expect("truth");
    (0..cards)
        .map(|_| {
            let mut history = Vec::new();
            let (mut planned, mut actual): (Option<Memory>, Option<Memory>) = (None, None);
            let mut gap = 0;
            for _ in 0..8 {
                let grade = match actual {
                    None => {
                        if rng.next() < 0.2 {
                            Grade::Again
                        } else {
                            Grade::Good
                        }
                    }
                    Some(m) => {
                        let r = real.retrievability(m.stability, f64::from(gap));
                        if rng.next() < r { if r > 0.95 { Grade::Easy } else { Grade::Good } } else { Grade::Again }
                    }
                };
                history.push((gap, grade));
                actual = Some(real.review(actual, gap, grade).memory);
                let step = schedule.review(planned, gap, grade);
                planned = Some(step.memory);
                // Learners are late now and then.
                let late = rng.next() < 0.3;
                // Up to as late again as the interval itself.
                let extra = (0..step.interval).filter(|_| rng.next() < 0.5).count();
                gap = step.interval + if late { 1 + u32::try_from(extra).expect("small") } else { 0 };
            }
            history
        })
        .collect()
}

#[test]
// The figures are printed for the record (docs/PERFORMANCE.md, docs/knowledge-model.md).
#[allow(clippy::print_stdout)]
fn fitted_parameters_predict_unseen_cards_better() {
    let mut truth = DEFAULT_PARAMETERS;
    truth[0] = 0.6; // forgets a failed first answer more slowly
    truth[2] = 6.0; // and a good first answer holds much longer
    truth[8] = 1.2; // gains less from each success
    truth[20] = 0.35; // and forgets along a steeper curve
    let truth = Parameters::new(&truth).expect("valid");
    let mut rng = Rng(7);
    let train = learner(&truth, 150, &mut rng);
    let test = learner(&truth, 150, &mut rng);
    let fitted = fit(&train, &Parameters::default()).expect("enough reviews");
    let (default_test, n) = log_loss(&Parameters::default(), &test);
    let (fitted_test, _) = log_loss(&fitted.parameters, &test);
    let (truth_test, _) = log_loss(&truth, &test);
    println!(
        "train: {} repeat reviews, log loss {:.4} -> {:.4} (cross-validated {:.4} -> {:.4}, kept {}); held-out ({n}): defaults {default_test:.4}, fitted {fitted_test:.4}, true parameters {truth_test:.4}",
        fitted.repeat_reviews,
        fitted.log_loss_before,
        fitted.log_loss_after,
        fitted.held_out_before,
        fitted.held_out_after,
        fitted.kept
    );
    assert!(fitted.kept && fitted.held_out_after < fitted.held_out_before, "{fitted:?}");
    assert!(fitted.log_loss_after < fitted.log_loss_before);
    assert!(fitted_test < default_test - 0.01, "held-out: fitted {fitted_test:.4} vs defaults {default_test:.4}");
}

/// A learner whose memory is FSRS's defaults, nearly: an in-sample gain is noise, and what
/// `fit` keeps must never predict new cards worse than the defaults do.
#[test]
#[allow(clippy::print_stdout)]
fn a_learner_near_the_defaults_is_never_given_a_worse_fit() {
    for seed in [3, 11, 29] {
        let mut near = DEFAULT_PARAMETERS;
        near[8] *= 1.02;
        near[20] *= 0.98;
        let truth = Parameters::new(&near).expect("valid");
        let mut rng = Rng(seed);
        let train = learner(&truth, 150, &mut rng);
        let test = learner(&truth, 300, &mut rng);
        let fitted = fit(&train, &Parameters::default()).expect("enough reviews");
        let (default_test, _) = log_loss(&Parameters::default(), &test);
        let (kept_test, _) = log_loss(&fitted.parameters, &test);
        println!(
            "seed {seed}: kept {}; cross-validated {:.4} -> {:.4}; new cards: defaults {default_test:.4}, kept {kept_test:.4}",
            fitted.kept, fitted.held_out_before, fitted.held_out_after
        );
        assert!(kept_test <= default_test + 1e-9, "seed {seed}: kept {kept_test:.4} vs defaults {default_test:.4}");
    }
}
