//! The course tools: `create_course`, `add_course_step`, `update_course_progress`, `get_courses`.

use devcoach_core::course::{Course, CourseError, CourseId, CourseStatus, Prerequisite, StepKind, StepStatus};
use devcoach_store::{CourseFilter, DataDir, ErrorKind, NewCourse, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Hints, Out, READ, Registry, WRITE, check_len};
use crate::ctx::{Ctx, ToolError};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub(crate) struct PrerequisiteIo {
    #[schemars(length(min = 1))]
    pub concept: String,
    pub known: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StepOut {
    pub course_id: String,
    /// 1-based.
    pub position: i64,
    pub title: String,
    #[schemars(extend("enum" = ["concept", "example", "practice", "check"]))]
    pub kind: String,
    pub anchor: String,
    #[schemars(extend("enum" = ["todo", "done", "skipped"]))]
    pub status: String,
    pub done_at: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CourseOut {
    pub id: String,
    pub lesson_id: Option<String>,
    pub topic_id: String,
    pub title: String,
    pub goal: Option<String>,
    pub prerequisites: Vec<PrerequisiteIo>,
    #[schemars(extend("enum" = ["active", "completed", "abandoned"]))]
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
    pub completed_at: Option<String>,
    pub steps: Vec<StepOut>,
    /// The course's folder.
    pub course_dir: String,
}

fn step_out(s: &devcoach_core::course::CourseStep) -> StepOut {
    StepOut {
        course_id: s.course_id.clone(),
        position: s.position,
        title: s.title.clone(),
        kind: s.kind.as_str().into(),
        anchor: s.anchor.clone(),
        status: s.status.as_str().into(),
        done_at: s.done_at.clone(),
    }
}

fn course_out(c: &Course, dir: &DataDir) -> CourseOut {
    CourseOut {
        id: c.id.clone(),
        lesson_id: c.lesson_id.clone(),
        topic_id: c.topic_id.clone(),
        title: c.title.clone(),
        goal: c.goal.clone(),
        prerequisites: c
            .prerequisites
            .iter()
            .map(|p| PrerequisiteIo { concept: p.concept.clone(), known: p.known })
            .collect(),
        status: c.status.as_str().into(),
        created_at: c.created_at.clone(),
        updated_at: c.updated_at.clone(),
        completed_at: c.completed_at.clone(),
        steps: c.steps.iter().map(step_out).collect(),
        course_dir: CourseId::parse(&c.id)
            .map(|id| dir.course_dir(&id).to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CreateCourseArgs {
    #[schemars(length(min = 1))]
    pub title: String,
    #[schemars(length(min = 1))]
    pub topic_id: String,
    /// What the learner will be able to do at the end.
    #[serde(default)]
    pub goal: Option<String>,
    /// The lesson the course grows from (see get_lessons).
    #[serde(default)]
    pub lesson_id: Option<String>,
    /// What the course builds on, and whether the learner already knows each.
    #[serde(default)]
    pub prerequisites: Vec<PrerequisiteIo>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SeedContext {
    pub task_context: Option<String>,
    pub project: Option<String>,
    pub repository: Option<String>,
    pub branch: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CreatedOut {
    #[serde(flatten)]
    pub course: CourseOut,
    /// Write the course document here, with your file tool.
    pub document_path: String,
    /// Where the seed lesson happened, to keep examples close to it.
    pub seed_context: Option<SeedContext>,
    pub reply_check: String,
}

const CREATE_CHECK: &str = "Now write ONE self-contained HTML file at document_path with your file tool (inline CSS and JS \
only: no external URLs, no fetch, no <form>, no alert/confirm/prompt), following references/course.md: one <section \
id=\"step-N\"> per step, code in <pre><code class=\"language-…\">, and exactly one <script data-devcoach=\"highlighter\"></script> \
placeholder (devcoach fills it; never write a highlighter yourself). Never paste the HTML in chat. Then call add_course_step \
for each section, in order, and teach one step per message. The course shows in the dashboard under Courses.";

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum KindArg {
    Concept,
    Example,
    Practice,
    Check,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AddStepArgs {
    pub course_id: String,
    #[schemars(length(min = 1))]
    pub title: String,
    pub kind: KindArg,
    /// The id of the step's section in the document, e.g. `step-1`.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9-]*$"))]
    pub anchor: String,
    /// Insert after this step (0 = first); leave out to append.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub after: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StepAddedOut {
    #[serde(flatten)]
    pub course: CourseOut,
    pub step: StepOut,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ProgressArgs {
    pub course_id: String,
    /// A step's position; leave out to set the course's own status.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub position: Option<i64>,
    /// For a step: todo, done or skipped. For the course: active, completed or abandoned.
    pub status: String,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CourseStatusArg {
    Active,
    Completed,
    Abandoned,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetCoursesArgs {
    #[serde(default)]
    pub course_id: Option<String>,
    /// Courses grown from this lesson.
    #[serde(default)]
    pub lesson_id: Option<String>,
    #[serde(default)]
    pub status: Option<CourseStatusArg>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CoursesOut {
    pub courses: Vec<CourseOut>,
}

fn course_error(e: StoreError) -> ToolError {
    match e {
        StoreError::Course(c) => ToolError::Invalid(c.to_string()),
        other => ToolError::Store(other),
    }
}

fn create(ctx: &Ctx, a: CreateCourseArgs) -> Result<Out<CreatedOut>, ToolError> {
    check_len("title", &a.title, devcoach_core::limits::TITLE_CHARS)?;
    check_len("topic_id", &a.topic_id, devcoach_core::limits::TOPIC_CHARS)?;
    if a.prerequisites.len() > 50 {
        return Err(ToolError::Invalid("at most 50 prerequisites".into()));
    }
    let new = NewCourse {
        title: a.title,
        topic_id: a.topic_id,
        goal: a.goal,
        lesson_id: a.lesson_id.clone(),
        prerequisites: a
            .prerequisites
            .into_iter()
            .map(|p| Prerequisite { concept: p.concept, known: p.known })
            .collect(),
    };
    let now = ctx.now();
    let dir = ctx.opts.dir.clone();
    let (course, seed) = ctx.with_store(|s| {
        let course = s.create_course(&new, now).map_err(course_error)?;
        let seed = match &a.lesson_id {
            Some(id) => s.lesson(id)?,
            None => None,
        };
        Ok((course, seed))
    })?;
    let id = CourseId::parse(&course.id).map_err(|e| ToolError::Invalid(e.to_string()))?;
    Ok(CreatedOut {
        document_path: dir.course_document_path(&id).to_string_lossy().into_owned(),
        seed_context: seed.map(|l| SeedContext {
            task_context: l.context.task_context,
            project: l.context.git.project,
            repository: l.context.git.repository,
            branch: l.context.git.branch,
        }),
        course: course_out(&course, &dir),
        reply_check: CREATE_CHECK.into(),
    }
    .into())
}

fn add_step(ctx: &Ctx, a: AddStepArgs) -> Result<Out<StepAddedOut>, ToolError> {
    let id = CourseId::parse(&a.course_id)
        .map_err(|_| ToolError::NotFound(CourseError::NotFound(a.course_id.clone()).to_string()))?;
    let kind = match a.kind {
        KindArg::Concept => StepKind::Concept,
        KindArg::Example => StepKind::Example,
        KindArg::Practice => StepKind::Practice,
        KindArg::Check => StepKind::Check,
    };
    if a.after.is_some_and(|n| n < 0) {
        return Err(ToolError::Invalid("'after' must be 0 or more".into()));
    }
    check_len("title", &a.title, devcoach_core::limits::TITLE_CHARS)?;
    let now = ctx.now();
    let dir = ctx.opts.dir.clone();
    let (course, step) =
        ctx.with_store(|s| s.add_course_step(&id, &a.title, kind, &a.anchor, a.after, now).map_err(course_error))?;
    Ok(StepAddedOut { course: course_out(&course, &dir), step: step_out(&step) }.into())
}

fn progress(ctx: &Ctx, a: ProgressArgs) -> Result<Out<CourseOut>, ToolError> {
    let missing = || {
        let step = a.position.map(|p| format!(" step {p}")).unwrap_or_default();
        ToolError::said(
            ErrorKind::NotFound,
            format!("update_course_progress: course '{}'{step} not found — call get_courses", a.course_id),
        )
    };
    let id = CourseId::parse(&a.course_id).map_err(|_| missing())?;
    let now = ctx.now();
    let dir = ctx.opts.dir.clone();
    let course = match a.position {
        Some(position) => {
            let status = StepStatus::parse(&a.status).map_err(|e| ToolError::Invalid(e.to_string()))?;
            ctx.with_store(|s| Ok(s.set_step_status(&id, position, status, now)?))?
        }
        None => {
            let status = CourseStatus::parse(&a.status).map_err(|e| ToolError::Invalid(e.to_string()))?;
            ctx.with_store(|s| Ok(s.set_course_status(&id, status, now)?))?
        }
    };
    course.map(|c| course_out(&c, &dir).into()).ok_or_else(missing)
}

fn list(ctx: &Ctx, a: GetCoursesArgs) -> Result<Out<CoursesOut>, ToolError> {
    if a.course_id.as_deref().is_some_and(|id| CourseId::parse(id).is_err()) {
        return Ok(CoursesOut { courses: vec![] }.into());
    }
    let filter = CourseFilter {
        course_id: a.course_id,
        lesson_id: a.lesson_id,
        status: a.status.map(|s| match s {
            CourseStatusArg::Active => CourseStatus::Active,
            CourseStatusArg::Completed => CourseStatus::Completed,
            CourseStatusArg::Abandoned => CourseStatus::Abandoned,
        }),
    };
    let dir = ctx.opts.dir.clone();
    ctx.with_store(|s| {
        Ok(CoursesOut { courses: s.courses(&filter)?.iter().map(|c| course_out(c, &dir)).collect() }.into())
    })
}

pub(super) fn register(r: &mut Registry) {
    let create_hints = Hints { read_only: false, destructive: false, idempotent: false, open_world: false };
    r.structured(
        ("create_course", "Create Course", create_hints),
        "Start a step-by-step course when the learner asks to go deeper (often from a lesson they could not follow). \
         Returns where to write the course document; see reply_check.",
        create,
    );
    r.structured(
        ("add_course_step", "Add Course Step", create_hints),
        "Register a section of the written course document as a step, in order (or after a given step). The document \
         must exist and contain an element with id equal to the anchor.",
        add_step,
    );
    r.structured(
        ("update_course_progress", "Update Course Progress", WRITE),
        "Mark a step todo, done or skipped (with position), or set the course active, completed or abandoned (without). \
         A course completes by itself when every step is done or skipped.",
        progress,
    );
    r.structured(
        ("get_courses", "Get Courses", READ),
        "List courses with their steps and progress, optionally filtered.",
        list,
    );
}
