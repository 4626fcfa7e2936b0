//! The models behind the coach and the judge, behind one trait: the `claude` CLI in print mode
//! (the conversation continued across turns by session id), Ollama's `/api/chat`, and any
//! OpenAI-compatible `/v1/chat/completions`.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

/// Who said a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub role: Role,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The cloud client is out of quota ("You've hit your … limit"): switch to local.
    #[error("{0}")]
    Quota(String),
    #[error("{0}")]
    Unavailable(String),
    #[error("the model did not answer within {0} s")]
    Timeout(u64),
    #[error("{0}")]
    Failed(String),
}

/// A model that answers a conversation.
pub trait Backend {
    /// `claude`, `ollama` or `openai` (as logged).
    fn kind(&self) -> &'static str;
    fn model(&self) -> &str;
    /// The next reply. `history` ends with the newest user turn; a backend that keeps its own
    /// conversation (the `claude` CLI) sends only what it has not seen.
    fn reply(&mut self, system: &str, history: &[Turn]) -> Result<String, BackendError>;
}

/// Whether a reply is the cloud client's quota message.
pub fn is_quota_message(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    (lower.contains("hit your") || lower.contains("reached your")) && lower.contains("limit")
}

// ---------------------------------------------------------------------------------------------

/// The `claude` CLI in print mode: no tools, and for a judge no settings (so no hooks) and no
/// session file.
pub struct ClaudeCli {
    pub program: PathBuf,
    pub model: String,
    pub timeout: Duration,
    /// A judge answers once and keeps nothing.
    pub one_shot: bool,
    /// Extra environment for the CLI (the session log's path, for its Stop hook).
    pub env: Vec<(String, String)>,
    session: Option<String>,
}

impl ClaudeCli {
    pub fn new(program: PathBuf, model: &str, timeout: Duration, one_shot: bool) -> Self {
        Self { program, model: model.to_owned(), timeout, one_shot, env: Vec::new(), session: None }
    }
}

impl Backend for ClaudeCli {
    fn kind(&self) -> &'static str {
        "claude"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn reply(&mut self, system: &str, history: &[Turn]) -> Result<String, BackendError> {
        // With a session the CLI remembers the conversation: send only the newest turn. Without
        // one (the first call, or a judge), send everything so far.
        let unanswered = history.iter().rev().take_while(|t| t.role == Role::User).count();
        let prompt = match &self.session {
            // Everything since the last reply (normally one message; more after a failed call).
            Some(_) if unanswered > 0 => {
                history[history.len() - unanswered..].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n\n")
            }
            _ => {
                let labelled = history.len() > 1;
                let parts: Vec<String> = history
                    .iter()
                    .map(|t| match (labelled, t.role) {
                        (false, _) => t.text.clone(),
                        (true, Role::User) => format!("Learner: {}", t.text),
                        (true, Role::Assistant) => format!("Coach: {}", t.text),
                    })
                    .collect();
                parts.join("\n\n")
            }
        };
        let mut cmd = Command::new(&self.program);
        cmd.envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        // No tools, no settings (so none of the user's hooks, devcoach's included, run inside
        // a coaching call), no MCP servers.
        cmd.args(["-p", "--model", &self.model, "--output-format", "json", "--tools", ""]);
        cmd.args(["--setting-sources", "", "--strict-mcp-config"]);
        if self.one_shot {
            cmd.arg("--no-session-persistence");
        }
        // The instructions and the problem go in a file: a statement can outgrow the limit on
        // one command-line argument (128 KiB on Linux, far less on Windows).
        let system_file = if system.is_empty() { None } else { Some(SystemFile::write(system)?) };
        if let Some(file) = &system_file {
            cmd.arg("--system-prompt-file").arg(&file.0);
        }
        if let Some(id) = &self.session {
            cmd.args(["--resume", id]);
        }
        let out = run(cmd, &prompt, self.timeout)?;
        drop(system_file);
        let value: Value = serde_json::from_str(out.trim()).map_err(|_| {
            let text = out.trim();
            if is_quota_message(text) {
                BackendError::Quota(text.to_owned())
            } else {
                BackendError::Failed(format!("claude printed something other than JSON: {}", snippet(text)))
            }
        })?;
        let result = value.get("result").and_then(Value::as_str).unwrap_or_default().to_owned();
        // Only an error is a quota message: a reply may well talk about limits.
        if value.get("is_error").and_then(Value::as_bool) == Some(true) {
            if is_quota_message(&result) {
                return Err(BackendError::Quota(result));
            }
            return Err(BackendError::Failed(format!("claude reported an error: {}", snippet(&result))));
        }
        if result.trim().is_empty() {
            return Err(BackendError::Failed("claude sent an empty reply".into()));
        }
        if !self.one_shot
            && let Some(id) = value.get("session_id").and_then(Value::as_str)
        {
            self.session = Some(id.to_owned());
        }
        Ok(result)
    }
}

/// A system prompt written to a private temporary file, removed when dropped.
struct SystemFile(PathBuf);

