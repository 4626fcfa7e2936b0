//! A practice problem: a statement with a small front matter (slug, title, difficulty, tags,
//! hints). The shipped problems, a `--problem FILE` and the cached LeetCode problems all read
//! through here.

/// The most a problem file may hold.
pub const MAX_PROBLEM_BYTES: usize = 256 * 1024;

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
    #[error("the problem file is {0} bytes; the limit is {MAX_PROBLEM_BYTES}")]
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
        if text.len() > MAX_PROBLEM_BYTES {
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
        assert!(matches!(Problem::parse(&"x".repeat(MAX_PROBLEM_BYTES + 1), "s"), Err(ProblemError::TooLarge(_))));
    }
}
