//! A synthetic learner with known forgetting curves, reviewing for 180 simulated days on the
//! schedule FSRS gives: how well does the knowledge model predict each review's outcome, next to
//! the original's only signal ("+1 confidence when they knew it")?
//!
//! The learner's true memory is not FSRS's: each topic has its own starting stability and
//! forgets along `R(t) = 1 / (1 + t / (9 S))`, growing stability with each successful recall
//! (more when the recall was hard) and losing most of it on a lapse. Onboarding ratings are
//! noisy, lesson feedback is self-report. Figures are recorded in `docs/knowledge-model.md`.

// Small simulated quantities (days, 0-10 ratings, probabilities) move between integer and float.
#![allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]

use crate::Rng;
use chrono::{DateTime, Duration, Utc};
use devcoach_core::checked::CheckGrade;
use devcoach_core::fsrs::{Grade, Scheduler};
use devcoach_core::knowledge_model::{Observation, TopicState, confidence, step_toward};
use devcoach_core::lesson::Feedback;
use devcoach_core::review::{CardSource, ReviewCard, grade};
use devcoach_core::time::iso_ms;

struct Topic {
    true_stability: f64,
    last_true: f64,
    card: ReviewCard,
    model: TopicState,
    baseline: i64,
    /// The learner's confidence on the map under this build's rule.
    shared: i64,
}

fn true_recall(stability: f64, days: f64) -> f64 {
    1.0 / (1.0 + days / (9.0 * stability))
}

/// The review card of topic `i`, taught at `taught`: due the next day.
fn new_card(i: i64, taught: DateTime<Utc>) -> ReviewCard {
    ReviewCard {
        lesson_id: format!("t{i}"),
        question: "q".into(),
        answer: "a".into(),
        source: CardSource::Derived,
        memory: None,
        due: iso_ms(taught + Duration::days(1)),
        last_review: None,
        reps: 0,
        lapses: 0,
    }
}

/// The grade a true outcome earns: easy when recall was near certain, hard when it was shaky.
fn outcome_grade(recalled: bool, truth: f64) -> Grade {
    if !recalled {
        Grade::Again
    } else if truth > 0.95 {
        Grade::Easy
    } else if truth < 0.7 {
        Grade::Hard
    } else {
        Grade::Good
    }
}

/// The learner's true memory after a review: spacing helps (more after a hard recall), a lapse
/// costs most of it.
fn after_review(stability: f64, recalled: bool, truth: f64) -> f64 {
    if recalled { stability * (1.3 + 3.0 * (1.0 - truth)) } else { (stability * 0.3).max(0.4) }
}

#[derive(Default, Clone)]
struct Score {
    n: u32,
    log_loss: f64,
    brier: f64,
    bins: [(f64, f64, u32); 10],
}

impl Score {
    fn add(&mut self, p: f64, recalled: bool) {
        let p = p.clamp(0.01, 0.99);
        let y = if recalled { 1.0 } else { 0.0 };
        self.n += 1;
        self.log_loss -= if recalled { p.ln() } else { (1.0 - p).ln() };
        self.brier += (p - y) * (p - y);
        let bin = &mut self.bins[usize::try_from(((p * 10.0).floor() as i64).clamp(0, 9)).expect("bin")];
        bin.0 += p;
        bin.1 += y;
        bin.2 += 1;
    }

    /// (log loss, Brier score, expected calibration error), per review.
    fn figures(&self) -> (f64, f64, f64) {
        let n = f64::from(self.n);
        let ece = self.bins.iter().map(|(p, y, _)| (p - y).abs()).sum::<f64>() / n;
        (self.log_loss / n, self.brier / n, ece)
    }
}

struct Scores {
    model: Score,
    baseline: Score,
    fsrs_only: Score,
    shared: Score,
}

