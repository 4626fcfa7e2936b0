//! Onboarding and the state reads: `complete_onboarding`, `preview_deep_scan`, `get_briefing`,
//! `get_onboarding`, `get_profile`.

use std::collections::BTreeMap;

use devcoach_probe::history;
use devcoach_store::{Onboarding, OnboardingMode, SafetyKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Hints, NoArgs, READ, Registry, check_len};
use crate::ctx::{Ctx, ToolError};
use crate::dto::{GroupOut, KnowledgeOut, ProfileOut};
use crate::payloads::{self, BriefingOut, OnboardingOut};

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CompleteOnboardingArgs {
    /// The learner's topics: {topic: confidence 0–10}.
    pub topics: BTreeMap<String, i64>,
    /// Optional groups: {group: [topic, …]} (topics listed in `topics` or already on the map).
    #[serde(default)]
    pub groups: Option<BTreeMap<String, Vec<String>>>,
    /// True starts the map again: every topic and group not listed is removed (a backup is
    /// taken first and its undo returned). Left out, the topics given are added to the map
    /// (or set, when already there) and everything else stays.
    #[serde(default)]
    pub replace: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct OnboardedOut {
    pub knowledge: Vec<KnowledgeOut>,
    pub groups: Vec<GroupOut>,
    /// Write the coaching notebook here now, with your file tools.
    pub notebook_path: String,
    /// Whether the previous map was replaced (false: the topics were added to it).
    pub replaced: bool,
    /// The backup taken before a map was replaced, and the command that puts it back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undo: Option<String>,
    /// What to do next.
    pub next: String,
}

fn default_months() -> i64 {
    3
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DeepScanArgs {
    /// How many months back to look (1–24).
    #[serde(default = "default_months")]
    #[schemars(range(min = 1, max = 24))]
    pub months: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CandidateOut {
    pub name: String,
    pub path: String,
    pub last_activity: Option<String>,
    pub prompt_count: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct WindowOut {
    pub window_months: u32,
    /// The oldest activity inside the window.
    pub cutoff: String,
    /// Projects with activity inside the window.
    pub candidate_count: usize,
    /// More projects than a deep scan should read without asking twice (8).
    pub over_soft_limit: bool,
    /// The projects, most recently active first (at most 50).
    pub candidates: Vec<CandidateOut>,
}

const ONBOARDED_NEXT: &str = "Profile saved. Now write the coaching notebook at notebook_path (who the learner is, how \
they learn, what to watch for), replacing the placeholder.";

const CONFIG_HINTS: Hints = Hints { read_only: false, destructive: true, idempotent: false, open_world: false };

pub(super) fn register_complete(r: &mut Registry) {
    r.structured(
        ("complete_onboarding", "Complete Onboarding", CONFIG_HINTS),
        "Save the learner's knowledge profile at the end of onboarding. Adds to the map the learner has (topics given \
         are set, the rest stay); replace=true starts the map again, only when the learner asked for that (a backup is \
         taken first and its undo returned). Confidences are clamped to 0–10. Guarantees a placeholder notebook \
         exists; write the real one at notebook_path afterwards.",
        |ctx: &Ctx, a: CompleteOnboardingArgs| {
            if a.topics.len() > 500 {
                return Err(ToolError::Invalid("at most 500 topics, please".into()));
            }
            for topic in a.topics.keys() {
                check_len("topics", topic, devcoach_core::limits::TOPIC_CHARS)?;
            }
            let topics: Vec<(String, i64)> = a.topics.into_iter().collect();
            let groups: Vec<(String, Vec<String>)> = a.groups.unwrap_or_default().into_iter().collect();
            let now = ctx.now();
            let mode = if a.replace == Some(true) { OnboardingMode::Replace } else { OnboardingMode::Add };
            let (profile, backup) = ctx.with_store(|s| {
                // Only a map that exists is worth a backup; the undo is printed with it.
                let backup = if mode == OnboardingMode::Replace && s.is_onboarded()? {
                    Some(devcoach_store::take_safety_backup(s, SafetyKind::Setup, "profile", now)?)
                } else {
                    None
                };
                let plan = Onboarding { topics: &topics, groups: &groups, mode, settings: &[] };
                Ok((s.onboard(&plan, now)?, backup))
            })?;
            ctx.opts.dir.ensure_notebook()?;
            let out = ProfileOut::new(&profile, None);
            let backup = backup.map(|p| p.to_string_lossy().into_owned());
            Ok(OnboardedOut {
                knowledge: out.knowledge,
                groups: out.groups,
                notebook_path: ctx.opts.dir.notebook_path().to_string_lossy().into_owned(),
                replaced: mode == OnboardingMode::Replace,
                undo: backup.as_ref().map(|b| format!("devcoach restore {} --profile", devcoach_core::shell::quote(b))),
                backup,
                next: ONBOARDED_NEXT.into(),
            }
            .into())
        },
    );
}

pub(super) fn register_deep_scan(r: &mut Registry) {
    r.structured(
        ("preview_deep_scan", "Preview Deep Scan", READ),
        "Before a deep onboarding scan, count the Claude Code projects active in the last `months` (metadata only: names, \
         paths, activity). Show this to the learner and ask before reading any conversation history.",
        |ctx: &Ctx, a: DeepScanArgs| {
            let months = u32::try_from(a.months).ok().filter(|m| (1..=24).contains(m)).ok_or_else(|| {
                ToolError::Invalid(format!("`months` must be between 1 and 24, got {}", a.months))
            })?;
            let scan = match &ctx.opts.claude {
                Some(home) => history::window(home, months, ctx.now()),
                None => history::WindowScan {
                    window_months: months,
                    cutoff: devcoach_core::time::iso_ms(ctx.now() - chrono::Duration::days(i64::from(months) * 30)),
                    candidate_count: 0,
                    over_soft_limit: false,
                    candidates: vec![],
                },
            };
            Ok(WindowOut {
                window_months: scan.window_months,
                cutoff: scan.cutoff,
                candidate_count: scan.candidate_count,
                over_soft_limit: scan.over_soft_limit,
                candidates: scan
                    .candidates
                    .into_iter()
                    .map(|c| CandidateOut { name: c.name, path: c.path, last_activity: c.last_activity, prompt_count: c.prompt_count })
                    .collect(),
            }
            .into())
        },
    );
}

pub(super) fn register_reads(r: &mut Registry) {
    r.structured(
        ("get_briefing", "Lesson Briefing", READ),
        "One read before teaching: onboarding status, the rate limit, topics already taught, the knowledge map, and the \
         coaching notebook with its path.",
        |ctx: &Ctx, _: NoArgs| -> Result<super::Out<BriefingOut>, ToolError> { Ok(payloads::briefing(ctx)?.into()) },
    );
    r.structured(
        ("get_onboarding", "Onboarding Status & Detected Stack", READ),
        "For onboarding: whether a profile and notebook exist, the stack detected from the working folder and recent \
         Claude Code projects (with prompt counts and memory excerpts, never prompt text), and a default starting profile.",
        |ctx: &Ctx, _: NoArgs| -> Result<super::Out<OnboardingOut>, ToolError> { Ok(payloads::onboarding(ctx)?.into()) },
    );
    r.structured(
        ("get_profile", "Knowledge Profile", READ),
        "The knowledge map: every topic with its confidence (0–10) and the groups.",
        |ctx: &Ctx, _: NoArgs| -> Result<super::Out<ProfileOut>, ToolError> { Ok(payloads::profile(ctx)?.into()) },
    );
}
