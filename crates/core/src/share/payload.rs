//! The shared-lesson payload and its privacy rules.

use serde_json::{Map, Value, json};

use super::ShareError;
use crate::git::GitContext;
use crate::lesson::{Lesson, LessonContext, Level, Platform};

pub const FORMAT: &str = "devcoach.lesson";
pub const VERSION: i64 = 1;

/// A lesson as it travels to someone else. Never carries the local folder, star, feedback, or
/// any id beyond `origin.id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedLesson {
    pub title: String,
    pub summary: String,
    pub body: Option<String>,
    pub topic_id: String,
    pub categories: Vec<String>,
    pub level: Level,
    pub task_context: Option<String>,
    pub project: Option<String>,
    pub branch: Option<String>,
    pub commit_hash: Option<String>,
    pub repository: Option<String>,
    pub repository_platform: Option<Platform>,
    pub origin_id: String,
    pub origin_timestamp: String,
    pub shared_by: Option<String>,
    pub shared_at: String,
    pub app_version: String,
}

/// Who a share names as its sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SharedBy {
    /// No name at all.
    Anonymous,
    /// This name (blank means anonymous).
    Named(String),
    /// The `share_name` setting, else git's `user.name`, else anonymous.
    Default,
}

impl SharedBy {
    /// The name written into the payload.
    pub fn resolve(&self, setting: Option<&str>, git_user: Option<&str>) -> Option<String> {
        let clean = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        match self {
            Self::Anonymous => None,
            Self::Named(name) => clean(name),
            Self::Default => setting.and_then(clean).or_else(|| git_user.and_then(clean)),
        }
    }
}

impl SharedLesson {
    /// What leaves the machine: by default only the lesson itself; with `include_context` also
    /// the task, project, branch and commit, and the repository only when it lives on a public
    /// host (a `local` repository is a path on disk).
    pub fn from_lesson(
        l: &Lesson,
        include_context: bool,
        shared_by: Option<String>,
        shared_at: String,
        app_version: &str,
    ) -> Self {
        let ctx = |v: &Option<String>| if include_context { v.clone() } else { None };
        let public_repo = include_context
            && matches!(
                l.context.git.repository_platform,
                Some(Platform::Github | Platform::Gitlab | Platform::Bitbucket)
            )
            && l.context.git.repository.is_some();
        Self {
            title: l.title.clone(),
            summary: l.summary.clone(),
            body: l.body.clone(),
            topic_id: l.topic_id.clone(),
            categories: l.categories.clone(),
            level: l.level,
            task_context: ctx(&l.context.task_context),
            project: ctx(&l.context.git.project),
            branch: ctx(&l.context.git.branch),
            commit_hash: ctx(&l.context.git.commit_hash),
            repository: if public_repo { l.context.git.repository.clone() } else { None },
            repository_platform: if public_repo { l.context.git.repository_platform } else { None },
            origin_id: l.id.clone(),
            origin_timestamp: l.timestamp.clone(),
            shared_by,
            shared_at,
            app_version: app_version.to_owned(),
        }
    }

    /// The JSON form, keys in the order the original writes them (so codes stay compact and
    /// comparable).
    pub fn to_json(&self) -> Value {
        let mut lesson = Map::new();
        lesson.insert("title".into(), json!(self.title));
        lesson.insert("summary".into(), json!(self.summary));
        lesson.insert("body".into(), json!(self.body));
        lesson.insert("topic_id".into(), json!(self.topic_id));
        lesson.insert("categories".into(), json!(self.categories));
        lesson.insert("level".into(), json!(self.level.as_str()));
        for (key, value) in [
            ("task_context", &self.task_context),
            ("project", &self.project),
            ("branch", &self.branch),
            ("commit_hash", &self.commit_hash),
        ] {
            if let Some(v) = value {
                lesson.insert(key.into(), json!(v));
            }
        }
        if let Some(repo) = &self.repository {
            lesson.insert("repository".into(), json!(repo));
            lesson.insert("repository_platform".into(), json!(self.repository_platform.map(Platform::as_str)));
        }
        let mut root = Map::new();
        root.insert("format".into(), json!(FORMAT));
        root.insert("version".into(), json!(VERSION));
        root.insert("lesson".into(), Value::Object(lesson));
        root.insert("origin".into(), json!({ "id": self.origin_id, "timestamp": self.origin_timestamp }));
        root.insert("shared_by".into(), json!(self.shared_by));
        root.insert("shared_at".into(), json!(self.shared_at));
        root.insert("app_version".into(), json!(self.app_version));
        Value::Object(root)
    }

