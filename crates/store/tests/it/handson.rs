//! Hands-on exercises as the store keeps them: the card, what the exercise came to, and the
//! progress page's figures over the cards still kept.

use chrono::Duration;
use devcoach_core::handson::{HandsOn, HandsOnTotals};
use devcoach_core::ids::LessonId;
use devcoach_core::knowledge_model::PracticeResult;
use devcoach_core::lesson::{LessonContext, Level, NewLesson};

use crate::{fresh, now};

fn card(id: &str) -> NewLesson {
    NewLesson {
        id: LessonId::new(id.to_owned()).expect("id"),
        topic_id: "python".into(),
        categories: vec!["practice".into()],
        title: format!("{id}, rebuilt (hands-on)"),
        level: Level::Mid,
        summary: "You rebuilt it.".into(),
        body: "Body.".into(),
        context: LessonContext::default(),
    }
}

fn went(result: Option<PracticeResult>, checks: u32, hints: u32) -> HandsOn {
    HandsOn {
        language: "python".into(),
        result,
        checks,
        hints,
        revealed: result == Some(PracticeResult::Revealed),
        passed: matches!(result, Some(PracticeResult::Alone | PracticeResult::Helped)),
    }
}

#[test]
fn the_figures_sum_the_exercises_whose_cards_are_kept() {
    let (_dir, mut store) = fresh();
    assert_eq!(store.handson_totals().expect("totals"), HandsOnTotals::default());
    let at = now() - Duration::hours(2);
    store.record_handson(card("total"), "python", &went(Some(PracticeResult::Alone), 2, 1), at).expect("alone");
    store.record_handson(card("parse"), "python", &went(Some(PracticeResult::Helped), 5, 3), at).expect("helped");
    store.record_handson(card("merge"), "python", &went(Some(PracticeResult::Revealed), 1, 4), at).expect("revealed");
    store.record_handson(card("split"), "python", &went(None, 1, 0), at).expect("unfinished");
    let totals = store.handson_totals().expect("totals");
    assert_eq!(
        totals,
        HandsOnTotals { sessions: 4, alone: 1, helped: 1, revealed: 1, hints: 8, checks: 9 },
        "each exercise counted once, by the outcome the map counted"
    );
    // Recording the same exercise again (a retried save) replaces it: counted once.
    store.record_handson(card("total"), "python", &went(Some(PracticeResult::Alone), 3, 1), at).expect("again");
    assert_eq!(store.handson_totals().expect("totals").sessions, 4);
    assert_eq!(store.handson_totals().expect("totals").checks, 10);
    // A row another build (or a hand-edited backup) wrote with an outcome we do not know is
    // not counted.
    let raw = rusqlite::Connection::open(store.data_dir().db_path()).expect("raw");
    raw.execute("UPDATE ext_handson SET result = 'flawless' WHERE lesson_id = 'merge'", []).expect("edit");
    assert_eq!(store.handson_totals().expect("totals").sessions, 3);
    raw.execute("UPDATE ext_handson SET result = 'revealed' WHERE lesson_id = 'merge'", []).expect("edit");
    // A deleted card leaves the figures; nothing else moves.
    assert!(store.delete_lesson("parse").expect("delete"));
    let after = store.handson_totals().expect("totals");
    assert_eq!(after, HandsOnTotals { sessions: 3, alone: 1, helped: 0, revealed: 1, hints: 5, checks: 5 });
}

#[test]
fn a_hands_on_card_is_a_practice_card_on_the_map() {
    let (_dir, mut store) = fresh();
    let at = now() - Duration::hours(1);
    let lesson =
        store.record_handson(card("total"), "python", &went(Some(PracticeResult::Alone), 2, 1), at).expect("saved");
    // It is a practice card: it spends none of the day's lesson budget and gets a review card.
    let stats = store.stats(now()).expect("stats");
    assert_eq!((stats.lessons_today, stats.total_lessons), (0, 1), "a hands-on card is not a taught lesson");
    assert!(store.rate_limit(now()).allowed);
    assert!(store.review_card(&lesson.id).expect("card").is_some(), "a finished exercise is reviewed");
    let unfinished = store.record_handson(card("split"), "python", &went(None, 1, 0), at).expect("saved");
    assert!(store.review_card(&unfinished.id).expect("card").is_none(), "nothing to recall yet");
}