impl SystemFile {
    fn write(text: &str) -> Result<Self, BackendError> {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir();
        // TMPDIR may name a folder that does not exist yet.
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("devcoach-practice-{}-{n}.md", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path).map_err(|e| {
            BackendError::Failed(format!("could not write the coaching instructions to {}: {e}", path.display()))
        })?;
        file.write_all(text.as_bytes())
            .map_err(|e| BackendError::Failed(format!("could not write the coaching instructions: {e}")))?;
        Ok(Self(path))
    }
}

impl Drop for SystemFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn snippet(text: &str) -> String {
    text.chars().take(300).collect()
}

/// Runs a command with `input` on stdin; its stdout, or why not.
fn run(cmd: Command, input: &str, timeout: Duration) -> Result<String, BackendError> {
    use devcoach_probe::child::{self, ChildError};
    let program = cmd.get_program().to_string_lossy().into_owned();
    let limits = child::Limits { input: Some(input.as_bytes()), deadline: timeout, output_cap: 16 * 1024 * 1024 };
    let done = child::run(cmd, limits).map_err(|e| match e {
        ChildError::Start { source, .. } => BackendError::Unavailable(format!(
            "could not start `{program}` ({source}); install Claude Code or use --local"
        )),
        ChildError::Timeout { limit, .. } => BackendError::Timeout(limit.as_secs()),
        ChildError::Wait { source, .. } => BackendError::Failed(format!("waiting for `{program}`: {source}")),
    })?;
    let (status, stdout, stderr) = (done.status, done.stdout, done.stderr);
    if !status.success() {
        // `claude -p --output-format json` reports errors as JSON on stdout with a failing exit.
        if let Ok(value) = serde_json::from_str::<Value>(stdout.trim())
            && let Some(result) = value.get("result").and_then(Value::as_str)
        {
            if is_quota_message(result) {
                return Err(BackendError::Quota(result.to_owned()));
            }
            return Err(BackendError::Failed(format!("`{program}` failed: {}", snippet(result))));
        }
        let said = if stdout.trim().is_empty() { stderr.trim() } else { stdout.trim() };
        if is_quota_message(said) {
            return Err(BackendError::Quota(said.to_owned()));
        }
        return Err(BackendError::Failed(format!("`{program}` failed ({status}): {}", snippet(said))));
    }
    Ok(stdout)
}

// ---------------------------------------------------------------------------------------------

/// Which HTTP dialect a local or self-hosted server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Ollama's `POST /api/chat`.
    Ollama,
    /// `POST /v1/chat/completions` (llama.cpp server, LM Studio, vLLM, …).
    OpenAi,
}

pub struct HttpChat {
    pub dialect: Dialect,
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
}

impl HttpChat {
    fn messages(system: &str, history: &[Turn]) -> Vec<Value> {
        let mut messages = Vec::with_capacity(history.len() + 1);
        if !system.is_empty() {
            messages.push(json!({ "role": "system", "content": system }));
        }
        for turn in history {
            let role = if turn.role == Role::User { "user" } else { "assistant" };
            messages.push(json!({ "role": role, "content": turn.text }));
        }
        messages
    }
}

impl Backend for HttpChat {
    fn kind(&self) -> &'static str {
        match self.dialect {
            Dialect::Ollama => "ollama",
            Dialect::OpenAi => "openai",
        }
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn reply(&mut self, system: &str, history: &[Turn]) -> Result<String, BackendError> {
        let base = self.base_url.trim_end_matches('/');
        let messages = Self::messages(system, history);
        let (url, body) = match self.dialect {
            Dialect::Ollama => {
                (format!("{base}/api/chat"), json!({ "model": self.model, "messages": messages, "stream": false }))
            }
            Dialect::OpenAi => {
                (format!("{base}/v1/chat/completions"), json!({ "model": self.model, "messages": messages }))
            }
        };
        let reply = devcoach_net::model::post_json(&url, &body, self.timeout, self.api_key.as_deref()).map_err(
            |e| match e {
                devcoach_net::model::ModelHttpError::Unreachable(m) => {
                    BackendError::Unavailable(format!("nothing answers at {m}"))
                }
                devcoach_net::model::ModelHttpError::Timeout(s) => BackendError::Timeout(s),
                other => BackendError::Failed(other.to_string()),
            },
        )?;
        let text = match self.dialect {
            Dialect::Ollama => reply.pointer("/message/content"),
            Dialect::OpenAi => reply.pointer("/choices/0/message/content"),
        }
        .and_then(Value::as_str)
        .unwrap_or_default();
        if text.trim().is_empty() {
            return Err(BackendError::Failed(format!("{} sent an empty reply", self.kind())));
        }
        Ok(text.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_messages_are_recognised() {
        assert!(is_quota_message("You've hit your usage limit · resets 5pm"));
        assert!(is_quota_message("Claude AI usage limit reached: you've reached your limit"));
        assert!(!is_quota_message("What limits does the input have?"));
    }
}