fn simulate(seed: u64) -> Scores {
    let mut rng = Rng(seed);
    let scheduler = Scheduler::default();
    let start: DateTime<Utc> = devcoach_core::time::parse_timestamp("2026-01-01T09:00:00Z").expect("time");
    let (mut model, mut baseline, mut fsrs_only, mut shared) =
        (Score::default(), Score::default(), Score::default(), Score::default());
    let mut topics: Vec<Topic> = Vec::new();
    for i in 0..40 {
        // Strong and weak topics alike: true starting stability from half a day to 30 days.
        let true_stability = (0.5_f64.ln() + rng.next() * (30.0_f64.ln() - 0.5_f64.ln())).exp();
        let strength = (true_stability.ln_1p() / 31.0_f64.ln()).clamp(0.0, 1.0);
        let rated = ((strength * 10.0 + (rng.next() - 0.5) * 6.0).round() as i64).clamp(0, 10);
        let taught = start + Duration::days(i * 3);
        let mut state = TopicState::start(Observation::Assessment(rated), start, &scheduler);
        // The lesson, and the learner's own word on it.
        let feedback = if strength > 0.75 && rng.next() < 0.8 {
            Feedback::Know
        } else if rng.next() < 0.85 {
            Feedback::Understood
        } else {
            Feedback::DontKnow
        };
        state = state.observe(Observation::Feedback(feedback), taught, &scheduler);
        let baseline_start = rated + i64::from(feedback == Feedback::Know);
        topics.push(Topic {
            true_stability: if feedback == Feedback::DontKnow { true_stability * 0.5 } else { true_stability * 1.5 },
            last_true: 0.0,
            card: new_card(i, taught),
            model: state,
            baseline: baseline_start.min(10),
            shared: baseline_start.min(10),
        });
        topics.last_mut().expect("topic").last_true = f64::from(u32::try_from(i * 3).expect("day"));
    }
    for day in 0..180 {
        let now = start + Duration::days(day);
        let today = f64::from(u32::try_from(day).expect("day"));
        for t in &mut topics {
            if t.card.due > iso_ms(now) {
                continue;
            }
            let truth = true_recall(t.true_stability, today - t.last_true);
            let recalled = rng.next() < truth;
            model.add(t.model.recall(now, &scheduler), recalled);
            baseline.add(t.baseline as f64 / 10.0, recalled);
            shared.add(t.shared as f64 / 10.0, recalled);
            if let Some(r) = devcoach_core::review::retrievability(&scheduler, &t.card, now) {
                fsrs_only.add(r, recalled);
            }
            let g = outcome_grade(recalled, truth);
            // The learner's true memory: spacing helps, a lapse costs most of it.
            t.true_stability = after_review(t.true_stability, recalled, truth);
            t.last_true = today;
            let graded = grade(&scheduler, &t.card, g, now);
            t.card.memory = Some(graded.step.memory);
            t.card.last_review = Some(iso_ms(now));
            t.card.due = graded.due;
            t.card.reps = graded.reps;
            // The first learner's grades are true: read as checked.
            let review = Observation::Review { grade: g, checked: true };
            t.model = t.model.observe(review, now, &scheduler);
            if let Some(direction) = review.direction() {
                t.shared = step_toward(t.shared, confidence(t.model.now(now, &scheduler)), direction);
            }
            if recalled {
                t.baseline = (t.baseline + 1).min(10);
            }
        }
    }
    Scores { model, baseline, fsrs_only, shared }
}

