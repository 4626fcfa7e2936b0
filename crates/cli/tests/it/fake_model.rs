//! A loopback stand-in for the model APIs the agent CLIs call, so a real agent turn runs offline:
//! Gemini's `streamGenerateContent` and OpenAI's Responses (Codex) and Chat Completions (Copilot
//! CLI, Qwen Code, Droid). Every request is kept for the test to read; every turn is answered
//! with a short text, so the agent ends its turn (or goes on when a hook sends a cue back); a cue
//! that comes back to a Chat Completions agent is answered, as a model would, with a call to
//! devcoach's `log_lesson`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    /// The API path (`/v1/responses`, `…:streamGenerateContent`).
    pub path: String,
    pub body: Value,
}

pub struct FakeModel {
    pub port: u16,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl FakeModel {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                std::thread::spawn(move || serve(stream, &log));
            }
        });
        Self { port, seen }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The model-turn requests so far (not the agents' side requests).
    pub fn turns(&self) -> Vec<Request> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Request>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream);
    let mut start = String::new();
    if reader.read_line(&mut start).is_err() {
        return;
    }
    let path = start.split_whitespace().nth(1).unwrap_or_default().to_owned();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length.min(64 << 20)];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (content_type, answer) = answer(&path, &body);
    if let Ok(mut seen) = log.lock() {
        seen.push(Request { path, body });
    }
    let mut stream = reader.into_inner();
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
        answer.len()
    );
}

const REPLY: &str = "Done: the change is in place.";

