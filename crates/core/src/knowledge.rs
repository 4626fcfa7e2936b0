//! The knowledge map: a confidence from 0 to 10 per topic, and named groups of topics.
//!
//! A topic belongs to at most one group; a topic in no group is shown under the virtual group
//! `Other`, which is never stored. An empty map means onboarding has not run.

use std::collections::BTreeMap;

use serde::Serialize;
use thiserror::Error;

/// The virtual group of ungrouped topics.
pub const OTHER_GROUP: &str = "Other";
/// The confidence a topic is assumed to have before anyone said otherwise.
pub const DEFAULT_CONFIDENCE: i64 = 5;
pub const MIN_CONFIDENCE: i64 = 0;
pub const MAX_CONFIDENCE: i64 = 10;

/// The suggested starting profile offered during onboarding (never seeded automatically).
pub const DEFAULT_PROFILE: [(&str, i64); 24] = [
    ("engineering", 8),
    ("architecture", 8),
    ("patterns", 7),
    ("debugging", 8),
    ("node", 7),
    ("javascript", 7),
    ("typescript", 6),
    ("python", 4),
    ("django", 3),
    ("fastapi", 4),
    ("docker", 8),
    ("traefik", 7),
    ("coolify", 7),
    ("postgresql", 6),
    ("redis", 6),
    ("git", 7),
    ("ci_cd", 6),
    ("security", 5),
    ("performance", 6),
    ("testing", 5),
    ("linux", 7),
    ("networking", 6),
    ("react", 5),
    ("frontend", 5),
];

/// Clamps any requested confidence into 0..=10.
pub fn clamp_confidence(value: i64) -> i64 {
    value.clamp(MIN_CONFIDENCE, MAX_CONFIDENCE)
}

/// The confidence after applying `delta` to `current` (a topic not yet tracked counts as 5).
pub fn apply_delta(current: Option<i64>, delta: i64) -> i64 {
    clamp_confidence(current.unwrap_or(DEFAULT_CONFIDENCE).saturating_add(delta))
}

/// How deep a lesson on a topic should go, from the learner's confidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthBand {
    Junior,
    Mid,
    Senior,
    /// Confidence 10: the learner knows the basics cold; only cutting-edge material helps.
    CuttingEdge,
}

impl DepthBand {
    pub fn of(confidence: i64) -> Self {
        match confidence {
            i64::MIN..=3 => Self::Junior,
            4..=6 => Self::Mid,
            7..=9 => Self::Senior,
            _ => Self::CuttingEdge,
        }
    }
}

/// One topic of the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KnowledgeEntry {
    pub topic: String,
    pub confidence: i64,
}

/// A named group and its topics (sorted by name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    pub name: String,
    pub topics: Vec<String>,
}

/// The whole map: topics sorted by name, groups sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Profile {
    pub knowledge: Vec<KnowledgeEntry>,
    pub groups: Vec<Group>,
}

impl Profile {
    pub fn is_onboarded(&self) -> bool {
        !self.knowledge.is_empty()
    }

    /// The group a topic is in, or `Other`.
    pub fn group_of(&self, topic: &str) -> &str {
        self.groups.iter().find(|g| g.topics.iter().any(|t| t == topic)).map_or(OTHER_GROUP, |g| g.name.as_str())
    }

    /// Topics arranged by group for display: named groups by name (empty ones included), then
    /// `Other` for everything ungrouped (only when there is something in it).
    pub fn by_group(&self) -> Vec<(String, Vec<KnowledgeEntry>)> {
        let mut out: Vec<(String, Vec<KnowledgeEntry>)> = Vec::new();
        let mut placed = std::collections::BTreeSet::new();
        let confidences: BTreeMap<&str, i64> =
            self.knowledge.iter().map(|e| (e.topic.as_str(), e.confidence)).collect();
        for g in &self.groups {
            let entries = g
                .topics
                .iter()
                .filter_map(|t| {
                    confidences.get(t.as_str()).map(|c| KnowledgeEntry { topic: t.clone(), confidence: *c })
                })
                .collect::<Vec<_>>();
            placed.extend(g.topics.iter().map(String::as_str));
            out.push((g.name.clone(), entries));
        }
        let other: Vec<KnowledgeEntry> =
            self.knowledge.iter().filter(|e| !placed.contains(e.topic.as_str())).cloned().collect();
        if !other.is_empty() {
            out.push((OTHER_GROUP.to_owned(), other));
        }
        out
    }
}