#[test]
// The figures are the point of this test: they are printed for the record.
#[allow(clippy::print_stdout)]
fn the_model_predicts_recall_better_than_plus_one_on_know() {
    let runs: Vec<Scores> = (1..=5).map(simulate).collect();
    let total = |part: fn(&Scores) -> &Score| merged(runs.iter().map(|r| part(r).clone()));
    let (model, baseline, fsrs_only, shared) =
        (total(|r| &r.model), total(|r| &r.baseline), total(|r| &r.fsrs_only), total(|r| &r.shared));
    let (ml, mb, me) = model.figures();
    let (bl, bb, be) = baseline.figures();
    let (fl, fb, fe) = fsrs_only.figures();
    let (sl, sb, se) = shared.figures();
    println!("reviews: {}", model.n);
    for (name, s) in [("model", &model), ("baseline", &baseline)] {
        let bins: Vec<String> = s
            .bins
            .iter()
            .filter(|b| b.2 > 0)
            .map(|(p, y, k)| format!("{:.2}->{:.2} ({k})", p / f64::from(*k), y / f64::from(*k)))
            .collect();
        println!("{name} bins: {}", bins.join("  "));
    }
    println!("knowledge model:   log loss {ml:.3}  brier {mb:.3}  calibration error {me:.3}");
    println!("+1 on know:        log loss {bl:.3}  brier {bb:.3}  calibration error {be:.3}");
    println!("confidence (step): log loss {sl:.3}  brier {sb:.3}  calibration error {se:.3}");
    println!(
        "FSRS card recall:  log loss {fl:.3}  brier {fb:.3}  calibration error {fe:.3}  ({} repeat reviews)",
        fsrs_only.n
    );
    assert!(model.n > 1000, "enough reviews to judge: {}", model.n);
    assert!(ml + 0.15 < bl, "log loss: model {ml:.3} vs baseline {bl:.3}");
    assert!(me < 0.12 && me < be / 2.0, "calibration error: model {me:.3} vs baseline {be:.3}");
    // The learner's number, moved one step per review toward the model, stays a record and not
    // a forecast: predictions (and the briefing's estimates) come from the model.
    assert!(ml + 0.15 < sl, "log loss: model {ml:.3} vs the stepped confidence {sl:.3}");
    assert_eq!(confidence(0.0), 0);
}

/// What the model is told about the biased learner's reviews. The three are told about the
/// same reviews of the same learner and scored on them (a paired comparison: the schedule,
/// and so which reviews happen, is the same for all three).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Told {
    /// The agent checks each answer (the true outcome), and an explain-back follows each lesson.
    Checked = 0,
    /// The learner's own grades, weighed as self-grades.
    SelfGraded = 1,
    /// The same self-grades, read as if they had been checked (one weight for every review, as
    /// before checked recall).
    SelfGradedReadAsChecked = 2,
}

/// Which way the learner's own word leans.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Bias {
    /// Ratings two points high, "I knew that" for topics they half know, a self-graded review
    /// that says good or hard for most misses.
    Over,
    /// Ratings two points low, "couldn't follow" for a good share of what they followed, a
    /// self-graded review that says hard or again for many recalls.
    Under,
}

/// The learner's true forgetting curve, none of them FSRS's own; each gives 90 % at `t = S`.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Curve {
    /// `1 / (1 + t / 9S)`.
    Hyperbolic,
    /// A power law with a slower tail, `(1 + t / 4.263 S)^-0.5`.
    Power,
    /// `0.9^(t / S)`: faster than FSRS-6's curve at long gaps.
    Exponential,
}

impl Curve {
    fn recall(self, stability: f64, days: f64) -> f64 {
        match self {
            Self::Hyperbolic => true_recall(stability, days),
            Self::Power => (1.0 + days / (4.263 * stability)).powf(-0.5),
            Self::Exponential => 0.9_f64.powf(days / stability),
        }
    }
}

