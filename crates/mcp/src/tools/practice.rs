//! Practice tools: the same rules as `devcoach practice` for any MCP client, with the agent as
//! coach and judge. Every learner message goes through `practice_submit`, every draft reply
//! through `practice_check_reply`; the session lives in its log, not in the server.

use devcoach_core::error_kind::ErrorKind;
use devcoach_practice::Toolbox;
use devcoach_practice::problem::Problem;
use devcoach_practice::remote::{self, Checked, RemoteError, Submitted};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Out, Registry, WRITE};
use crate::ctx::{Ctx, ToolError};

impl From<RemoteError> for ToolError {
    fn from(e: RemoteError) -> Self {
        match e {
            RemoteError::Log(e) => ToolError::said(ErrorKind::Io, e.to_string()),
            RemoteError::NothingToJudge(_) => ToolError::Invalid(e.to_string()),
            other => ToolError::NotFound(other.to_string()),
        }
    }
}

fn ts(ctx: &Ctx) -> String {
    ctx.now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn session_path(ctx: &Ctx, id: &str) -> Result<std::path::PathBuf, ToolError> {
    remote::path_of(ctx.opts.dir.root(), id).ok_or_else(|| {
        ToolError::Invalid(format!("{id:?} is not a practice session id; use the one practice_start returned"))
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StartArgs {
    /// A problem devcoach ships, by slug (closest-pair-to-target, signal-tower-reach, …).
    #[serde(default)]
    pub problem: Option<String>,
    /// Or the learner's own problem statement (markdown; at most 256 KB).
    #[serde(default)]
    pub statement: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StartOut {
    pub session_id: String,
    pub title: String,
    /// Show this to the learner.
    pub statement: String,
    /// How to coach: follow these for the whole session.
    pub instructions: String,
    pub log: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SubmitArgs {
    pub session_id: String,
    /// The learner's message, exactly as typed.
    pub message: String,
    /// Only when devcoach could not tell: whether you read the message as source code.
    #[serde(default)]
    pub is_code: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SubmitOut {
    /// req (a requirement list), code or prose.
    pub kind: String,
    /// Code held back by the gate: do not discuss it; tell the learner `why`.
    pub held: bool,
    pub why: Option<String>,
    /// Code let through after three incomplete lists.
    pub req_incomplete: bool,
    /// For a requirement list: judge it with this prompt yourself, then call practice_judge.
    pub judge_prompt: Option<String>,
    /// What to do next.
    pub next: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct JudgeArgs {
    pub session_id: String,
    /// Your answer to the judge prompt, as the JSON object it asks for; omit it if you could not judge.
    #[serde(default)]
    pub verdict_json: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MissingOut {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct JudgeOut {
    /// passed, incomplete or unverified.
    pub verdict: String,
    /// The properties the list misses (vocabulary entries only): tell the learner these.
    pub missing: Vec<MissingOut>,
    /// Whether the learner's code will now go through.
    pub code_allowed: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CheckArgs {
    pub session_id: String,
    /// Your draft reply to the learner, starting with its `<!-- rung:Hn -->` marker.
    pub draft: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CheckOut {
    /// show (send `text`), rewrite (write the reply again, see `why`) or withhold (send the learner
    /// only a neutral line, not the draft).
    pub action: String,
    pub text: Option<String>,
    pub rung: Option<u8>,
    pub why: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SessionArgs {
    pub session_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EndArgs {
    pub session_id: String,
    /// True when the learner solved it. Otherwise the session stays unfinished: its card names
    /// neither the technique nor the hints, and it can be resumed.
    #[serde(default)]
    pub solved: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RevealOut {
    pub session_id: String,
    /// You may now show and explain a full solution.
    pub revealed: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct EndOut {
    pub session_id: String,
    /// The lesson card saved for the session (absent when the learner said nothing).
    pub lesson_id: Option<String>,
    pub title: Option<String>,
    /// alone, helped or revealed (the evidence written to the knowledge map), or unfinished (none).
    pub result: Option<String>,
}

pub(super) fn register(r: &mut Registry) {
    r.structured(
        ("practice_start", "Start Practice", WRITE),
        "Start a practice session on an algorithm problem: a shipped one by slug, or the learner's own statement. \
         Returns the statement to show and the coaching rules to follow; then pass every learner message to \
         practice_submit and every draft reply to practice_check_reply.",
        |ctx: &Ctx, a: StartArgs| {
            let problem = match (&a.problem, &a.statement) {
                (Some(slug), None) => Problem::shipped(slug).map_err(|e| ToolError::Invalid(e.to_string()))?,
                (None, Some(text)) => {
                    Problem::parse(text, "own-problem").map_err(|e| ToolError::Invalid(e.to_string()))?
                }
                _ => {
                    return Err(ToolError::Invalid("give exactly one of problem (a shipped slug) or statement".into()));
                }
            };
            let now = ctx.now();
            let started =
                remote::start(ctx.opts.dir.root(), &problem, &now.format("%Y-%m-%d").to_string(), &ts(ctx), "mcp")?;
            Ok(Out::from(StartOut {
                session_id: started.id,
                title: problem.title.clone(),
                statement: problem.statement.clone(),
                instructions: started.instructions,
                log: started.log.display().to_string(),
            }))
        },
    );
    r.structured(
        ("practice_submit", "Submit Practice Message", WRITE),
        "Pass the learner's message through the requirements-before-code gate. Code is held until a requirement list \
         (a message starting `req:`) passed; a requirement list comes back with a judge prompt for practice_judge.",
        |ctx: &Ctx, a: SubmitArgs| {
            let path = session_path(ctx, &a.session_id)?;
            let plain = |kind: &str, next: &str| SubmitOut {
                kind: kind.into(),
                held: false,
                why: None,
                req_incomplete: false,
                judge_prompt: None,
                next: next.into(),
            };
            let coach_on = "Coach as usual; check your draft with practice_check_reply.";
            let out = match remote::submit(&path, &a.session_id, &a.message, a.is_code, &ts(ctx))? {
                Submitted::Requirements { judge_prompt } => SubmitOut {
                    judge_prompt: Some(judge_prompt),
                    ..plain("req", "Judge the list with judge_prompt, then call practice_judge with your JSON answer.")
                },
                Submitted::CodePassed { req_incomplete } => SubmitOut { req_incomplete, ..plain("code", coach_on) },
                Submitted::CodeHeld { why } => SubmitOut {
                    held: true,
                    why: Some(why),
                    ..plain("code", "Tell the learner why the code is on hold; do not discuss the code.")
                },
                Submitted::Prose => plain("prose", coach_on),
            };
            Ok(Out::from(out))
        },
    );
    r.structured(
        ("practice_judge", "Judge Requirements", WRITE),
        "Record your verdict on the learner's last requirement list (the JSON object the judge prompt asked for). Only \
         vocabulary ids are kept; without a verdict the list counts as unverified and code may go through.",
        |ctx: &Ctx, a: JudgeArgs| {
            let path = session_path(ctx, &a.session_id)?;
            let (verdict, missing, code_allowed) =
                remote::judge(&path, &a.session_id, a.verdict_json.as_deref(), &ts(ctx))?;
            let toolbox = Toolbox::builtin();
            Ok(Out::from(JudgeOut {
                verdict: verdict.as_str().into(),
                code_allowed,
                missing: missing
                    .into_iter()
                    .map(|id| MissingOut { name: toolbox.get(&id).map_or_else(|| id.clone(), |e| e.name.clone()), id })
                    .collect(),
            }))
        },
    );
    r.structured(
        ("practice_check_reply", "Check Practice Reply", WRITE),
        "Check a draft reply before the learner sees it: one that names a technique, data structure or property the \
         learner has not named, or holds a line of solution code, must be rewritten (after three tries, withheld).",
        |ctx: &Ctx, a: CheckArgs| {
            let path = session_path(ctx, &a.session_id)?;
            let out = match remote::check_reply(&path, &a.session_id, &a.draft, &ts(ctx))? {
                Checked::Show { text, rung } => CheckOut { action: "show".into(), text: Some(text), rung, why: None },
                Checked::Rewrite { why, .. } => CheckOut {
                    action: "rewrite".into(),
                    text: None,
                    rung: None,
                    why: Some(format!("The draft gives too much away: {why}. Write it again.")),
                },
                Checked::Withhold => CheckOut {
                    action: "withhold".into(),
                    text: None,
                    rung: None,
                    why: Some("Three drafts gave too much away: tell the learner you will ask another way.".into()),
                },
            };
            Ok(Out::from(out))
        },
    );
    r.structured(
        ("practice_reveal", "Reveal Practice Answer", WRITE),
        "The learner asked for the answer: record it; from now on a full solution may be shown.",
        |ctx: &Ctx, a: SessionArgs| {
            let path = session_path(ctx, &a.session_id)?;
            remote::reveal(&path, &a.session_id, &ts(ctx))?;
            Ok(Out::from(RevealOut { session_id: a.session_id, revealed: true }))
        },
    );
    r.structured(
        ("practice_end", "End Practice", WRITE),
        "End the practice session: saves its lesson card (category practice) and the evidence on the knowledge map.",
        |ctx: &Ctx, a: EndArgs| {
            let path = session_path(ctx, &a.session_id)?;
            let events = remote::end(&path, &a.session_id, a.solved, &ts(ctx))?;
            let problem = remote::problem_of(&events).ok_or_else(|| {
                ToolError::said(
                    ErrorKind::Damaged,
                    format!("practice_end failed: the log of {} has no start line", a.session_id),
                )
            })?;
            let now = ctx.now();
            let Some(pm) = devcoach_practice::postmortem::build(&problem, &events, Toolbox::builtin()) else {
                return Ok(Out::from(EndOut { session_id: a.session_id, lesson_id: None, title: None, result: None }));
            };
            let result = match pm.result {
                Some(devcoach_core::knowledge_model::PracticeResult::Alone) => "alone",
                Some(devcoach_core::knowledge_model::PracticeResult::Helped) => "helped",
                Some(devcoach_core::knowledge_model::PracticeResult::Revealed) => "revealed",
                None => "unfinished",
            };
            let lesson =
                ctx.with_store(|s| Ok(s.record_practice(pm.lesson, &pm.topics, pm.result, pm.finished, now)?))?;
            Ok(Out::from(EndOut {
                session_id: a.session_id,
                lesson_id: Some(lesson.id),
                title: Some(lesson.title),
                result: Some(result.into()),
            }))
        },
    );
}
