//! How a learner worked with their agent in one session, read from the agent's transcript: the
//! interaction patterns of Shen & Tamkin (2026), whose trial found that developers who asked to
//! understand what the AI generated, or asked conceptual questions, kept far more than those who
//! delegated. Opt-in (`work_insights`); only counts and the pattern leave this module, never the
//! words (see docs/work-insights.md for the signals and their measured precision and recall).

use serde_json::Value;

pub mod model;

/// A pattern of working with the agent, with the signals that define it here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pattern {
    /// The agent wrote the code; the learner asked for outcomes and no explanations.
    Delegation,
    /// Round after round of "it still fails, here is the error" for the agent to fix.
    IterativeDebugging,
    /// The agent wrote code, then the learner asked how or why it works.
    GenerateThenComprehend,
    /// Questions about ideas, with no code written by the agent.
    ConceptualInquiry,
    /// Code asked for together with an explanation of it, in the same request.
    HybridCodeExplanation,
}

impl Pattern {
    pub const ALL: [Pattern; 5] = [
        Self::Delegation,
        Self::IterativeDebugging,
        Self::GenerateThenComprehend,
        Self::ConceptualInquiry,
        Self::HybridCodeExplanation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Delegation => "delegation",
            Self::IterativeDebugging => "iterative_debugging",
            Self::GenerateThenComprehend => "generate_then_comprehend",
            Self::ConceptualInquiry => "conceptual_inquiry",
            Self::HybridCodeExplanation => "hybrid_code_explanation",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Words for a person.
    pub fn label(self) -> &'static str {
        match self {
            Self::Delegation => "delegating",
            Self::IterativeDebugging => "debugging through the agent",
            Self::GenerateThenComprehend => "generating then asking why",
            Self::ConceptualInquiry => "asking about ideas",
            Self::HybridCodeExplanation => "code with explanations",
        }
    }

    /// The patterns after which learners kept what they did (the trial's high scorers).
    pub fn keeps_learning(self) -> bool {
        matches!(self, Self::GenerateThenComprehend | Self::ConceptualInquiry | Self::HybridCodeExplanation)
    }
}

/// Sessions a week needs before it gets a line.
pub const MIN_SESSIONS_FOR_A_LINE: u32 = 3;

/// The briefing's one line about the last days' sessions ("mostly delegating this week (5 of
/// 7 sessions)"), once there are enough of them.
pub fn week_line(counts: &std::collections::BTreeMap<Pattern, u32>) -> Option<String> {
    let total: u32 = counts.values().sum();
    if total < MIN_SESSIONS_FOR_A_LINE {
        return None;
    }
    let mut ranked: Vec<(Pattern, u32)> = counts.iter().map(|(p, n)| (*p, *n)).filter(|(_, n)| *n > 0).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let (top, n) = ranked[0];
    if n * 2 >= total {
        return Some(format!("mostly {} this week ({n} of {total} sessions)", top.label()));
    }
    // Each count says what it counts, and the parts are kept apart by semicolons: a label never
    // reads as the start of the next part.
    let parts: Vec<String> = ranked.iter().map(|(p, n)| format!("{} in {n}", p.label())).collect();
    Some(format!("a mix this week ({total} sessions): {}", parts.join("; ")))
}

/// What one session shows, as counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Signals {
    /// The learner's own messages (tool results, hook texts and the agent's instructions left out).
    pub prompts: u32,
    /// Messages asking how or why (about ideas, not about an error).
    pub questions: u32,
    /// Of those, the ones after the agent had already changed code.
    pub questions_after_edit: u32,
    /// Messages reporting a failure or pasting an error.
    pub error_reports: u32,
    /// Messages asking for code and an explanation together.
    pub combined: u32,
    /// Messages holding code of the learner's own, or saying they changed it.
    pub own_code: u32,
    /// Changes the agent made to files.
    pub agent_edits: u32,
}

