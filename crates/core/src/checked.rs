//! Checked recall: answers in the learner's own words, graded by the agent against a lesson's
//! key idea, and how well the learner's own word about a topic agrees with them (calibration).
//!
//! A self-report ("I knew that", a review graded by the learner) says what the learner believes;
//! a checked answer says what they could produce. Research on learning with AI assistants finds
//! the two drift apart (an illusion of competence), so the knowledge model weighs checked
//! answers more, and calibration shows the learner, per topic, where they over- or underrate
//! themselves.

use chrono::{DateTime, Duration, Utc};

use crate::fsrs::Grade;
use crate::lesson::Feedback;
use crate::limits;

/// The rubric's grade of an answer in the learner's own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckGrade {
    /// The key idea is there, in the learner's words; small wording slips do not count.
    Correct,
    /// Part of the idea, or the idea with a real gap or error in it.
    Partly,
    /// Missing, wrong, or only the lesson's words repeated without the idea.
    Wrong,
}

impl CheckGrade {
    pub const ALL: [CheckGrade; 3] = [Self::Correct, Self::Partly, Self::Wrong];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Correct => "correct",
            Self::Partly => "partly",
            Self::Wrong => "wrong",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.as_str() == s)
    }

    /// The FSRS rating a checked review of this grade schedules with. (`easy` is the agent's
    /// call on a correct answer given at once; the rubric alone never says it.)
    pub fn review_grade(self) -> Grade {
        match self {
            Self::Correct => Grade::Good,
            Self::Partly => Grade::Hard,
            Self::Wrong => Grade::Again,
        }
    }

    /// The rubric grade an FSRS rating of a checked review stands for.
    pub fn of_review(grade: Grade) -> Self {
        match grade {
            Grade::Again => Self::Wrong,
            Grade::Hard => Self::Partly,
            Grade::Good | Grade::Easy => Self::Correct,
        }
    }

    /// How much of the answer counts as confirmed: a partial answer confirms half a claim.
    pub fn score(self) -> f64 {
        match self {
            Self::Correct => 1.0,
            Self::Partly => 0.5,
            Self::Wrong => 0.0,
        }
    }
}

/// A learner's answer as the grader records it: their words (trimmed, never empty) and, unless
/// it was correct, the missing piece in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub answer: String,
    pub missing: Option<String>,
}

/// Why a check was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("`answer` must hold the learner's own words (it is empty)")]
    EmptyAnswer,
    #[error("`answer` is {0} characters; at most {max} are kept", max = limits::CHECK_ANSWER_CHARS)]
    LongAnswer(usize),
    #[error("`missing` is {0} characters; name the missing piece in one line (at most {max})", max = limits::CHECK_MISSING_CHARS)]
    LongMissing(usize),
}

impl Check {
    /// Checks the sizes (limits in [`crate::limits`]); a blank `missing` counts as none.
    pub fn new(answer: &str, missing: Option<&str>) -> Result<Self, CheckError> {
        let answer = answer.trim();
        if answer.is_empty() {
            return Err(CheckError::EmptyAnswer);
        }
        let chars = answer.chars().count();
        if chars > limits::CHECK_ANSWER_CHARS {
            return Err(CheckError::LongAnswer(chars));
        }
        // One line: line breaks and runs of spaces read as one space.
        let missing = missing.map(|m| m.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|m| !m.is_empty());
        if let Some(m) = &missing {
            let chars = m.chars().count();
            if chars > limits::CHECK_MISSING_CHARS {
                return Err(CheckError::LongMissing(chars));
            }
        }
        Ok(Self { answer: answer.to_owned(), missing })
    }
}

/// What a checked answer was about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// The learner explained a lesson's idea back, right after it.
    ExplainBack,
    /// The learner answered a review card's question in their own words.
    Review,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ExplainBack => "explain_back",
            Self::Review => "review",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::ExplainBack, Self::Review].into_iter().find(|k| k.as_str() == s)
    }
}

/// What the learner said of themselves about a topic: a lesson's feedback, or a review they
/// graded themselves (in the terminal or the dashboard, or relayed by the agent unchecked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Claim {
    /// "I already knew this", or a self-graded good / easy review.
    Knew,
    /// "New, and now clear", or a self-graded hard review: they expect to get it mostly right.
    Understood,
    /// "Could not follow", or a self-graded again: they expect to miss it.
    Lost,
}

