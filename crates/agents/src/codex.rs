//! Codex CLI keeps its MCP servers and hook approvals in `~/.codex/config.toml`. devcoach never
//! writes that file (it is the user's, and Codex rewrites it); it only reads what it needs.

use std::path::Path;

use serde_json::{Map, Value};

/// The `[mcp_servers.devcoach]` table's `command args…`, if the file has one.
pub fn server_command(toml: &str) -> Option<String> {
    let table = table_lines(toml, |header| {
        matches!(header, "mcp_servers.devcoach" | "mcp_servers.\"devcoach\"" | "mcp_servers.'devcoach'")
    })?;
    let mut command = None;
    let mut args = Vec::new();
    for line in table {
        let Some((key, value)) = line.split_once('=') else { continue };
        match key.trim() {
            "command" => command = parse_string(value.trim()),
            "args" => args = parse_string_array(value.trim()),
            _ => {}
        }
    }
    let mut words = vec![command?];
    words.extend(args);
    Some(words.join(" "))
}

/// The lines of the first table whose header satisfies `is_it`, up to the next header.
fn table_lines(toml: &str, is_it: impl Fn(&str) -> bool) -> Option<Vec<&str>> {
    let mut lines = toml.lines().map(str::trim);
    lines.by_ref().find(|l| {
        l.strip_prefix('[').and_then(|l| l.split(']').next()).is_some_and(|h| !l.starts_with("[[") && is_it(h.trim()))
    })?;
    Some(lines.take_while(|l| !l.starts_with('[')).filter(|l| !l.is_empty() && !l.starts_with('#')).collect())
}

/// A TOML basic ("…") or literal ('…') string at the start of `text`.
fn parse_string(text: &str) -> Option<String> {
    take_string(text).map(|(s, _)| s)
}

fn take_string(text: &str) -> Option<(String, &str)> {
    let mut chars = text.char_indices();
    match chars.next()? {
        (_, '\'') => {
            let end = text[1..].find('\'')? + 1;
            Some((text[1..end].to_owned(), &text[end + 1..]))
        }
        (_, '"') => {
            let mut out = String::new();
            let mut escaped = false;
            for (i, c) in chars {
                if escaped {
                    out.push(match c {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        other => other,
                    });
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    return Some((out, &text[i + 1..]));
                } else {
                    out.push(c);
                }
            }
            None
        }
        _ => None,
    }
}

fn parse_string_array(text: &str) -> Vec<String> {
    let Some(mut rest) = text.strip_prefix('[') else { return Vec::new() };
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.starts_with(']') || rest.is_empty() {
            return out;
        }
        match take_string(rest) {
            Some((s, after)) => {
                out.push(s);
                rest = after;
            }
            None => return out,
        }
    }
}

/// A TOML basic string.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What to paste into `config.toml` when `codex mcp add` is not available.
pub fn server_snippet(program: &Path) -> String {
    format!("[mcp_servers.devcoach]\ncommand = {}\nargs = [\"mcp\"]", quote(&program.to_string_lossy()))
}

/// Whether Codex will run a hook: it runs only hooks whose approval matches what they are now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    Trusted,
    /// Approved once, changed since (a new path, a new timeout): needs approving again.
    Modified,
    Untrusted,
}

/// `UserPromptSubmit` → `user_prompt_submit`: how Codex names events in keys and hashes.
fn event_label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The hash Codex records when the user approves a hook: SHA-256 of the handler's identity as
/// compact JSON with sorted keys.
pub fn hook_hash(event: &str, group: &Value, hook: &Value) -> String {
    use sha2::{Digest, Sha256};
    let label = event_label(event);
    let timeout = hook.get("timeout").and_then(Value::as_u64).unwrap_or(600).max(1);
    // Keys are inserted in sorted order (the map keeps insertion order).
    let mut handler = Map::new();
    handler.insert("async".into(), Value::Bool(hook.get("async").and_then(Value::as_bool).unwrap_or(false)));
    handler.insert("command".into(), hook.get("command").cloned().unwrap_or(Value::String(String::new())));
    if let Some(message) = hook.get("statusMessage").and_then(Value::as_str) {
        handler.insert("statusMessage".into(), Value::String(message.to_owned()));
    }
    handler.insert("timeout".into(), Value::from(timeout));
    handler.insert("type".into(), Value::String("command".into()));
    let mut identity = Map::new();
    identity.insert("event_name".into(), Value::String(label.clone()));
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    if let Some(matcher) = group.get("matcher").and_then(Value::as_str)
        && !matches!(label.as_str(), "user_prompt_submit" | "stop")
    {
        identity.insert("matcher".into(), Value::String(matcher.to_owned()));
    }
    let bytes = serde_json::to_vec(&Value::Object(identity)).unwrap_or_default();
    let digest = Sha256::digest(&bytes);
    format!("sha256:{}", devcoach_core::encoding::hex(&digest))
}

