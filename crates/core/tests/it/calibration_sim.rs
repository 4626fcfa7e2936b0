//! How often calibration's verdict is right: simulated learners, each topic with its own true
//! level, a self-report before every checked answer, and answers graded with the rubric's three
//! grades or all or nothing. Figures in docs/knowledge-model.md (calibration).

// Counts of simulated topics become rates.
#![allow(clippy::cast_precision_loss)]

use crate::Rng;
use chrono::{DateTime, Duration, Utc};
use devcoach_core::checked::{CheckGrade, CheckKind, CheckedAnswer, Claim, SelfReport, Verdict, calibrate};

#[derive(Clone, Copy, PartialEq)]
enum Grading {
    /// The rubric: an answer is two halves (the idea, and why it holds), each right with the
    /// learner's chance; one half right is "partly".
    Rubric,
    /// Every answer right or wrong, never partly: the hardest case for the test.
    AllOrNothing,
}

/// One topic: `n` self-reports, each followed by a checked answer. The learner's claim comes
/// from how sure they feel (their true level, plus `bias`, plus noise); a calibrated learner's
/// answers then score what the claim predicts, a biased one's `bias` less.
fn topic(rng: &mut Rng, name: &str, n: i64, bias: f64, grading: Grading) -> Verdict {
    let start: DateTime<Utc> = devcoach_core::time::parse_timestamp("2026-01-01T09:00:00Z").expect("time");
    let level = 0.3 + 0.65 * rng.next();
    let (mut reports, mut answers) = (Vec::new(), Vec::new());
    for i in 0..n {
        let felt = level + bias + 0.1 * rng.normal();
        // The claim whose predicted share is nearest to how sure they feel.
        let claim = if felt >= 0.8 {
            Claim::Knew
        } else if felt >= 0.5 {
            Claim::Understood
        } else {
            Claim::Lost
        };
        let q = (claim.expects() - bias).clamp(0.0, 1.0);
        let grade = match grading {
            Grading::Rubric => match (rng.next() < q, rng.next() < q) {
                (true, true) => CheckGrade::Correct,
                (false, false) => CheckGrade::Wrong,
                _ => CheckGrade::Partly,
            },
            Grading::AllOrNothing if rng.next() < q => CheckGrade::Correct,
            Grading::AllOrNothing => CheckGrade::Wrong,
        };
        let at = start + Duration::days(2 * i);
        reports.push(SelfReport { topic: name.into(), claim, at });
        answers.push(CheckedAnswer {
            lesson_id: format!("{name}-{i}"),
            topic: name.into(),
            kind: CheckKind::Review,
            grade,
            answer: "words".into(),
            missing: None,
            at: at + Duration::hours(1),
        });
    }
    calibrate(&reports, &answers).remove(0).verdict
}

/// (share of topics flagged as overrating, as underrating) over `topics` simulated topics.
fn rates(seed: u64, topics: usize, n: i64, bias: f64, grading: Grading) -> (f64, f64) {
    let mut rng = Rng(seed);
    let (mut over, mut under) = (0, 0);
    for t in 0..topics {
        match topic(&mut rng, &format!("t{t}"), n, bias, grading) {
            Verdict::Overrates => over += 1,
            Verdict::Underrates => under += 1,
            _ => {}
        }
    }
    (f64::from(over) / topics as f64, f64::from(under) / topics as f64)
}

#[test]
// The figures are the point of this test: they are printed for the record.
#[allow(clippy::print_stdout)]
fn calibration_flags_a_learner_too_sure_by_25_points_and_spares_a_calibrated_one() {
    let topics = 10_000;
    for grading in [Grading::Rubric, Grading::AllOrNothing] {
        let name = if grading == Grading::Rubric { "rubric grades" } else { "all or nothing" };
        for n in [3, 5, 8, 12, 20] {
            let (false_over, false_under) = rates(1, topics, n, 0.0, grading);
            let (detected, _) = rates(2, topics, n, 0.25, grading);
            let (_, detected_under) = rates(3, topics, n, -0.25, grading);
            println!(
                "{name}, {n} checked answers a topic: calibrated learner flagged {:.1}% (over) {:.1}% (under); \
                 +25 points flagged {:.1}%; -25 points flagged {:.1}%",
                100.0 * false_over,
                100.0 * false_under,
                100.0 * detected,
                100.0 * detected_under
            );
            if grading == Grading::Rubric && n == 8 {
                assert!(detected >= 0.8, "a learner 25 points too sure is flagged on {detected:.3} of topics");
                assert!(false_over + false_under <= 0.05, "false flags {false_over:.3} + {false_under:.3}");
            }
        }
    }
}
