//! MCP Apps (the `io.modelcontextprotocol/ui` extension): the lesson and review cards a host
//! shows beside a tool's result, and what the server says to a client that declared it.
//!
//! A client that declares the extension at `initialize` gets the two `ui://` documents in
//! `resources/list`, `_meta.ui` on every tool (the card a result is shown in, and who may call the
//! tool: the frame may call only its four tools, and no tool of the model's), those four, and
//! `show_lesson` (a lesson the learner asked to see, as a card). A
//! client that did not declare it sees devcoach exactly as before. The frame's calls arrive as
//! ordinary `tools/call` requests, so they pass the same argument checks as the model's.

use rmcp::model::{InitializeRequestParams, JsonObject, MetaObject, Resource, ResourceContents, Tool};
use serde_json::{Value, json};

pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
pub const MIME: &str = "text/html;profile=mcp-app";
pub const LESSON_URI: &str = "ui://devcoach/lesson";
pub const REVIEW_URI: &str = "ui://devcoach/review";

/// What the client said it can do at `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Client {
    /// It renders MCP Apps documents (it declared the extension with our MIME type).
    pub apps: bool,
    /// It can ask the learner with a form (elicitation, form mode).
    pub form: bool,
}

impl Client {
    pub fn of(info: Option<&InitializeRequestParams>) -> Self {
        let Some(info) = info else { return Self::default() };
        let apps = info
            .capabilities
            .extensions
            .as_ref()
            .and_then(|e| e.get(EXTENSION))
            .and_then(|settings| settings.get("mimeTypes"))
            .and_then(Value::as_array)
            .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME)));
        // A client that declares elicitation without naming a mode means forms (the 2025-06 form).
        let form = info.capabilities.elicitation.as_ref().is_some_and(|e| e.form.is_some() || e.url.is_none());
        Self { apps, form }
    }
}

/// Who may call a tool: the model, the card's frame, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callers {
    Model,
    App,
}

impl Callers {
    fn visibility(self) -> Value {
        match self {
            Self::Model => json!(["model"]),
            Self::App => json!(["app"]),
        }
    }
}

/// The tools the cards touch: (tool, who may call it, the card its result is shown in). Every
/// other tool is the model's alone. The frame gets narrow tools of its own rather than the
/// model's: it can record one of the three answers or a self-grade of a due card, never an
/// explain-back or a checked review (those carry a grade only the model gives).
const TABLE: &[(&str, Callers, Option<&str>)] = &[
    ("log_lesson", Callers::Model, Some(LESSON_URI)),
    ("show_lesson", Callers::Model, Some(LESSON_URI)),
    ("get_due_reviews", Callers::Model, Some(REVIEW_URI)),
    ("lesson_card", Callers::App, None),
    ("lesson_card_answer", Callers::App, None),
    ("review_answer", Callers::App, None),
    ("review_card_grade", Callers::App, None),
];

fn entry(name: &str) -> (Callers, Option<&'static str>) {
    TABLE.iter().find(|(n, ..)| *n == name).map_or((Callers::Model, None), |(_, c, uri)| (*c, *uri))
}

/// True for a tool that exists only for a client that renders the cards (never listed to, or
/// run for, other clients): the frame's own tools, and `show_lesson`, whose whole point is the card.
pub fn cards_only(name: &str) -> bool {
    entry(name).0 == Callers::App || name == "show_lesson"
}

/// The tool as a client that renders apps sees it: `_meta.ui` says who may call it and, for a
/// tool with a card, which document shows its result (also under the older flat key, which hosts
/// built on the first drafts read).
pub fn decorate(mut tool: Tool) -> Tool {
    let (callers, uri) = entry(&tool.name);
    let mut ui = JsonObject::new();
    ui.insert("visibility".into(), callers.visibility());
    let mut meta = tool.meta.take().map(|m| m.0).unwrap_or_default();
    if let Some(uri) = uri {
        ui.insert("resourceUri".into(), json!(uri));
        meta.insert("ui/resourceUri".into(), json!(uri));
    }
    meta.insert("ui".into(), Value::Object(ui));
    tool.meta = Some(MetaObject(meta));
    tool
}

/// (uri, name, title, description, which card)
const DOCUMENTS: [(&str, &str, &str, &str, devcoach_web::apps::App); 2] = [
    (
        LESSON_URI,
        "lesson-card",
        "Lesson card",
        "The lesson just saved, as a card with the learner's answer buttons and explain-back.",
        devcoach_web::apps::App::Lesson,
    ),
    (
        REVIEW_URI,
        "review-card",
        "Review card",
        "The due reviews, one question at a time: the answer only on request, then the four grades.",
        devcoach_web::apps::App::Review,
    ),
];

/// What a resource entry and a read both carry: no connections, no outside resources, a border.
fn resource_meta() -> MetaObject {
    let mut meta = JsonObject::new();
    meta.insert("ui".into(), json!({ "csp": { "connectDomains": [], "resourceDomains": [] }, "prefersBorder": true }));
    MetaObject(meta)
}

/// The two documents, for `resources/list` to a client that renders apps.
pub fn resources() -> Vec<Resource> {
    DOCUMENTS
        .iter()
        .map(|(uri, name, title, description, _)| {
            Resource::new(*uri, *name)
                .with_title(*title)
                .with_description(*description)
                .with_mime_type(MIME)
                .with_meta(resource_meta())
        })
        .collect()
}

/// A document by address (readable by any client: it holds no learner data).
pub fn read(uri: &str) -> Option<ResourceContents> {
    let (.., app) = DOCUMENTS.iter().find(|(u, ..)| *u == uri)?;
    Some(
        ResourceContents::text(devcoach_web::apps::app_document(*app), uri)
            .with_mime_type(MIME)
            .with_meta(resource_meta()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_in_the_table_exists() {
        let names = crate::tools::all_tool_names();
        for (name, ..) in TABLE {
            assert!(names.iter().any(|n| n == name), "{name} is not a tool");
        }
    }

    #[test]
    fn a_client_renders_apps_only_when_it_names_the_mime_type() {
        let client = |caps: Value| {
            let info: InitializeRequestParams = serde_json::from_value(json!({
                "protocolVersion": "2025-06-18", "capabilities": caps,
                "clientInfo": {"name": "t", "version": "1"}
            }))
            .expect("params");
            Client::of(Some(&info))
        };
        assert!(client(json!({"extensions": {EXTENSION: {"mimeTypes": [MIME]}}})).apps);
        assert!(!client(json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}})).apps);
        assert!(!client(json!({"extensions": {EXTENSION: {}}})).apps);
        assert!(!client(json!({})).apps);
        assert!(client(json!({"elicitation": {}})).form);
        assert!(client(json!({"elicitation": {"form": {}}})).form);
        assert!(!client(json!({"elicitation": {"url": {}}})).form);
        assert_eq!(Client::of(None), Client::default());
    }
}
