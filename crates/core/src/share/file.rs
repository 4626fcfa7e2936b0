//! The `.devcoach.md` file: a strict little front-matter block (no YAML library needed) and the
//! lesson body as markdown.

use serde_json::Value;

use super::payload::SharedLesson;
use super::slug::slugify;
use super::{FileProblem, ShareError};
use crate::lesson::{Level, Platform};

pub const EXTENSION: &str = ".devcoach.md";

/// `<slug of origin id>.devcoach.md`.
pub fn file_name(p: &SharedLesson) -> String {
    format!("{}{EXTENSION}", slugify(&p.origin_id, "lesson"))
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Bare when it reads back bare as itself, quoted otherwise. A bare `null` would read back as
/// no value, so it is quoted too. Timestamps go through here as well: the format writes them
/// raw, and every well-formed one is bare, but a file can carry any text there (`"[1]"`, `""`)
/// and what we read we must be able to write back.
fn scalar(s: &str) -> String {
    if !s.is_empty() && s != "null" && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.+:@/-".contains(&b)) {
        s.to_owned()
    } else {
        quoted(s)
    }
}

/// Writes the file (LF newlines, final newline).
pub fn render_file(p: &SharedLesson) -> String {
    let mut out = String::from("---\n");
    let mut line = |k: &str, v: String| {
        out.push_str(k);
        out.push_str(": ");
        out.push_str(&v);
        out.push('\n');
    };
    line("format", super::payload::FORMAT.into());
    line("version", super::payload::VERSION.to_string());
    line("title", quoted(&p.title));
    line("topic_id", scalar(&p.topic_id));
    line("level", p.level.as_str().into());
    line("categories", format!("[{}]", p.categories.iter().map(|c| scalar(c)).collect::<Vec<_>>().join(", ")));
    line("summary", quoted(&p.summary));
    line("origin_id", scalar(&p.origin_id));
    line("origin_timestamp", scalar(&p.origin_timestamp));
    line("shared_by", p.shared_by.as_deref().map_or_else(|| "null".into(), quoted));
    line("shared_at", scalar(&p.shared_at));
    line("app_version", scalar(&p.app_version));
    for (key, value) in [
        ("task_context", p.task_context.as_deref()),
        ("project", p.project.as_deref()),
        ("repository", p.repository.as_deref()),
        ("branch", p.branch.as_deref()),
        ("commit_hash", p.commit_hash.as_deref()),
        ("repository_platform", p.repository_platform.map(Platform::as_str)),
    ] {
        if let Some(v) = value {
            line(key, quoted(v));
        }
    }
    out.push_str("---\n\n");
    out.push_str(p.body.as_deref().unwrap_or(&p.summary).trim_end());
    out.push('\n');
    out
}

/// A value of the front matter as read.
#[derive(Debug, Clone, PartialEq)]
enum Field {
    Null,
    Text(String),
    List(Vec<Option<String>>),
}

fn parse_value(raw: &str) -> Result<Option<String>, ()> {
    let raw = raw.trim();
    if raw.is_empty() || raw == "null" {
        return Ok(None);
    }
    if raw.starts_with('"') {
        return match serde_json::from_str::<Value>(raw) {
            Ok(Value::String(s)) => Ok(Some(s)),
            _ => Err(()),
        };
    }
    Ok(Some(raw.to_owned()))
}

/// Splits a flow list's inside on commas that are not inside quotes.
fn split_list(inner: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut in_quotes, mut escaped) = (0, false, false);
    for (i, c) in inner.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

fn parse_field(raw: &str) -> Result<Field, ()> {
    let t = raw.trim();
    if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return split_list(inner).into_iter().map(parse_value).collect::<Result<_, _>>().map(Field::List);
    }
    Ok(parse_value(t)?.map_or(Field::Null, Field::Text))
}