    /// Validates a payload object (the shared schema: `format`, `version` 1, a lesson with a
    /// title, topic and level, an origin id).
    pub fn from_json(v: &Value) -> Result<Self, ShareError> {
        let bad = || ShareError::InvalidLesson;
        let obj = v.as_object().ok_or_else(bad)?;
        if obj.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(bad());
        }
        match obj.get("version") {
            Some(Value::Number(n)) if n.as_i64() == Some(VERSION) => {}
            Some(Value::Number(n)) => return Err(ShareError::NewerFormat(n.to_string())),
            _ => return Err(bad()),
        }
        let lesson = obj.get("lesson").and_then(Value::as_object).ok_or_else(bad)?;
        let string = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
        let nonempty = |m: &Map<String, Value>, k: &str| string(m, k).filter(|s| !s.is_empty()).ok_or_else(bad);
        let optional = |m: &Map<String, Value>, k: &str| -> Result<Option<String>, ShareError> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad()),
            }
        };
        let categories = match lesson.get("categories") {
            Some(Value::Array(items)) => {
                items.iter().map(|i| i.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>().ok_or_else(bad)?
            }
            _ => return Err(bad()),
        };
        let level = Level::parse(&string(lesson, "level").ok_or_else(bad)?).map_err(|_| bad())?;
        let repository_platform =
            optional(lesson, "repository_platform")?.map(|p| Platform::parse(&p)).transpose().map_err(|_| bad())?;
        let origin = obj.get("origin").and_then(Value::as_object).ok_or_else(bad)?;
        Ok(Self {
            title: nonempty(lesson, "title")?,
            summary: string(lesson, "summary").ok_or_else(bad)?,
            body: optional(lesson, "body")?,
            topic_id: nonempty(lesson, "topic_id")?,
            categories,
            level,
            task_context: optional(lesson, "task_context")?,
            project: optional(lesson, "project")?,
            branch: optional(lesson, "branch")?,
            commit_hash: optional(lesson, "commit_hash")?,
            repository: optional(lesson, "repository")?,
            repository_platform,
            origin_id: nonempty(origin, "id")?,
            origin_timestamp: string(origin, "timestamp").ok_or_else(bad)?,
            shared_by: optional(obj, "shared_by")?,
            shared_at: string(obj, "shared_at").ok_or_else(bad)?,
            app_version: string(obj, "app_version").ok_or_else(bad)?,
        })
    }

    /// The ids an import may use: the sender's id, then `-shared`, `-shared-2` … `-shared-49`.
    pub fn id_candidates(&self) -> impl Iterator<Item = String> + '_ {
        std::iter::once(self.origin_id.clone())
            .chain(std::iter::once(format!("{}-shared", self.origin_id)))
            .chain((2..MAX_ID_CANDIDATES).map(|n| format!("{}-shared-{n}", self.origin_id)))
    }

    /// Whether a stored lesson is the very lesson this share was made from: the learner's own
    /// (not imported), under the share's id, with the same content.
    pub fn is_own(&self, stored: &Lesson) -> bool {
        !stored.imported
            && stored.id == self.origin_id
            && stored.title == self.title
            && stored.topic_id == self.topic_id
            && stored.summary == self.summary
            && stored.body == self.body
    }

    /// Whether a stored lesson is this share, imported before.
    pub fn is_same_as(&self, stored: &Lesson) -> bool {
        stored.imported
            && stored.title == self.title
            && stored.topic_id == self.topic_id
            && stored.shared_by == self.shared_by
    }

    /// The lesson as stored on import: shared, stamped at import time, never starred or answered.
    pub fn into_lesson(self, id: String, imported_at: String) -> Lesson {
        Lesson {
            id,
            timestamp: imported_at,
            topic_id: self.topic_id,
            categories: self.categories,
            title: self.title,
            level: self.level,
            summary: self.summary,
            body: self.body,
            context: LessonContext {
                task_context: self.task_context,
                git: GitContext {
                    project: self.project,
                    repository: self.repository,
                    branch: self.branch,
                    commit_hash: self.commit_hash,
                    // A share never carries a local path.
                    folder: None,
                    repository_platform: self.repository_platform,
                },
            },
            starred: false,
            feedback: None,
            imported: true,
            shared_by: self.shared_by,
        }
    }
}

