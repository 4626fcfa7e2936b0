//! What an agent's hook sends on stdin, read leniently: the three facts a hook decides on, from
//! whichever field each agent names them with, and anything unreadable read as absent (garbage
//! is an anonymous stop). Outside input: fuzzed (`fuzz/fuzz_targets/hook_payload.rs`).
//!
//! | fact | Claude Code, Gemini, Codex, Qwen, Droid | Copilot CLI | Cursor | OpenCode/Kilo plugin |
//! |---|---|---|---|---|
//! | session | `session_id` | `sessionId` (or `session_id`) | `conversation_id` | `sessionID` |
//! | re-entry | `stop_hook_active` | `stop_hook_active` | `loop_count` above 0 | `stop_hook_active` |
//! | plan mode | `permission_mode: "plan"` | – | – | – |

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The fields of a hook payload that matter. Anything unreadable reads as absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Payload {
    pub stop_hook_active: bool,
    pub plan_mode: bool,
    pub session_id: Option<String>,
    /// Sent by Cursor (a `conversation_id`, no `session_id`): Cursor runs Claude Code's hooks
    /// too, so a Claude hook can tell it is answering Cursor.
    pub via_cursor: bool,
    /// The prompt is a hook's own continuation, not the learner's words: devcoach's cue coming
    /// back as the next input (Copilot CLI, Qwen Code and Gemini run the prompt hook on it), or
    /// Codex's `<hook_prompt>`.
    pub prompt_from_hook: bool,
    /// The turn did not finish: Cursor's `status` says it was aborted or failed.
    pub aborted: bool,
    /// Where the agent keeps the session's transcript (`transcript_path`, Copilot's
    /// `transcriptPath`): read only with `work_insights` on.
    pub transcript_path: Option<String>,
}

#[derive(Deserialize)]
struct RawPayload {
    stop_hook_active: Option<Field>,
    loop_count: Option<Field>,
    permission_mode: Option<Field>,
    session_id: Option<Field>,
    #[serde(rename = "sessionId")]
    session_id_camel: Option<Field>,
    #[serde(rename = "sessionID")]
    session_id_upper: Option<Field>,
    conversation_id: Option<Field>,
    #[serde(rename = "taskId")]
    task_id: Option<Field>,
    prompt: Option<Field>,
    status: Option<Field>,
    transcript_path: Option<Field>,
    #[serde(rename = "transcriptPath")]
    transcript_path_camel: Option<Field>,
}

/// The fields [`reply_of`] and [`cwd_of`] read.
#[derive(Deserialize)]
struct RawReply {
    last_assistant_message: Option<Field>,
    prompt_response: Option<Field>,
    cwd: Option<Field>,
}