impl Signals {
    /// The session's pattern; `None` when nothing in it tells (no prompts, or only chat).
    pub fn pattern(&self) -> Option<Pattern> {
        if self.prompts == 0 {
            return None;
        }
        if self.agent_edits == 0 {
            return if self.questions > 0 {
                Some(Pattern::ConceptualInquiry)
            } else if self.error_reports >= 2 {
                Some(Pattern::IterativeDebugging)
            } else {
                None
            };
        }
        if self.combined > 0 {
            Some(Pattern::HybridCodeExplanation)
        } else if self.questions_after_edit > 0 && self.questions_after_edit >= self.error_reports {
            Some(Pattern::GenerateThenComprehend)
        } else if self.error_reports >= 2 {
            Some(Pattern::IterativeDebugging)
        } else {
            Some(Pattern::Delegation)
        }
    }
}

/// What a message of the learner's says: its kind, read by the message model ([`model`]), and
/// whether it holds code of the learner's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reading {
    question: bool,
    error: bool,
    /// Asks for code and its explanation together, in words.
    combined: bool,
    own_code: bool,
}

/// Words that say the learner wrote or changed code themselves.
const OWN_CODE_WORDS: &[&str] =
    &["```", "i changed", "i edited", "i rewrote", "i wrote", "i tried", "i fixed", "my version", "i've changed"];

fn read(text: &str) -> Reading {
    let head = text.char_indices().nth(model::READ_CHARS).map_or(text, |(i, _)| &text[..i]);
    let lower = head.to_lowercase();
    let (question, error, combined) = model::counts_as(model::read(head).1);
    Reading { question, error, combined, own_code: OWN_CODE_WORDS.iter().any(|w| lower.contains(w)) }
}

/// One thing in a transcript, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    Prompt(String),
    Edit,
}

/// Tools that change files, by the names Claude Code, Codex and Gemini CLI give them (and the
/// agents that share Claude Code's names).
const EDIT_TOOLS: &[&str] = &[
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "apply_patch",
    "replace",
    "write_file",
    "edit",
    "write",
    "str_replace_based_edit_tool",
    "create_file",
    "edit_file",
];

/// A transcript's counts. Claude Code's (and Qwen Code's, Droid's) JSON Lines, Codex's rollout
/// lines and Gemini CLI's chat file are told apart by their content; anything else reads as an
/// empty session. The text is read here and dropped here.
pub fn signals(transcript: &[u8]) -> Signals {
    let mut s = Signals::default();
    let mut edited = false;
    for e in events(transcript) {
        match e {
            Event::Edit => {
                s.agent_edits += 1;
                edited = true;
            }
            Event::Prompt(text) => {
                let r = read(&text);
                s.prompts += 1;
                s.questions += u32::from(r.question);
                s.questions_after_edit += u32::from(r.question && edited);
                s.error_reports += u32::from(r.error);
                s.combined += u32::from(r.combined);
                s.own_code += u32::from(r.own_code);
            }
        }
    }
    s
}

fn events(bytes: &[u8]) -> Vec<Event> {
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim_start();
    // Gemini CLI keeps one JSON document per session.
    if trimmed.starts_with('{')
        && let Ok(doc) = serde_json::from_str::<Value>(trimmed)
        && let Some(messages) = doc.get("messages").and_then(Value::as_array)
    {
        return gemini(messages);
    }
    let mut out = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        if v.get("payload").is_some() {
            codex_line(&v, &mut out);
        } else if v.get("message").is_some() {
            claude_line(&v, &mut out);
        } else if let Some(messages) = v.get("$set").and_then(|s| s.get("messages")).and_then(Value::as_array) {
            // Gemini CLI's JSON Lines (0.6x): a header, then `$set` updates and one message a line.
            out.extend(gemini(messages));
        } else {
            out.extend(gemini(std::slice::from_ref(&v)));
        }
    }
    out
}

/// Whether a user-role text is the learner's, not something the agent or a hook put there.
fn learners(text: &str) -> Option<String> {
    let t = text.trim();
    let not_ours = t.is_empty()
        || t.starts_with('<')
        || t.starts_with("devcoach:")
        || t.starts_with("Caveat:")
        || t.starts_with("# AGENTS.md")
        || t.starts_with("[Request interrupted");
    (!not_ours).then(|| t.to_owned())
}