/// One run of a biased learner: 40 topics taught one every three days, reviewed for 180 days
/// on the schedule their grades give (the learner's own grades, or the checked ones when
/// `checked_schedule`). Three models follow the run, each told one [`Told`]; every review is
/// scored against the true outcome, whatever a model was told.
fn simulate_biased(seed: u64, bias: Bias, curve: Curve, checked_schedule: bool) -> [Score; 3] {
    let mut rng = Rng(seed);
    let scheduler = Scheduler::default();
    let start: DateTime<Utc> = devcoach_core::time::parse_timestamp("2026-01-01T09:00:00Z").expect("time");
    let mut scores = [Score::default(), Score::default(), Score::default()];
    let mut topics: Vec<(Topic, [TopicState; 3])> = Vec::new();
    let lean = if bias == Bias::Over { 2.0 } else { -2.0 };
    for i in 0..40 {
        let true_stability = (0.5_f64.ln() + rng.next() * (30.0_f64.ln() - 0.5_f64.ln())).exp();
        let strength = (true_stability.ln_1p() / 31.0_f64.ln()).clamp(0.0, 1.0);
        let rated = ((strength * 10.0 + lean + (rng.next() - 0.5) * 6.0).round() as i64).clamp(0, 10);
        let taught = start + Duration::days(i * 3);
        let understood = rng.next() < 0.85;
        let (x, y, z) = (rng.next(), rng.next(), rng.next());
        let feedback = match bias {
            Bias::Over if strength > 0.4 && x < 0.8 => Feedback::Know,
            Bias::Over if y < 0.9 => Feedback::Understood,
            Bias::Over => Feedback::DontKnow,
            Bias::Under if strength > 0.75 && x < 0.3 => Feedback::Know,
            Bias::Under if !understood || y < 0.35 => Feedback::DontKnow,
            Bias::Under => Feedback::Understood,
        };
        let explained = if understood && z < 0.3 + 0.7 * strength.max(0.5) {
            CheckGrade::Correct
        } else if understood {
            CheckGrade::Partly
        } else {
            CheckGrade::Wrong
        };
        let told = TopicState::start(Observation::Assessment(rated), start, &scheduler).observe(
            Observation::Feedback(feedback),
            taught,
            &scheduler,
        );
        let models = [told.observe(Observation::ExplainBack(explained), taught, &scheduler), told, told];
        let topic = Topic {
            true_stability: if understood { true_stability * 1.5 } else { true_stability * 0.5 },
            last_true: f64::from(u32::try_from(i * 3).expect("day")),
            card: new_card(i, taught),
            model: told,
            baseline: 0,
            shared: 0,
        };
        topics.push((topic, models));
    }
    for day in 0..180 {
        let now = start + Duration::days(day);
        let today = f64::from(u32::try_from(day).expect("day"));
        for (t, models) in &mut topics {
            if t.card.due > iso_ms(now) {
                continue;
            }
            let truth = curve.recall(t.true_stability, today - t.last_true);
            let recalled = rng.next() < truth;
            for (score, model) in scores.iter_mut().zip(models.iter()) {
                score.add(model.recall(now, &scheduler), recalled);
            }
            let true_grade = outcome_grade(recalled, truth);
            let x = rng.next();
            let said = match (bias, true_grade) {
                (Bias::Over, Grade::Again) if x < 0.3 => Grade::Good,
                (Bias::Over, Grade::Hard) => Grade::Good,
                (Bias::Under, Grade::Good | Grade::Easy) if x < 0.2 => Grade::Again,
                (Bias::Under, Grade::Hard) if x < 0.4 => Grade::Again,
                (Bias::Over, Grade::Again) | (Bias::Under, Grade::Good | Grade::Easy) if x < 0.6 => Grade::Hard,
                (_, other) => other,
            };
            t.true_stability = after_review(t.true_stability, recalled, truth);
            t.last_true = today;
            let graded = grade(&scheduler, &t.card, if checked_schedule { true_grade } else { said }, now);
            t.card.memory = Some(graded.step.memory);
            t.card.last_review = Some(iso_ms(now));
            t.card.due = graded.due;
            t.card.reps = graded.reps;
            for (told, model) in
                [Told::Checked, Told::SelfGraded, Told::SelfGradedReadAsChecked].into_iter().zip(models.iter_mut())
            {
                let o = match told {
                    Told::Checked => Observation::Review { grade: true_grade, checked: true },
                    Told::SelfGraded => Observation::Review { grade: said, checked: false },
                    Told::SelfGradedReadAsChecked => Observation::Review { grade: said, checked: true },
                };
                *model = model.observe(o, now, &scheduler);
            }
        }
    }
    scores
}

