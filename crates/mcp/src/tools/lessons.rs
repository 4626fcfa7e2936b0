//! Lesson tools: log, list, star, delete, feedback, skip.

use devcoach_core::Lesson;
use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::git::GitContext;
use devcoach_core::ids::LessonId;
use devcoach_core::lesson::{Feedback, LessonContext, Level, NewLesson, Platform};
use devcoach_core::limits;
use devcoach_core::query::{FeedbackFilter, LessonQuery};
use devcoach_core::time::Period;
use devcoach_probe as probe;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::checks::{ExplainBackArg, ExplainBackOut};
use super::{Hints, Out, READ, REMOVE, Registry, WRITE, check_len, not_found};
use crate::ctx::{Ctx, ToolError};

/// What the agent must check after saving: the save itself shows the learner nothing.
/// The reply check for a host that shows the lesson card itself.
pub const LOG_REPLY_CHECK_CARD: &str = "The learner's chat shows this lesson as a card beside this result, with the answer \
buttons and explain-back on it. Do not write the card or the feedback line: end your reply with at most one short sentence.";

pub const LOG_REPLY_CHECK: &str = "Saving shows the learner nothing: they see only the plain text of your reply, never \
tool arguments. If the full card (top band, title line, body ending in the tip, bottom band) is not yet in your reply as \
plain text, write it now as the last thing in your reply. If it is already there, add nothing. Never show the card twice.";

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LevelArg {
    Junior,
    Mid,
    Senior,
}

