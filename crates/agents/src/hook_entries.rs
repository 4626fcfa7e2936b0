//! The hook entries devcoach keeps in an agent's settings. Most agents (Claude Code, Gemini CLI,
//! Codex, Qwen Code) nest them as `hooks.<Event>` = groups of `{type, command, timeout}`; Droid
//! puts the events at the top of its file; Cursor and Copilot CLI list flat entries (see
//! [`Shape`]).
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

/// Where an agent keeps its hook entries and what one looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Events under a `hooks` object (else at the top of the file).
    pub under_hooks: bool,
    /// Entries wrapped in groups (`[{ "hooks": [entry] }]`) rather than listed directly.
    pub grouped: bool,
    /// The key holding the command (`command`; Copilot CLI: `bash`).
    pub command_key: &'static str,
    /// The key holding the timeout, if the agent takes one.
    pub timeout_key: Option<&'static str>,
    /// Whether an entry says `"type": "command"`.
    pub typed: bool,
}

impl Shape {
    /// Claude Code, Gemini CLI, Codex, Qwen Code.
    pub const NESTED: Self =
        Self { under_hooks: true, grouped: true, command_key: "command", timeout_key: Some("timeout"), typed: true };
    /// Droid: `{"Stop": [{"hooks": [...]}]}` (a `hooks` wrapper is ignored with a warning).
    pub const TOP_LEVEL: Self = Self { under_hooks: false, ..Self::NESTED };
    /// Cursor: `{"version": 1, "hooks": {"stop": [{"command": …}]}}`.
    pub const CURSOR: Self =
        Self { under_hooks: true, grouped: false, command_key: "command", timeout_key: None, typed: false };
    /// Copilot CLI: `{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": …, "timeoutSec": …}]}}`.
    pub const COPILOT: Self =
        Self { under_hooks: true, grouped: false, command_key: "bash", timeout_key: Some("timeoutSec"), typed: true };
}

impl Wanted {
    fn hook(&self, shape: Shape) -> Value {
        let mut hook = Map::new();
        if shape.typed {
            hook.insert("type".into(), "command".into());
        }
        hook.insert(shape.command_key.into(), self.command.clone().into());
        if let Some(key) = shape.timeout_key {
            hook.insert(key.into(), self.timeout.into());
        }
        Value::Object(hook)
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
    let names_us = lower.contains("devcoach") || lower.contains("dev-coach") || runs_this_binary(command);
    names_us && SUBCOMMANDS.iter().any(|sub| contains_word(&lower, sub))
}

/// Whether a command runs this very program, whatever it is called (a copy renamed `dc`).
fn runs_this_binary(command: &str) -> bool {
    static OWN: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    OWN.get_or_init(|| std::env::current_exe().ok().map(|p| p.to_string_lossy().into_owned()))
        .as_deref()
        .is_some_and(|own| !own.is_empty() && command.contains(own))
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

fn command_of(hook: &Value, shape: Shape) -> Option<&str> {
    hook.get(shape.command_key).and_then(Value::as_str)
}

/// Our hooks of one family in one event, as `(group index, hook index)` (flat lists: the entry
/// index twice).
fn ours(groups: &[Value], family: Family, shape: Shape) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        if !shape.grouped {
            if command_of(group, shape).is_some_and(|c| family.owns(c)) {
                found.push((g, g));
            }
            continue;
        }
        if let Some(hooks) = group.get("hooks").and_then(Value::as_array) {
            for (h, hook) in hooks.iter().enumerate() {
                if command_of(hook, shape).is_some_and(|c| family.owns(c)) {
                    found.push((g, h));
                }
            }
        }
    }
    found
}

/// The object holding the events: `hooks` (created when missing) or the file itself. `None`
/// when `hooks` is there but not an object.
fn events_mut(root: &mut Map<String, Value>, shape: Shape) -> Option<&mut Map<String, Value>> {
    if shape.under_hooks { super::config::object_at(root, "hooks") } else { Some(root) }
}

fn events(root: &Map<String, Value>, shape: Shape) -> Option<&Map<String, Value>> {
    if shape.under_hooks { root.get("hooks").and_then(Value::as_object) } else { Some(root) }
}

