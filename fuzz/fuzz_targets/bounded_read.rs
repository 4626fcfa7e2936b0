#![no_main]
//! The file door's bounded read: any content and any limit, and the read returns the whole file
//! exactly when it fits, an error naming the limit otherwise, never more than the limit.

use std::io::Cursor;

use devcoach_files::{FileError, read_limited};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&limit, content)) = data.split_first() else { return };
    let limit = u64::from(limit) * 7;
    match read_limited(Cursor::new(content), limit, std::path::Path::new("input")) {
        Ok(bytes) => {
            assert!(bytes.len() as u64 <= limit);
            assert_eq!(bytes, content);
        }
        Err(FileError::TooLarge { limit: l, .. }) => {
            assert_eq!(l, limit);
            assert!(content.len() as u64 > limit);
        }
        Err(e) => panic!("{e}"),
    }
});