impl Claim {
    pub const ALL: [Claim; 3] = [Self::Knew, Self::Understood, Self::Lost];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Knew => "knew",
            Self::Understood => "understood",
            Self::Lost => "lost",
        }
    }

    pub fn of_feedback(f: Feedback) -> Self {
        match f {
            Feedback::Know => Self::Knew,
            Feedback::Understood => Self::Understood,
            Feedback::DontKnow => Self::Lost,
        }
    }

    pub fn of_self_grade(g: Grade) -> Self {
        match g {
            Grade::Good | Grade::Easy => Self::Knew,
            Grade::Hard => Self::Understood,
            Grade::Again => Self::Lost,
        }
    }

    /// The share of a checked answer the claim predicts: what calibration compares with.
    /// "I knew it" allows the odd slip: a promise of 100 % would make one partial answer proof
    /// of overrating, and leaves no room to tell a slip from a habit.
    pub fn expects(self) -> f64 {
        match self {
            Self::Knew => 0.95,
            Self::Understood => 0.75,
            Self::Lost => 0.25,
        }
    }
}

/// A self-assessment on a topic, at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfReport {
    pub topic: String,
    pub claim: Claim,
    pub at: DateTime<Utc>,
}

/// A checked answer (explain-back or review) as devcoach keeps it: calibration reads the topic,
/// grade and time; the xAPI export all of it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedAnswer {
    pub lesson_id: String,
    pub topic: String,
    pub kind: CheckKind,
    pub grade: CheckGrade,
    /// The learner's words.
    pub answer: String,
    pub missing: Option<String>,
    pub at: DateTime<Utc>,
}

/// A self-report counts for the first checked answer on its topic within this many days.
pub const CLAIM_WINDOW_DAYS: i64 = 30;
/// Pairs a topic needs before calibration gives a verdict.
pub const MIN_PAIRS: usize = 3;
/// How far (in standard errors) the checked answers must fall from what the claims predicted
/// for a verdict either way. Chosen on simulated learners graded with the rubric's three grades
/// (`crates/core/tests/it/calibration_sim.rs`, docs/knowledge-model.md): after 8 checked answers
/// a topic, 4.7 % of a calibrated learner's topics get a verdict either way and 80 % of those of
/// a learner 25 points too sure are flagged. A grader who never gives "partly" makes answers
/// noisier than the test allows for: then about 15 % of a calibrated learner's topics.
pub const VERDICT_Z: f64 = 1.35;

/// How one kind of claim fared on a topic.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClaimTally {
    /// Claims that met a checked answer.
    pub checked: usize,
    /// Their checked scores, summed (correct 1, partly ½, wrong 0).
    pub confirmed: f64,
    pub correct: usize,
    pub partly: usize,
    pub wrong: usize,
}

impl ClaimTally {
    fn add(&mut self, grade: CheckGrade) {
        self.checked += 1;
        self.confirmed += grade.score();
        match grade {
            CheckGrade::Correct => self.correct += 1,
            CheckGrade::Partly => self.partly += 1,
            CheckGrade::Wrong => self.wrong += 1,
        }
    }

    /// The share confirmed, when any were checked.
    pub fn rate(&self) -> Option<f64> {
        (self.checked > 0).then(|| self.confirmed / as_f64(self.checked))
    }
}

/// The one-line reading of a topic's calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Fewer than [`MIN_PAIRS`] self-reports met a checked answer.
    NotEnough { pairs: usize },
    /// Checked answers fall well short of what the learner said.
    Overrates,
    /// Checked answers come out well above what the learner said.
    Underrates,
    /// Within a quarter either way, on average.
    Matches,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotEnough { .. } => "not_enough",
            Self::Overrates => "overrates",
            Self::Underrates => "underrates",
            Self::Matches => "matches",
        }
    }
}