/// Makes our entry for `wanted.event` exactly one current hook, appended after the user's.
pub fn upsert(root: &mut Map<String, Value>, wanted: &Wanted) -> Upsert {
    upsert_shaped(root, Shape::NESTED, wanted)
}

/// [`upsert`] for an agent's own [`Shape`].
pub fn upsert_shaped(root: &mut Map<String, Value>, shape: Shape, wanted: &Wanted) -> Upsert {
    let Some(hooks) = events_mut(root, shape) else { return Upsert::Foreign };
    let Some(groups) = hooks.entry(wanted.event).or_insert_with(|| Value::Array(Vec::new())).as_array_mut() else {
        return Upsert::Foreign;
    };
    let found = ours(groups, wanted.family, shape);
    if let [(g, h)] = found.as_slice() {
        let current = if shape.grouped {
            let group = &groups[*g];
            let alone = group.get("hooks").and_then(Value::as_array).is_some_and(|hs| hs.len() == 1);
            group.get("matcher").is_none_or(|m| m.as_str() == Some(""))
                && alone
                && group["hooks"][*h] == wanted.hook(shape)
        } else {
            groups[*g] == wanted.hook(shape)
        };
        if current {
            return Upsert::Unchanged;
        }
    }
    let removed = remove_from(groups, shape, |c| wanted.family.owns(c));
    groups.push(if shape.grouped { json!({ "hooks": [wanted.hook(shape)] }) } else { wanted.hook(shape) });
    if removed == 0 { Upsert::Added } else { Upsert::Replaced(removed) }
}

/// Removes the hooks `mine` claims from one event's groups, dropping groups left empty.
/// Returns how many.
fn remove_from(groups: &mut Vec<Value>, shape: Shape, mine: impl Fn(&str) -> bool) -> usize {
    let mut removed = 0;
    if !shape.grouped {
        let before = groups.len();
        groups.retain(|hook| !command_of(hook, shape).is_some_and(&mine));
        return before - groups.len();
    }
    groups.retain_mut(|group| {
        let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) else { return true };
        let before = hooks.len();
        hooks.retain(|hook| !command_of(hook, shape).is_some_and(&mine));
        removed += before - hooks.len();
        !(before > 0 && hooks.is_empty())
    });
    removed
}

