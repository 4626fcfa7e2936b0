#![no_main]
//! A practice session log of any bytes reads without panicking, and the report over it renders.

use devcoach_practice::{Toolbox, log, report};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let events = log::read_from(data);
    let session = report::session("fuzz.jsonl", &events, Toolbox::builtin());
    let _ = report::render(&report::build(vec![session]));
});
