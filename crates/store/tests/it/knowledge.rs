//! The knowledge map, groups, onboarding and the evidence log.

use devcoach_core::evidence::EvidenceCause;
use devcoach_core::knowledge::{GroupTarget, KnowledgeError};
use devcoach_store::StoreError;

use crate::{fresh, now};

#[test]
fn topics_are_clamped_and_logged() {
    let (_t, mut store) = fresh();
    assert_eq!(store.set_topic("  rust ", 14, None, now()).expect("set"), 10);
    assert_eq!(store.update_knowledge("rust", -3, now()).expect("delta"), 7);
    assert_eq!(store.update_knowledge("go", 2, now()).expect("new topic from 5"), 7);
    assert_eq!(store.update_knowledge("go", -20, now()).expect("floor"), 0);
    let log = store.evidence(Some("rust")).expect("log");
    let pairs: Vec<(Option<i64>, Option<i64>)> = log.iter().map(|e| (e.delta, e.value_after)).collect();
    assert_eq!(pairs, [(None, Some(10)), (Some(-3), Some(7))]);
    assert!(log.iter().all(|e| e.cause == EvidenceCause::Manual && e.at == "2026-11-30T12:00:00.000Z"));
    assert_eq!(store.evidence(None).expect("all").len(), 4);
    assert!(matches!(store.set_topic("  ", 3, None, now()), Err(StoreError::Knowledge(KnowledgeError::EmptyTopic))));
}

#[test]
fn groups_and_the_virtual_other() {
    let (_t, mut store) = fresh();
    store.set_topic("rust", 5, Some(&GroupTarget::Group("Languages".into())), now()).expect("grouped");
    store.set_topic("git", 7, None, now()).expect("ungrouped");
    assert!(store.add_group("Empty").expect("new"));
    assert!(!store.add_group(" Empty ").expect("exists"));
    assert!(matches!(store.add_group("Other"), Err(StoreError::Knowledge(KnowledgeError::ReservedGroup))));
    assert!(matches!(store.add_group(""), Err(StoreError::Knowledge(KnowledgeError::EmptyGroup))));

    let profile = store.profile().expect("profile");
    assert_eq!(profile.group_of("rust"), "Languages");
    assert_eq!(profile.group_of("git"), "Other");
    let names: Vec<&str> = profile.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["Empty", "Languages"]);

    // One group per topic; `Other` ungroups.
    assert!(store.assign_group("rust", &GroupTarget::Group("Systems".into())).expect("move"));
    assert_eq!(store.profile().expect("profile").group_of("rust"), "Systems");
    assert!(store.assign_group("rust", &GroupTarget::parse("Other").expect("valid")).expect("ungroup"));
    assert_eq!(store.profile().expect("profile").group_of("rust"), "Other");
    assert!(!store.assign_group("missing", &GroupTarget::Group("X".into())).expect("no topic"));

    store.assign_group("git", &GroupTarget::Group("Tools".into())).expect("assign");
    assert!(store.remove_group("Tools").expect("remove"));
    assert!(!store.remove_group("Tools").expect("gone"));
    assert_eq!(store.profile().expect("profile").group_of("git"), "Other");

    store.assign_group("git", &GroupTarget::Group("Tools".into())).expect("assign");
    assert!(store.remove_topic("git").expect("remove"));
    assert!(!store.remove_topic("git").expect("gone"));
    let tools = store.profile().expect("profile").groups.into_iter().find(|g| g.name == "Tools").expect("group stays");
    assert!(tools.topics.is_empty());
}

#[test]
fn onboarding_replaces_the_map() {
    let (_t, mut store) = fresh();
    assert!(!store.is_onboarded().expect("read"));
    store.set_topic("old", 2, Some(&GroupTarget::Group("Gone".into())), now()).expect("set");
    let profile = store
        .complete_onboarding(
            &[("rust".into(), 6), ("sql".into(), 11)],
            &[("Languages".into(), vec!["rust".into(), "not-a-topic".into()]), ("Data".into(), vec![])],
            now(),
        )
        .expect("onboard");
    let map: Vec<(&str, i64)> = profile.knowledge.iter().map(|e| (e.topic.as_str(), e.confidence)).collect();
    assert_eq!(map, [("rust", 6), ("sql", 10)]);
    let groups: Vec<(&str, Vec<String>)> = profile.groups.iter().map(|g| (g.name.as_str(), g.topics.clone())).collect();
    assert_eq!(groups, [("Data", vec![]), ("Languages", vec!["rust".to_owned()])]);
    assert!(store.is_onboarded().expect("read"));
    let log = store.evidence(Some("rust")).expect("log");
    assert_eq!(log.last().map(|e| (e.cause, e.delta)), Some((EvidenceCause::Onboarding, None)));
    assert!(matches!(
        store.complete_onboarding(&[], &[("Other".into(), vec![])], now()),
        Err(StoreError::Knowledge(KnowledgeError::ReservedGroup))
    ));
}

#[test]
fn stats_count_own_lessons_for_today_and_the_week() {
    let (_t, mut store) = fresh();
    store.seed_demo(now()).expect("demo");
    let stats = store.stats(now()).expect("stats");
    assert_eq!(stats.total_lessons, i64::try_from(devcoach_store::DEMO_LESSON_COUNT).expect("fits"));
    assert_eq!(stats.imported_lessons, 2);
    // The shared lesson from 20 hours ago does not count as today's.
    assert_eq!(stats.lessons_today, 1);
    assert_eq!(stats.weakest_topics.len(), 5);
    assert!(stats.weakest_topics.windows(2).all(|w| w[0].confidence <= w[1].confidence));
    assert!(stats.strongest_topics.windows(2).all(|w| w[0].confidence >= w[1].confidence));
}