/// Why a knowledge edit was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KnowledgeError {
    #[error("The topic name must not be empty")]
    EmptyTopic,
    #[error("The group name must not be empty")]
    EmptyGroup,
    #[error("'Other' is reserved for ungrouped topics — pick another group name")]
    ReservedGroup,
    #[error("a {what} may not hold control characters")]
    Control { what: &'static str },
    #[error("a {what} is at most {max} characters (this one has {got})")]
    TooLong { what: &'static str, max: usize, got: usize },
}

/// Characters no name may hold: C0 and C1 controls (escape sequences start with them) and the
/// bidirectional overrides that reorder what a terminal shows.
fn is_forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// The one rule for topic ids, shared by every front end: lower case, words joined by `_` (the
/// profile's style, `ci_cd`, `sliding_window`), at most [`TOPIC_CHARS`] characters, no control
/// characters. `Python` is `python`, `sliding windows` is `sliding_windows`, `sliding-window` is
/// `sliding_window`, `CI/CD` is `ci_cd`; `c++`, `c#` and `node.js` stay as they are.
///
/// [`TOPIC_CHARS`]: crate::limits::TOPIC_CHARS
pub fn topic_id(raw: &str) -> Result<String, KnowledgeError> {
    let raw = raw.trim();
    if raw.chars().any(is_forbidden) {
        return Err(KnowledgeError::Control { what: "topic" });
    }
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars().flat_map(char::to_lowercase) {
        let c = if c.is_whitespace() || c == '-' || c == '/' { '_' } else { c };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        return Err(KnowledgeError::EmptyTopic);
    }
    let got = out.chars().count();
    if got > crate::limits::TOPIC_CHARS {
        return Err(KnowledgeError::TooLong { what: "topic", max: crate::limits::TOPIC_CHARS, got });
    }
    Ok(out)
}

/// A group name as given: trimmed, at most [`GROUP_CHARS`] characters, no control characters
/// (groups are display names, so their case and spaces stay).
///
/// [`GROUP_CHARS`]: crate::limits::GROUP_CHARS
pub fn group_name(raw: &str) -> Result<String, KnowledgeError> {
    let g = raw.trim();
    if g.chars().any(is_forbidden) {
        return Err(KnowledgeError::Control { what: "group name" });
    }
    let got = g.chars().count();
    if got > crate::limits::GROUP_CHARS {
        return Err(KnowledgeError::TooLong { what: "group name", max: crate::limits::GROUP_CHARS, got });
    }
    Ok(g.to_owned())
}

/// A group name for creating a group: a valid [`group_name`], not empty, not `Other`.
pub fn new_group_name(raw: &str) -> Result<String, KnowledgeError> {
    let g = group_name(raw)?;
    if g.is_empty() {
        Err(KnowledgeError::EmptyGroup)
    } else if g == OTHER_GROUP {
        Err(KnowledgeError::ReservedGroup)
    } else {
        Ok(g)
    }
}

/// Where an assignment puts a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupTarget {
    /// Into a named group (created when missing).
    Group(String),
    /// Out of every group (shown under `Other`).
    Ungrouped,
}

