#![no_main]
//! A file in the sync folder (another device's, or anyone's): any bytes decode or are refused
//! without panicking; what decodes encodes back to the same changes, merges (all at once, and
//! one change at a time into the state the store keeps per record, to the same records), and
//! its records go through the checks every door applies.

use devcoach_core::sync::segment::{decode, encode};
use std::collections::BTreeMap;

use devcoach_core::sync::{RecordState, SYNCED, merge};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(segment) = decode(data) else { return };
    assert_eq!(segment.ops.len() as u64, segment.header.last - segment.header.first + 1);
    let (again, _) = encode(&segment.header, &segment.ops);
    let back = decode(&again).expect("what decoded encodes back");
    assert_eq!(back.ops, segment.ops);
    let merged = merge(&segment.ops);
    // Backwards, so the order differs from the merge's.
    let mut states: BTreeMap<(&str, &str), RecordState> = BTreeMap::new();
    for op in segment.ops.iter().rev() {
        states.entry((op.table.as_str(), op.key.as_str())).or_default().fold(op);
    }
    for table in SYNCED {
        // Every record the merge leaves goes through the checks a sync applies: never a panic.
        let rows = merged.rows(table);
        for row in merged.store_rows(table).values() {
            let _ = devcoach_core::records::check(table.name, row);
        }
        if table.parent.is_none() && table.unique.is_none() {
            let folded: BTreeMap<String, _> = states
                .iter()
                .filter(|((t, _), _)| *t == table.name)
                .filter_map(|((_, k), s)| s.row().map(|(r, _)| ((*k).to_owned(), r)))
                .collect();
            assert_eq!(folded, rows, "{}", table.name);
        }
    }
});