/// Calibration of one topic.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicCalibration {
    pub topic: String,
    /// Per claim, in [`Claim::ALL`] order.
    pub claims: [(Claim, ClaimTally); 3],
    /// Checked answers on the topic, paired with a claim or not; a lesson's answers within a day
    /// count as one (as the knowledge model counts them).
    pub checked_answers: usize,
    /// Mean of (what was claimed − what the check found) over the pairs: positive when the
    /// learner rates themselves above their answers.
    pub bias: Option<f64>,
    /// The same gap in standard errors (a score test of the checked shares against the claimed
    /// ones, each pair weighed by how sure its claim is): what the verdict reads.
    pub z: Option<f64>,
    pub verdict: Verdict,
}

impl TopicCalibration {
    pub fn pairs(&self) -> usize {
        self.claims.iter().map(|(_, t)| t.checked).sum()
    }

    /// What the learner's self-reports predicted, and what the checks found, as shares of
    /// full marks over the pairs.
    pub fn said_and_found(&self) -> Option<(f64, f64)> {
        let pairs = as_f64(self.pairs());
        (pairs > 0.0).then(|| {
            let said: f64 = self.claims.iter().map(|(c, t)| c.expects() * as_f64(t.checked)).sum();
            let found: f64 = self.claims.iter().map(|(_, t)| t.confirmed).sum();
            (said / pairs, found / pairs)
        })
    }

    /// The one-line verdict every front end shows.
    pub fn line(&self) -> String {
        let topic = &self.topic;
        let pairs = self.pairs();
        let percent = |p: f64| format!("{}%", (p * 100.0).round());
        let numbers = self
            .said_and_found()
            .map(|(said, found)| format!("you said {}, your checked answers came to {}", percent(said), percent(found)))
            .unwrap_or_default();
        match self.verdict {
            Verdict::NotEnough { pairs: 0 } => format!(
                "{topic}: checked answers, but none yet after you said how well you knew it (lesson feedback, or a review you graded yourself) to compare them with"
            ),
            Verdict::NotEnough { pairs } => {
                format!(
                    "{topic}: too few to compare yet ({pairs} of {MIN_PAIRS} checked answers given after you said how well you knew it)"
                )
            }
            Verdict::Overrates => format!("you tend to overrate {topic}: {numbers} ({pairs} checked answers)"),
            Verdict::Underrates => format!("you tend to underrate {topic}: {numbers} ({pairs} checked answers)"),
            Verdict::Matches => format!("your word on {topic} holds up: {numbers} ({pairs} checked answers)"),
        }
    }
}

