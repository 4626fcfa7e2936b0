//! The work-pattern classifier on a labelled set: made-up sessions written out in Claude Code's,
//! Codex's and Gemini CLI's transcript formats (both of Gemini's), with precision and recall per pattern (recorded
//! in docs/work-insights.md).

// Counts of a few dozen sessions become shares.
#![allow(clippy::cast_precision_loss)]

use std::collections::BTreeMap;

use devcoach_core::work_patterns::{Pattern, signals};
use serde_json::{Value, json};

use crate::fixtures;

struct Session {
    label: Option<Pattern>,
    turns: Vec<(String, u64)>,
}

fn corpus(name: &str) -> Vec<Session> {
    let raw = std::fs::read(fixtures().join("transcripts").join(name)).expect("corpus");
    let doc: Value = serde_json::from_slice(&raw).expect("json");
    doc["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| Session {
            label: Pattern::parse(s["label"].as_str().expect("label")),
            turns: s["turns"]
                .as_array()
                .expect("turns")
                .iter()
                .map(|t| (t["user"].as_str().expect("user").to_owned(), t["edits"].as_u64().expect("edits")))
                .collect(),
        })
        .collect()
}

/// Claude Code: JSON Lines of user and assistant messages; tool results come back as user
/// messages, and hooks add meta lines.
fn claude(s: &Session) -> String {
    let mut lines = vec![json!({"type": "summary", "summary": "session"})];
    lines.push(json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": "<local-command-stdout></local-command-stdout>"}}));
    for (user, edits) in &s.turns {
        lines.push(json!({"type": "user", "message": {"role": "user", "content": user}}));
        lines.push(json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "name": "Read", "input": {}}]}}));
        for _ in 0..*edits {
            lines.push(json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Changing it."}, {"type": "tool_use", "name": "Edit", "input": {"file_path": "x"}}]}}));
            lines.push(json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]}}));
        }
        lines.push(json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}}));
    }
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

/// Codex: rollout lines, with the environment and instructions as user messages of its own.
fn codex(s: &Session) -> String {
    let mut lines = vec![json!({"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}})];
    lines.push(json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]}}));
    for (user, edits) in &s.turns {
        lines.push(json!({"type": "event_msg", "payload": {"type": "user_message", "message": user}}));
        lines.push(json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": user}]}}));
        lines.push(json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"rg\",\"x\"]}"}}));
        for i in 0..*edits {
            if i % 2 == 0 {
                lines.push(json!({"type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n*** Update File: x\n*** End Patch"}}));
            } else {
                lines.push(json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"apply_patch\",\"*** Begin Patch\"]}"}}));
            }
        }
        lines.push(json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}}));
    }
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

/// Gemini CLI: one JSON document with the session's messages.
fn gemini(s: &Session) -> String {
    let mut messages = Vec::new();
    for (user, edits) in &s.turns {
        messages.push(json!({"id": "u", "type": "user", "content": [{"text": user}]}));
        let mut calls = vec![json!({"id": "c", "name": "read_file", "args": {}, "status": "success"})];
        for i in 0..*edits {
            let name = if i % 2 == 0 { "replace" } else { "write_file" };
            calls.push(json!({"id": "c", "name": name, "args": {}, "status": "success"}));
        }
        messages.push(json!({"id": "g", "type": "gemini", "content": "Done.", "toolCalls": calls}));
    }
    json!({"sessionId": "s", "projectHash": "h", "messages": messages}).to_string()
}

