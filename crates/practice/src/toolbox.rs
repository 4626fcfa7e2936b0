//! The vocabulary (`assets/practice/toolbox.json`): the techniques, data structures and
//! properties the judge may name and the leak guard looks for, each feeding a knowledge-map topic.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::detect::names::{NameMatcher, fold};

/// The toolbox schema this build reads.
pub const SCHEMA: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Technique,
    DataStructure,
    Property,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    pub name: String,
    pub kind: Kind,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub topic: String,
    #[serde(default)]
    pub summary: String,
}

impl Entry {
    /// The name and every alias.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.aliases.iter().map(String::as_str))
    }
}

#[derive(Deserialize)]
struct File {
    schema: u32,
    version: String,
    entries: Vec<Entry>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ToolboxError {
    #[error("the toolbox is not valid JSON of the expected shape: {0}")]
    Json(String),
    #[error("the toolbox has schema {0}; this devcoach reads schema {SCHEMA}")]
    Schema(u32),
    #[error("the toolbox has no entries")]
    Empty,
    #[error("toolbox id {0:?} is not lowercase kebab-case")]
    BadId(String),
    #[error("toolbox id {0:?} appears twice")]
    DuplicateId(String),
    #[error("toolbox entry {0:?} has an empty name, alias or topic")]
    Blank(String),
    #[error("{name:?} names both {first:?} and {second:?}: a name or alias must belong to one entry")]
    SharedName { name: String, first: String, second: String },
}

/// A validated vocabulary with its matcher built.
pub struct Toolbox {
    version: String,
    entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    matcher: NameMatcher,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("version", &self.version)
            .field("entries", &self.entries.len())
            .finish_non_exhaustive()
    }
}

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Toolbox {
    /// The toolbox shipped with this build (validated by a test, so this never fails in a
    /// released binary; an invalid edit fails the build's tests first).
    pub fn builtin() -> &'static Toolbox {
        static BUILTIN: OnceLock<Toolbox> = OnceLock::new();
        BUILTIN.get_or_init(|| match Toolbox::parse(devcoach_assets::PRACTICE_TOOLBOX) {
            Ok(toolbox) => toolbox,
            // Unreachable for a tested build; an empty vocabulary keeps the coach running.
            Err(_) => Toolbox::from_entries(String::from("invalid"), Vec::new()),
        })
    }

    pub fn parse(json: &str) -> Result<Self, ToolboxError> {
        let file: File = serde_json::from_str(json).map_err(|e| ToolboxError::Json(e.to_string()))?;
        if file.schema != SCHEMA {
            return Err(ToolboxError::Schema(file.schema));
        }
        if file.entries.is_empty() {
            return Err(ToolboxError::Empty);
        }
        let mut ids: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut owners: HashMap<String, &str> = HashMap::new();
        for entry in &file.entries {
            if !is_kebab(&entry.id) {
                return Err(ToolboxError::BadId(entry.id.clone()));
            }
            if !ids.insert(&entry.id) {
                return Err(ToolboxError::DuplicateId(entry.id.clone()));
            }
            if entry.topic.trim().is_empty() || entry.names().any(|n| fold(n).text.trim().is_empty()) {
                return Err(ToolboxError::Blank(entry.id.clone()));
            }
            // The id read as words counts as one of the entry's own names.
            let own: std::collections::BTreeSet<String> =
                entry.names().chain(std::iter::once(entry.id.as_str())).map(|n| fold(n).text).collect();
            for name in own {
                if let Some(first) = owners.insert(name.clone(), &entry.id) {
                    return Err(ToolboxError::SharedName { name, first: first.to_owned(), second: entry.id.clone() });
                }
            }
        }
        Ok(Self::from_entries(file.version, file.entries))
    }

    fn from_entries(version: String, entries: Vec<Entry>) -> Self {
        let by_id = entries.iter().enumerate().map(|(i, e)| (e.id.clone(), i)).collect();
        let matcher = NameMatcher::new(entries.iter().enumerate().flat_map(|(i, e)| e.names().map(move |n| (i, n))));
        Self { version, entries, by_id, matcher }
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    pub(crate) fn matcher(&self) -> &NameMatcher {
        &self.matcher
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_toolbox_is_valid_and_large_enough() {
        let toolbox = Toolbox::parse(devcoach_assets::PRACTICE_TOOLBOX).expect("valid toolbox");
        assert!(toolbox.entries().len() >= 100, "{}", toolbox.entries().len());
        for kind in [Kind::Technique, Kind::DataStructure, Kind::Property] {
            assert!(toolbox.entries().iter().any(|e| e.kind == kind), "{kind:?}");
        }
        assert_eq!(Toolbox::builtin().entries().len(), toolbox.entries().len());
        assert!(toolbox.get("two-pointers").is_some_and(|e| e.topic == "two-pointers"));
    }

    fn one(id: &str, name: &str, aliases: &[&str]) -> serde_json::Value {
        serde_json::json!({ "id": id, "name": name, "kind": "technique", "aliases": aliases, "topic": "t" })
    }

    fn parse(entries: &[serde_json::Value]) -> Result<Toolbox, ToolboxError> {
        Toolbox::parse(&serde_json::json!({ "schema": 1, "version": "x", "entries": entries }).to_string())
    }

    #[test]
    fn bad_vocabularies_are_refused_with_the_reason() {
        assert_eq!(parse(&[]).err(), Some(ToolboxError::Empty));
        assert_eq!(
            parse(&[one("a", "alpha", &[]), one("a", "beta", &[])]).err(),
            Some(ToolboxError::DuplicateId("a".into()))
        );
        assert_eq!(parse(&[one("Bad_Id", "alpha", &[])]).err(), Some(ToolboxError::BadId("Bad_Id".into())));
        // An alias shared by two entries, even spelt differently.
        assert_eq!(
            parse(&[one("a", "alpha", &["Sliding-Window"]), one("b", "sliding window", &[])]).err(),
            Some(ToolboxError::SharedName { name: "sliding window".into(), first: "a".into(), second: "b".into() })
        );
        assert_eq!(parse(&[one("a", "  ", &[])]).err(), Some(ToolboxError::Blank("a".into())));
        let wrong_schema = serde_json::json!({ "schema": 2, "version": "x", "entries": [one("a", "b", &[])] });
        assert_eq!(Toolbox::parse(&wrong_schema.to_string()).err(), Some(ToolboxError::Schema(2)));
        assert!(matches!(Toolbox::parse("{"), Err(ToolboxError::Json(_))));
    }
}
