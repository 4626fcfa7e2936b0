//! How an exercise counts on the knowledge map, over every state: one more nudge (a hint or a
//! coach's answer) or a reveal never makes the outcome better, a pass never makes it worse, and
//! only a pass or a reveal says anything about the learner.

use devcoach_core::knowledge_model::PracticeResult;
use devcoach_handson::tally::{RUNGS, Tally};
use proptest::prelude::*;

/// Better outcomes rank higher; an unfinished exercise says nothing and ranks apart.
fn rank(result: Option<PracticeResult>) -> Option<u8> {
    result.map(|r| match r {
        PracticeResult::Alone => 2,
        PracticeResult::Helped => 1,
        PracticeResult::Revealed => 0,
    })
}

fn tally() -> impl Strategy<Value = Tally> {
    (0..=RUNGS, 0u32..6, any::<bool>(), any::<bool>(), 0u32..5).prop_map(|(rung, answers, passed, revealed, checks)| {
        Tally { rung, answers, passed, revealed, checks, ..Tally::default() }
    })
}

proptest! {
    #[test]
    fn one_more_nudge_never_makes_it_better(t in tally()) {
        let before = rank(t.result());
        let mut hinted = t.clone();
        hinted.rung = (hinted.rung + 1).min(RUNGS);
        let mut asked = t.clone();
        asked.answers += 1;
        for after in [rank(hinted.result()), rank(asked.result())] {
            prop_assert_eq!(after.is_some(), before.is_some(), "a nudge alone neither finishes nor unfinishes");
            prop_assert!(after <= before, "{:?} → {:?}", before, after);
            // One step at most: from unaided to helped, never straight to a miss.
            prop_assert!(before.zip(after).is_none_or(|(b, a)| b - a <= 1));
        }
    }

    #[test]
    fn a_reveal_is_a_miss_and_a_pass_never_hurts(t in tally()) {
        let mut revealed = t.clone();
        revealed.revealed = true;
        prop_assert_eq!(revealed.result(), Some(PracticeResult::Revealed));
        let mut passed = t.clone();
        passed.passed = true;
        prop_assert!(rank(passed.result()).is_some());
        if t.result().is_some() {
            prop_assert!(rank(passed.result()) >= rank(t.result()));
        }
        prop_assert_eq!(t.result().is_some(), t.passed || t.revealed, "only a pass or a reveal counts");
    }
}