/// How many ids an import tries before giving up.
pub const MAX_ID_CANDIDATES: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::Feedback;

    pub(crate) fn lesson() -> Lesson {
        let git = GitContext {
            project: Some("widgets".into()),
            repository: Some("/home/me/widgets".into()),
            branch: Some("main".into()),
            commit_hash: Some("abc123".into()),
            folder: Some("/home/me/widgets".into()),
            repository_platform: Some(Platform::Local),
        };
        let mut l = Lesson {
            id: "borrow-checker".into(),
            timestamp: "2026-10-01T08:00:00Z".into(),
            categories: vec!["rust".into(), "memory".into()],
            title: "Borrowing".into(),
            summary: "Shared or unique.".into(),
            body: Some("Body.\n\n💡 *Senior tip:* read the error.".into()),
            starred: true,
            feedback: Some(Feedback::Know),
            ..Lesson::example("borrow-checker").in_git(git)
        };
        l.context.task_context = Some("fixing the parser".into());
        l
    }

    #[test]
    fn default_share_keeps_only_the_lesson() {
        let p = SharedLesson::from_lesson(&lesson(), false, Some("Ada".into()), "2026-10-02T00:00:00Z".into(), "0.1.0");
        let v = p.to_json();
        let keys: Vec<&String> = v["lesson"].as_object().expect("lesson").keys().collect();
        assert_eq!(keys, ["title", "summary", "body", "topic_id", "categories", "level"]);
        assert_eq!(v["origin"], json!({"id": "borrow-checker", "timestamp": "2026-10-01T08:00:00Z"}));
        let text = v.to_string();
        assert!(!text.contains("/home/me"), "no local path ever leaves");
        assert!(!text.contains("starred") && !text.contains("feedback"));
    }

    #[test]
    fn context_never_includes_a_local_repository() {
        let p = SharedLesson::from_lesson(&lesson(), true, None, "t".into(), "0.1.0");
        let v = p.to_json();
        let keys: Vec<&String> = v["lesson"].as_object().expect("lesson").keys().collect();
        assert_eq!(
            keys,
            [
                "title",
                "summary",
                "body",
                "topic_id",
                "categories",
                "level",
                "task_context",
                "project",
                "branch",
                "commit_hash"
            ]
        );
        let mut public = lesson();
        public.context.git.repository = Some("acme/widgets".into());
        public.context.git.repository_platform = Some(Platform::Github);
        let v = SharedLesson::from_lesson(&public, true, None, "t".into(), "0.1.0").to_json();
        assert_eq!(v["lesson"]["repository"], "acme/widgets");
        assert_eq!(v["lesson"]["repository_platform"], "github");
        assert!(!v.to_string().contains("/home/me"));
    }

    #[test]
    fn sender_resolution_order() {
        assert_eq!(SharedBy::Anonymous.resolve(Some("Set"), Some("Git")), None);
        assert_eq!(SharedBy::Named(" Ada ".into()).resolve(Some("Set"), None), Some("Ada".into()));
        assert_eq!(SharedBy::Named("  ".into()).resolve(Some("Set"), None), None);
        assert_eq!(SharedBy::Default.resolve(Some(" Set "), Some("Git")), Some("Set".into()));
        assert_eq!(SharedBy::Default.resolve(Some(""), Some("Git")), Some("Git".into()));
        assert_eq!(SharedBy::Default.resolve(None, None), None);
    }

    #[test]
    fn json_round_trip_and_validation() {
        let p = SharedLesson::from_lesson(&lesson(), true, Some("Ada".into()), "t".into(), "0.1.0");
        assert_eq!(SharedLesson::from_json(&p.to_json()), Ok(p.clone()));
        let mut v = p.to_json();
        v["version"] = json!(2);
        assert_eq!(SharedLesson::from_json(&v), Err(ShareError::NewerFormat("2".into())));
        for breakage in [("format", json!("other")), ("origin", json!({})), ("lesson", json!({"title": ""}))] {
            let mut v = p.to_json();
            v[breakage.0] = breakage.1;
            assert_eq!(SharedLesson::from_json(&v), Err(ShareError::InvalidLesson));
        }
        let mut v = p.to_json();
        v["lesson"]["level"] = json!("guru");
        assert_eq!(SharedLesson::from_json(&v), Err(ShareError::InvalidLesson));
    }

    #[test]
    fn fifty_id_candidates() {
        let p = SharedLesson::from_lesson(&lesson(), false, None, "t".into(), "0.1.0");
        let ids: Vec<String> = p.id_candidates().collect();
        assert_eq!(ids.len(), MAX_ID_CANDIDATES);
        assert_eq!(&ids[..3], ["borrow-checker", "borrow-checker-shared", "borrow-checker-shared-2"]);
        assert_eq!(ids[49], "borrow-checker-shared-49");
    }

    #[test]
    fn import_shape() {
        let p = SharedLesson::from_lesson(&lesson(), true, Some("Ada".into()), "t".into(), "0.1.0");
        let stored = p.clone().into_lesson("x".into(), "2026-11-30T12:00:00Z".into());
        assert!(stored.imported && !stored.starred && stored.feedback.is_none() && stored.context.git.folder.is_none());
        assert_eq!(stored.timestamp, "2026-11-30T12:00:00Z");
        assert!(p.is_same_as(&stored));
        let mut other = stored.clone();
        other.shared_by = None;
        assert!(!p.is_same_as(&other));
    }
}
