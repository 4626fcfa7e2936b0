//! Newtype identifiers, so a session id is never passed where a lesson id is expected.

use std::fmt;

/// A lesson's id: a free string chosen by the agent (a kebab-case slug by convention).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LessonId(String);

impl LessonId {
    /// Wraps an id. Ids are free-form on purpose (the original never checked their shape), so the
    /// only rule is that an id is not blank.
    pub fn new(id: impl Into<String>) -> Result<Self, crate::lesson::LessonError> {
        let id = id.into();
        if id.trim().is_empty() {
            return Err(crate::lesson::LessonError::Missing("id"));
        }
        Ok(Self(id))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for LessonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a typed lesson id names: the id itself, or the one lesson whose id starts with it (the
/// lessons table cuts long ids to a unique start ending in `…`, which is accepted as typed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdLookup {
    Found(String),
    Missing,
    /// More than one id starts with what was typed: a few of them, in order.
    Ambiguous(Vec<String>),
}

/// The start of an id as typed: blanks around it and a final `…` (copied from a table) removed.
pub fn typed_prefix(typed: &str) -> &str {
    let t = typed.trim();
    t.strip_suffix('…').unwrap_or(t).trim_end()
}

/// How many characters of the `shown` ids tell each apart from every id in `all` (sorted), at
/// least `floor`: the shortest cut of an id column whose every cell still names one lesson.
pub fn unique_prefix_len(all: &[String], shown: &[&str], floor: usize) -> usize {
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    shown
        .iter()
        .map(|id| {
            let at = all.partition_point(|a| a.as_str() < *id);
            let before = at.checked_sub(1).map_or(0, |i| common(&all[i], id));
            let after = all.get(at + usize::from(all.get(at).is_some_and(|a| a == id))).map_or(0, |a| common(a, id));
            // An id that is itself the start of another cannot be cut at all.
            let n = before.max(after) + 1;
            n.min(id.chars().count().max(1))
        })
        .fold(floor, usize::max)
}

/// An agent session, as reported by the client's hook payload.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionId(String);

impl SessionId {
    /// The id used when a hook payload carries no session (shared with the original build, so
    /// both count the same row).
    pub const FALLBACK: &'static str = "__nosession__";

    /// A session id from a payload; blank or missing ids fall back to [`Self::FALLBACK`]. An id
    /// longer than [`SESSION_ID_BYTES`] keeps its start and ends in a hash of the whole, so it
    /// stays one row of bounded size and distinct from other long ids.
    ///
    /// [`SESSION_ID_BYTES`]: crate::limits::SESSION_ID_BYTES
    pub fn from_payload(id: Option<&str>) -> Self {
        const MAX: usize = crate::limits::SESSION_ID_BYTES;
        match id {
            Some(s) if s.len() > MAX => {
                // FNV-1a: stable across builds and machines, no dependency.
                let hash =
                    s.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
                let mut keep = MAX - 17;
                while !s.is_char_boundary(keep) {
                    keep -= 1;
                }
                Self(format!("{}~{hash:016x}", &s[..keep]))
            }
            Some(s) if !s.is_empty() => Self(s.to_owned()),
            _ => Self(Self::FALLBACK.to_owned()),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_typed_prefix_drops_the_tables_ellipsis() {
        assert_eq!(super::typed_prefix(" redis-tt… "), "redis-tt");
        assert_eq!(super::typed_prefix("redis"), "redis");
        assert_eq!(super::typed_prefix("…"), "");
    }

    #[test]
    fn unique_prefixes_tell_neighbours_apart() {
        let all: Vec<String> = ["ab", "abc", "abd", "b", "rust-a", "rust-b", "sql"].map(String::from).into();
        assert_eq!(super::unique_prefix_len(&all, &["ab"], 1), 2);
        assert_eq!(super::unique_prefix_len(&all, &["abc"], 1), 3);
        assert_eq!(super::unique_prefix_len(&all, &["sql"], 1), 1);
        // Only the shown ids count, but against every id.
        assert_eq!(super::unique_prefix_len(&all, &["rust-a", "sql"], 2), 6);
        assert_eq!(super::unique_prefix_len(&all, &[], 2), 2);
    }

    #[test]
    fn long_session_ids_are_bounded_and_stay_distinct() {
        let max = crate::limits::SESSION_ID_BYTES;
        let a = "é".repeat(8_000_000);
        let b = format!("{a}x");
        let (ida, idb) = (SessionId::from_payload(Some(&a)), SessionId::from_payload(Some(&b)));
        assert!(ida.as_str().len() <= max && idb.as_str().len() <= max);
        assert_ne!(ida, idb, "same start, different ids");
        assert_eq!(ida, SessionId::from_payload(Some(&a)), "stable");
        let exact = "s".repeat(max);
        assert_eq!(SessionId::from_payload(Some(&exact)).as_str(), exact, "up to the limit, kept as is");
    }

    use super::*;

    #[test]
    fn blank_lesson_ids_are_refused() {
        assert!(LessonId::new("  ").is_err());
        assert_eq!(LessonId::new("a-b").map(LessonId::into_string).ok(), Some("a-b".into()));
    }

    #[test]
    fn missing_session_falls_back() {
        assert_eq!(SessionId::from_payload(None).as_str(), "__nosession__");
        assert_eq!(SessionId::from_payload(Some("")).as_str(), "__nosession__");
        assert_eq!(SessionId::from_payload(Some("abc")).as_str(), "abc");
    }
}