/// The `trusted_hash` recorded for a hook key, if any.
fn recorded_hash(toml: &str, key: &str) -> Option<String> {
    let lines = table_lines(toml, |header| {
        header.strip_prefix("hooks.state.").is_some_and(|k| parse_string(k).as_deref() == Some(key))
    })?;
    lines.iter().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "trusted_hash").then(|| parse_string(v.trim())).flatten()
    })
}

/// For each devcoach hook in `hooks.json`: its event and whether Codex will run it.
pub fn trust(toml: &str, hooks_file: &Path, hooks: &Map<String, Value>) -> Vec<(String, Trust)> {
    // Codex keys approvals by the file's resolved path; HOME may be spelled another way.
    let mut files = vec![hooks_file.to_string_lossy().into_owned()];
    if let Ok(real) = std::fs::canonicalize(hooks_file) {
        files.push(real.to_string_lossy().into_owned());
    }
    let Some(events) = hooks.get("hooks").and_then(Value::as_object) else { return Vec::new() };
    let mut out = Vec::new();
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else { continue };
        for (g, group) in groups.iter().enumerate() {
            let Some(list) = group.get("hooks").and_then(Value::as_array) else { continue };
            for (h, hook) in list.iter().enumerate() {
                if !hook.get("command").and_then(Value::as_str).is_some_and(super::hook_entries::is_ours) {
                    continue;
                }
                let recorded = files
                    .iter()
                    .find_map(|file| recorded_hash(toml, &format!("{file}:{}:{g}:{h}", event_label(event))));
                let status = match recorded {
                    Some(hash) if hash == hook_hash(event, group, hook) => Trust::Trusted,
                    Some(_) => Trust::Modified,
                    None => Trust::Untrusted,
                };
                out.push((event.clone(), status));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_server_table() {
        let toml = "model = \"x\"\n\n[mcp_servers.other]\ncommand = \"o\"\n\n[mcp_servers.devcoach]\n# ours\ncommand = \"/opt/dev coach/devcoach\"\nargs = [\"mcp\", 'x']\n\n[profiles.y]\ncommand = \"nope\"\n";
        assert_eq!(server_command(toml).as_deref(), Some("/opt/dev coach/devcoach mcp x"));
        assert_eq!(server_command("[mcp_servers.devcoachx]\ncommand = \"a\""), None);
        assert_eq!(
            server_command("[mcp_servers.\"devcoach\"]\ncommand = 'C:\\bin\\devcoach.exe'\nargs=[\"mcp\"]").as_deref(),
            Some("C:\\bin\\devcoach.exe mcp")
        );
        let snippet = server_snippet(Path::new("/a \"b\"/devcoach"));
        assert_eq!(server_command(&snippet).as_deref(), Some("/a \"b\"/devcoach mcp"));
    }

    /// The hash the real Codex CLI 0.171.0 reported (`hooks/list` `currentHash`) for this hook.
    #[test]
    fn trust_hash_matches_codex() {
        let group = serde_json::json!({ "hooks": [] });
        let hook = serde_json::json!({ "type": "command", "command": "/usr/bin/true hook stop", "timeout": 30 });
        assert_eq!(
            hook_hash("Stop", &group, &hook),
            "sha256:ad1426e49e90e4110954d5b418a68e284d017c86e60ecd0a830f4440ac1de7c1"
        );
        assert_eq!(event_label("UserPromptSubmit"), "user_prompt_submit");

        let hooks: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "/bin/devcoach codex-stop-hook", "timeout": 60 }] }] }
        }))
        .expect("json");
        let file = Path::new("/h/.codex/hooks.json");
        assert_eq!(trust("", file, &hooks), [("Stop".to_owned(), Trust::Untrusted)]);
        let hash = hook_hash("Stop", &hooks["hooks"]["Stop"][0], &hooks["hooks"]["Stop"][0]["hooks"][0]);
        let toml =
            format!("[hooks.state]\n\n[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"{hash}\"\n");
        assert_eq!(trust(&toml, file, &hooks), [("Stop".to_owned(), Trust::Trusted)]);
        let stale = toml.replace(&hash[10..20], "0000000000");
        assert_eq!(trust(&stale, file, &hooks), [("Stop".to_owned(), Trust::Modified)]);
    }
}
