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
    /// The cloud client is out of quota ("You've hit your … limit"): switch to local. `said`
    /// is the client's own message.
    #[error("out of quota: {said}")]
    Quota { said: String },
    #[error("could not start `{program}` ({reason}); install Claude Code or use --local")]
    NotStarted { program: String, reason: String },
    #[error("nothing answers at {at}")]
    NoAnswer { at: String },
    #[error("the model did not answer within {0} s")]
    Timeout(u64),
    /// The model's client answered, but not in the shape asked for; `said` is the start of it.
    #[error("{program} printed something other than JSON: {said}")]
    NotJson { program: String, said: String },
    #[error("{program} reported an error: {said}")]
    Reported { program: String, said: String },
    #[error("{program} sent an empty reply")]
    Empty { program: String },
    #[error("`{program}` failed{}: {said}", status.as_ref().map(|s| format!(" ({s})")).unwrap_or_default())]
    Exited { program: String, status: Option<String>, said: String },
    #[error("waiting for `{program}`: {reason}")]
    Wait { program: String, reason: String },
    #[error("could not write the coaching instructions to {}: {reason}", path.display())]
    Instructions { path: std::path::PathBuf, reason: String },
    #[error(transparent)]
    Http(#[from] devcoach_net::model::ModelHttpError),
    /// Checked before a session: the coach cannot answer, and what to do about it.
    #[error("{problem}: {fix}")]
    NotReady { problem: String, fix: String },
}

/// A model that answers a conversation.
pub trait Backend {
    /// `claude`, `ollama` or `openai` (as logged).
    fn kind(&self) -> &'static str;
    fn model(&self) -> &str;
    /// The next reply. `history` ends with the newest user turn; a backend that keeps its own
    /// conversation (the `claude` CLI) sends only what it has not seen.
    fn reply(&mut self, system: &str, history: &[Turn]) -> Result<String, BackendError>;
    /// Whether the model can answer at all, asked once before a session starts (so a session
    /// whose coach never answers is never begun), at the cost of the smallest request.
    fn preflight(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
}

/// Whether a reply is the cloud client's sign-in failure.
pub fn is_login_message(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["/login", "not logged in", "invalid api key", "oauth token", "please log in", "authentication"]
        .iter()
        .any(|needle| lower.contains(needle))
}

/// What to do when the `claude` CLI cannot coach.
const CLOUD_FIX: &str = "run `claude` and type /login (or set ANTHROPIC_API_KEY), or practise on a local model: \
                         --local (Ollama) or --local --openai-url URL";

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
                BackendError::Quota { said: text.to_owned() }
            } else {
                BackendError::NotJson { program: "claude".into(), said: snippet(text) }
            }
        })?;
        let result = value.get("result").and_then(Value::as_str).unwrap_or_default().to_owned();
        // Only an error is a quota message: a reply may well talk about limits.
        if value.get("is_error").and_then(Value::as_bool) == Some(true) {
            if is_quota_message(&result) {
                return Err(BackendError::Quota { said: result });
            }
            return Err(BackendError::Reported { program: "claude".into(), said: snippet(&result) });
        }
        if result.trim().is_empty() {
            return Err(BackendError::Empty { program: "claude".into() });
        }
        if !self.one_shot
            && let Some(id) = value.get("session_id").and_then(Value::as_str)
        {
            self.session = Some(id.to_owned());
        }
        Ok(result)
    }

    fn preflight(&mut self) -> Result<(), BackendError> {
        let mut cmd = Command::new(&self.program);
        cmd.envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        cmd.args(["-p", "--model", &self.model, "--output-format", "json", "--tools", ""]);
        cmd.args(["--setting-sources", "", "--strict-mcp-config", "--no-session-persistence"]);
        let not_ready = |problem: String| BackendError::NotReady { problem, fix: CLOUD_FIX.to_owned() };
        let out = match run(cmd, "devcoach:preflight — reply with the one word: ready", PREFLIGHT_TIMEOUT) {
            Ok(out) => out,
            Err(e @ BackendError::Quota { .. }) => return Err(e),
            Err(BackendError::Timeout(s)) => return Err(not_ready(format!("`claude` did not answer within {s} s"))),
            Err(e) if is_login_message(&e.to_string()) => {
                return Err(not_ready("`claude` is not signed in".to_owned()));
            }
            Err(e) => return Err(not_ready(e.to_string())),
        };
        let value: Value = serde_json::from_str(out.trim()).unwrap_or(Value::Null);
        let result = value.get("result").and_then(Value::as_str).unwrap_or_default();
        if value.get("is_error").and_then(Value::as_bool) == Some(true) {
            if is_quota_message(result) {
                return Err(BackendError::Quota { said: result.to_owned() });
            }
            let problem = if is_login_message(result) {
                "`claude` is not signed in".to_owned()
            } else {
                format!("`claude` answered with an error: {}", snippet(result))
            };
            return Err(not_ready(problem));
        }
        if result.trim().is_empty() {
            return Err(not_ready(format!("`claude` gave no answer ({})", snippet(out.trim()))));
        }
        Ok(())
    }
}

