//! Wire shapes: what tools and resources return, with their JSON schemas, where the domain value
//! is not already the shape. A lesson and its git context are (core derives their schemas behind
//! its `schema` feature, so the 19 keys are declared once); the rest are converted by hand.

use devcoach_core::knowledge::Profile;
use devcoach_core::settings::Settings;
use devcoach_store::Compat;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct KnowledgeOut {
    pub topic: String,
    /// 0 (new) … 10 (could teach it).
    pub confidence: i64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GroupOut {
    pub name: String,
    pub topics: Vec<String>,
}

/// Present when a newer devcoach upgraded the database: reads work, writes are refused.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompatOut {
    pub read_only: bool,
    pub db_schema: i64,
    pub app_schema: i64,
    pub upgraded_by: Option<String>,
    pub min_app: Option<String>,
}

impl From<&Compat> for CompatOut {
    fn from(c: &Compat) -> Self {
        Self {
            read_only: true,
            db_schema: c.db_schema,
            app_schema: c.app_schema,
            upgraded_by: c.upgraded_by.clone(),
            min_app: c.min_app.clone(),
        }
    }
}

/// The knowledge map: topics by name, groups by name (ungrouped topics belong to `Other`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProfileOut {
    pub knowledge: Vec<KnowledgeOut>,
    pub groups: Vec<GroupOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compat: Option<CompatOut>,
}

impl ProfileOut {
    pub fn new(p: &Profile, compat: Option<&Compat>) -> Self {
        Self {
            knowledge: p
                .knowledge
                .iter()
                .map(|e| KnowledgeOut { topic: e.topic.clone(), confidence: e.confidence })
                .collect(),
            groups: p.groups.iter().map(|g| GroupOut { name: g.name.clone(), topics: g.topics.clone() }).collect(),
            compat: compat.map(CompatOut::from),
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SettingsOut {
    pub max_per_day: i64,
    pub min_gap_minutes: i64,
    #[schemars(extend("enum" = ["system", "dark", "light"]))]
    pub ui_theme: String,
    #[schemars(extend("enum" = ["auto", "lessons", "knowledge"]))]
    pub ui_home: String,
    pub nudge_every: i64,
    #[schemars(extend("enum" = ["session", "global"]))]
    pub nudge_scope: String,
    pub share_name: Option<String>,
    /// Whether the learner agreed to devcoach reading the agents' transcripts for how they work
    /// (counts and a pattern label only; off unless they said yes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_insights: Option<bool>,
}

impl SettingsOut {
    /// With our own settings beside the original's.
    pub fn of(store: &devcoach_store::Store) -> Result<Self, devcoach_store::StoreError> {
        let mut out = Self::from(&store.settings()?);
        out.work_insights = Some(store.work_insights().unwrap_or(false));
        Ok(out)
    }
}

impl From<&Settings> for SettingsOut {
    fn from(s: &Settings) -> Self {
        Self {
            max_per_day: s.max_per_day,
            min_gap_minutes: s.min_gap_minutes,
            ui_theme: s.ui_theme.as_str().into(),
            ui_home: s.ui_home.as_str().into(),
            nudge_every: s.nudge_every,
            nudge_scope: s.nudge_scope.as_str().into(),
            share_name: s.share_name.clone(),
            work_insights: None,
        }
    }
}

/// Whether a lesson may be cued now.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RateLimitOut {
    pub allowed: bool,
    /// Every lesson, shared ones included.
    pub total_lessons: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When the next lesson comes (pacing, the rate limit and unanswered offers together), in the
    /// words `devcoach stats` and the dashboard use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_lesson: Option<String>,
}
