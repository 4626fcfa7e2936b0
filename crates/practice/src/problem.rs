//! A practice problem: a statement with a small front matter (slug, title, difficulty, tags,
//! hints). The shipped problems, a `--problem FILE` and the cached LeetCode problems all read
//! through here.

use devcoach_core::limits;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub slug: String,
    pub title: String,
    pub difficulty: String,
    /// Technique and property ids; they name the answer, so they never count as the learner's
    /// words and are never shown before the session ends.
    pub tags: Vec<String>,
    pub hints: Vec<String>,
    /// The statement as markdown (without the front matter).
    pub statement: String,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProblemError {
    #[error("the problem file is {0} bytes; the limit is {limit}", limit = limits::PROBLEM_BYTES)]
    TooLarge(usize),
    #[error("the problem has no statement")]
    Empty,
    #[error("the front matter is not closed: add a line `---` after it")]
    Unclosed,
    #[error("front matter line {0} is not `key: value`: {1:?}")]
    BadLine(usize, String),
    #[error("no shipped problem is called {0:?}; shipped: {1}")]
    Unknown(String, String),
}

impl Problem {
    /// Reads a problem file. Without front matter the whole text is the statement and the slug
    /// comes from `fallback_slug`.
    pub fn parse(text: &str, fallback_slug: &str) -> Result<Self, ProblemError> {
        if text.len() > limits::PROBLEM_BYTES {
            return Err(ProblemError::TooLarge(text.len()));
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text).replace("\r\n", "\n");
        let mut problem = Problem {
            slug: fallback_slug.to_owned(),
            title: String::new(),
            difficulty: String::new(),
            tags: Vec::new(),
            hints: Vec::new(),
            statement: String::new(),
        };
        let body = if let Some(rest) = text.strip_prefix("---\n") {
            let Some(end) = rest
                .find("\n---\n")
                .map(|e| (e, e + 5))
                .or_else(|| rest.strip_suffix("\n---").map(|r| (r.len(), rest.len())))
            else {
                return Err(ProblemError::Unclosed);
            };
            for (n, line) in rest[..end.0].lines().enumerate() {
                if line.trim().is_empty() || line.trim_start().starts_with('#') {
                    continue;
                }
                let Some((key, value)) = line.split_once(':') else {
                    return Err(ProblemError::BadLine(n + 2, line.to_owned()));
                };
                let value = value.trim().to_owned();
                match key.trim() {
                    "slug" => problem.slug = value,
                    "title" => problem.title = value,
                    "difficulty" => problem.difficulty = value.to_ascii_lowercase(),
                    "tags" => {
                        problem.tags =
                            value.split(',').map(|t| t.trim().to_ascii_lowercase()).filter(|t| !t.is_empty()).collect();
                    }
                    "hint" => problem.hints.push(value),
                    // Unknown keys belong to newer files; they are ignored.
                    _ => {}
                }
            }
            rest[end.1..].to_owned()
        } else {
            text.clone()
        };
        body.trim().clone_into(&mut problem.statement);
        if problem.statement.is_empty() {
            return Err(ProblemError::Empty);
        }
        if problem.title.is_empty() {
            problem.title = problem
                .statement
                .lines()
                .find_map(|l| l.strip_prefix("# "))
                .map_or_else(|| problem.slug.replace('-', " "), |t| t.trim().to_owned());
        }
        Ok(problem)
    }

    /// A problem devcoach ships, by slug.
    pub fn shipped(slug: &str) -> Result<Self, ProblemError> {
        let found = devcoach_assets::PRACTICE_PROBLEMS.iter().find(|(s, _)| *s == slug);
        match found {
            Some((slug, text)) => Self::parse(text, slug),
            None => Err(ProblemError::Unknown(slug.to_owned(), shipped_slugs().join(", "))),
        }
    }

    /// What the coach is shown: title, difficulty and statement (tags and hints stay out of
    /// the coach's first view; hints are given out by rung).
    pub fn brief(&self) -> String {
        let difficulty = if self.difficulty.is_empty() { String::new() } else { format!(" ({})", self.difficulty) };
        format!("# {}{difficulty}\n\n{}", self.title, self.statement)
    }
}

pub fn shipped_slugs() -> Vec<&'static str> {
    devcoach_assets::PRACTICE_PROBLEMS.iter().map(|(s, _)| *s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolbox::Toolbox;

    #[test]
    fn every_shipped_problem_reads_and_is_tagged_from_the_toolbox() {
        assert!(shipped_slugs().len() >= 5);
        for slug in shipped_slugs() {
            let p = Problem::shipped(slug).expect("shipped problem");
            assert_eq!(p.slug, slug);
            assert!(!p.title.is_empty() && !p.tags.is_empty() && p.hints.len() >= 2, "{slug}");
            assert!(p.statement.contains("## Examples"), "{slug}");
            for tag in &p.tags {
                assert!(Toolbox::builtin().get(tag).is_some(), "{slug}: tag {tag} is not a toolbox id");
            }
        }
        assert!(matches!(Problem::shipped("nope"), Err(ProblemError::Unknown(..))));
    }

    #[test]
    fn files_with_and_without_front_matter() {
        let p = Problem::parse(
            "---\ntitle: Pairs\ntags: Two-Pointers, sorted-input\nhint: a\nhint: b\nfuture: x\n---\nFind it.\n",
            "f",
        )
        .expect("parse");
        assert_eq!((p.slug.as_str(), p.title.as_str()), ("f", "Pairs"));
        assert_eq!(p.tags, ["two-pointers", "sorted-input"]);
        assert_eq!(p.hints, ["a", "b"]);
        assert_eq!(p.statement, "Find it.");
        let plain = Problem::parse("# Two Sum\r\nGiven nums…", "two-sum").expect("plain");
        assert_eq!(plain.title, "Two Sum");
        assert_eq!(Problem::parse("---\ntitle: x\n", "s"), Err(ProblemError::Unclosed));
        assert_eq!(
            Problem::parse("---\nnot a pair\n---\nbody", "s"),
            Err(ProblemError::BadLine(2, "not a pair".into()))
        );
        assert_eq!(Problem::parse("   ", "s"), Err(ProblemError::Empty));
        assert!(matches!(Problem::parse(&"x".repeat(limits::PROBLEM_BYTES + 1), "s"), Err(ProblemError::TooLarge(_))));
    }
}