/// The answer for one request: a one-text turn in the API the path names.
fn answer(path: &str, body: &Value) -> (&'static str, String) {
    if path.contains(":streamGenerateContent") {
        let chunk = json!({ "candidates": [{ "content": { "role": "model", "parts": [{ "text": REPLY }] }, "finishReason": "STOP" }] });
        return ("text/event-stream", format!("data: {chunk}\n\n"));
    }
    if path.ends_with("/responses") {
        let item = json!({ "type": "response.output_item.done", "item": { "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": REPLY }] } });
        let done = json!({ "type": "response.completed", "response": { "id": "r1" } });
        return ("text/event-stream", format!("data: {item}\n\ndata: {done}\n\n"));
    }
    if path.ends_with("/chat/completions") {
        if let Some((name, arguments)) =
            lesson_call(body).or_else(|| explain_back_call(body)).or_else(|| handson_call(body))
        {
            return chat_tool_call(body, &name, &arguments);
        }
        let reply = if offered_handson(body) { HANDSON_OFFER } else { REPLY };
        let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
        if !stream {
            let whole = json!({
                "id": "c1", "object": "chat.completion", "created": 0, "model": "fake",
                "choices": [{ "index": 0, "message": { "role": "assistant", "content": reply }, "finish_reason": "stop" }],
                "usage": { "prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2 }
            });
            return ("application/json", whole.to_string());
        }
        let delta = json!({ "id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
            "choices": [{ "index": 0, "delta": { "role": "assistant", "content": reply }, "finish_reason": null }] });
        let end = json!({ "id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
            "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2 } });
        return ("text/event-stream", format!("data: {delta}\n\ndata: {end}\n\ndata: [DONE]\n\n"));
    }
    if path.ends_with("/models") {
        return (
            "application/json",
            json!({ "object": "list", "data": [{ "id": "fake", "object": "model" }] }).to_string(),
        );
    }
    ("application/json", "{}".to_owned())
}

/// The lesson a model gives when devcoach's cue is the newest user input: a `log_lesson` call
/// to the tool as this agent names it (`devcoach-log_lesson`, `mcp__devcoach__log_lesson`, …);
/// where the agent only lists the tool for its search (Droid), first a `ToolSearch` for it.
/// Once the lesson is logged, the model just answers.
fn lesson_call(body: &Value) -> Option<(String, Value)> {
    let messages = body.get("messages")?.as_array()?;
    let cue_at = messages.iter().rposition(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
    if !text_of(&messages[cue_at]).contains("devcoach: the technical work just finished") {
        return None;
    }
    let called: Vec<&str> = messages[cue_at..]
        .iter()
        .flat_map(|m| m.get("tool_calls").and_then(Value::as_array).into_iter().flatten())
        .filter_map(|c| c.get("function")?.get("name")?.as_str())
        .collect();
    if called.iter().any(|n| n.ends_with("log_lesson")) {
        return None;
    }
    let tools: Vec<&str> =
        body.get("tools")?.as_array()?.iter().filter_map(|t| t.get("function")?.get("name")?.as_str()).collect();
    if let Some(name) = tools.iter().find(|n| n.ends_with("log_lesson")) {
        return Some(((*name).to_owned(), lesson_arguments()));
    }
    let listed = text_of(body).contains("devcoach___log_lesson");
    (tools.contains(&"ToolSearch") && listed && !called.contains(&"ToolSearch"))
        .then(|| ("ToolSearch".to_owned(), json!({ "query": "select:devcoach___log_lesson" })))
}

/// The learner's reply to a card's feedback line that starts with the explain-back mark (🗣):
/// the model grades the words (this fake always finds them correct) and records them with
/// `submit_feedback`'s `explain_back`, once.
fn explain_back_call(body: &Value) -> Option<(String, Value)> {
    let messages = body.get("messages")?.as_array()?;
    // The agent may wrap the prompt or add its own context beside it: the newest user message
    // holding the mark is the learner's.
    let at = messages
        .iter()
        .rposition(|m| m.get("role").and_then(Value::as_str) == Some("user") && text_of(m).contains(EXPLAIN_MARK))?;
    let said = text_of(&messages[at]);
    let (_, after) = said.split_once(EXPLAIN_MARK)?;
    let words = after.lines().next().unwrap_or_default().trim().to_owned();
    let already = messages[at..]
        .iter()
        .flat_map(|m| m.get("tool_calls").and_then(Value::as_array).into_iter().flatten())
        .filter_map(|c| c.get("function")?.get("name")?.as_str())
        .any(|n| n.ends_with("submit_feedback"));
    if already {
        return None;
    }
    let tools = body.get("tools")?.as_array()?;
    let name = tools
        .iter()
        .filter_map(|t| t.get("function")?.get("name")?.as_str())
        .find(|n| n.ends_with("submit_feedback"))?;
    Some((name.to_owned(), json!({ "lesson_id": LESSON_ID, "explain_back": { "answer": words, "grade": "correct" } })))
}

/// What the model says after a card whose `log_lesson` result offered an exercise, as the
/// skill's hands-on reference asks.
pub const HANDSON_OFFER: &str = "Want to rebuild `total` yourself? Its tests would judge it.";
/// How a test's learner says yes to it.
pub const HANDSON_YES: &str = "Yes, let me rebuild total myself.";

/// Whether the newest message is a tool result that offered a hands-on exercise.
fn offered_handson(body: &Value) -> bool {
    let Some(last) = body.get("messages").and_then(Value::as_array).and_then(|m| m.last()) else { return false };
    last.get("role").and_then(Value::as_str) == Some("tool") && text_of(last).contains("handson_offer")
}

/// The learner said yes to an exercise: the model starts it (`handson_start`), then checks the
/// stub with the session id the start returned (`handson_check`), then answers.
fn handson_call(body: &Value) -> Option<(String, Value)> {
    let messages = body.get("messages")?.as_array()?;
    let at = messages
        .iter()
        .rposition(|m| m.get("role").and_then(Value::as_str) == Some("user") && text_of(m).contains(HANDSON_YES))?;
    let called: Vec<&str> = messages[at..]
        .iter()
        .flat_map(|m| m.get("tool_calls").and_then(Value::as_array).into_iter().flatten())
        .filter_map(|c| c.get("function")?.get("name")?.as_str())
        .collect();
    let tools: Vec<&str> =
        body.get("tools")?.as_array()?.iter().filter_map(|t| t.get("function")?.get("name")?.as_str()).collect();
    let tool = |suffix: &str| tools.iter().find(|n| n.ends_with(suffix)).map(|n| (*n).to_owned());
    if !called.iter().any(|n| n.ends_with("handson_start")) {
        // As the offer says: the function by its name.
        return Some((tool("handson_start")?, json!({ "function": "total" })));
    }
    if called.iter().any(|n| n.ends_with("handson_check")) {
        return None;
    }
    // The session id, from the start's result as the agent passed it back.
    let said = messages[at..].iter().map(text_of).collect::<String>();
    let after = said.split_once("\"session_id\"")?.1;
    let id = after.split('"').nth(1)?.to_owned();
    Some((tool("handson_check")?, json!({ "session_id": id })))
}

/// How a test's learner starts an explain-back.
pub const EXPLAIN_MARK: &str = "🗣";

fn lesson_arguments() -> Value {
    json!({
        "id": LESSON_ID, "topic_id": "rust", "categories": ["rust", "refactoring"],
        "title": "Renaming with the compiler", "level": "mid",
        "summary": "Let the type checker find every use of a renamed item.",
        "body": "Rename, build, fix what the compiler lists.\n\n💡 *Senior tip:* rename in one commit of its own."
    })
}

/// The lesson the fake model logs.
pub const LESSON_ID: &str = "renaming-with-the-compiler";

fn chat_tool_call(body: &Value, name: &str, arguments: &Value) -> (&'static str, String) {
    let arguments = arguments.to_string();
    let call =
        json!({ "index": 0, "id": "call_1", "type": "function", "function": { "name": name, "arguments": arguments } });
    if !body.get("stream").and_then(Value::as_bool).unwrap_or(false) {
        let whole = json!({ "id": "c2", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": null, "tool_calls": [call] }, "finish_reason": "tool_calls" }] });
        return ("application/json", whole.to_string());
    }
    let delta = json!({ "id": "c2", "object": "chat.completion.chunk", "created": 0, "model": "fake",
        "choices": [{ "index": 0, "delta": { "role": "assistant", "content": null, "tool_calls": [call] }, "finish_reason": null }] });
    let end = json!({ "id": "c2", "object": "chat.completion.chunk", "created": 0, "model": "fake",
        "choices": [{ "index": 0, "delta": {}, "finish_reason": "tool_calls" }] });
    ("text/event-stream", format!("data: {delta}\n\ndata: {end}\n\ndata: [DONE]\n\n"))
}

/// All the text of a request, flattened (to find a cue wherever the agent put it).
pub fn text_of(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}