fn merged(parts: impl IntoIterator<Item = Score>) -> Score {
    let mut total = Score::default();
    for part in parts {
        total.n += part.n;
        total.log_loss += part.log_loss;
        total.brier += part.brier;
        for (t, p) in total.bins.iter_mut().zip(part.bins) {
            t.0 += p.0;
            t.1 += p.1;
            t.2 += p.2;
        }
    }
    total
}

#[test]
// The figures are the point of this test: they are printed for the record.
#[allow(clippy::print_stdout)]
fn checked_answers_see_through_a_learner_who_overrates() {
    let runs: Vec<[Score; 3]> =
        (1..=5).map(|seed| simulate_biased(seed, Bias::Over, Curve::Hyperbolic, false)).collect();
    let total = |told: Told| merged(runs.iter().map(|r| r[told as usize].clone()));
    let (checked, self_graded, naive) =
        (total(Told::Checked), total(Told::SelfGraded), total(Told::SelfGradedReadAsChecked));
    let (cl, cb, ce) = checked.figures();
    let (sl, sb, se) = self_graded.figures();
    let (nl, nb, ne) = naive.figures();
    println!("overrater, hyperbolic forgetting, self-graded schedule, {} reviews:", checked.n);
    println!("checked answers:               log loss {cl:.3}  brier {cb:.3}  calibration error {ce:.3}");
    println!("self-graded, weighed as such:  log loss {sl:.3}  brier {sb:.3}  calibration error {se:.3}");
    println!("self-graded, read as checked:  log loss {nl:.3}  brier {nb:.3}  calibration error {ne:.3}");
    assert!(checked.n > 800, "enough reviews: {}", checked.n);
    assert!(cl + 0.02 < sl && ce < se, "checked answers predict better: {cl:.3}/{ce:.3} vs {sl:.3}/{se:.3}");
    assert!(sl < nl && se < ne, "weighing self-grades as such helps: {sl:.3}/{se:.3} vs {nl:.3}/{ne:.3}");
}

#[test]
// The figures are the point of this test: they are printed for the record.
#[allow(clippy::print_stdout)]
fn checked_answers_never_hurt_whichever_way_the_learner_leans_and_forgets() {
    let mut worse = Vec::new();
    for checked_schedule in [false, true] {
        for curve in [Curve::Hyperbolic, Curve::Power, Curve::Exponential] {
            for bias in [Bias::Over, Bias::Under] {
                let mut line = Vec::new();
                let (mut all_checked, mut all_self) = (Vec::new(), Vec::new());
                for seed in 1..=5 {
                    let [checked, self_graded, _] = simulate_biased(seed, bias, curve, checked_schedule);
                    let (cl, sl) = (checked.figures().0, self_graded.figures().0);
                    line.push(format!("{cl:.3}/{sl:.3}"));
                    // The underconfident learner's own word hides what they know: checked answers
                    // must help on every seed. The overrater's inflated grades are close to the
                    // truth of a learner who recalls most cards, so there the test is the total.
                    if bias == Bias::Under && cl > sl {
                        worse.push(format!(
                            "{bias:?} learner, {curve:?} forgetting, seed {seed}: checked answers made log loss worse ({cl:.4} vs {sl:.4})"
                        ));
                    }
                    all_checked.push(checked);
                    all_self.push(self_graded);
                }
                let (checked, self_graded) = (merged(all_checked), merged(all_self));
                let ((cl, cb, ce), (sl, sb, se)) = (checked.figures(), self_graded.figures());
                if cl > sl + 0.005 {
                    worse.push(format!("{bias:?} learner, {curve:?} forgetting, five seeds: {cl:.4} vs {sl:.4}"));
                }
                let schedule = if checked_schedule { "checked" } else { "self-graded" };
                println!(
                    "{bias:?}/{curve:?}/{schedule} schedule, {} reviews: checked {cl:.3} {cb:.3} {ce:.3}, self-graded {sl:.3} {sb:.3} {se:.3}; per seed {}",
                    checked.n,
                    line.join(" ")
                );
            }
        }
    }
    assert!(worse.is_empty(), "{}", worse.join("\n"));
}
