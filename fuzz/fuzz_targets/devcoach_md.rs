#![no_main]
//! The `.devcoach.md` parser never panics; a file it accepts survives a render/parse round trip.

use devcoach_core::share::file::{parse_file, render_file};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(lesson) = parse_file(&text) {
        let again = parse_file(&render_file(&lesson)).expect("our own file parses");
        assert_eq!(again.title, lesson.title);
        assert_eq!(again.categories, lesson.categories);
    }
});
