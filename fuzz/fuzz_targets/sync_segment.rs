#![no_main]
//! A file in the sync folder (another device's, or anyone's): any bytes decode or are refused
//! without panicking; what decodes encodes back to the same changes, merges, and its records
//! go through the checks every door applies.

use devcoach_core::sync::segment::{decode, encode};
use devcoach_core::sync::{SYNCED, merge};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(segment) = decode(data) else { return };
    assert_eq!(segment.ops.len() as u64, segment.header.last - segment.header.first + 1);
    let (again, _) = encode(&segment.header, &segment.ops);
    let back = decode(&again).expect("what decoded encodes back");
    assert_eq!(back.ops, segment.ops);
    let merged = merge(&segment.ops);
    for table in SYNCED {
        // Every record the merge leaves goes through the checks a sync applies: never a panic.
        for row in merged.store_rows(table).values() {
            let _ = devcoach_core::records::check(table.name, row);
        }
    }
});
