//! Review tools: the due queue, grading an answer, and writing a card for a lesson.

use devcoach_core::checked::Check;
use devcoach_core::fsrs::Grade;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Out, READ, Registry, WRITE};
use crate::ctx::{Ctx, ToolError};
use crate::payloads;
use crate::tools::{card_text, not_found};

/// What the model does when the host shows the review card.
const DUE_IN_CARD: &str = "The learner's chat shows these as a review card beside this result: one question at a time, \
the answer on request, then their grade. Don't ask the questions in text; if they send you an answer from the card, grade it \
with grade_review (checked) as usual.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DueArgs {
    /// How many due cards to return (1-50, default 5).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GradeArg {
    /// Could not recall it.
    Again,
    /// Recalled it, with real effort or only in part.
    Hard,
    /// Recalled it.
    Good,
    /// Recalled it at once, fully.
    Easy,
}

impl From<GradeArg> for Grade {
    fn from(g: GradeArg) -> Self {
        match g {
            GradeArg::Again => Grade::Again,
            GradeArg::Hard => Grade::Hard,
            GradeArg::Good => Grade::Good,
            GradeArg::Easy => Grade::Easy,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GradeArgs {
    pub lesson_id: String,
    /// Your judgement of the learner's answer against the expected one. From the rubric: correct
    /// is good (easy when it came at once and whole), partly is hard, wrong is again.
    pub grade: GradeArg,
    /// True when you asked the card's question and graded the learner's own words (then give
    /// `answer`); false when the learner graded themselves. Defaults to true when `answer` is given.
    #[serde(default)]
    pub checked: Option<bool>,
    /// The learner's answer, as they wrote it (at most 2000 characters).
    #[serde(default)]
    pub answer: Option<String>,
    /// Unless correct: the missing piece, in one line (at most 500 characters).
    #[serde(default)]
    pub missing: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct GradedOut {
    pub lesson_id: String,
    pub grade: String,
    /// Show this to the learner now, after their answer.
    pub expected_answer: String,
    /// Days until this card comes back.
    pub next_review_in_days: u32,
    pub due: String,
    /// Days until recall is predicted to fall to 90 %.
    pub stability: f64,
    /// How hard this card is for the learner (1-10).
    pub difficulty: f64,
    /// The predicted chance of recall just before this review (absent for a first review).
    pub predicted_recall: Option<f64>,
    /// Whether this was recorded as a checked answer (stronger evidence than a self-grade).
    pub checked: bool,
    /// A card is reviewed once a day: `reviewed` (its review of the day), `replaced` (it replaced
    /// the day's earlier grade of this card), or `kept` (a self-grade after the day's checked
    /// grade, which stands: the card did not change).
    pub counts_as: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CardArgs {
    pub lesson_id: String,
    /// One question that makes the learner recall the lesson's key idea in their own words (not
    /// yes/no, no answer hidden in it). At most 500 characters.
    pub question: String,
    /// The answer you will compare theirs with: one to three sentences. At most 2000 characters.
    pub answer: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CardOut {
    pub lesson_id: String,
    pub question: String,
    pub answer: String,
    /// `agent` (written by you) or `derived` (made from the lesson's title and summary).
    pub source: String,
    pub due: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AnswerArgs {
    pub lesson_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AnswerOut {
    pub lesson_id: String,
    pub question: String,
    /// The answer to compare with.
    pub answer: String,
}

/// The review card's "show the answer": only for a card that is due now, so the frame learns no
/// answer before the learner has the question in front of them.
/// The review card's grade: the learner's own (never a checked one, which only the model grades).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CardGradeArgs {
    pub lesson_id: String,
    pub grade: GradeArg,
}

/// The card of `lesson_id` when it is due at the call's time; the error says when it is due.
fn due_card(ctx: &Ctx, lesson_id: &str) -> Result<devcoach_core::review::ReviewCard, ToolError> {
    let now = devcoach_core::time::iso_ms(ctx.now());
    let card = ctx.with_store(|s| Ok(s.review_card(lesson_id)?))?.ok_or_else(|| not_found(lesson_id))?;
    if card.due > now {
        return Err(ToolError::Invalid(format!(
            "the review card of '{lesson_id}' is not due until {}; the review card works only on due cards",
            card.due
        )));
    }
    Ok(card)
}

pub(super) fn register_card_grade(r: &mut Registry) {
    r.structured(
        ("review_card_grade", "Review Card Grade", WRITE),
        "For devcoach's review card in the chat (the host's frame calls it; you never need to): the learner's own grade \
         of a card that is due now, after they saw its answer.",
        |ctx: &Ctx, a: CardGradeArgs| {
            due_card(ctx, &a.lesson_id)?;
            grade(ctx, GradeArgs { lesson_id: a.lesson_id, grade: a.grade, checked: Some(false), answer: None, missing: None })
        },
    );
}

pub(super) fn register_answer(r: &mut Registry) {
    r.structured(
        ("review_answer", "Review Answer", READ),
        "For devcoach's review card in the chat (the host's frame calls it when the learner asks to see the answer; you \
         never need to): the expected answer of a card that is due now.",
        |ctx: &Ctx, a: AnswerArgs| {
            let card = due_card(ctx, &a.lesson_id)?;
            Ok(AnswerOut { lesson_id: card.lesson_id, question: card.question, answer: card.answer }.into())
        },
    );
}

/// Grades a review: the model's call, and the review card's self-grade.
fn grade(ctx: &Ctx, a: GradeArgs) -> Result<Out<GradedOut>, ToolError> {
    let now = ctx.now();
    let grade = Grade::from(a.grade);
    let check = match (a.checked.unwrap_or(a.answer.is_some()), a.answer.as_deref()) {
        (true, Some(answer)) => {
            Some(Check::new(answer, a.missing.as_deref()).map_err(|e| ToolError::Invalid(e.to_string()))?)
        }
        (true, None) => {
            return Err(ToolError::Invalid(
                "a checked review needs `answer`: the learner's own words you graded".into(),
            ));
        }
        (false, Some(_)) => {
            return Err(ToolError::Invalid(
                "`answer` is kept only for a checked review: leave `checked` out (or true) to record it, or leave \
                 `answer` out for the learner's own grade"
                    .into(),
            ));
        }
        (false, None) if a.missing.is_some() => {
            return Err(ToolError::Invalid(
                "`missing` goes with a checked `answer`: give the learner's words as `answer` too".into(),
            ));
        }
        (false, None) => None,
    };
    let outcome = ctx
        .with_store(|s| {
            Ok(match &check {
                Some(check) => s.grade_checked_review(&a.lesson_id, grade, check, now)?,
                None => s.grade_review(&a.lesson_id, grade, now)?,
            })
        })?
        .ok_or_else(|| not_found(&a.lesson_id))?;
    Ok(GradedOut {
        lesson_id: a.lesson_id,
        grade: grade.as_str().into(),
        expected_answer: outcome.card.answer,
        next_review_in_days: outcome.graded.step.interval,
        due: outcome.card.due,
        stability: outcome.graded.step.memory.stability,
        difficulty: outcome.graded.step.memory.difficulty,
        predicted_recall: (outcome.graded.reps > 1).then_some(outcome.graded.step.retrievability),
        checked: check.is_some(),
        counts_as: outcome.counts_as.as_str().into(),
    }
    .into())
}

pub(super) fn register(r: &mut Registry) {
    r.structured(
        ("get_due_reviews", "Get Due Reviews", READ),
        "The review cards due now, most overdue first, without their answers. To review: ask one question, let the \
         learner answer in their own words, then call grade_review with your grade and show the expected answer it \
         returns.",
        |ctx: &Ctx, a: DueArgs| {
            let limit = a.limit.unwrap_or(5).clamp(1, 50);
            let mut out = payloads::due_reviews(ctx, limit)?;
            if ctx.client.apps {
                out.reply_check = Some(DUE_IN_CARD.into());
            }
            Ok(out.into())
        },
    );
    r.structured(
        ("grade_review", "Grade Review", WRITE),
        "Grade the learner's answer to a review question: again (could not recall), hard (with effort or in part), \
         good (recalled), easy (at once, fully). Pass the learner's words as `answer` when you graded them (a checked \
         review, which counts more). Schedules the next review and returns the expected answer to show.",
        grade,
    );
    r.structured(
        ("add_review_card", "Add Review Card", WRITE),
        "Write (or rewrite) the review card of a lesson: a recall question and the answer to compare with. Lessons \
         logged without one get a card made from their title and summary; use this to give older lessons a better one.",
        |ctx: &Ctx, a: CardArgs| {
            let text = card_text(&a.question, &a.answer)?;
            let now = ctx.now();
            let card = ctx.with_store(|s| {
                if !s.set_review_card(&a.lesson_id, &text, now)? {
                    return Ok(None);
                }
                Ok(s.review_card(&a.lesson_id)?)
            })?;
            let card = card.ok_or_else(|| not_found(&a.lesson_id))?;
            Ok(Out::from(CardOut {
                lesson_id: card.lesson_id,
                question: card.question,
                answer: card.answer,
                source: card.source.as_str().into(),
                due: card.due,
            }))
        },
    );
}
