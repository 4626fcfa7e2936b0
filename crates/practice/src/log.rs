//! The session log: one JSON object per line in
//! `<data dir>/practice/sessions/<YYYY-MM-DD>-<slug>.jsonl`. Schema in docs/practice-log.md;
//! the `start` line carries the schema version. Readers skip unknown events and ignore unknown
//! fields, so a newer writer never breaks an older reader.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use devcoach_core::limits;
use serde::{Deserialize, Serialize};

/// The schema this build writes (in the `start` event's `schema`).
pub const SCHEMA: u32 = 1;

/// The environment variable the REPL exports with the log's path (read by the Stop hook).
pub const LOG_VAR: &str = "DEVCOACH_PRACTICE_LOG";

/// The `end` reason of a session the learner says they solved (`/done`, `practice_end` with
/// `solved`). Any other end leaves the session unfinished, to be resumed.
pub const SOLVED: &str = "solved";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    Req,
    Code,
    Prose,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReqVerdict {
    Passed,
    Incomplete,
    Unverified,
}

impl ReqVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Incomplete => "incomplete",
            Self::Unverified => "unverified",
        }
    }
}

/// Who judged a requirement list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judge {
    Haiku,
    Ollama,
    /// The MCP client's own model.
    Agent,
    None,
}

/// One step of a session. `ts` is added when written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Start {
        #[serde(default)]
        schema: u32,
        problem: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tags: Vec<String>,
        backend: String,
        model: String,
        /// The statement, for a problem devcoach does not ship (MCP sessions read it back).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        statement: Option<String>,
    },
    Learner {
        text: String,
        kind: MessageKind,
    },
    ReqCheck {
        verdict: ReqVerdict,
        #[serde(default)]
        missing: Vec<String>,
        judge: Judge,
        /// Names the judge gave outside the vocabulary (dropped before the learner saw them).
        #[serde(default, skip_serializing_if = "is_zero")]
        dropped: u32,
    },
    Code {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        req_incomplete: bool,
    },
    Held {
        why: String,
    },
    Coach {
        #[serde(default)]
        rung: Option<u8>,
        #[serde(default)]
        leaked: bool,
        #[serde(default = "one")]
        drafts: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    Bounce {
        /// The toolbox id named, or `code-line` for a pasteable line of solution.
        entry: String,
        /// Which guard bounced it: `repl`, `local`, `stop-hook` or `mcp`.
        source: String,
    },
    Switch {
        from: String,
        to: String,
        reason: String,
    },
    Reveal {},
    /// A hands-on exercise's tests ran (`devcoach handson`'s `check`).
    Check {
        passed: bool,
        /// How many tests failed, by name.
        #[serde(default)]
        failed: u32,
    },
    End {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// An unfinished session taken up again (`--resume`): the `end` before it is undone.
    Resume {},
}

fn one() -> u32 {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// An event with its time, as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Stamped {
    pub ts: String,
    pub event: Event,
}

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("could not write the practice log {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("could not read the practice log {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
}

/// `<data dir>/practice/sessions/<date>-<slug>.jsonl`; the slug keeps only `[a-z0-9-]`.
pub fn session_path(data_dir: &Path, date: &str, slug: &str) -> PathBuf {
    let clean: String = slug
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let clean = if clean.is_empty() { "problem".to_owned() } else { clean.chars().take(80).collect() };
    devcoach_core::layout::practice_sessions(data_dir).join(format!("{date}-{clean}.jsonl"))
}

/// A session file that does not exist yet: `<date>-<slug>.jsonl`, then `-2`, `-3`… for more
/// sessions on the same problem the same day. Returns the path and its stem (the session id).
pub fn new_session_path(data_dir: &Path, date: &str, slug: &str) -> (PathBuf, String) {
    let base = session_path(data_dir, date, slug);
    let stem = base.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    (1..=10_000)
        .map(|n| if n == 1 { stem.clone() } else { format!("{stem}-{n}") })
        .map(|id| (base.with_file_name(format!("{id}.jsonl")), id))
        .find(|(path, _)| !path.exists())
        .unwrap_or((base, stem))
}

/// Appends events to one session file (created with its folders on first write).
pub struct Writer {
    path: PathBuf,
}

impl Writer {
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `event` stamped with `ts` as one line. Each line is written with a single call,
    /// so a reader (the Stop hook) never sees half a line.
    pub fn append(&self, ts: &str, event: &Event) -> Result<(), LogError> {
        let err = |source| LogError::Write { path: self.path.clone(), source };
        let mut value = serde_json::to_value(event).map_err(|e| err(std::io::Error::other(e)))?;
        if let Some(map) = value.as_object_mut() {
            // `ts` first, then `event`, then the fields: easy to read with `less`.
            let mut ordered = serde_json::Map::new();
            ordered.insert("ts".into(), serde_json::Value::String(ts.to_owned()));
            if let Some(name) = map.get("event") {
                ordered.insert("event".into(), name.clone());
            }
            for (key, field) in std::mem::take(map) {
                if key != "event" {
                    ordered.insert(key, field);
                }
            }
            value = serde_json::Value::Object(ordered);
        }
        let mut line = serde_json::to_vec(&value).map_err(|e| err(std::io::Error::other(e)))?;
        line.push(b'\n');
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        // Only ever a regular file: a link, pipe or device named by the environment is refused.
        let mut file =
            devcoach_files::open_append(&self.path).map_err(|e| err(std::io::Error::other(e.to_string())))?;
        file.write_all(&line).map_err(err)
    }
}

/// Reads a session log: unknown events, unknown fields, blank, oversized and malformed lines
/// are skipped (a log cut off mid-line by a crash still reads).
pub fn read(path: &Path) -> Result<Vec<Stamped>, LogError> {
    // A pipe or device (say /dev/zero in the environment) is refused without blocking on it.
    let file = devcoach_files::open(path, devcoach_files::Links::Follow).map_err(|e| LogError::Read {
        path: path.to_owned(),
        source: match e {
            devcoach_files::FileError::NotFound { .. } => std::io::Error::from(std::io::ErrorKind::NotFound),
            other => std::io::Error::other(other.to_string()),
        },
    })?;
    Ok(read_from(std::io::BufReader::new(file.take(limits::PRACTICE_LOG_BYTES))))
}

pub fn read_from(mut reader: impl BufRead) -> Vec<Stamped> {
    let mut events = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        match Read::by_ref(&mut reader).take(limits::PRACTICE_LOG_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() > limits::PRACTICE_LOG_LINE_BYTES && !line.ends_with(b"\n") {
            // Skip the rest of an oversized line without holding it.
            let _ = reader.skip_until(b'\n');
            continue;
        }
        if let Some(event) = parse_line(&line) {
            events.push(event);
        }
    }
    events
}

/// One line of the log, if it is an event this build knows.
pub fn parse_line(line: &[u8]) -> Option<Stamped> {
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    let ts = value.get("ts").and_then(serde_json::Value::as_str).unwrap_or_default().to_owned();
    let event: Event = serde_json::from_value(value).ok()?;
    Some(Stamped { ts, event })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_unknowns_are_skipped() {
        let dir = std::env::temp_dir().join(format!("devcoach-practice-log-{}", std::process::id()));
        let path = session_path(&dir, "2026-11-30", "Two Sum!");
        assert!(path.ends_with("practice/sessions/2026-11-30-two-sum.jsonl"));
        let writer = Writer::new(path.clone());
        let events = [
            Event::Start {
                schema: SCHEMA,
                problem: "two-sum".into(),
                title: None,
                tags: vec![],
                backend: "claude".into(),
                model: "sonnet".into(),
                statement: None,
            },
            Event::Learner { text: "req: sorted".into(), kind: MessageKind::Req },
            Event::ReqCheck {
                verdict: ReqVerdict::Incomplete,
                missing: vec!["empty-input".into()],
                judge: Judge::Haiku,
                dropped: 0,
            },
            Event::Code { req_incomplete: true },
            Event::Coach { rung: Some(2), leaked: false, drafts: 1, text: Some("Why?".into()) },
            Event::Reveal {},
            Event::End { reason: None },
        ];
        for (i, e) in events.iter().enumerate() {
            writer.append(&format!("t{i}"), e).expect("append");
        }
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).expect("open");
        file.write_all(b"{\"ts\":\"x\",\"event\":\"future\",\"a\":1}\nnot json\n{\"ts\":\"y\",\"event\":\"held\",\"why\":\"no req\",\"extra\":[1]}\n{\"ts\":\"z\",\"ev").expect("extra");
        let read_back = read(&path).expect("read");
        assert_eq!(read_back.len(), events.len() + 1);
        assert_eq!(read_back.iter().take(events.len()).map(|s| s.event.clone()).collect::<Vec<_>>(), events);
        assert_eq!(read_back[events.len()].event, Event::Held { why: "no req".into() });
        let first = std::fs::read_to_string(&path).expect("text");
        assert!(first.starts_with("{\"ts\":\"t0\",\"event\":\"start\",\"schema\":1,"), "{first}");
        assert!(first.contains("{\"ts\":\"t3\",\"event\":\"code\",\"req_incomplete\":true}"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_oversized_line_is_skipped_and_the_next_one_read() {
        let mut data = b"{\"ts\":\"t\",\"event\":\"held\",\"why\":\"".to_vec();
        data.extend(std::iter::repeat_n(b'x', limits::PRACTICE_LOG_LINE_BYTES + 10));
        data.extend_from_slice(b"\"}\n{\"ts\":\"u\",\"event\":\"reveal\"}\n");
        let events = read_from(data.as_slice());
        assert_eq!(events, vec![Stamped { ts: "u".into(), event: Event::Reveal {} }]);
    }

    #[test]
    fn a_second_session_the_same_day_gets_its_own_file() {
        let dir = std::env::temp_dir().join(format!("devcoach-practice-paths-{}", std::process::id()));
        let (first, id) = new_session_path(&dir, "2026-11-30", "p");
        assert_eq!(id, "2026-11-30-p");
        std::fs::create_dir_all(first.parent().expect("parent")).expect("dir");
        std::fs::write(&first, "").expect("touch");
        let (second, id) = new_session_path(&dir, "2026-11-30", "p");
        assert_eq!(
            (second.file_name().and_then(|n| n.to_str()), id.as_str()),
            (Some("2026-11-30-p-2.jsonl"), "2026-11-30-p-2")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