/// How long the check before a session waits for a model.
const PREFLIGHT_TIMEOUT: Duration = Duration::from_mins(1);
/// How long the check waits for a model server's list of models.
const LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// Whether a server's model list has `model` (Ollama names `x` and `x:latest` the same model).
pub fn has_model(names: &[String], model: &str) -> bool {
    let bare = |n: &str| n.strip_suffix(":latest").unwrap_or(n).to_owned();
    names.iter().any(|n| bare(n) == bare(model))
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
        let failed = |e: std::io::Error| BackendError::Instructions { path: path.clone(), reason: e.to_string() };
        let mut file = options.open(&path).map_err(failed)?;
        file.write_all(text.as_bytes()).map_err(failed)?;
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
    let limits = child::Limits {
        input: Some(input.as_bytes()),
        deadline: timeout,
        output_cap: devcoach_core::limits::MODEL_CLI_OUTPUT_BYTES,
        whole_group: false,
    };
    let done = child::run(cmd, limits).map_err(|e| match e {
        ChildError::Start { source, .. } => {
            BackendError::NotStarted { program: program.clone(), reason: source.to_string() }
        }
        ChildError::Timeout { limit, .. } => BackendError::Timeout(limit.as_secs()),
        ChildError::Wait { source, .. } => BackendError::Wait { program: program.clone(), reason: source.to_string() },
    })?;
    let (status, stdout, stderr) = (done.status, done.stdout, done.stderr);
    if !status.success() {
        // `claude -p --output-format json` reports errors as JSON on stdout with a failing exit.
        if let Ok(value) = serde_json::from_str::<Value>(stdout.trim())
            && let Some(result) = value.get("result").and_then(Value::as_str)
        {
            if is_quota_message(result) {
                return Err(BackendError::Quota { said: result.to_owned() });
            }
            return Err(BackendError::Exited { program, status: None, said: snippet(result) });
        }
        let said = if stdout.trim().is_empty() { stderr.trim() } else { stdout.trim() };
        if is_quota_message(said) {
            return Err(BackendError::Quota { said: said.to_owned() });
        }
        return Err(BackendError::Exited { program, status: Some(status.to_string()), said: snippet(said) });
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
                devcoach_net::model::ModelHttpError::Unreachable(at) => BackendError::NoAnswer { at },
                devcoach_net::model::ModelHttpError::Timeout(s) => BackendError::Timeout(s),
                other => BackendError::Http(other),
            },
        )?;
        let text = match self.dialect {
            Dialect::Ollama => reply.pointer("/message/content"),
            Dialect::OpenAi => reply.pointer("/choices/0/message/content"),
        }
        .and_then(Value::as_str)
        .unwrap_or_default();
        if text.trim().is_empty() {
            return Err(BackendError::Empty { program: self.kind().into() });
        }
        Ok(text.to_owned())
    }

    fn preflight(&mut self) -> Result<(), BackendError> {
        use devcoach_net::model::ModelHttpError;
        let base = self.base_url.trim_end_matches('/').to_owned();
        let not_ready = |problem: String, fix: String| BackendError::NotReady { problem, fix };
        let (url, names_at) = match self.dialect {
            Dialect::Ollama => (format!("{base}/api/tags"), ("/models", "name")),
            Dialect::OpenAi => (format!("{base}/v1/models"), ("/data", "id")),
        };
        let listed = match devcoach_net::model::get_json(&url, LIST_TIMEOUT, self.api_key.as_deref()) {
            Ok(listed) => listed,
            Err(ModelHttpError::Unreachable(_) | ModelHttpError::Timeout(_)) => {
                let fix = match self.dialect {
                    Dialect::Ollama => {
                        "start Ollama (`ollama serve`, or the app), or point --ollama-url at it".to_owned()
                    }
                    Dialect::OpenAi => "start the server, or point --openai-url at it".to_owned(),
                };
                return Err(not_ready(format!("nothing answers at {base}"), fix));
            }
            Err(ModelHttpError::Status(404, _)) if self.dialect == Dialect::Ollama => {
                return Err(not_ready(
                    format!("{base} is not an Ollama server"),
                    format!("for an OpenAI-compatible server use --local --openai-url {base}"),
                ));
            }
            Err(ModelHttpError::Status(401 | 403, _)) => {
                return Err(not_ready(
                    format!("{base} refused the request (not authorised)"),
                    "set DEVCOACH_OPENAI_API_KEY to the server's key".to_owned(),
                ));
            }
            // A server without a model list can still chat: let the session find out.
            Err(_) => return Ok(()),
        };
        let names: Vec<String> = listed
            .pointer(names_at.0)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(|m| m.get(names_at.1)?.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        if names.is_empty() || has_model(&names, &self.model) {
            return Ok(());
        }
        let has: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
        let fix = match self.dialect {
            Dialect::Ollama => format!(
                "run `ollama pull {}`, or choose one it has with --local-model (it has: {})",
                self.model,
                has.join(", ")
            ),
            Dialect::OpenAi => format!("choose one it has with --local-model (it has: {})", has.join(", ")),
        };
        Err(not_ready(format!("{base} does not have the model {}", self.model), fix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_in_failures_and_model_names_are_recognised() {
        assert!(is_login_message("Invalid API key · Please run /login"));
        assert!(is_login_message("Not logged in"));
        assert!(!is_login_message("Here is how a log is written"));
        let names = vec!["qwen3:30b".to_owned(), "llama3:latest".to_owned()];
        assert!(has_model(&names, "llama3") && has_model(&names, "qwen3:30b") && has_model(&names, "llama3:latest"));
        assert!(!has_model(&names, "qwen3"));
    }

    #[test]
    fn quota_messages_are_recognised() {
        assert!(is_quota_message("You've hit your usage limit · resets 5pm"));
        assert!(is_quota_message("Claude AI usage limit reached: you've reached your limit"));
        assert!(!is_quota_message("What limits does the input have?"));
    }
}
