//! stdio framing in front of rmcp: every input line is checked before rmcp sees it, so every
//! line gets an answer and the server keeps serving. rmcp drops some input silently (a line
//! that is not JSON, nested deeper than 128 levels, holding invalid UTF-8, not a JSON-RPC message
//! it can read) and stops serving on a notification before `initialize`; such lines are answered
//! here instead (with the request's id when it can be read, else `null`), or, for notifications,
//! which get no answer, dropped. A line too long to be a request gets an error instead of being
//! discarded. Output lines from the server and these errors never interleave.

use std::sync::Arc;

use devcoach_core::limits;
use rmcp::model::ClientJsonRpcMessage;
use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
/// The code LSP and most JSON-RPC servers use for "not initialized yet".
const NOT_INITIALIZED: i64 = -32002;

/// One error answer, as a line.
fn error_line(id: &Value, code: i64, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

/// The top-level `id` of a message that did not parse as a whole (the rest is skipped, not
/// read), when it is a number or a string: so even a broken request gets its own answer.
fn read_id(text: &[u8]) -> Value {
    /// Reads keys until `id`, keeping it in `found`; what comes after may be broken.
    struct Id<'a>(&'a mut Option<Value>);
    impl<'de> Visitor<'de> for Id<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" {
                    *self.0 = Some(map.next_value::<Value>()?);
                    return Err(serde::de::Error::custom("found"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut found = None;
    let _ = serde_json::Deserializer::from_slice(text).deserialize_map(Id(&mut found));
    found.filter(|id| id.is_number() || id.is_string()).unwrap_or(Value::Null)
}

/// What to do with one line.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Hand it to rmcp.
    Pass { initialize: bool },
    /// Answer it here.
    Answer(Vec<u8>),
    /// A notification nothing may answer, which rmcp would not survive: drop it.
    Drop,
}

/// Checks one line (without its newline) the way rmcp will read it.
fn check(text: &[u8], initialized: bool) -> Verdict {
    let value = match serde_json::from_slice::<Value>(text) {
        Ok(value) => value,
        Err(e) => {
            let id = read_id(text);
            let message = if e.to_string().contains("recursion limit") {
                return Verdict::Answer(error_line(
                    &id,
                    INVALID_REQUEST,
                    "Invalid request: the message is nested deeper than 128 levels",
                ));
            } else if std::str::from_utf8(text).is_err() {
                "Parse error: the line is not valid UTF-8"
            } else {
                "Parse error: the line is not JSON; send one JSON-RPC message per line"
            };
            return Verdict::Answer(error_line(&id, PARSE_ERROR, message));
        }
    };
    let id = value.get("id").filter(|id| id.is_number() || id.is_string()).cloned();
    // A message with an `id` key asks for an answer, even when that id is unusable (null, a
    // boolean, an object): it gets one, with the id `null`. Only a notification goes unanswered.
    let has_id_key = value.get("id").is_some();
    let method = value.get("method").and_then(Value::as_str).map(str::to_owned);
    if let Err(e) = serde_json::from_value::<ClientJsonRpcMessage>(value) {
        if !has_id_key && method.is_some() {
            return Verdict::Drop;
        }
        let message = format!("Invalid request: not a JSON-RPC 2.0 message this server reads ({e})");
        return Verdict::Answer(error_line(&id.unwrap_or(Value::Null), INVALID_REQUEST, &message));
    }
    let initialize = method.as_deref() == Some("initialize");
    if !initialized && !initialize && method.as_deref() != Some("ping") {
        return match id {
            Some(id) if method.is_some() => {
                Verdict::Answer(error_line(&id, NOT_INITIALIZED, "Server not initialized: send `initialize` first"))
            }
            _ => Verdict::Drop,
        };
    }
    Verdict::Pass { initialize }
}

enum Line {
    Ok,
    TooLong,
    Eof,
}

/// Reads one `\n`-terminated line into `buf`, keeping at most `max` bytes (the rest of a longer
/// line is skipped).
async fn read_line(reader: &mut (impl AsyncBufRead + Unpin), buf: &mut Vec<u8>, max: usize) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if buf.is_empty() && !too_long {
                Line::Eof
            } else if too_long {
                Line::TooLong
            } else {
                Line::Ok
            });
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Ok });
        }
    }
}

/// Copies checked lines from `input` to `to_server`; answers bad lines on `out` directly.
pub async fn pump_input<W: AsyncWrite + Unpin>(
    input: impl AsyncRead + Unpin,
    mut to_server: impl AsyncWrite + Unpin,
    out: Arc<Mutex<W>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut buf = Vec::new();
    let mut initialized = false;
    loop {
        let reply: Option<Vec<u8>> = match read_line(&mut reader, &mut buf, limits::MCP_LINE_BYTES).await? {
            Line::Eof => break,
            Line::TooLong => {
                Some(error_line(&Value::Null, INVALID_REQUEST, "Invalid request: the message is larger than 16 MiB"))
            }
            Line::Ok => {
                let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                if text.iter().all(u8::is_ascii_whitespace) {
                    None
                } else {
                    match check(text, initialized) {
                        Verdict::Pass { initialize } => {
                            initialized |= initialize;
                            to_server.write_all(text).await?;
                            to_server.write_all(b"\n").await?;
                            to_server.flush().await?;
                            None
                        }
                        Verdict::Answer(line) => Some(line),
                        Verdict::Drop => None,
                    }
                }
            }
        };
        if let Some(reply) = reply {
            let mut out = out.lock().await;
            out.write_all(&reply).await?;
            out.flush().await?;
        }
    }
    to_server.shutdown().await
}