/// Removes every hook of ours (both families) from every event of an agent's [`Shape`]; events
/// and `hooks` left empty go too.
pub fn remove_all_shaped(root: &mut Map<String, Value>, shape: Shape) -> usize {
    let Some(hooks) =
        (if shape.under_hooks { root.get_mut("hooks").and_then(Value::as_object_mut) } else { Some(&mut *root) })
    else {
        return 0;
    };
    let mut removed = 0;
    hooks.retain(|_, groups| {
        let Some(list) = groups.as_array_mut() else { return true };
        let n = remove_from(list, shape, |c| is_ours(c) || is_practice(c));
        removed += n;
        !(n > 0 && list.is_empty())
    });
    if removed > 0 && shape.under_hooks && root.get("hooks").and_then(Value::as_object).is_some_and(Map::is_empty) {
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
    /// Whether the agent has a timeout to set (Cursor has none).
    pub takes_timeout: bool,
}

/// Every lesson hook of ours, by event, in file order.
pub fn find(root: &Map<String, Value>) -> Vec<Found> {
    find_family(root, Family::Lesson)
}

/// Every hook of one family, by event, in file order.
pub fn find_family(root: &Map<String, Value>, family: Family) -> Vec<Found> {
    find_shaped(root, Shape::NESTED, family)
}

/// [`find_family`] for an agent's own [`Shape`].
pub fn find_shaped(root: &Map<String, Value>, shape: Shape, family: Family) -> Vec<Found> {
    let Some(hooks) = events(root, shape) else { return Vec::new() };
    let mut out = Vec::new();
    for (event, groups) in hooks {
        let Some(groups) = groups.as_array() else { continue };
        for (g, h) in ours(groups, family, shape) {
            let hook = if shape.grouped { &groups[g]["hooks"][h] } else { &groups[g] };
            out.push(Found {
                event: event.clone(),
                command: command_of(hook, shape).unwrap_or_default().to_owned(),
                timeout: shape.timeout_key.and_then(|k| hook.get(k)).and_then(Value::as_u64),
                takes_timeout: shape.timeout_key.is_some(),
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
    fn a_renamed_copy_of_this_binary_still_owns_its_hooks() {
        let own = std::env::current_exe().expect("exe").to_string_lossy().into_owned();
        assert!(is_ours(&format!("\"{own}\" copilot-stop-hook")));
        assert!(!is_ours(&format!("\"{own}\" lint")), "still one of our subcommands only");
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

        assert_eq!(remove_all_shaped(&mut root, Shape::NESTED), 1);
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
        assert_eq!(remove_all_shaped(&mut root, Shape::NESTED), 2);
        assert!(root.is_empty(), "{root:?}");

        // A user's own empty event stays.
        let mut root: Map<String, Value> = serde_json::from_value(json!({ "hooks": { "Stop": [] } })).expect("json");
        assert_eq!(remove_all_shaped(&mut root, Shape::NESTED), 0);
        assert_eq!(root["hooks"]["Stop"], json!([]));
    }

    #[test]
    fn foreign_shapes_are_left_alone() {
        let mut root: Map<String, Value> = serde_json::from_value(json!({ "hooks": "off" })).expect("json");
        assert_eq!(upsert(&mut root, &wanted("devcoach stop-hook")), Upsert::Foreign);
        assert_eq!(root["hooks"], "off");
        let mut root: Map<String, Value> = serde_json::from_value(json!({ "hooks": { "Stop": {} } })).expect("json");
        assert_eq!(upsert(&mut root, &wanted("devcoach stop-hook")), Upsert::Foreign);
        assert_eq!(remove_all_shaped(&mut root, Shape::NESTED), 0);
    }

    #[test]
    fn the_other_agents_shapes() {
        let stop =
            |command: &str| Wanted { event: "stop", command: command.into(), timeout: 60, family: Family::Lesson };
        // Cursor: flat entries under `hooks`, beside the user's own.
        let mut root: Map<String, Value> =
            serde_json::from_value(json!({ "version": 1, "hooks": { "stop": [{ "command": "say done" }] } }))
                .expect("json");
        assert_eq!(upsert_shaped(&mut root, Shape::CURSOR, &stop("/bin/devcoach cursor-stop-hook")), Upsert::Added);
        assert_eq!(upsert_shaped(&mut root, Shape::CURSOR, &stop("/bin/devcoach cursor-stop-hook")), Upsert::Unchanged);
        assert_eq!(root["hooks"]["stop"][1], json!({ "command": "/bin/devcoach cursor-stop-hook" }));
        assert_eq!(find_shaped(&root, Shape::CURSOR, Family::Lesson).len(), 1);
        assert_eq!(remove_all_shaped(&mut root, Shape::CURSOR), 1);
        assert_eq!(
            root,
            serde_json::from_value::<Map<String, Value>>(
                json!({ "version": 1, "hooks": { "stop": [{ "command": "say done" }] } })
            )
            .expect("json")
        );
        // Copilot CLI: `bash` and `timeoutSec`.
        let mut root = Map::new();
        upsert_shaped(&mut root, Shape::COPILOT, &stop("devcoach copilot-stop-hook"));
        assert_eq!(
            root["hooks"]["stop"][0],
            json!({ "type": "command", "bash": "devcoach copilot-stop-hook", "timeoutSec": 60 })
        );
        assert_eq!(find_shaped(&root, Shape::COPILOT, Family::Lesson)[0].timeout, Some(60));
        // Droid: events at the top; a user's other keys stay.
        let mut root: Map<String, Value> = serde_json::from_value(json!({ "note": "mine" })).expect("json");
        upsert_shaped(&mut root, Shape::TOP_LEVEL, &stop("devcoach droid-stop-hook"));
        assert_eq!(root["stop"][0]["hooks"][0]["command"], "devcoach droid-stop-hook");
        assert!(root.get("hooks").is_none());
        assert_eq!(remove_all_shaped(&mut root, Shape::TOP_LEVEL), 1);
        assert_eq!(Value::Object(root), json!({ "note": "mine" }));
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
        assert_eq!(remove_all_shaped(&mut root, Shape::NESTED), 2);
        assert!(root.get("hooks").is_none());
    }
}
