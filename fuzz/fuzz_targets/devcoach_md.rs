#![no_main]
//! The `.devcoach.md` parser never panics, and a file it accepts, written back out, reads as the
//! same lesson. The one change a file makes on purpose: a lesson without a body is written with
//! its summary as the body (the format has no other place for it), as markdown, trimmed, with
//! line breaks as LF.

use devcoach_core::share::file::{parse_file, render_file};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(lesson) = parse_file(&text) {
        let again = parse_file(&render_file(&lesson)).expect("our own file parses");
        let mut expected = lesson.clone();
        let body = lesson.body.unwrap_or(lesson.summary);
        expected.body =
            Some(body.replace("\r\n", "\n").replace('\r', "\n").trim().to_owned()).filter(|b| !b.is_empty());
        assert_eq!(again, expected);
    }
});