impl GroupTarget {
    /// Empty and `Other` both mean "no group"; anything else must be a valid group name.
    pub fn parse(raw: &str) -> Result<Self, KnowledgeError> {
        let g = group_name(raw)?;
        Ok(if g.is_empty() || g == OTHER_GROUP { Self::Ungrouped } else { Self::Group(g) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_is_clamped() {
        assert_eq!(clamp_confidence(-3), 0);
        assert_eq!(clamp_confidence(14), 10);
        assert_eq!(apply_delta(None, 1), 6);
        assert_eq!(apply_delta(None, -1), 4);
        assert_eq!(apply_delta(Some(10), 1), 10);
        assert_eq!(apply_delta(Some(0), -1), 0);
        assert_eq!(apply_delta(Some(3), i64::MAX), 10);
    }

    #[test]
    fn depth_bands() {
        let bands: Vec<DepthBand> = (0..=10).map(DepthBand::of).collect();
        assert_eq!(bands[3], DepthBand::Junior);
        assert_eq!(bands[4], DepthBand::Mid);
        assert_eq!(bands[6], DepthBand::Mid);
        assert_eq!(bands[7], DepthBand::Senior);
        assert_eq!(bands[9], DepthBand::Senior);
        assert_eq!(bands[10], DepthBand::CuttingEdge);
    }

    #[test]
    fn group_names() {
        assert_eq!(new_group_name("  Data "), Ok("Data".into()));
        assert_eq!(new_group_name("   "), Err(KnowledgeError::EmptyGroup));
        assert_eq!(new_group_name("Other"), Err(KnowledgeError::ReservedGroup));
        assert_eq!(GroupTarget::parse("Other"), Ok(GroupTarget::Ungrouped));
        assert_eq!(GroupTarget::parse(""), Ok(GroupTarget::Ungrouped));
        assert_eq!(GroupTarget::parse(" Ops "), Ok(GroupTarget::Group("Ops".into())));
        assert!(matches!(GroupTarget::parse(&"g".repeat(101)), Err(KnowledgeError::TooLong { .. })));
        assert!(matches!(new_group_name("a\u{1b}]52;c;x\u{7}"), Err(KnowledgeError::Control { .. })));
        assert_eq!(topic_id("  "), Err(KnowledgeError::EmptyTopic));
    }

    #[test]
    fn topic_ids_follow_one_rule() {
        for (raw, id) in [
            ("Python", "python"),
            ("sliding windows", "sliding_windows"),
            ("sliding-window", "sliding_window"),
            ("  CI / CD  ", "ci_cd"),
            ("ci_cd", "ci_cd"),
            ("C++", "c++"),
            ("c#", "c#"),
            ("Node.js", "node.js"),
            ("--rust--", "rust"),
            ("Ünïcode Topic", "ünïcode_topic"),
        ] {
            assert_eq!(topic_id(raw).as_deref(), Ok(id), "{raw}");
        }
        assert_eq!(topic_id("-_-"), Err(KnowledgeError::EmptyTopic));
        assert!(matches!(topic_id("a\u{1b}[2Jb"), Err(KnowledgeError::Control { .. })));
        assert!(matches!(topic_id("a\u{202e}b"), Err(KnowledgeError::Control { .. })));
        assert!(matches!(topic_id(&"x".repeat(101)), Err(KnowledgeError::TooLong { got: 101, .. })));
        assert_eq!(topic_id(&"x".repeat(100)).map(|t| t.len()), Ok(100));
    }

    #[test]
    fn ungrouped_topics_land_in_other() {
        let p = Profile {
            knowledge: vec![
                KnowledgeEntry { topic: "git".into(), confidence: 7 },
                KnowledgeEntry { topic: "rust".into(), confidence: 5 },
            ],
            groups: vec![
                Group { name: "Empty".into(), topics: vec![] },
                Group { name: "Languages".into(), topics: vec!["rust".into()] },
            ],
        };
        let view = p.by_group();
        let names: Vec<&str> = view.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Empty", "Languages", "Other"]);
        assert_eq!(view[2].1[0].topic, "git");
        assert_eq!(p.group_of("git"), "Other");
        assert_eq!(p.group_of("rust"), "Languages");
        assert!(p.is_onboarded());
        assert!(!Profile::default().is_onboarded());
    }

    #[test]
    fn default_profile_has_24_topics_in_range() {
        assert_eq!(DEFAULT_PROFILE.len(), 24);
        assert!(DEFAULT_PROFILE.iter().all(|(_, c)| (0..=10).contains(c)));
    }
}