fn claude_line(v: &Value, out: &mut Vec<Event>) {
    let kind = v.get("type").and_then(Value::as_str);
    let content = v.get("message").and_then(|m| m.get("content"));
    match kind {
        Some("user") if v.get("isMeta").and_then(Value::as_bool) != Some(true) => match content {
            Some(Value::String(s)) => out.extend(learners(s).map(Event::Prompt)),
            Some(Value::Array(items)) => {
                let text: Vec<&str> = items
                    .iter()
                    .filter(|i| i.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|i| i.get("text").and_then(Value::as_str))
                    .filter(|t| !t.trim_start().starts_with('<'))
                    .collect();
                if !text.is_empty() {
                    out.extend(learners(&text.join("\n")).map(Event::Prompt));
                }
            }
            _ => {}
        },
        Some("assistant") => {
            for item in content.and_then(Value::as_array).into_iter().flatten() {
                let tool = item.get("name").and_then(Value::as_str);
                if item.get("type").and_then(Value::as_str) == Some("tool_use") && tool.is_some_and(is_edit) {
                    out.push(Event::Edit);
                }
            }
        }
        _ => {}
    }
}

fn codex_line(v: &Value, out: &mut Vec<Event>) {
    let Some(p) = v.get("payload") else { return };
    if v.get("type").and_then(Value::as_str) != Some("response_item") {
        return;
    }
    match p.get("type").and_then(Value::as_str) {
        Some("message") if p.get("role").and_then(Value::as_str) == Some("user") => {
            let text: Vec<&str> = p
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("text").and_then(Value::as_str))
                .collect();
            out.extend(learners(&text.join("\n")).map(Event::Prompt));
        }
        Some("function_call" | "custom_tool_call" | "local_shell_call") => {
            let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
            let args = p.get("arguments").or_else(|| p.get("input")).map(Value::to_string).unwrap_or_default();
            if is_edit(name) || args.contains("apply_patch") || args.contains("*** Begin Patch") {
                out.push(Event::Edit);
            }
        }
        _ => {}
    }
}