/// The folder the agent works in, when the payload says (`cwd`).
pub fn cwd_of(input: &[u8]) -> Option<String> {
    match serde_json::from_slice::<RawReply>(input).ok()?.cwd {
        Some(Field::Str(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// The finished reply of a Stop payload (`last_assistant_message`; Gemini CLI's
/// `prompt_response`), read only while a hands-on exercise is open: on any other stop a long
/// reply is never copied.
pub fn reply_of(input: &[u8]) -> Option<String> {
    let raw = serde_json::from_slice::<RawReply>(input).ok()?;
    [raw.last_assistant_message, raw.prompt_response].into_iter().find_map(|f| match f {
        Some(Field::Str(s)) if !s.is_empty() => Some(s),
        _ => None,
    })
}

/// A payload field of any JSON type: a field of the wrong type reads as absent instead of
/// failing the whole payload.
#[derive(Debug, PartialEq)]
enum Field {
    Bool(bool),
    Str(String),
    /// A whole number (a loop counter); other numbers are `Other`.
    Int(i64),
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Field;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Field, E> {
                Ok(Field::Bool(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Field, E> {
                Ok(Field::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Field, E> {
                Ok(Field::Str(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Field, E> {
                Ok(Field::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Field, E> {
                Ok(i64::try_from(v).map_or(Field::Other, Field::Int))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_unit<E>(self) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl Payload {
    pub fn parse(input: &[u8]) -> Self {
        // Typed, not a `Value`: fields we do not read (a long `last_assistant_message`) are
        // skipped by the parser without being copied.
        let Ok(raw) = serde_json::from_slice::<RawPayload>(input) else { return Self::default() };
        let text = |f: Option<Field>| match f {
            Some(Field::Str(s)) if !s.is_empty() => Some(s),
            _ => None,
        };
        let via_cursor = matches!(raw.conversation_id, Some(Field::Str(_))) && raw.session_id.is_none();
        let prompt_from_hook = match &raw.prompt {
            Some(Field::Str(p)) => {
                let p = p.trim_start();
                p.starts_with("devcoach:") || p.starts_with("<hook_prompt")
            }
            _ => false,
        };
        let aborted = matches!(&raw.status, Some(Field::Str(st)) if st == "aborted" || st == "error");
        Self {
            via_cursor,
            prompt_from_hook,
            aborted,
            // Cursor counts the follow-ups it sent instead of flagging the re-entry.
            stop_hook_active: raw.stop_hook_active == Some(Field::Bool(true))
                || matches!(raw.loop_count, Some(Field::Int(n)) if n > 0),
            plan_mode: raw.permission_mode == Some(Field::Str("plan".into())),
            transcript_path: text(raw.transcript_path).or_else(|| text(raw.transcript_path_camel)),
            session_id: text(raw.session_id)
                .or_else(|| text(raw.session_id_camel))
                .or_else(|| text(raw.session_id_upper))
                .or_else(|| text(raw.conversation_id))
                .or_else(|| text(raw.task_id)),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_reply_is_read_from_either_agent_s_field_and_only_as_text() {
        assert_eq!(reply_of(br#"{"last_assistant_message":"done"}"#).as_deref(), Some("done"));
        assert_eq!(reply_of(br#"{"prompt_response":"ok","x":1}"#).as_deref(), Some("ok"));
        assert_eq!(reply_of(br#"{"last_assistant_message":["no"],"prompt_response":""}"#), None);
        assert_eq!(reply_of(b"garbage"), None);
    }

    use super::*;

    #[test]
    fn fields_of_the_wrong_type_read_as_absent() {
        let p = Payload::parse(
            br#"{"session_id": 7, "permission_mode": ["plan"], "stop_hook_active": "yes", "x": {"deep": [1, 2]}}"#,
        );
        assert_eq!(p, Payload::default());
        let p = Payload::parse(br#"{"session_id": "abc", "permission_mode": "plan", "stop_hook_active": true}"#);
        assert_eq!((p.session_id.as_deref(), p.plan_mode, p.stop_hook_active), (Some("abc"), true, true));
        assert_eq!(Payload::parse(b"\xff\x00 not json"), Payload::default());
    }

    #[test]
    fn every_agents_names_for_the_same_facts() {
        // Copilot CLI's agentStop, camelCase form.
        let p = Payload::parse(
            br#"{"sessionId":"cop-1","timestamp":1764590000000,"cwd":"/w","transcriptPath":"/t","stopReason":"end_turn","stop_hook_active":false}"#,
        );
        assert_eq!(
            p,
            Payload { session_id: Some("cop-1".into()), transcript_path: Some("/t".into()), ..Payload::default() }
        );
        // Cursor's stop, first and after one follow-up.
        let cursor = |loops: &str| {
            Payload::parse(
                format!(
                    r#"{{"conversation_id":"cur-9","generation_id":"g","model":"m","workspace_roots":["/w"],"status":"completed","loop_count":{loops}}}"#
                )
                .as_bytes(),
            )
        };
        assert_eq!(cursor("0"), Payload { session_id: Some("cur-9".into()), via_cursor: true, ..Payload::default() });
        assert!(cursor("1").stop_hook_active && cursor("5").stop_hook_active);
        assert!(!cursor("-1").stop_hook_active && !cursor("1.5").stop_hook_active && !cursor("\"2\"").stop_hook_active);
        // The OpenCode/Kilo plugin passes its session as OpenCode names it.
        assert_eq!(Payload::parse(br#"{"sessionID":"ses_1"}"#).session_id.as_deref(), Some("ses_1"));
        assert_eq!(Payload::parse(br#"{"taskId":"t1"}"#).session_id.as_deref(), Some("t1"));
        // Copilot CLI and Qwen Code run the prompt hook on the cue that came back; Codex wraps
        // a hook's continuation.
        assert!(
            Payload::parse(br#"{"sessionId":"s","prompt":"devcoach: the technical work just finished"}"#)
                .prompt_from_hook
        );
        assert!(
            Payload::parse(br#"{"prompt":"  <hook_prompt hook_run_id=\"stop:1\">devcoach: x</hook_prompt>"}"#)
                .prompt_from_hook
        );
        assert!(!Payload::parse(br#"{"prompt":"rename devcoach: the module"}"#).prompt_from_hook);
        assert!(!Payload::parse(br#"{"prompt":["devcoach:"]}"#).prompt_from_hook);
        // A Cursor turn the user stopped, or that failed, is no finished work.
        assert!(Payload::parse(br#"{"conversation_id":"c","status":"aborted"}"#).aborted);
        assert!(Payload::parse(br#"{"conversation_id":"c","status":"error"}"#).aborted);
        assert!(!Payload::parse(br#"{"conversation_id":"c","status":"completed"}"#).aborted);
        // The first name present wins; an empty one does not count.
        let p = Payload::parse(br#"{"session_id":"","sessionId":"b","conversation_id":"c"}"#);
        assert_eq!(p.session_id.as_deref(), Some("b"));
    }
}
