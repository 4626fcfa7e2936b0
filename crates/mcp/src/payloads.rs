//! The payloads shared by tools and resources (`get_briefing` and `devcoach://briefing` are built
//! by the same function, and so on).

use std::collections::BTreeMap;

use devcoach_core::Lesson;
use devcoach_core::git::GitContext;
use devcoach_core::knowledge::DEFAULT_PROFILE;
use devcoach_core::query::LessonQuery;
use devcoach_core::time::Period;
use devcoach_probe::{self as probe, history};
use schemars::JsonSchema;
use serde::Serialize;

use crate::ctx::{Ctx, ToolError};
use crate::dto::{CompatOut, KnowledgeOut, ProfileOut, RateLimitOut};

#[derive(Debug, Serialize, JsonSchema)]
pub struct OnboardingStatus {
    /// The knowledge map has at least one topic.
    pub knowledge_ready: bool,
    /// The coaching notebook exists and is not empty.
    pub notebook_ready: bool,
    /// Onboarding still has to run (either of the above is missing).
    pub needs_onboarding: bool,
}

/// Everything needed before teaching, in one read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BriefingOut {
    pub onboarding: OnboardingStatus,
    pub rate_limit: RateLimitOut,
    /// Topics any lesson has already covered (own and shared).
    pub taught_topics: Vec<String>,
    pub profile: ProfileOut,
    pub compat: Option<CompatOut>,
    /// The coaching notebook's text ("" when there is none).
    pub notebook: String,
    /// Where the notebook lives; read and write it with your file tools.
    pub notebook_path: String,
    /// The knowledge model's reading now, for every topic on the map it has read (where it may
    /// differ from the profile's number: a topic not practised for a while fades), with what it
    /// rests on: calibrate depth on `confidence_now`.
    pub estimates: Vec<EstimateOut>,
    /// With the learner's consent (`work_insights`), how their agent sessions went over the
    /// last seven days, in one line ("mostly delegating this week (5 of 7 sessions)"); absent
    /// when off or with fewer than three sessions. See the skill on nudging.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_insight: Option<String>,
}

/// The knowledge model's estimate for one topic.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EstimateOut {
    pub topic: String,
    /// 0–10, from the probability below.
    pub confidence_now: i64,
    /// The probability the learner recalls the topic now.
    pub known_now: f64,
    /// The probability the topic was ever learned (knowledge tracing's mastery, before
    /// forgetting).
    pub mastery: f64,
    /// What the estimate rests on: answers you checked (explain-backs, checked reviews) count
    /// more than the learner's own reports (lesson feedback, reviews they graded themselves).
    pub checked_answers: i64,
    /// Each counts a lesson once a day (a replay is not another piece of evidence).
    pub self_reports: i64,
    /// Ratings, course checks and practice.
    pub other_evidence: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ProjectOut {
    pub name: String,
    pub path: String,
    pub topics: Vec<String>,
    pub prompt_count: u64,
    pub last_activity: Option<String>,
    /// An excerpt of the project's Claude Code memory file.
    pub memory: Option<String>,
}