fn gemini(messages: &[Value]) -> Vec<Event> {
    let mut out = Vec::new();
    for m in messages {
        match m.get("type").and_then(Value::as_str) {
            Some("user") => {
                let text = match m.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        // A hook's context rides in a part of its own beside the learner's words.
                        .filter(|t| !t.trim_start().starts_with('<'))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                out.extend(learners(&text).map(Event::Prompt));
            }
            Some("gemini") => {
                for call in m.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                    if call.get("name").and_then(Value::as_str).is_some_and(is_edit) {
                        out.push(Event::Edit);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn is_edit(name: &str) -> bool {
    EDIT_TOOLS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_by_their_words() {
        assert!(read("Why does the borrow checker reject this?").question);
        assert!(read("still fails with error E0502, same as before").error, "an error report, not a question");
        assert!(read("The tests are still failing: thread 'main' panicked").error);
        assert!(read("Write the parser and explain how the state machine works").combined);
        assert!(!read("Write the parser and explain how the state machine works").question);
        assert!(read("I changed the loop to use an iterator, ok?").own_code);
        assert!(!read("Add a retry to the client").question);
        // Only the head of a message is read (a pasted log of megabytes stays quick).
        let long = format!("{} why does this happen?", "log line ".repeat(1000));
        assert!(!read(&long).question && read(&long[long.len() - 40..]).question);
    }

    #[test]
    fn a_week_reads_in_one_line_once_there_are_enough_sessions() {
        use std::collections::BTreeMap;
        let week = |pairs: &[(Pattern, u32)]| week_line(&pairs.iter().copied().collect::<BTreeMap<_, _>>());
        assert_eq!(week(&[(Pattern::Delegation, 2)]), None);
        assert_eq!(
            week(&[(Pattern::Delegation, 5), (Pattern::ConceptualInquiry, 2)]).as_deref(),
            Some("mostly delegating this week (5 of 7 sessions)")
        );
        assert_eq!(
            week(&[(Pattern::Delegation, 2), (Pattern::ConceptualInquiry, 2), (Pattern::IterativeDebugging, 1)])
                .as_deref(),
            Some(
                "a mix this week (5 sessions): delegating in 2; asking about ideas in 2; debugging through the agent in 1"
            )
        );
        // Reported as ambiguous: "7 generating, then understanding, 6 asking…".
        let mixed =
            week(&[(Pattern::GenerateThenComprehend, 7), (Pattern::ConceptualInquiry, 6), (Pattern::Delegation, 3)]);
        assert_eq!(
            mixed.as_deref(),
            Some(
                "a mix this week (16 sessions): generating then asking why in 7; asking about ideas in 6; delegating in 3"
            )
        );
        for p in Pattern::ALL {
            assert!(!p.label().contains([',', ';']), "a label holds no separator: {}", p.label());
        }
    }

    #[test]
    fn patterns_follow_the_signals() {
        let s = |prompts, questions, after, errors, combined, edits| Signals {
            prompts,
            questions,
            questions_after_edit: after,
            error_reports: errors,
            combined,
            own_code: 0,
            agent_edits: edits,
        };
        assert_eq!(s(0, 0, 0, 0, 0, 3).pattern(), None);
        assert_eq!(s(2, 0, 0, 0, 0, 3).pattern(), Some(Pattern::Delegation));
        assert_eq!(s(4, 0, 0, 3, 0, 5).pattern(), Some(Pattern::IterativeDebugging));
        assert_eq!(s(3, 1, 1, 0, 0, 2).pattern(), Some(Pattern::GenerateThenComprehend));
        assert_eq!(s(3, 3, 0, 0, 0, 0).pattern(), Some(Pattern::ConceptualInquiry));
        assert_eq!(s(2, 0, 0, 0, 1, 2).pattern(), Some(Pattern::HybridCodeExplanation));
        assert_eq!(s(1, 0, 0, 0, 0, 0).pattern(), None, "chat tells nothing");
        for p in Pattern::ALL {
            assert_eq!(Pattern::parse(p.as_str()), Some(p));
        }
    }

    #[test]
    fn each_agents_transcript_is_read() {
        let claude = concat!(
            r#"{"type":"user","message":{"role":"user","content":"Add a cache to the lookup"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Edit","input":{}}]}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"done"}]}}"#,
            "\n",
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"<command-name>/clear</command-name>"}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Why an LRU and not a TTL?"}]}}"#,
            "\n",
            "not json\n",
        );
        let s = signals(claude.as_bytes());
        assert_eq!((s.prompts, s.agent_edits, s.questions_after_edit), (2, 1, 1), "{s:?}");
        let codex = concat!(
            r#"{"type":"session_meta","payload":{"id":"x"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the failing test, it panicked"}]}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch"}}"#,
            "\n",
        );
        let s = signals(codex.as_bytes());
        assert_eq!((s.prompts, s.agent_edits, s.error_reports), (1, 1, 1), "{s:?}");
        let gemini = r#"{"sessionId":"s","messages":[{"type":"user","content":"What is a monad?"},{"type":"gemini","content":"…","toolCalls":[{"name":"read_file"}]},{"type":"user","content":[{"text":"And how does bind work?"}]}]}"#;
        let s = signals(gemini.as_bytes());
        assert_eq!((s.prompts, s.questions, s.agent_edits), (2, 2, 0), "{s:?}");
        assert_eq!(s.pattern(), Some(Pattern::ConceptualInquiry));
        // Gemini CLI 0.6x keeps JSON Lines: a header, `$set` updates, one message a line, and a
        // hook's context as a part of its own (the shape of a real 0.61 file).
        let gemini_lines = concat!(
            r#"{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}"#,
            "\n",
            r#"{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI."}]}]}}"#,
            "\n",
            r#"{"id":"b","type":"user","content":[{"text":"Add a cache to the lookup"},{"text":"<hook_context>devcoach: explain</hook_context>"}]}"#,
            "\n",
            r#"{"$set":{"lastUpdated":"t"}}"#,
            "\n",
            r#"{"id":"c","type":"gemini","content":"Done.","toolCalls":[{"name":"replace"}]}"#,
            "\n",
            r#"{"id":"d","type":"user","content":[{"text":"devcoach: the technical work just finished earns a lesson."}]}"#,
            "\n",
        );
        let s = signals(gemini_lines.as_bytes());
        assert_eq!((s.prompts, s.agent_edits, s.questions, s.combined), (1, 1, 0, 0), "{s:?}");
        assert_eq!(signals(b"\xff\xfe garbage"), Signals::default());
        assert_eq!(signals(b""), Signals::default());
    }
}
