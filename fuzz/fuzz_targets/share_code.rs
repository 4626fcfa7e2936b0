#![no_main]
//! The share-code decoder never panics, and whatever it accepts re-encodes to the same lesson.

use devcoach_core::share::{decode_code, encode_code};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(lesson) = decode_code(&text) {
        assert_eq!(decode_code(&encode_code(&lesson)), Ok(lesson));
    }
});
