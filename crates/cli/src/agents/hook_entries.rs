//! The hook entries devcoach keeps in an agent's settings (`hooks.<Event>` = groups of
//! `{type, command, timeout}`), the same shape for Claude Code, Gemini CLI and Codex.
//!
//! A hook is ours when its command names devcoach and one of our hook subcommands; everything
//! else belongs to the user and is never changed, reordered or removed.

use serde_json::{Map, Value, json};

/// Which of devcoach's hooks an entry is: the lesson hooks, or the practice guard (installed
/// only on request, beside the lesson Stop hook in the same event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Family {
    #[default]
    Lesson,
    Practice,
}

impl Family {
    fn owns(self, command: &str) -> bool {
        match self {
            Self::Lesson => is_ours(command),
            Self::Practice => is_practice(command),
        }
    }
}

/// One hook devcoach wants in an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub event: &'static str,
    pub command: String,
    pub timeout: u64,
    pub family: Family,
}

impl Wanted {
    fn hook(&self) -> Value {
        json!({ "type": "command", "command": self.command, "timeout": self.timeout })
    }
}

/// What an upsert did to one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upsert {
    /// Exactly our entry was already there.
    Unchanged,
    Added,
    /// Older or duplicate entries of ours were replaced by one current entry.
    Replaced(usize),
    /// `hooks` or the event is not the expected JSON shape: left alone.
    Foreign,
}

const SUBCOMMANDS: [&str; 4] = ["stop-hook", "prompt-hook", "onboard-hook", "lesson-ready"];

/// Whether a hook command is one of devcoach's (any build, any client, legacy layouts).
pub fn is_ours(command: &str) -> bool {
    let lower = command.to_ascii_lowercase();
    let names_us = lower.contains("devcoach") || lower.contains("dev-coach");
    names_us && SUBCOMMANDS.iter().any(|sub| contains_word(&lower, sub))
}

/// Whether a hook command is one of devcoach's practice hooks (`devcoach hook practice-stop`,
/// `devcoach hook practice-prompt`).
pub fn is_practice(command: &str) -> bool {
    let lower = command.to_ascii_lowercase();
    (lower.contains("devcoach") || lower.contains("dev-coach"))
        && (contains_word(&lower, "practice-stop") || contains_word(&lower, "practice-prompt"))
}

/// `needle` with no letter, digit or `_` right before or after it.
fn contains_word(haystack: &str, needle: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    haystack
        .match_indices(needle)
        .any(|(at, _)| !word(haystack[..at].chars().next_back()) && !word(haystack[at + needle.len()..].chars().next()))
}

fn command_of(hook: &Value) -> Option<&str> {
    hook.get("command").and_then(Value::as_str)
}

/// Our hooks of one family in one event, as `(group index, hook index)`.
fn ours(groups: &[Value], family: Family) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        if let Some(hooks) = group.get("hooks").and_then(Value::as_array) {
            for (h, hook) in hooks.iter().enumerate() {
                if command_of(hook).is_some_and(|c| family.owns(c)) {
                    found.push((g, h));
                }
            }
        }
    }
    found
}

/// Makes our entry for `wanted.event` exactly one current hook, appended after the user's.
pub fn upsert(root: &mut Map<String, Value>, wanted: &Wanted) -> Upsert {
    let Some(hooks) = super::config::object_at(root, "hooks") else { return Upsert::Foreign };
    let Some(groups) = hooks.entry(wanted.event).or_insert_with(|| Value::Array(Vec::new())).as_array_mut() else {
        return Upsert::Foreign;
    };
    let found = ours(groups, wanted.family);
    if let [(g, h)] = found.as_slice() {
        let group = &groups[*g];
        let alone = group.get("hooks").and_then(Value::as_array).is_some_and(|hs| hs.len() == 1);
        if group.get("matcher").is_none_or(|m| m.as_str() == Some(""))
            && alone
            && groups[*g]["hooks"][*h] == wanted.hook()
        {
            return Upsert::Unchanged;
        }
    }
    let removed = remove_from(groups, |c| wanted.family.owns(c));
    groups.push(json!({ "hooks": [wanted.hook()] }));
    if removed == 0 { Upsert::Added } else { Upsert::Replaced(removed) }
}

/// Removes the hooks `mine` claims from one event's groups, dropping groups left empty.
/// Returns how many.
fn remove_from(groups: &mut Vec<Value>, mine: impl Fn(&str) -> bool) -> usize {
    let mut removed = 0;
    groups.retain_mut(|group| {
        let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) else { return true };
        let before = hooks.len();
        hooks.retain(|hook| !command_of(hook).is_some_and(&mine));
        removed += before - hooks.len();
        !(before > 0 && hooks.is_empty())
    });
    removed
}

/// Removes every hook of ours (both families) from every event; events and `hooks` left empty
/// go too.
pub fn remove_all(root: &mut Map<String, Value>) -> usize {
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else { return 0 };
    let mut removed = 0;
    hooks.retain(|_, groups| {
        let Some(list) = groups.as_array_mut() else { return true };
        let n = remove_from(list, |c| is_ours(c) || is_practice(c));
        removed += n;
        !(n > 0 && list.is_empty())
    });
    if removed > 0 && hooks.is_empty() {
        root.remove("hooks");
    }
    removed
}

/// One hook of ours as found in a settings file (doctor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub event: String,
    pub command: String,
    pub timeout: Option<u64>,
}

/// Every lesson hook of ours, by event, in file order.
pub fn find(root: &Map<String, Value>) -> Vec<Found> {
    find_family(root, Family::Lesson)
}