/// A LeetCode URL (`https://leetcode.com/problems/two-sum/description/`) or a bare slug, as a
/// slug; `None` for anything else.
pub fn leetcode_slug(input: &str) -> Option<String> {
    let t = input.trim();
    let slug = match t.find("/problems/") {
        Some(i) => t[i + "/problems/".len()..].split(['/', '?', '#']).next().unwrap_or(""),
        None if t.contains('/') || t.contains(':') => return None,
        None => t,
    };
    let valid = !slug.is_empty()
        && slug.len() <= 100
        && slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    valid.then(|| slug.to_owned())
}

/// LeetCode's HTML statement as plain markdown-ish text: paragraphs, lists, `code`, examples kept
/// in fenced blocks, entities decoded, every other tag dropped.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut in_pre = false;
    while let Some(lt) = rest.find('<') {
        out.push_str(&decode_entities(&rest[..lt]));
        let Some(gt) = rest[lt..].find('>') else {
            rest = &rest[lt..];
            break;
        };
        let tag = rest[lt + 1..lt + gt].trim().to_ascii_lowercase();
        let name = tag.trim_start_matches('/').split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or("");
        let closing = tag.starts_with('/');
        match (name, closing) {
            ("pre", false) => {
                in_pre = true;
                out.push_str("\n```text\n");
            }
            ("pre", true) => {
                in_pre = false;
                out.push_str("\n```\n");
            }
            ("code", _) if !in_pre => out.push('`'),
            ("li", false) => out.push_str("\n- "),
            ("p" | "div" | "ul" | "ol" | "br", _) => out.push('\n'),
            ("sup", false) => out.push('^'),
            ("strong" | "b", _) if !in_pre => out.push_str("**"),
            _ => {}
        }
        rest = &rest[lt + gt + 1..];
    }
    out.push_str(&decode_entities(rest));
    // At most one blank line in a row.
    let mut text = String::with_capacity(out.len());
    let mut blank = 0;
    for line in out.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        text.push_str(line);
        text.push('\n');
    }
    text.trim().to_owned()
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    s.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&le;", "<=")
        .replace("&ge;", ">=")
        .replace("&amp;", "&")
}

/// A problem file for the cache, from what LeetCode sent: tags kept where they are toolbox ids.
pub fn from_leetcode(q: &devcoach_net::leetcode::Question, toolbox: &crate::toolbox::Toolbox) -> String {
    let tags: Vec<&str> = q.tags.iter().map(String::as_str).filter(|t| toolbox.get(t).is_some()).collect();
    let mut text = format!(
        "---\nslug: {}\ntitle: {}\ndifficulty: {}\ntags: {}\n",
        q.slug,
        q.title.replace('\n', " "),
        q.difficulty,
        tags.join(", ")
    );
    for hint in &q.hints_html {
        text.push_str(&format!("hint: {}\n", html_to_text(hint).replace('\n', " ")));
    }
    text.push_str("source: leetcode\n---\n");
    text.push_str(&html_to_text(&q.content_html));
    text.push('\n');
    text
}

#[cfg(test)]
mod leetcode_tests {
    use super::*;

    #[test]
    fn slugs_from_urls_and_names() {
        assert_eq!(leetcode_slug("https://leetcode.com/problems/two-sum/description/"), Some("two-sum".into()));
        assert_eq!(leetcode_slug("leetcode.com/problems/3sum?envType=x"), Some("3sum".into()));
        assert_eq!(leetcode_slug("two-sum"), Some("two-sum".into()));
        assert_eq!(leetcode_slug("../etc/passwd"), None);
        assert_eq!(leetcode_slug("https://example.com/x"), None);
        assert_eq!(leetcode_slug("Two Sum"), None);
    }

    #[test]
    fn html_statements_read_as_text() {
        let html = "<p>Given <code>nums</code> &amp; <code>k</code>, return <strong>x</strong>.</p>\n<p>&nbsp;</p>\
                    <pre><strong>Input:</strong> nums = [1,2], k = 3\n<strong>Output:</strong> 2</pre>\
                    <ul><li><code>1 &lt;= n &lt;= 10<sup>5</sup></code></li></ul>";
        let text = html_to_text(html);
        assert!(text.starts_with("Given `nums` & `k`, return **x**."), "{text}");
        assert!(text.contains("```text\nInput: nums = [1,2], k = 3\nOutput: 2\n```"), "{text}");
        assert!(text.contains("- `1 <= n <= 10^5`"), "{text}");
        assert_eq!(html_to_text("unclosed <b"), "unclosed <b");
    }
}
