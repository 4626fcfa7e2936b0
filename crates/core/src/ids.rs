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

/// The start of an id as typed, and whether it was copied from a table that cut it (a final
/// `…`: the id it names is longer than what is left).
pub fn typed_prefix(typed: &str) -> (&str, bool) {
    let t = typed.trim();
    match t.strip_suffix('…') {
        Some(cut) => (cut.trim_end(), true),
        None => (t, false),
    }
}

/// How many characters of `id` tell it apart from every other id in `all` (sorted): the
/// shortest start of it that names only it (all of it when it starts another id).
pub fn unique_prefix_chars(all: &[impl AsRef<str>], id: &str) -> usize {
    let at = all.partition_point(|a| a.as_ref() < id);
    let before = at.checked_sub(1).map_or(0, |i| common_chars(all[i].as_ref(), id));
    let after = all
        .get(at + usize::from(all.get(at).is_some_and(|a| a.as_ref() == id)))
        .map_or(0, |a| common_chars(a.as_ref(), id));
    (before.max(after) + 1).min(id.chars().count().max(1))
}

/// [`unique_prefix_chars`] of every id of `sorted` (sorted, each once) among the others, in
/// its order: each is told apart by its neighbours, with no search.
pub fn unique_prefixes_of_sorted<'a>(sorted: &'a [&'a str]) -> impl Iterator<Item = usize> + 'a {
    sorted.iter().enumerate().map(move |(i, id)| {
        let before = i.checked_sub(1).map_or(0, |j| common_chars(sorted[j], id));
        let after = sorted.get(i + 1).map_or(0, |next| common_chars(next, id));
        (before.max(after) + 1).min(id.chars().count().max(1))
    })
}

/// How many characters `a` and `b` start with in common.
fn common_chars(a: &str, b: &str) -> usize {
    if a.is_ascii() && b.is_ascii() {
        a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
    } else {
        a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
    }
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
        assert_eq!(super::typed_prefix(" redis-tt… "), ("redis-tt", true));
        assert_eq!(super::typed_prefix("redis"), ("redis", false));
        assert_eq!(super::typed_prefix("…"), ("", true));
    }

    #[test]
    fn unique_prefixes_tell_neighbours_apart() {
        let all: Vec<String> =
            ["ab", "abc", "abd", "b", "rust-a", "rust-b", "sql", "日本", "日本語"].map(String::from).into();
        let n = |id| super::unique_prefix_chars(&all, id);
        assert_eq!((n("ab"), n("abc"), n("sql"), n("rust-a")), (2, 3, 1, 6));
        assert_eq!((n("日本"), n("日本語")), (2, 3));
    }

    proptest::proptest! {
        /// Told apart by neighbours alone, every id of a sorted set gets what the search gives.
        #[test]
        fn neighbours_give_what_the_search_gives(ids in proptest::collection::btree_set("[ab日]{0,5}", 0..40)) {
            let sorted: Vec<&str> = ids.iter().map(String::as_str).collect();
            let searched: Vec<usize> = sorted.iter().map(|id| super::unique_prefix_chars(&sorted, id)).collect();
            proptest::prop_assert_eq!(super::unique_prefixes_of_sorted(&sorted).collect::<Vec<_>>(), searched);
        }
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
