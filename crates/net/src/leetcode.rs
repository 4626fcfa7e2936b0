//! Fetching a LeetCode problem's public description (title, statement, difficulty, topic tags,
//! hints) from its GraphQL endpoint, once; the practice coach caches it. The address is ours,
//! never the user's, so unlike `fetch` it honours the usual proxy variables.

use std::time::Duration;

use serde_json::{Value, json};

/// The public endpoint (tests point `DEVCOACH_LEETCODE_URL` at a loopback server instead).
pub const ENDPOINT: &str = "https://leetcode.com/graphql";

const QUERY: &str = "query questionData($titleSlug: String!) { question(titleSlug: $titleSlug) { \
    title titleSlug content difficulty hints topicTags { slug } } }";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LeetCodeError {
    #[error("LeetCode could not be reached ({0}); with no network, use a shipped problem or --problem FILE")]
    Unreachable(String),
    #[error("LeetCode answered HTTP {0}")]
    Status(u16),
    #[error("LeetCode has no public problem {0:?} (or it is for subscribers only)")]
    NotFound(String),
    #[error("LeetCode's answer was not what devcoach expects: {0}")]
    BadReply(String),
}

/// A problem as LeetCode describes it (`content` is HTML).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub slug: String,
    pub title: String,
    pub content_html: String,
    pub difficulty: String,
    pub hints_html: Vec<String>,
    pub tags: Vec<String>,
}

pub fn question(endpoint: &str, slug: &str, timeout: Duration) -> Result<Question, LeetCodeError> {
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(2)
        .user_agent("devcoach")
        .build();
    let agent = config.new_agent();
    let body = json!({ "operationName": "questionData", "query": QUERY, "variables": { "titleSlug": slug } });
    let mut response = agent
        .post(endpoint)
        .header("content-type", "application/json")
        .header("referer", &format!("https://leetcode.com/problems/{slug}/"))
        .send(body.to_string().as_bytes())
        .map_err(|e| LeetCodeError::Unreachable(e.to_string()))?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(LeetCodeError::Status(status));
    }
    let bytes = response
        .body_mut()
        .with_config()
        .limit(devcoach_core::limits::LEETCODE_REPLY_BYTES)
        .read_to_vec()
        .map_err(|e| LeetCodeError::BadReply(e.to_string()))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| LeetCodeError::BadReply(e.to_string()))?;
    let q = value
        .pointer("/data/question")
        .filter(|q| !q.is_null())
        .ok_or_else(|| LeetCodeError::NotFound(slug.to_owned()))?;
    let text = |k: &str| q.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let content_html = text("content");
    if content_html.trim().is_empty() {
        return Err(LeetCodeError::NotFound(slug.to_owned()));
    }
    Ok(Question {
        slug: slug.to_owned(),
        title: text("title"),
        content_html,
        difficulty: text("difficulty").to_ascii_lowercase(),
        hints_html: q
            .get("hints")
            .and_then(Value::as_array)
            .map(|h| h.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        tags: q
            .get("topicTags")
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(|t| t.get("slug").and_then(Value::as_str)).map(str::to_owned).collect())
            .unwrap_or_default(),
    })
}
