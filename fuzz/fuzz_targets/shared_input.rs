#![no_main]
//! The any-input parser (codes, cards, links, files, JSON) never panics on anything pasted.

use devcoach_core::share::parse_shared_input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = parse_shared_input(&String::from_utf8_lossy(data));
});
