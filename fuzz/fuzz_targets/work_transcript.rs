#![no_main]
//! An agent's transcript (work_insights): any bytes read as counts without panicking, and the
//! counts hold together (questions after an edit are questions; no edits, no edit-only pattern).

use devcoach_core::work_patterns::{Pattern, signals};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = signals(data);
    assert!(s.questions_after_edit <= s.questions && s.questions <= s.prompts);
    assert!(s.error_reports <= s.prompts && s.combined <= s.prompts);
    if s.agent_edits == 0 {
        assert!(!matches!(
            s.pattern(),
            Some(Pattern::Delegation | Pattern::GenerateThenComprehend | Pattern::HybridCodeExplanation)
        ));
    }
});