/// Precision and recall per pattern over every session written out in every format; prints
/// them and returns the worst figure.
// The figures are the point: they are printed for the record.
#[allow(clippy::print_stdout)]
fn measure(name: &str) -> (usize, f64, f64) {
    let sessions = corpus(name);
    let mut per: BTreeMap<&str, (u32, u32, u32)> = BTreeMap::new(); // (true positive, predicted, actual)
    let mut total = 0;
    let mut wrong = Vec::new();
    let formats = [
        ("claude", claude as fn(&Session) -> String),
        ("codex", codex),
        ("gemini", gemini),
        ("gemini-lines", gemini_lines),
    ];
    for (format, render) in formats {
        for s in &sessions {
            let got = signals(render(s).as_bytes()).pattern();
            total += 1;
            let name = |p: Option<Pattern>| p.map_or("none", Pattern::as_str);
            per.entry(name(got)).or_default().1 += 1;
            per.entry(name(s.label)).or_default().2 += 1;
            if got == s.label {
                per.entry(name(got)).or_default().0 += 1;
            } else if format == "claude" {
                wrong.push(format!("{:?} read as {} ({})", s.label, name(got), s.turns[0].0));
            }
        }
    }
    println!("{name}: {total} sessions (4 formats × {}):", sessions.len());
    let mut worst = 1.0_f64;
    for p in Pattern::ALL {
        let (tp, predicted, actual) = per.get(p.as_str()).copied().unwrap_or_default();
        let precision = if predicted == 0 { 0.0 } else { f64::from(tp) / f64::from(predicted) };
        let recall = if actual == 0 { 0.0 } else { f64::from(tp) / f64::from(actual) };
        println!("  {:<26} precision {precision:.2}  recall {recall:.2}  ({actual} labelled)", p.as_str());
        worst = worst.min(precision).min(recall);
    }
    for w in &wrong {
        println!("  missed (in each format): {w}");
    }
    let right: u32 = per.values().map(|(tp, _, _)| tp).sum();
    let accuracy = f64::from(right) / total as f64;
    println!("  accuracy {accuracy:.3}");
    (total, accuracy, worst)
}

/// Gemini CLI 0.6x: JSON Lines (a header, `$set` updates, one message a line), as the real
/// agent test sees it write.
fn gemini_lines(s: &Session) -> String {
    let doc: Value = serde_json::from_str(&gemini(s)).expect("json");
    let mut lines = vec![json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "kind": "main"})];
    lines.push(json!({"$set": {"messages": [{"id": "0", "type": "user", "content": [{"text": "<session_context>\nThis is the Gemini CLI.</session_context>"}]}]}}));
    for m in doc["messages"].as_array().expect("messages") {
        lines.push(m.clone());
        lines.push(json!({"$set": {"lastUpdated": "t"}}));
    }
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

#[test]
fn the_classifier_finds_each_pattern_in_each_agents_transcripts() {
    // What the message model was trained on (by people who never saw the rules).
    for set in [
        "insights_train_a.json",
        "insights_train_b.json",
        "insights_train_c.json",
        "insights_train_d.json",
        "insights_train_e.json",
        "insights_train_f.json",
    ] {
        let (total, accuracy, worst) = measure(set);
        assert!(total >= 800 && accuracy >= 0.9 && worst >= 0.8, "{set}: {total} {accuracy:.2} {worst:.2}");
    }
    // Held out: written by someone who saw neither the rules nor the training sets, never
    // trained or tuned on. The figure docs/work-insights.md reports.
    let (total, accuracy, worst) = measure("insights_held_out.json");
    assert!(total >= 600, "a held-out set of at least 150 sessions in each format: {total}");
    assert!(accuracy >= 0.85, "held-out accuracy {accuracy:.3}");
    assert!(worst >= 0.75, "every pattern's precision and recall held out: {worst:.3}");
    // The earlier sets (rules were tuned on the first two; the third was the honest figure of
    // the keyword rules, 0.73 accuracy): still read.
    for set in ["labelled.json", "held_out.json", "held_out_2.json"] {
        let (total, accuracy, _) = measure(set);
        assert!(total >= 60 && accuracy >= 0.7, "{set}: {total} sessions, accuracy {accuracy:.2}");
    }
}

#[test]
fn a_transcript_too_odd_to_read_tells_nothing() {
    for junk in
        [&b"{\"messages\": 7}"[..], b"[1,2,3]", b"{\"type\":\"user\",\"message\":{\"content\":{\"a\":1}}}", &[0xff; 64]]
    {
        assert_eq!(signals(junk).pattern(), None);
    }
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(signals(deep.as_bytes()).pattern(), None, "deep nesting is refused by the parser, not a crash");
}
