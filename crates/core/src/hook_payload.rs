//! What an agent's hook sends on stdin, read leniently: the three fields a hook decides on,
//! with anything unreadable read as absent (garbage is an anonymous stop). Outside input: fuzzed
//! (`fuzz/fuzz_targets/hook_payload.rs`).

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The fields of a hook payload that matter. Anything unreadable reads as absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Payload {
    pub stop_hook_active: bool,
    pub plan_mode: bool,
    pub session_id: Option<String>,
}

#[derive(Deserialize)]
struct RawPayload {
    stop_hook_active: Option<Field>,
    permission_mode: Option<Field>,
    session_id: Option<Field>,
}

/// A payload field of any JSON type: a field of the wrong type reads as absent instead of
/// failing the whole payload.
#[derive(Debug, PartialEq)]
enum Field {
    Bool(bool),
    Str(String),
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
            fn visit_i64<E>(self, _: i64) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Field, E> {
                Ok(Field::Other)
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
        Self {
            stop_hook_active: raw.stop_hook_active == Some(Field::Bool(true)),
            plan_mode: raw.permission_mode == Some(Field::Str("plan".into())),
            session_id: match raw.session_id {
                Some(Field::Str(s)) if !s.is_empty() => Some(s),
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
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
}