/// Every hook of one family, by event, in file order.
pub fn find_family(root: &Map<String, Value>, family: Family) -> Vec<Found> {
    let Some(hooks) = root.get("hooks").and_then(Value::as_object) else { return Vec::new() };
    let mut out = Vec::new();
    for (event, groups) in hooks {
        let Some(groups) = groups.as_array() else { continue };
        for (g, h) in ours(groups, family) {
            let hook = &groups[g]["hooks"][h];
            out.push(Found {
                event: event.clone(),
                command: command_of(hook).unwrap_or_default().to_owned(),
                timeout: hook.get("timeout").and_then(Value::as_u64),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted(command: &str) -> Wanted {
        Wanted { event: "Stop", command: command.into(), timeout: 60, family: Family::Lesson }
    }

    #[test]
    fn ownership() {
        for ours in [
            "/usr/local/bin/devcoach stop-hook",
            "npx -y devcoach stop-hook",
            "\"/Users/a b/.cargo/bin/devcoach\" gemini-stop-hook",
            "node \"${CLAUDE_PLUGIN_ROOT}/scripts/launch.mjs\" stop-hook # devcoach",
            "DEV-COACH lesson-ready",
            "devcoach onboard-hook",
        ] {
            assert!(is_ours(ours), "{ours}");
        }
        for theirs in
            ["devcoach mcp", "my-stop-hook.sh", "devcoach stop-hooks", "devcoach xstop-hook", "lint stop-hook"]
        {
            assert!(!is_ours(theirs), "{theirs}");
        }
    }

    #[test]
    fn upsert_keeps_user_hooks_and_heals_ours() {
        let mut root: Map<String, Value> = serde_json::from_value(json!({
            "model": "x",
            "hooks": {
                "Stop": [
                    { "matcher": "", "hooks": [{ "type": "command", "command": "notify-send done" }] },
                    { "hooks": [{ "type": "command", "command": "npx -y devcoach onboard-hook" },
                                { "type": "command", "command": "npx -y devcoach lesson-ready" }] }
                ],
                "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "guard" }] }]
            }
        }))
        .expect("json");
        let user_before = root["hooks"]["PreToolUse"].clone();
        assert_eq!(upsert(&mut root, &wanted("/bin/devcoach stop-hook")), Upsert::Replaced(2));
        assert_eq!(upsert(&mut root, &wanted("/bin/devcoach stop-hook")), Upsert::Unchanged);
        let stop = root["hooks"]["Stop"].as_array().expect("array");
        assert_eq!(stop.len(), 2);
        assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(
            stop[1],
            json!({ "hooks": [{ "type": "command", "command": "/bin/devcoach stop-hook", "timeout": 60 }] })
        );
        assert_eq!(root["hooks"]["PreToolUse"], user_before);

        // A moved binary: the entry follows it.
        assert_eq!(upsert(&mut root, &wanted("/opt/devcoach stop-hook")), Upsert::Replaced(1));
        assert_eq!(find(&root).len(), 1);

        assert_eq!(remove_all(&mut root), 1);
        assert_eq!(root["hooks"]["Stop"].as_array().map(Vec::len), Some(1));
        assert_eq!(root["hooks"]["PreToolUse"], user_before);
    }

    #[test]
    fn removing_the_last_hook_removes_the_empty_containers_only() {
        let mut root = Map::new();
        upsert(&mut root, &wanted("devcoach stop-hook"));
        upsert(
            &mut root,
            &Wanted {
                event: "UserPromptSubmit",
                command: "devcoach prompt-hook".into(),
                timeout: 30,
                family: Family::Lesson,
            },
        );
        assert_eq!(remove_all(&mut root), 2);
        assert!(root.is_empty(), "{root:?}");

        // A user's own empty event stays.
        let mut root: Map<String, Value> = serde_json::from_value(json!({ "hooks": { "Stop": [] } })).expect("json");
        assert_eq!(remove_all(&mut root), 0);
        assert_eq!(root["hooks"]["Stop"], json!([]));
    }

    #[test]
    fn foreign_shapes_are_left_alone() {
        let mut root: Map<String, Value> = serde_json::from_value(json!({ "hooks": "off" })).expect("json");
        assert_eq!(upsert(&mut root, &wanted("devcoach stop-hook")), Upsert::Foreign);
        assert_eq!(root["hooks"], "off");
        let mut root: Map<String, Value> = serde_json::from_value(json!({ "hooks": { "Stop": {} } })).expect("json");
        assert_eq!(upsert(&mut root, &wanted("devcoach stop-hook")), Upsert::Foreign);
        assert_eq!(remove_all(&mut root), 0);
    }

    #[test]
    fn the_practice_guard_lives_beside_the_lesson_hook() {
        let mut root: Map<String, Value> = Map::new();
        let practice = Wanted {
            event: "Stop",
            command: "/bin/devcoach hook practice-stop".into(),
            timeout: 30,
            family: Family::Practice,
        };
        assert_eq!(upsert(&mut root, &wanted("/bin/devcoach stop-hook")), Upsert::Added);
        assert_eq!(upsert(&mut root, &practice), Upsert::Added);
        // Each upsert leaves the other family alone.
        assert_eq!(upsert(&mut root, &wanted("/bin/devcoach stop-hook")), Upsert::Unchanged);
        assert_eq!(upsert(&mut root, &practice), Upsert::Unchanged);
        assert_eq!(root["hooks"]["Stop"].as_array().map(Vec::len), Some(2));
        assert_eq!(find(&root).len(), 1, "doctor's lesson hooks do not count the guard");
        assert!(
            is_practice("\"/Users/a b/devcoach\" hook practice-stop") && !is_ours("/bin/devcoach hook practice-stop")
        );
        assert_eq!(remove_all(&mut root), 2);
        assert!(root.get("hooks").is_none());
    }
}
