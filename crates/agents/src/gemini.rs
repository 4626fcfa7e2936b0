//! Gemini CLI specifics: hooks need no switch (`hooksConfig.enabled` defaults to on), but a
//! user can turn the whole hook system off, which doctor reports.

use serde_json::{Map, Value};

/// False only when the user turned Gemini's hook system off.
pub fn hooks_enabled(settings: &Map<String, Value>) -> bool {
    settings.get("hooksConfig").and_then(|c| c.get("enabled")) != Some(&Value::Bool(false))
}