/// Reads a `.devcoach.md` file.
pub fn parse_file(text: &str) -> Result<SharedLesson, ShareError> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(ShareError::BadFile(FileProblem::NoFrontmatter));
    }
    let mut fields: Vec<(String, Field)> = Vec::new();
    let mut closed = false;
    let mut consumed = first.len();
    for line in lines.by_ref() {
        consumed += line.len();
        let line = line.trim_end_matches('\n');
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (key, value) =
            line.split_once(':').ok_or_else(|| ShareError::BadFile(FileProblem::BadLine(line.to_owned())))?;
        let field = parse_field(value).map_err(|()| ShareError::BadFile(FileProblem::NotALesson))?;
        fields.push((key.trim().to_owned(), field));
    }
    if !closed {
        return Err(ShareError::BadFile(FileProblem::Unclosed));
    }
    let body = text.get(consumed.min(text.len())..).unwrap_or("").trim();
    let invalid = || ShareError::BadFile(FileProblem::NotALesson);
    let get = |k: &str| fields.iter().find(|(key, _)| key == k).map(|(_, f)| f.clone());
    let text_of = |k: &str| match get(k) {
        Some(Field::Text(s)) => Some(s),
        _ => None,
    };
    if text_of("format").as_deref() != Some(super::payload::FORMAT) {
        return Err(invalid());
    }
    match text_of("version").as_deref().map(str::parse::<i64>) {
        Some(Ok(1)) => {}
        Some(Ok(n)) => return Err(ShareError::NewerFormat(n.to_string())),
        _ => return Err(invalid()),
    }
    let categories = match get("categories") {
        Some(Field::List(items)) => items.into_iter().map(|i| i.ok_or_else(invalid)).collect::<Result<Vec<_>, _>>()?,
        _ => return Err(invalid()),
    };
    let required = |k: &str| text_of(k).filter(|s| !s.is_empty()).ok_or_else(invalid);
    Ok(SharedLesson {
        title: required("title")?,
        summary: text_of("summary").ok_or_else(invalid)?,
        body: Some(body.to_owned()).filter(|b| !b.is_empty()),
        topic_id: required("topic_id")?,
        categories,
        level: Level::parse(&required("level")?).map_err(|_| invalid())?,
        task_context: text_of("task_context"),
        project: text_of("project"),
        branch: text_of("branch"),
        commit_hash: text_of("commit_hash"),
        repository: text_of("repository"),
        repository_platform: text_of("repository_platform")
            .map(|p| Platform::parse(&p))
            .transpose()
            .map_err(|_| invalid())?,
        origin_id: required("origin_id")?,
        origin_timestamp: text_of("origin_timestamp").ok_or_else(invalid)?,
        shared_by: text_of("shared_by"),
        shared_at: text_of("shared_at").ok_or_else(invalid)?,
        app_version: text_of("app_version").ok_or_else(invalid)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::share::code::tests_support::sample;

    #[test]
    fn round_trip_with_quotes_commas_and_crlf() {
        let mut p = sample();
        p.title = "Quotes \"inside\", colons: and #hash".into();
        p.categories = vec!["git".into(), "a, b".into(), "c\"d".into(), "plain-tag".into()];
        let text = render_file(&p);
        assert!(text.starts_with("---\nformat: devcoach.lesson\nversion: 1\n"));
        assert!(text.contains("categories: [git, \"a, b\", \"c\\\"d\", plain-tag]"));
        assert!(text.ends_with("check the range first.\n"));
        assert_eq!(parse_file(&text), Ok(p.clone()));
        assert_eq!(parse_file(&text.replace('\n', "\r\n")), Ok(p.clone()));
        let mut anon = p;
        anon.shared_by = None;
        assert!(render_file(&anon).contains("\nshared_by: null\n"));
        assert_eq!(parse_file(&render_file(&anon)), Ok(anon));
    }

    /// Found by the fuzzer: a file may quote a timestamp or name a topic `null`; writing such a
    /// lesson back out must give a file that reads as the same lesson.
    #[test]
    fn odd_values_written_back_read_the_same() {
        let mut p = sample();
        p.topic_id = "null".into();
        p.categories = vec!["null".into(), String::new()];
        p.origin_id = "null".into();
        p.app_version = "null".into();
        for stamp in ["[1]", "", "null", "\"quoted\"", " padded ", "a\nb", "#hash"] {
            p.origin_timestamp = stamp.into();
            p.shared_at = stamp.into();
            assert_eq!(parse_file(&render_file(&p)), Ok(p.clone()), "{stamp:?}");
        }
        let usual = render_file(&sample());
        assert!(usual.contains(&format!("\norigin_timestamp: {}\n", sample().origin_timestamp)), "{usual}");
        assert!(usual.contains(&format!("\nshared_at: {}\n", sample().shared_at)), "{usual}");
    }

    #[test]
    fn unknown_keys_and_comments_are_ignored() {
        let text =
            render_file(&sample()).replacen("version: 1\n", "version: 1\n# a comment\nfavourite_colour: teal\n\n", 1);
        assert_eq!(parse_file(&text), Ok(sample()));
    }

    #[test]
    fn broken_files_say_why() {
        assert_eq!(parse_file("no front matter"), Err(ShareError::BadFile(FileProblem::NoFrontmatter)));
        assert_eq!(parse_file("---\nformat: devcoach.lesson\n"), Err(ShareError::BadFile(FileProblem::Unclosed)));
        assert!(matches!(parse_file("---\nno colon here\n---\n"), Err(ShareError::BadFile(FileProblem::BadLine(_)))));
        let missing_title = render_file(&sample()).replace("title: ", "titel: ");
        assert_eq!(parse_file(&missing_title), Err(ShareError::BadFile(FileProblem::NotALesson)));
        let newer = render_file(&sample()).replace("version: 1", "version: 3");
        assert_eq!(parse_file(&newer), Err(ShareError::NewerFormat("3".into())));
    }

    #[test]
    fn names() {
        let mut p = sample();
        p.origin_id = "  Über id!! ".into();
        assert_eq!(file_name(&p), "ber-id.devcoach.md");
        p.origin_id = "???".into();
        assert_eq!(file_name(&p), "lesson.devcoach.md");
    }
}