/// Copies the server's output to `out`, one whole line at a time.
pub async fn pump_output<W: AsyncWrite + Unpin>(
    from_server: impl AsyncRead + Unpin,
    out: Arc<Mutex<W>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(64 * 1024, from_server);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        let mut out = out.lock().await;
        out.write_all(&line).await?;
        out.flush().await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(input: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let (server_side, mut test_side) = tokio::io::duplex(1 << 20);
        let out = Arc::new(Mutex::new(Vec::new()));
        pump_input(input, server_side, Arc::clone(&out)).await.expect("pump");
        let mut forwarded = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut test_side, &mut forwarded).await.expect("read");
        let answered = out.lock().await.clone();
        (forwarded, answered)
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

    fn answers(lines: &[u8]) -> Vec<Value> {
        lines
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("json"))
            .collect()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn json_passes_garbage_is_answered() {
        let input = format!("{INIT}\r\nnot json\n\n   \n[1,2]\n{{\"a\":1}}\n");
        let (fwd, ans) = run(input.as_bytes()).await;
        assert_eq!(fwd, format!("{INIT}\n").as_bytes());
        let ans = answers(&ans);
        assert_eq!(ans.len(), 3, "{ans:?}");
        assert_eq!(ans[0]["error"]["code"], PARSE_ERROR);
        assert!(ans[1..].iter().all(|a| a["error"]["code"] == INVALID_REQUEST && a["id"].is_null()), "{ans:?}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn every_broken_request_gets_its_own_answer() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{"x":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let mut input = format!("{INIT}\n{deep}\n").into_bytes();
        input.extend_from_slice(
            b"{\"jsonrpc\":\"2.0\",\"id\":\"u\",\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\"}}\n",
        );
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":\"x\"}\n");
        let (fwd, ans) = run(&input).await;
        assert_eq!(fwd, format!("{INIT}\n").as_bytes(), "none of them reaches rmcp");
        let ans = answers(&ans);
        assert_eq!(
            (ans[0]["id"].clone(), ans[0]["error"]["code"].clone()),
            (serde_json::json!(5), serde_json::json!(INVALID_REQUEST))
        );
        assert!(ans[0]["error"]["message"].as_str().is_some_and(|m| m.contains("128 levels")));
        assert_eq!(
            (ans[1]["id"].clone(), ans[1]["error"]["code"].clone()),
            (serde_json::json!("u"), serde_json::json!(PARSE_ERROR))
        );
        assert!(ans[1]["error"]["message"].as_str().is_some_and(|m| m.contains("UTF-8")));
        assert_eq!(
            (ans[2]["id"].clone(), ans[2]["error"]["code"].clone()),
            (serde_json::json!(7), serde_json::json!(INVALID_REQUEST))
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_request_with_an_unusable_id_is_answered_with_id_null() {
        let mut input = format!("{INIT}\n").into_bytes();
        for id in ["null", "true", r#"{"a":1}"#, "[1]"] {
            input.extend_from_slice(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#).as_bytes());
            input.push(b'\n');
        }
        // A notification with a broken shape still gets no answer.
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":7}\n");
        let (fwd, answered) = run(&input).await;
        assert_eq!(fwd, format!("{INIT}\n").as_bytes(), "only the valid message reaches rmcp");
        let ans = answers(&answered);
        assert_eq!(ans.len(), 4, "every request with an id key is answered, the notification is not: {ans:?}");
        assert!(ans.iter().all(|a| a["id"].is_null() && a["error"]["code"] == INVALID_REQUEST), "{ans:?}");
    }

    #[tokio::test]
    async fn nothing_but_initialize_and_ping_before_initialize() {
        let input = format!(
            "{}\n{}\n{}\n{INIT}\n{}\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        );
        let (fwd, ans) = run(input.as_bytes()).await;
        let fwd = String::from_utf8(fwd).expect("utf-8");
        assert!(!fwd.contains("notifications/initialized"), "a notification before initialize would stop rmcp");
        assert!(fwd.contains(r#""id":2,"method":"ping""#) && fwd.contains(INIT) && fwd.contains(r#""id":3"#), "{fwd}");
        let ans = answers(&ans);
        assert_eq!(ans.len(), 1);
        assert_eq!(
            (ans[0]["id"].clone(), ans[0]["error"]["code"].clone()),
            (serde_json::json!(1), serde_json::json!(NOT_INITIALIZED))
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn oversized_lines_are_refused_and_skipped() {
        let mut input = vec![b'"'; limits::MCP_LINE_BYTES + 10];
        input.extend_from_slice(format!("\"\n{INIT}\n").as_bytes());
        let (fwd, ans) = run(&input).await;
        assert_eq!(fwd, format!("{INIT}\n").as_bytes());
        let ans = answers(&ans);
        assert_eq!((ans.len(), ans[0]["error"]["code"].clone()), (1, serde_json::json!(INVALID_REQUEST)));
    }
}