impl From<LevelArg> for Level {
    fn from(l: LevelArg) -> Self {
        match l {
            LevelArg::Junior => Level::Junior,
            LevelArg::Mid => Level::Mid,
            LevelArg::Senior => Level::Senior,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PlatformArg {
    Github,
    Gitlab,
    Bitbucket,
    Local,
}

impl From<PlatformArg> for Platform {
    fn from(p: PlatformArg) -> Self {
        match p {
            PlatformArg::Github => Platform::Github,
            PlatformArg::Gitlab => Platform::Gitlab,
            PlatformArg::Bitbucket => Platform::Bitbucket,
            PlatformArg::Local => Platform::Local,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct LogLessonArgs {
    /// A unique id for the lesson: a kebab-case slug of the title (reusing an id replaces that lesson).
    pub id: String,
    /// The main topic, as on the knowledge map (e.g. `rust`, `postgresql`).
    pub topic_id: String,
    /// Category tags, for example `rust` and `memory`.
    pub categories: Vec<String>,
    /// A short title.
    pub title: String,
    pub level: LevelArg,
    /// One to three sentences summing the lesson up.
    pub summary: String,
    /// The lesson itself in clean markdown: a few short paragraphs tied to the task, ending with a
    /// `💡 *Senior tip:*` line. No card bands, no title line, no blockquote.
    #[schemars(length(min = 1))]
    pub body: String,
    /// One line on the task that prompted the lesson.
    #[serde(default)]
    pub task_context: Option<String>,
    /// Leave out unless you know better: the server reads git itself.
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default)]
    pub branch: Option<String>,
    #[serde(default)]
    pub commit_hash: Option<String>,
    #[serde(default)]
    pub folder: Option<String>,
    #[serde(default)]
    pub repository_platform: Option<PlatformArg>,
    /// The lesson's review card: a question that makes the learner recall the key idea, and the
    /// answer to compare with. It comes back for review just before it would be forgotten.
    /// Without it, a card is made from the title and summary.
    #[serde(default)]
    pub review: Option<ReviewArg>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReviewArg {
    /// At most 500 characters; not yes/no, no answer hidden in it.
    pub question: String,
    /// One to three sentences; at most 2000 characters.
    pub answer: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LoggedLesson {
    #[serde(flatten)]
    pub lesson: Lesson,
    /// Read this: what to do now that the lesson is saved.
    pub reply_check: String,
    /// How the learner answers this lesson: `text` (the feedback line under the card you write),
    /// `form` (the same, and the host can also ask them with a form: see the skill), or `card`
    /// (the host shows the lesson as a card with the answer buttons; write neither the card nor the
    /// feedback line).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["text", "form", "card"]))]
    pub feedback_by: Option<String>,
    /// A function of the change the learner could rebuild themselves (at most once a day, never
    /// during a course): offer it after the card as `how` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handson_offer: Option<super::handson::LessonOffer>,
}

fn log_lesson(ctx: &Ctx, a: LogLessonArgs) -> Result<Out<LoggedLesson>, ToolError> {
    for (field, value, max) in [
        ("id", &a.id, limits::LESSON_ID_CHARS),
        ("topic_id", &a.topic_id, limits::TOPIC_CHARS),
        ("title", &a.title, limits::TITLE_CHARS),
        ("summary", &a.summary, limits::SUMMARY_CHARS),
        ("body", &a.body, limits::BODY_CHARS),
    ] {
        check_len(field, value, max)?;
    }
    for (field, value) in [
        ("task_context", &a.task_context),
        ("project", &a.project),
        ("repository", &a.repository),
        ("branch", &a.branch),
        ("commit_hash", &a.commit_hash),
        ("folder", &a.folder),
    ] {
        if let Some(v) = value {
            check_len(field, v, limits::CONTEXT_CHARS)?;
        }
    }
    if a.categories.len() > limits::CATEGORIES
        || a.categories.iter().any(|c| c.chars().count() > limits::CATEGORY_CHARS)
    {
        return Err(ToolError::Invalid(format!(
            "`categories` takes at most {} tags of at most {} characters",
            limits::CATEGORIES,
            limits::CATEGORY_CHARS
        )));
    }
    if a.topic_id.trim().is_empty() || a.title.trim().is_empty() {
        return Err(ToolError::Invalid("`topic_id` and `title` must not be empty".into()));
    }
    if a.body.trim().is_empty() {
        return Err(ToolError::Invalid("`body` must hold the lesson text".into()));
    }
    let review = a.review.as_ref().map(|r| super::card_text(&r.question, &r.answer)).transpose()?;
    let id = LessonId::new(a.id)
        .map_err(|_| ToolError::Invalid("`id` must not be empty: use a kebab-case slug of the title".into()))?;
    let new = NewLesson {
        id,
        topic_id: a.topic_id.trim().to_owned(),
        categories: a.categories,
        title: a.title,
        level: a.level.into(),
        summary: a.summary,
        body: a.body,
        context: LessonContext {
            task_context: a.task_context,
            git: GitContext {
                project: a.project,
                repository: a.repository,
                branch: a.branch,
                commit_hash: a.commit_hash,
                folder: a.folder,
                repository_platform: a.repository_platform.map(Into::into),
            },
        },
    };
    let git = probe::git_context(&ctx.opts.cwd);
    let now = ctx.now();
    let lesson = ctx.with_store(|s| Ok(s.log_lesson(new, review.as_ref(), &git, now)?))?;
    let handson_offer = super::handson::offer_after_lesson(ctx);
    let offer_line = handson_offer
        .as_ref()
        .map(|o| format!(" Hands-on: the learner could rebuild `{}` ({}) themselves. {}", o.function, o.file, o.how))
        .unwrap_or_default();
    let client = ctx.client;
    let (reply_check, feedback_by) = if client.apps {
        (LOG_REPLY_CHECK_CARD, "card")
    } else {
        (LOG_REPLY_CHECK, if client.form { "form" } else { "text" })
    };
    Ok(Out {
        value: LoggedLesson {
            lesson,
            reply_check: reply_check.into(),
            feedback_by: Some(feedback_by.into()),
            handson_offer,
        },
        lead: Some(format!("Lesson saved. {reply_check}{offer_line}")),
    })
}

/// The reply check of `show_lesson`.
const SHOW_REPLY_CHECK: &str = "The learner's chat shows this lesson as a card beside this result, with its answer \
buttons. Don't write the lesson out again; say one short line at most.";

/// A lesson shown as a card: the lesson, and what to do about it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ShownLesson {
    #[serde(flatten)]
    pub lesson: Lesson,
    /// Read this: the learner sees the card already.
    pub reply_check: String,
}

pub(super) fn register_show(r: &mut Registry) {
    r.structured(
        ("show_lesson", "Show Lesson", READ),
        "Show the learner one of their lessons as a card in this chat (the lesson, its answer buttons and explain-back). \
         Use it when they ask to see a lesson again; find its id with get_lessons first. Not for your own lookups.",
        |ctx: &Ctx, a: LessonIdArgs| {
            let lesson = ctx.with_store(|s| Ok(s.lesson(&a.lesson_id)?))?.ok_or_else(|| not_found(&a.lesson_id))?;
            Ok(Out {
                value: ShownLesson { lesson, reply_check: SHOW_REPLY_CHECK.into() },
                lead: Some(format!("Shown as a card. {SHOW_REPLY_CHECK}")),
            })
        },
    );
}

/// What a lesson card shows: the lesson, its body made safe for a page, and the answer so far.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LessonCardOut {
    pub id: String,
    pub title: String,
    #[schemars(extend("enum" = ["junior", "mid", "senior"]))]
    pub level: String,
    pub categories: Vec<String>,
    pub topic_id: String,
    /// The body rendered with the dashboard's rules: raw HTML shown as text, unsafe links dropped.
    pub body_html: String,
    #[schemars(extend("enum" = ["know", "understood", "dont_know", null]))]
    pub feedback: Option<String>,
    pub starred: bool,
    /// Who shared it, for a lesson someone else wrote.
    pub shared_by: Option<String>,
}

/// The three answers on the lesson card (no `clear`, no explain-back: the model grades those).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CardAnswerArg {
    Know,
    Understood,
    DontKnow,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CardAnswerArgs {
    pub lesson_id: String,
    pub feedback: CardAnswerArg,
}

pub(super) fn register_card_answer(r: &mut Registry) {
    r.structured(
        ("lesson_card_answer", "Lesson Card Answer", WRITE),
        "For devcoach's lesson card in the chat (the host's frame calls it; you never need to): the learner's answer \
         from the card's buttons, recorded as submit_feedback records it.",
        |ctx: &Ctx, a: CardAnswerArgs| {
            let feedback = match a.feedback {
                CardAnswerArg::Know => FeedbackArg::Know,
                CardAnswerArg::Understood => FeedbackArg::Understood,
                CardAnswerArg::DontKnow => FeedbackArg::DontKnow,
            };
            submit_feedback(ctx, FeedbackArgs { lesson_id: a.lesson_id, feedback: Some(feedback), explain_back: None })
        },
    );
}

pub(super) fn register_card(r: &mut Registry) {
    r.structured(
        ("lesson_card", "Lesson Card", READ),
        "For devcoach's lesson card in the chat (the host's frame calls it; you never need to): one lesson, its body \
         rendered for the card, and the answer recorded so far.",
        |ctx: &Ctx, a: LessonIdArgs| {
            let lesson = ctx.with_store(|s| Ok(s.lesson(&a.lesson_id)?))?.ok_or_else(|| not_found(&a.lesson_id))?;
            let body = lesson.body.as_deref().unwrap_or(&lesson.summary);
            Ok(LessonCardOut {
                body_html: devcoach_web::apps::lesson_body_html(body),
                id: lesson.id,
                title: lesson.title,
                level: lesson.level.as_str().into(),
                categories: lesson.categories,
                topic_id: lesson.topic_id,
                feedback: lesson.feedback.map(|f| f.as_str().into()),
                starred: lesson.starred,
                shared_by: lesson.shared_by,
            }
            .into())
        },
    );
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PeriodArg {
    Today,
    Week,
    Month,
    Year,
    All,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FeedbackFilterArg {
    Know,
    Understood,
    DontKnow,
    None,
}

fn default_limit() -> i64 {
    10
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetLessonsArgs {
    /// Only lessons from this period (`today` starts at UTC midnight; the others are rolling).
    #[serde(default)]
    pub period: Option<PeriodArg>,
    /// Only lessons tagged with this category.
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub level: Option<LevelArg>,
    /// Project name contains this.
    #[serde(default)]
    pub project: Option<String>,
    /// Repository contains this.
    #[serde(default)]
    pub repository: Option<String>,
    /// Branch contains this.
    #[serde(default)]
    pub branch: Option<String>,
    /// Commit hash contains this.
    #[serde(default)]
    pub commit: Option<String>,
    #[serde(default)]
    pub starred: Option<bool>,
    /// true: only lessons shared with the learner; false: only their own.
    #[serde(default)]
    pub imported: Option<bool>,
    /// Only lessons shared by this sender (exact name).
    #[serde(default)]
    pub shared_by: Option<String>,
    /// Only lessons with this answer; `none` means no answer yet.
    #[serde(default)]
    pub feedback: Option<FeedbackFilterArg>,
    /// Words that must all appear in the title, topic, summary, body or sender.
    #[serde(default)]
    pub search: Option<String>,
    /// From this date (2026-05-01) or timestamp; wins over `period`.
    #[serde(default)]
    pub date_from: Option<String>,
    /// Up to this date (inclusive) or timestamp; wins over `period`.
    #[serde(default)]
    pub date_to: Option<String>,
    /// How many lessons at most; 0 returns every match.
    #[serde(default = "default_limit")]
    pub limit: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct LessonsOut {
    /// Newest first, each with the fields that have a value (see [`listed`]).
    pub lessons: Vec<serde_json::Map<String, serde_json::Value>>,
    /// How many lessons match in all (can exceed the limit).
    pub total: i64,
}

fn get_lessons(ctx: &Ctx, a: GetLessonsArgs) -> Result<LessonsOut, ToolError> {
    let mut q = LessonQuery {
        period: a.period.map(|p| match p {
            PeriodArg::Today => Period::Today,
            PeriodArg::Week => Period::Week,
            PeriodArg::Month => Period::Month,
            PeriodArg::Year => Period::Year,
            PeriodArg::All => Period::All,
        }),
        category: a.category,
        level: a.level.map(Into::into),
        project: a.project,
        repository: a.repository,
        branch: a.branch,
        commit: a.commit,
        starred: a.starred,
        imported: a.imported,
        shared_by: a.shared_by,
        feedback: a.feedback.map(|f| match f {
            FeedbackFilterArg::Know => FeedbackFilter::Is(Feedback::Know),
            FeedbackFilterArg::Understood => FeedbackFilter::Is(Feedback::Understood),
            FeedbackFilterArg::DontKnow => FeedbackFilter::Is(Feedback::DontKnow),
            FeedbackFilterArg::None => FeedbackFilter::Missing,
        }),
        limit: LessonQuery::limit_from_request(a.limit),
        ..LessonQuery::default()
    };
    if let Some(s) = &a.search {
        q.set_search(s);
    }
    let bad = |e: devcoach_core::query::QueryError| ToolError::Invalid(e.to_string());
    if let Some(d) = &a.date_from {
        q.dates.set_from(d).map_err(bad)?;
    }
    if let Some(d) = &a.date_to {
        q.dates.set_to(d).map_err(bad)?;
    }
    let now = ctx.now();
    ctx.with_store(|s| {
        let lessons = s.lessons(&q, now)?.iter().map(listed).collect();
        let total = s.count_lessons(&q, now)?;
        Ok(LessonsOut { lessons, total })
    })
}

/// A lesson as `get_lessons` lists it: every field that has a value. An empty one (`null`, and
/// `imported: false` on the learner's own lessons) is left out, which a reader takes as empty:
/// ten lessons then cost no more than the original's answer, which had neither sharing field.
fn listed(lesson: &Lesson) -> serde_json::Map<String, serde_json::Value> {
    let mut fields = match serde_json::to_value(lesson) {
        Ok(serde_json::Value::Object(fields)) => fields,
        _ => serde_json::Map::new(),
    };
    fields.retain(|name, value| !(value.is_null() || (name == "imported" && *value == serde_json::Value::Bool(false))));
    fields
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StarArgs {
    pub lesson_id: String,
    /// true to star, false to remove the star.
    pub starred: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StarOut {
    pub lesson_id: String,
    pub starred: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct LessonIdArgs {
    pub lesson_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct DeletedOut {
    pub lesson_id: String,
    pub deleted: bool,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FeedbackArg {
    Know,
    Understood,
    DontKnow,
    Clear,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct FeedbackArgs {
    pub lesson_id: String,
    /// know = already knew it (+1 confidence) · understood = new and now clear · dont_know = could not
    /// follow · clear = remove the answer. May be left out when only an explain-back is recorded.
    #[serde(default)]
    pub feedback: Option<FeedbackArg>,
    /// The learner explained the lesson's key idea back in their own words and you graded it
    /// with the rubric (see the skill). Recorded beside the answer above, never instead of it.
    #[serde(default)]
    pub explain_back: Option<ExplainBackArg>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FeedbackOut {
    pub lesson_id: String,
    /// The answer now stored (null after `clear`).
    #[schemars(extend("enum" = ["know", "understood", "dont_know", null]))]
    pub feedback: Option<String>,
    pub topic_id: String,
    /// The answer stored before.
    #[schemars(extend("enum" = ["know", "understood", "dont_know", null]))]
    pub previous: Option<String>,
    /// How much the topic's confidence moved (-1, 0 or +1).
    pub delta: i64,
    /// The topic's confidence now (null when the topic is not on the map).
    pub confidence: Option<i64>,
    /// The explain-back, when one was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain_back: Option<ExplainBackOut>,
    /// When devcoach asked the learner with a form (the call gave neither answer): `answered`,
    /// `declined` or `cancelled`. After a decline or cancel nothing was recorded: don't ask again
    /// this turn; the feedback line stays open for a later answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["answered", "declined", "cancelled"]))]
    pub form: Option<String>,
    /// The explanation the learner wrote in the form: grade it with the rubric and record it with
    /// another `submit_feedback` call (`explain_back`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation_to_grade: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SkipArgs {
    /// One line on why no lesson was warranted (shown by `devcoach doctor`).
    #[schemars(length(min = 1))]
    pub reason: String,
}

pub const SKIP_REPLY: &str = "No lesson this time; pacing starts over. Say nothing about it to the user.";
/// The reply when the skip was the learner's "not now" to building a profile.
pub const POSTPONED_REPLY: &str =
    "Onboarding postponed: devcoach asks again tomorrow, at most once a day. Say nothing more about it now.";

const LOG_HINTS: Hints = Hints { read_only: false, destructive: false, idempotent: true, open_world: false };

pub(super) fn register_log(r: &mut Registry) {
    r.structured(
        ("log_lesson", "Log Lesson", LOG_HINTS),
        "Save the lesson you are about to show, silently, BEFORE writing the card. Stamps the time and reads git metadata \
         itself; restarts pacing. Saving displays nothing: after this call, end your reply with the full card as plain text \
         (see reply_check).",
        log_lesson,
    );
}

pub(super) fn register_get(r: &mut Registry) {
    r.json_text(
        ("get_lessons", "Get Lessons", READ),
        "List the learner's lessons, newest first, with optional filters (period, dates, category, level, git metadata, \
         starred, shared, feedback, multi-word search). Returns up to `limit` lessons (default 10, 0 for all) and the total.",
        get_lessons,
    );
}

pub(super) fn register_star(r: &mut Registry) {
    r.structured(
        ("star_lesson", "Star Lesson", WRITE),
        "Star a lesson (or remove its star) so the learner can find it again.",
        |ctx: &Ctx, a: StarArgs| {
            let found = ctx.with_store(|s| Ok(s.set_star(&a.lesson_id, a.starred)?))?;
            if !found {
                return Err(not_found(&a.lesson_id));
            }
            Ok(StarOut { lesson_id: a.lesson_id, starred: a.starred }.into())
        },
    );
}

pub(super) fn register_delete(r: &mut Registry) {
    r.structured(
        ("delete_lesson", "Delete Lesson", REMOVE),
        "Delete a lesson for good. Only when the learner asks.",
        |ctx: &Ctx, a: LessonIdArgs| {
            if !ctx.with_store(|s| Ok(s.delete_lesson(&a.lesson_id)?))? {
                return Err(not_found(&a.lesson_id));
            }
            Ok(DeletedOut { lesson_id: a.lesson_id, deleted: true }.into())
        },
    );
}

pub(super) fn register_feedback(r: &mut Registry) {
    r.structured(
        ("submit_feedback", "Submit Feedback", WRITE),
        "Record the learner's answer to a lesson: know (already knew it: +1 confidence on the topic), understood (new and \
         now clear), dont_know (could not follow), or clear; and/or an explain_back: the learner's own explanation of the \
         lesson's key idea, graded by you with the rubric (correct / partly / wrong, the missing piece in one line). \
         Repeating the stored answer, or the same explanation with the same grade, changes nothing.",
        submit_feedback,
    );
}

/// Records the learner's answer and/or explain-back (the tool, and the form's accepted answer).
pub(crate) fn submit_feedback(ctx: &Ctx, a: FeedbackArgs) -> Result<Out<FeedbackOut>, ToolError> {
    let explain = a.explain_back.as_ref().map(ExplainBackArg::check).transpose()?;
    if a.feedback.is_none() && explain.is_none() {
        return Err(ToolError::Invalid(
            "give `feedback` (know, understood, dont_know or clear), `explain_back`, or both".into(),
        ));
    }
    let choice = a.feedback.map(|f| {
        FeedbackChoice(match f {
            FeedbackArg::Know => Some(Feedback::Know),
            FeedbackArg::Understood => Some(Feedback::Understood),
            FeedbackArg::DontKnow => Some(Feedback::DontKnow),
            FeedbackArg::Clear => None,
        })
    });
    let now = ctx.now();
    ctx.with_store(|s| {
        // The self-report first, then the check: calibration pairs the check with it.
        let outcome = match choice {
            Some(choice) => s.record_feedback(&a.lesson_id, choice, now)?,
            None => s.lesson(&a.lesson_id)?.map(|l| devcoach_core::feedback::FeedbackOutcome {
                previous: l.feedback,
                delta: 0,
                confidence_before: None,
                confidence: None,
                topic_id: l.topic_id,
            }),
        };
        let Some(outcome) = outcome else { return Err(not_found(&a.lesson_id)) };
        let stored = match choice {
            Some(choice) => choice.0,
            None => outcome.previous,
        };
        let mut confidence = outcome.confidence;
        let explain_back = match &explain {
            Some((grade, check)) => {
                let recorded =
                    s.record_explain_back(&a.lesson_id, *grade, check, now)?.ok_or_else(|| not_found(&a.lesson_id))?;
                confidence = recorded.confidence;
                Some(ExplainBackOut {
                    grade: grade.as_str().into(),
                    missing: check.missing.clone(),
                    delta: recorded.confidence.unwrap_or(0) - recorded.confidence_before.unwrap_or(0),
                    confidence: recorded.confidence,
                    repeated: recorded.repeated,
                })
            }
            None => None,
        };
        Ok(FeedbackOut {
            lesson_id: a.lesson_id.clone(),
            feedback: stored.map(|f| f.as_str().into()),
            topic_id: outcome.topic_id,
            previous: outcome.previous.map(|f| f.as_str().into()),
            delta: outcome.delta,
            confidence,
            explain_back,
            form: None,
            explanation_to_grade: None,
        }
        .into())
    })
}

/// The lesson's answer as stored, untouched (after a declined form).
pub(crate) fn feedback_as_is(ctx: &Ctx, lesson_id: &str) -> Result<Option<FeedbackOut>, ToolError> {
    let found = ctx.with_store(|s| {
        let Some(lesson) = s.lesson(lesson_id)? else { return Ok(None) };
        let confidence = s.confidence(&lesson.topic_id)?;
        Ok(Some((lesson, confidence)))
    })?;
    Ok(found.map(|(l, confidence)| FeedbackOut {
        lesson_id: l.id,
        feedback: l.feedback.map(|f| f.as_str().into()),
        topic_id: l.topic_id,
        previous: l.feedback.map(|f| f.as_str().into()),
        delta: 0,
        confidence,
        explain_back: None,
        form: None,
        explanation_to_grade: None,
    }))
}

pub(super) fn register_skip(r: &mut Registry) {
    r.prose(
        ("skip_lesson", "Skip Lesson", WRITE),
        "The explicit no-op: when a lesson was cued but the work does not warrant one (a question, chat, nothing technical), \
         call this with a one-line reason and write nothing about devcoach. Restarts pacing. Before onboarding, it is the \
         learner's \"not now\": devcoach asks again tomorrow.",
        |ctx: &Ctx, a: SkipArgs| {
            let reason = a.reason.trim();
            if reason.is_empty() {
                return Err(ToolError::Invalid("`reason` must say in one line why no lesson was warranted".into()));
            }
            check_len("reason", reason, 1000)?;
            let now = ctx.now();
            Ok(match ctx.with_store(|s| Ok(s.skip_lesson(reason, now)?))? {
                devcoach_store::Skipped::Lesson => SKIP_REPLY.into(),
                devcoach_store::Skipped::Onboarding { .. } => POSTPONED_REPLY.into(),
            })
        },
    );
}

#[cfg(test)]
mod mirror_tests {
    use devcoach_core::lesson::{Level, Platform};

    use super::{LevelArg, PlatformArg};
    use crate::tools::schema_lists::values;

    #[test]
    fn the_argument_enums_list_exactly_cores_values() {
        assert_eq!(values::<LevelArg>(), Level::ALL.iter().map(|l| l.as_str()).collect::<Vec<_>>());
        assert_eq!(values::<PlatformArg>(), Platform::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>());
    }
}