/// Onboarding status and what the learner's machine suggests about their stack.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OnboardingOut {
    pub compat: Option<CompatOut>,
    pub knowledge_ready: bool,
    pub notebook_ready: bool,
    pub needs_onboarding: bool,
    /// Topic → suggested confidence, from the working folder and recent Claude Code projects.
    pub detected_stack: BTreeMap<String, i64>,
    pub detected_projects: Vec<ProjectOut>,
    pub scanned_projects: usize,
    /// A general starting profile to offer when nothing was detected.
    pub default_topics: BTreeMap<String, i64>,
    /// The working folder is a git checkout on a branch.
    pub context_ready: bool,
    pub notebook_path: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StatsOut {
    pub total_lessons: i64,
    pub lessons_today: i64,
    pub lessons_this_week: i64,
    pub imported_lessons: i64,
    pub weakest_topics: Vec<KnowledgeOut>,
    pub strongest_topics: Vec<KnowledgeOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct UsageOut {
    pub project: Option<String>,
    pub repository: Option<String>,
    pub branch: Option<String>,
    pub repository_platform: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ContextOut {
    pub git: GitContext,
    pub usage_defaults: UsageOut,
}

fn notebook_ready(ctx: &Ctx) -> bool {
    std::fs::metadata(ctx.opts.dir.notebook_path()).is_ok_and(|m| m.len() > 0)
}

fn notebook_path(ctx: &Ctx) -> String {
    ctx.opts.dir.notebook_path().to_string_lossy().into_owned()
}

pub fn profile(ctx: &Ctx) -> Result<ProfileOut, ToolError> {
    ctx.with_store(|s| Ok(ProfileOut::new(&s.profile()?, s.compat())))
}

pub fn rate_limit(ctx: &Ctx) -> Result<RateLimitOut, ToolError> {
    let now = ctx.now();
    ctx.with_store(|s| {
        let r = s.rate_limit(now);
        let next_lesson = s.next_lesson(now).ok().map(|n| n.to_string());
        Ok(RateLimitOut { allowed: r.allowed, total_lessons: s.total_lessons()?, reason: r.reason, next_lesson })
    })
}

pub fn briefing(ctx: &Ctx) -> Result<BriefingOut, ToolError> {
    let now = ctx.now();
    let notebook = ctx.opts.dir.read_notebook()?;
    let notebook_ready = !notebook.is_empty();
    ctx.with_store(|s| {
        let profile = s.profile()?;
        let knowledge_ready = profile.is_onboarded();
        let r = s.rate_limit(now);
        // A database the TypeScript build created may not have our tables yet: no estimates.
        let estimates = s
            .topic_estimates(now)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| profile.knowledge.iter().any(|k| k.topic == e.topic))
            .map(|e| EstimateOut {
                topic: e.topic,
                confidence_now: e.confidence_now,
                // As `profile --json` gives them: three decimals say all a reader can use.
                known_now: (e.known_now * 1000.0).round() / 1000.0,
                mastery: (e.mastery * 1000.0).round() / 1000.0,
                checked_answers: e.checked,
                self_reports: e.self_reported,
                other_evidence: e.other,
            })
            .collect();
        let work_insight = if s.work_insights().unwrap_or(false) {
            s.work_last_days(now, 7).ok().and_then(|counts| devcoach_core::work_patterns::week_line(&counts))
        } else {
            None
        };
        Ok(BriefingOut {
            estimates,
            work_insight,
            onboarding: OnboardingStatus {
                knowledge_ready,
                notebook_ready,
                needs_onboarding: !(knowledge_ready && notebook_ready),
            },
            rate_limit: RateLimitOut {
                allowed: r.allowed,
                total_lessons: s.total_lessons()?,
                reason: r.reason,
                next_lesson: s.next_lesson(now).ok().map(|n| n.to_string()),
            },
            taught_topics: s.taught_topics()?,
            profile: ProfileOut::new(&profile, None),
            compat: s.compat().map(CompatOut::from),
            notebook,
            notebook_path: notebook_path(ctx),
        })
    })
}

pub fn onboarding(ctx: &Ctx) -> Result<OnboardingOut, ToolError> {
    let scan = ctx.opts.claude.as_ref().map(history::scan).unwrap_or_default();
    let git = probe::git_context(&ctx.opts.cwd);
    let mut folders = vec![ctx.opts.cwd.as_path()];
    let git_root = find_git_root(&ctx.opts.cwd);
    if let Some(root) = &git_root {
        folders.push(root);
    }
    let detected_stack = history::merged_stack(&scan, &folders);
    let notebook_ready = notebook_ready(ctx);
    ctx.with_store(|s| {
        let knowledge_ready = s.is_onboarded()?;
        Ok(OnboardingOut {
            compat: s.compat().map(CompatOut::from),
            knowledge_ready,
            notebook_ready,
            needs_onboarding: !(knowledge_ready && notebook_ready),
            detected_stack,
            detected_projects: scan
                .projects
                .iter()
                .map(|p| ProjectOut {
                    name: p.name.clone(),
                    path: p.path.clone(),
                    topics: p.topics.clone(),
                    prompt_count: p.prompt_count,
                    last_activity: p.last_activity.clone(),
                    memory: p.memory.clone(),
                })
                .collect(),
            scanned_projects: scan.scanned_projects,
            default_topics: DEFAULT_PROFILE.iter().map(|(t, c)| ((*t).to_owned(), *c)).collect(),
            context_ready: git.branch.is_some(),
            notebook_path: notebook_path(ctx),
        })
    })
}

fn find_git_root(start: &std::path::Path) -> Option<std::path::PathBuf> {
    start.ancestors().find(|d| d.join(".git").exists()).map(std::path::Path::to_owned)
}

pub fn stats(ctx: &Ctx) -> Result<StatsOut, ToolError> {
    let now = ctx.now();
    ctx.with_store(|s| {
        let st = s.stats(now)?;
        let k = |v: &[devcoach_core::knowledge::KnowledgeEntry]| {
            v.iter().map(|e| KnowledgeOut { topic: e.topic.clone(), confidence: e.confidence }).collect()
        };
        Ok(StatsOut {
            total_lessons: st.total_lessons,
            lessons_today: st.lessons_today,
            lessons_this_week: st.lessons_this_week,
            imported_lessons: st.imported_lessons,
            weakest_topics: k(&st.weakest_topics),
            strongest_topics: k(&st.strongest_topics),
        })
    })
}

/// How the learner's self-reports compare with their checked answers, per topic.
pub fn calibration(ctx: &Ctx) -> Result<devcoach_core::checked::CalibrationReport, ToolError> {
    ctx.with_store(|s| Ok(devcoach_core::checked::CalibrationReport::new(&s.calibration()?)))
}

pub fn context(ctx: &Ctx) -> Result<ContextOut, ToolError> {
    let git = probe::git_context(&ctx.opts.cwd);
    ctx.with_store(|s| {
        let u = s.usage_defaults()?;
        Ok(ContextOut {
            git,
            usage_defaults: UsageOut {
                project: u.project,
                repository: u.repository,
                branch: u.branch,
                repository_platform: u.repository_platform.map(|p| p.as_str().into()),
            },
        })
    })
}

/// Up to 10 lessons of the last 7 days, newest first.
pub fn recent_lessons(ctx: &Ctx) -> Result<Vec<Lesson>, ToolError> {
    let now = ctx.now();
    let q = LessonQuery { period: Some(Period::Week), limit: Some(10), ..LessonQuery::default() };
    ctx.with_store(|s| Ok(s.lessons(&q, now)?))
}

pub fn taught_topics(ctx: &Ctx) -> Result<Vec<String>, ToolError> {
    ctx.with_store(|s| Ok(s.taught_topics()?))
}

pub fn notebook(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(ctx.opts.dir.read_notebook()?)
}

pub fn lesson(ctx: &Ctx, id: &str) -> Result<Option<Lesson>, ToolError> {
    ctx.with_store(|s| Ok(s.lesson(id)?))
}

/// A due review card, without its answer (the agent asks first).
#[derive(Debug, Serialize, JsonSchema)]
pub struct DueCardOut {
    pub lesson_id: String,
    pub title: String,
    pub topic_id: String,
    pub question: String,
    pub due: String,
    /// The predicted chance the learner still recalls it (absent before the first review).
    pub predicted_recall: Option<f64>,
    /// Times reviewed so far.
    pub reviews: i64,
}

/// The review queue.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DueReviewsOut {
    /// Cards due now, in all.
    pub total_due: i64,
    pub cards: Vec<DueCardOut>,
    /// Present when the host shows these cards itself: read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_check: Option<String>,
}

/// The due queue (`get_due_reviews`, `devcoach://reviews/due`). Lessons that have no card yet
/// (written by the TypeScript build, imported) get one first.
pub fn due_reviews(ctx: &Ctx, limit: u32) -> Result<DueReviewsOut, ToolError> {
    let now = ctx.now();
    ctx.with_store(|s| {
        s.ensure_review_cards(now)?;
        let (due, total_due) = s.due_reviews(now, limit)?;
        Ok(DueReviewsOut {
            total_due,
            cards: due
                .into_iter()
                .map(|d| DueCardOut {
                    lesson_id: d.card.lesson_id,
                    title: d.title,
                    topic_id: d.topic,
                    question: d.card.question,
                    due: d.card.due,
                    predicted_recall: d.retrievability,
                    reviews: d.card.reps,
                })
                .collect(),
            reply_check: None,
        })
    })
}
