//! The numbers behind `devcoach stats` and the `stats` resource.

use serde::Serialize;

use crate::knowledge::KnowledgeEntry;

/// Lesson counts and the ends of the knowledge map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Every lesson, shared ones included.
    pub total_lessons: i64,
    /// Own lessons in the last 24 hours.
    pub lessons_today: i64,
    /// Own lessons in the last 7 days.
    pub lessons_this_week: i64,
    pub imported_lessons: i64,
    /// Up to five lowest confidences, lowest first.
    pub weakest_topics: Vec<KnowledgeEntry>,
    /// Up to five highest confidences, highest first.
    pub strongest_topics: Vec<KnowledgeEntry>,
}

/// How many topics each end of the map shows.
pub const TOPICS_SHOWN: usize = 5;

/// Splits the map into its weakest and strongest topics. Ties are broken by topic name, so the
/// output is stable.
pub fn extremes(knowledge: &[KnowledgeEntry]) -> (Vec<KnowledgeEntry>, Vec<KnowledgeEntry>) {
    let mut sorted = knowledge.to_vec();
    sorted.sort_by(|a, b| a.confidence.cmp(&b.confidence).then_with(|| a.topic.cmp(&b.topic)));
    let weakest = sorted.iter().take(TOPICS_SHOWN).cloned().collect();
    sorted.sort_by(|a, b| b.confidence.cmp(&a.confidence).then_with(|| a.topic.cmp(&b.topic)));
    let strongest = sorted.into_iter().take(TOPICS_SHOWN).collect();
    (weakest, strongest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(topic: &str, confidence: i64) -> KnowledgeEntry {
        KnowledgeEntry { topic: topic.into(), confidence }
    }

    #[test]
    fn five_from_each_end() {
        let map: Vec<_> = (0..8).map(|i| e(&format!("t{i}"), i)).collect();
        let (weak, strong) = extremes(&map);
        assert_eq!(weak.iter().map(|x| x.confidence).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        assert_eq!(strong.iter().map(|x| x.confidence).collect::<Vec<_>>(), [7, 6, 5, 4, 3]);
    }

    #[test]
    fn ties_are_broken_by_name() {
        let (weak, strong) = extremes(&[e("b", 5), e("a", 5), e("c", 9)]);
        assert_eq!(weak, [e("a", 5), e("b", 5), e("c", 9)]);
        assert_eq!(strong, [e("c", 9), e("a", 5), e("b", 5)]);
    }

    #[test]
    fn small_and_empty_maps() {
        let (weak, strong) = extremes(&[e("a", 3), e("b", 9)]);
        assert_eq!(weak, [e("a", 3), e("b", 9)]);
        assert_eq!(strong, [e("b", 9), e("a", 3)]);
        assert_eq!(extremes(&[]), (vec![], vec![]));
    }
}
