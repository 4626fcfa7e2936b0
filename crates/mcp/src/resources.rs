//! The 12 resources. A read never fails: a problem becomes `{"error": …}` in the payload.

use rmcp::model::{Resource, ResourceContents, ResourceTemplate};
use serde::Serialize;
use serde_json::json;

use crate::ctx::{Ctx, ToolError};
use crate::payloads;

const JSON: &str = "application/json";
pub const LESSON_PREFIX: &str = "devcoach://lessons/";

/// (uri, name, title, description, mime)
const RESOURCES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "devcoach://profile",
        "profile",
        "Knowledge Profile",
        "The knowledge map: topics with confidence 0–10, and groups.",
        JSON,
    ),
    (
        "devcoach://notebook",
        "notebook",
        "Coaching Notebook",
        "The coaching notebook (learning-state.md) as markdown; empty when there is none.",
        "text/markdown",
    ),
    ("devcoach://settings", "settings", "Settings", "Pacing, theme and sharing settings.", JSON),
    (
        "devcoach://lessons/recent",
        "recent-lessons",
        "Recent Lessons",
        "Up to 10 lessons from the last 7 days, newest first.",
        JSON,
    ),
    ("devcoach://stats", "stats", "Stats", "Lesson counts and the weakest and strongest topics.", JSON),
    (
        "devcoach://taught-topics",
        "taught-topics",
        "Taught Topics",
        "Every topic a lesson has covered, own or shared.",
        JSON,
    ),
    ("devcoach://rate-limit", "rate-limit", "Rate Limit", "Whether a lesson may be cued now, and why not.", JSON),
    (
        "devcoach://briefing",
        "briefing",
        "Lesson Briefing",
        "Everything needed before teaching, in one read (same as the get_briefing tool).",
        JSON,
    ),
    (
        "devcoach://context",
        "context",
        "Workspace Context",
        "Git metadata of the working folder and the learner's usual project, repository and branch.",
        JSON,
    ),
    (
        "devcoach://onboarding",
        "onboarding",
        "Onboarding",
        "Onboarding status and the detected stack (same as the get_onboarding tool).",
        JSON,
    ),
    (
        "devcoach://calibration",
        "calibration",
        "Calibration",
        "Per topic: how the learner's self-reports (lesson feedback, self-graded reviews) compare with their checked \
         answers (explain-backs, checked reviews), with a one-line verdict once there are enough.",
        JSON,
    ),
    (
        "devcoach://reviews/due",
        "reviews-due",
        "Due Reviews",
        "Up to 10 review cards due now, without answers (same as the get_due_reviews tool).",
        JSON,
    ),
];

pub fn list() -> Vec<Resource> {
    RESOURCES
        .iter()
        .map(|(uri, name, title, description, mime)| {
            Resource::new(*uri, *name).with_title(*title).with_description(*description).with_mime_type(*mime)
        })
        .collect()
}

pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("devcoach://lessons/{lesson_id}", "lesson")
            .with_title("Lesson")
            .with_description("One lesson by id.")
            .with_mime_type(JSON),
    ]
}

fn json_text<T: Serialize>(value: Result<T, ToolError>) -> String {
    match value {
        Ok(v) => serde_json::to_string(&v).unwrap_or_else(|e| json!({ "error": e.to_string() }).to_string()),
        Err(e) => json!({ "error": e.to_string() }).to_string(),
    }
}

/// The contents of `uri`, or `None` when no resource has that address.
pub fn read(ctx: &Ctx, uri: &str) -> Option<ResourceContents> {
    let text = match uri {
        "devcoach://profile" => json_text(payloads::profile(ctx)),
        "devcoach://notebook" => {
            let text = payloads::notebook(ctx).unwrap_or_default();
            return Some(ResourceContents::text(text, uri).with_mime_type("text/markdown"));
        }
        "devcoach://settings" => json_text(ctx.with_store(|s| Ok(crate::dto::SettingsOut::of(s)?))),
        "devcoach://lessons/recent" => match payloads::recent_lessons(ctx) {
            Ok(lessons) => serde_json::to_string(&lessons).unwrap_or_else(|_| "[]".into()),
            Err(e) => json!([{ "error": e.to_string() }]).to_string(),
        },
        "devcoach://stats" => json_text(payloads::stats(ctx)),
        "devcoach://taught-topics" => {
            serde_json::to_string(&payloads::taught_topics(ctx).unwrap_or_default()).unwrap_or_else(|_| "[]".into())
        }
        "devcoach://rate-limit" => match payloads::rate_limit(ctx) {
            Ok(r) => serde_json::to_string(&r).unwrap_or_default(),
            Err(e) => json!({ "allowed": false, "reason": format!("Rate limit check unavailable: {e}") }).to_string(),
        },
        "devcoach://briefing" => json_text(payloads::briefing(ctx)),
        "devcoach://reviews/due" => json_text(payloads::due_reviews(ctx, 10)),
        "devcoach://calibration" => json_text(payloads::calibration(ctx)),
        "devcoach://context" => json_text(payloads::context(ctx)),
        "devcoach://onboarding" => json_text(payloads::onboarding(ctx)),
        other => {
            let id = other.strip_prefix(LESSON_PREFIX)?;
            let id = percent_decode(id);
            match payloads::lesson(ctx, &id) {
                Ok(Some(lesson)) => serde_json::to_string(&lesson).unwrap_or_default(),
                Ok(None) => json!({ "error": format!("Lesson '{id}' not found") }).to_string(),
                Err(e) => json!({ "error": e.to_string() }).to_string(),
            }
        }
    };
    Some(ResourceContents::text(text, uri).with_mime_type(JSON))
}

/// Lesson ids in a URI may be percent-encoded by the client.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn ids_are_percent_decoded() {
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("plain-id"), "plain-id");
        assert_eq!(percent_decode("bad%zz%"), "bad%zz%");
        assert_eq!(percent_decode("%C3%BC"), "ü");
    }
}
