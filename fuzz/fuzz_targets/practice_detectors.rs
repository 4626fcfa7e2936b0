#![no_main]
//! Every practice detector on any text: the code classifier, the leak scan (the first half is
//! the reply, the rest the learner's words), the pasteable-line check and the rung marker. None
//! may panic; a leak hit is always text the reply holds, and stripping markers is idempotent.

use devcoach_practice::{Toolbox, classify_code, pasteable_line, rung, scan_leaks};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = classify_code(text);
    let split = text.char_indices().nth(text.chars().count() / 2).map_or(text.len(), |(i, _)| i);
    let (reply, learner) = text.split_at(split);
    for hit in scan_leaks(Toolbox::builtin(), reply, &[learner], Some(learner)) {
        assert!(reply.contains(&hit.text), "{hit:?}");
    }
    if let Some(line) = pasteable_line(reply, &[learner]) {
        assert!(reply.contains(line.as_str()));
    }
    let (_, clean) = rung::strip(text);
    assert_eq!(rung::strip(&clean).1, clean);
});