/// Calibration as the front ends hand it out (`devcoach stats --json`, the MCP resource
/// `devcoach://calibration`): one shape for all.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CalibrationReport {
    /// Pairs (a self-report, then a checked answer on its topic) a topic needs for a verdict.
    pub min_pairs: usize,
    /// A self-report pairs with a checked answer at most this many days later.
    pub window_days: i64,
    pub topics: Vec<TopicReport>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TopicReport {
    pub topic: String,
    /// `overrates`, `underrates`, `matches`, or `not_enough`.
    pub verdict: &'static str,
    /// The verdict in one line, as the profile shows it.
    pub line: String,
    pub pairs: usize,
    pub checked_answers: usize,
    /// What the self-reports predicted and what the checks found (shares of full marks), when
    /// there is a pair.
    pub said: Option<f64>,
    pub found: Option<f64>,
    /// Per kind of self-report (`knew`, `understood`, `lost`): the checks that followed it.
    pub claims: Vec<ClaimReport>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ClaimReport {
    pub claim: &'static str,
    pub checked: usize,
    pub correct: usize,
    pub partly: usize,
    pub wrong: usize,
}

impl CalibrationReport {
    pub fn new(topics: &[TopicCalibration]) -> Self {
        let round = |p: f64| (p * 1000.0).round() / 1000.0;
        Self {
            min_pairs: MIN_PAIRS,
            window_days: CLAIM_WINDOW_DAYS,
            topics: topics
                .iter()
                .map(|c| {
                    let said_found = c.said_and_found();
                    TopicReport {
                        topic: c.topic.clone(),
                        verdict: c.verdict.as_str(),
                        line: c.line(),
                        pairs: c.pairs(),
                        checked_answers: c.checked_answers,
                        said: said_found.map(|(s, _)| round(s)),
                        found: said_found.map(|(_, f)| round(f)),
                        claims: c
                            .claims
                            .iter()
                            .map(|(claim, t)| ClaimReport {
                                claim: claim.as_str(),
                                checked: t.checked,
                                correct: t.correct,
                                partly: t.partly,
                                wrong: t.wrong,
                            })
                            .collect(),
                    }
                })
                .collect(),
        }
    }
}

/// Pairs every checked answer with the latest self-report on its topic before it (within
/// [`CLAIM_WINDOW_DAYS`]; one report may stand before several checks, each of which tests it)
/// and reads each topic. Topics with a checked answer come out, by name.
pub fn calibrate(reports: &[SelfReport], answers: &[CheckedAnswer]) -> Vec<TopicCalibration> {
    let mut answers: Vec<&CheckedAnswer> = answers.iter().collect();
    answers.sort_by(|a, b| a.topic.cmp(&b.topic).then(a.at.cmp(&b.at)));
    // A lesson's checks within a day (from its first) are one answer, as they are one move of
    // the map, and the latest of them is that answer, as the map reads it: a replay cannot flag
    // a learner, or clear them, nor add to the count shown.
    let day = Duration::days(1);
    let mut keep = vec![true; answers.len()];
    let mut open: std::collections::HashMap<(&str, &str), (DateTime<Utc>, usize)> = std::collections::HashMap::new();
    for (i, a) in answers.iter().enumerate() {
        match open.get_mut(&(a.topic.as_str(), a.lesson_id.as_str())) {
            Some((first, standing)) if a.at - *first < day => {
                keep[*standing] = false;
                *standing = i;
            }
            _ => {
                open.insert((a.topic.as_str(), a.lesson_id.as_str()), (a.at, i));
            }
        }
    }
    let mut out: Vec<TopicCalibration> = Vec::new();
    for (answer, _) in answers.iter().zip(&keep).filter(|(_, k)| **k) {
        if out.last().is_none_or(|c| c.topic != answer.topic) {
            out.push(TopicCalibration {
                topic: answer.topic.clone(),
                claims: Claim::ALL.map(|c| (c, ClaimTally::default())),
                checked_answers: 0,
                bias: None,
                z: None,
                verdict: Verdict::NotEnough { pairs: 0 },
            });
        }
        let Some(current) = out.last_mut() else { continue };
        current.checked_answers += 1;
        let window = Duration::days(CLAIM_WINDOW_DAYS);
        let latest = reports
            .iter()
            .enumerate()
            .filter(|(_, r)| r.topic == answer.topic && r.at <= answer.at && answer.at - r.at <= window)
            .max_by_key(|(i, r)| (r.at, *i));
        if let Some((_, report)) = latest
            && let Some((_, tally)) = current.claims.iter_mut().find(|(c, _)| *c == report.claim)
        {
            tally.add(answer.grade);
        }
    }
    for c in &mut out {
        let pairs = c.pairs();
        let gap: f64 = c.claims.iter().map(|(claim, t)| claim.expects() * as_f64(t.checked) - t.confirmed).sum();
        c.bias = (pairs > 0).then(|| gap / as_f64(pairs));
        c.z = score_z(&c.claims);
        c.verdict = match c.z {
            _ if pairs < MIN_PAIRS => Verdict::NotEnough { pairs },
            Some(z) if z > VERDICT_Z => Verdict::Overrates,
            Some(z) if z < -VERDICT_Z => Verdict::Underrates,
            _ => Verdict::Matches,
        };
    }
    out
}

/// The gap between claimed and checked shares in standard errors: a score test against the
/// claims, each pair weighed by the inverse of its variance under "the learner is calibrated"
/// (`e (1 − e)` for a claim that predicts `e`, the most a 0–1 score can vary), so a claim that
/// promises much ("I knew it") tells more when it fails than one that promises little.
fn score_z(claims: &[(Claim, ClaimTally); 3]) -> Option<f64> {
    let (mut score, mut information) = (0.0, 0.0);
    for (claim, tally) in claims {
        let e = claim.expects();
        let variance = e * (1.0 - e);
        score += (e * as_f64(tally.checked) - tally.confirmed) / variance;
        information += as_f64(tally.checked) / variance;
    }
    (information > 0.0).then(|| score / information.sqrt())
}

fn as_f64(n: usize) -> f64 {
    f64::from(u32::try_from(n).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: i64) -> DateTime<Utc> {
        crate::time::parse_timestamp("2026-11-01T12:00:00Z").expect("time") + Duration::days(day)
    }

    fn report(topic: &str, claim: Claim, day: i64) -> SelfReport {
        SelfReport { topic: topic.into(), claim, at: at(day) }
    }

    fn answer(topic: &str, grade: CheckGrade, day: i64) -> CheckedAnswer {
        CheckedAnswer {
            lesson_id: "l".into(),
            topic: topic.into(),
            kind: CheckKind::Review,
            grade,
            answer: "words".into(),
            missing: None,
            at: at(day),
        }
    }

    #[test]
    fn a_check_holds_words_within_the_limits() {
        assert_eq!(Check::new("  ", None), Err(CheckError::EmptyAnswer));
        let long = "x".repeat(limits::CHECK_ANSWER_CHARS + 1);
        assert_eq!(Check::new(&long, None), Err(CheckError::LongAnswer(limits::CHECK_ANSWER_CHARS + 1)));
        let ok = Check::new(" the index is used ", Some("  ")).expect("fits");
        assert_eq!((ok.answer.as_str(), ok.missing), ("the index is used", None));
        let wide = "é".repeat(limits::CHECK_ANSWER_CHARS);
        assert!(Check::new(&wide, Some("why the planner skips it")).is_ok(), "characters, not bytes");
        assert!(Check::new("a", Some(&"m".repeat(501))).is_err());
        let one_line = Check::new("a", Some(" the planner\r\n  skips it ")).expect("fits");
        assert_eq!(one_line.missing.as_deref(), Some("the planner skips it"), "the missing piece is one line");
    }

    #[test]
    fn grades_and_ratings_map_both_ways() {
        for g in CheckGrade::ALL {
            assert_eq!(CheckGrade::of_review(g.review_grade()), g);
            assert_eq!(CheckGrade::parse(g.as_str()), Some(g));
        }
        assert_eq!(CheckGrade::of_review(Grade::Easy), CheckGrade::Correct);
        assert_eq!(CheckGrade::parse("Correct"), None, "exact names only");
        assert_eq!(Claim::of_self_grade(Grade::Hard), Claim::Understood);
    }

    #[test]
    fn an_overrater_is_told_so_once_there_are_enough_pairs() {
        let mut reports = vec![];
        let mut answers = vec![];
        for day in [0, 5, 10] {
            reports.push(report("sqlite", Claim::Knew, day));
            answers.push(answer("sqlite", CheckGrade::Wrong, day + 1));
        }
        let c = &calibrate(&reports, &answers)[0];
        assert_eq!((c.topic.as_str(), c.pairs(), c.verdict), ("sqlite", 3, Verdict::Overrates));
        assert_eq!(c.claims[0].1.wrong, 3);
        assert!(c.bias.is_some_and(|b| (b - 0.95).abs() < 1e-9), "{:?}", c.bias);
        assert_eq!(
            c.line(),
            "you tend to overrate sqlite: you said 95%, your checked answers came to 0% (3 checked answers)"
        );
        let two = calibrate(&reports[..2], &answers[..2]);
        assert_eq!(two[0].verdict, Verdict::NotEnough { pairs: 2 });
        assert_eq!(
            two[0].line(),
            "sqlite: too few to compare yet (2 of 3 checked answers given after you said how well you knew it)"
        );
    }

    #[test]
    fn checks_pair_with_the_latest_report_on_their_topic_only() {
        let reports = vec![
            report("rust", Claim::Lost, 0),
            report("rust", Claim::Lost, 1),
            report("git", Claim::Knew, 1),
            report("rust", Claim::Lost, 2),
            // Too old for the check on day 40.
            report("sql", Claim::Knew, 0),
        ];
        let answers = vec![
            answer("rust", CheckGrade::Correct, 3),
            answer("rust", CheckGrade::Correct, 4),
            answer("rust", CheckGrade::Correct, 5),
            answer("rust", CheckGrade::Correct, 6),
            answer("sql", CheckGrade::Correct, 40),
        ];
        let out = calibrate(&reports, &answers);
        let rust = out.iter().find(|c| c.topic == "rust").expect("rust");
        // Every check tests the latest report before it: four pairs.
        assert_eq!((rust.pairs(), rust.checked_answers, rust.verdict), (4, 4, Verdict::Underrates));
        assert_eq!(rust.bias, Some(-0.75));
        let sql = out.iter().find(|c| c.topic == "sql").expect("sql");
        assert_eq!((sql.pairs(), sql.verdict), (0, Verdict::NotEnough { pairs: 0 }));
        assert!(out.iter().all(|c| c.topic != "git"), "a topic without checks has no calibration");
    }

    #[test]
    fn agreement_within_a_quarter_matches() {
        let reports =
            vec![report("css", Claim::Knew, 0), report("css", Claim::Understood, 2), report("css", Claim::Lost, 4)];
        let answers = vec![
            answer("css", CheckGrade::Correct, 1),
            answer("css", CheckGrade::Partly, 3),
            answer("css", CheckGrade::Wrong, 5),
        ];
        let c = &calibrate(&reports, &answers)[0];
        assert_eq!(c.verdict, Verdict::Matches);
        let bias = c.bias.expect("bias");
        assert!((bias - (-0.05 + 0.25 + 0.25) / 3.0).abs() < 1e-9, "{bias}");
        assert_eq!(
            c.line(),
            "your word on css holds up: you said 65%, your checked answers came to 50% (3 checked answers)"
        );
    }

    #[test]
    fn the_verdict_weighs_the_gap_by_how_many_answers_stand_behind_it() {
        // "I knew it", then one answer in four partly right: 87.5 % against 95 %. Over four
        // answers that is a slip; over twenty-four, a habit. The old fixed 25-point gap saw
        // neither, and never flagged a learner whose answers came to 75 % or more.
        let run = |n: i64| {
            let reports: Vec<SelfReport> = (0..n).map(|d| report("go", Claim::Knew, d * 2)).collect();
            let answers: Vec<CheckedAnswer> = (0..n)
                .map(|d| {
                    let grade = if d % 4 == 3 { CheckGrade::Partly } else { CheckGrade::Correct };
                    CheckedAnswer { lesson_id: format!("l{d}"), ..answer("go", grade, d * 2 + 1) }
                })
                .collect();
            calibrate(&reports, &answers).remove(0)
        };
        assert_eq!(run(4).verdict, Verdict::Matches, "z {:?}", run(4).z);
        assert_eq!(run(24).verdict, Verdict::Overrates, "z {:?}", run(24).z);
        assert!(run(24).line().starts_with("you tend to overrate go: you said 95%, your checked answers came to 88%"));
    }

    #[test]
    fn a_lessons_checks_within_a_day_count_once() {
        let reports = vec![report("sql", Claim::Knew, 0)];
        // Five answers to one lesson within a day, then three to three other lessons.
        let mut answers: Vec<CheckedAnswer> = (0..5)
            .map(|i| CheckedAnswer { at: at(1) + Duration::minutes(i), ..answer("sql", CheckGrade::Wrong, 1) })
            .collect();
        for (i, day) in [2, 3, 4].into_iter().enumerate() {
            answers.push(CheckedAnswer { lesson_id: format!("other{i}"), ..answer("sql", CheckGrade::Correct, day) });
        }
        let c = &calibrate(&reports, &answers)[0];
        assert_eq!((c.pairs(), c.checked_answers), (4, 4), "the replays count once");
        let once = calibrate(&reports, &answers[4..]);
        assert_eq!((c.z, c.bias), (once[0].z, once[0].bias), "as if the lesson had been answered once");
        // A day later the same lesson counts again.
        answers.push(CheckedAnswer { at: at(2) + Duration::minutes(1), ..answer("sql", CheckGrade::Correct, 2) });
        assert_eq!(calibrate(&reports, &answers)[0].pairs(), 5);
        // Within the day the latest answer is the one that counts, as on the map: a second
        // explanation that got it right replaces the first that did not.
        let corrected = [
            answer("sql", CheckGrade::Wrong, 1),
            CheckedAnswer { at: at(1) + Duration::minutes(30), ..answer("sql", CheckGrade::Correct, 1) },
        ];
        let c = &calibrate(&reports, &corrected)[0];
        assert_eq!((c.claims[0].1.correct, c.claims[0].1.wrong, c.checked_answers), (1, 0, 1));
    }
}
