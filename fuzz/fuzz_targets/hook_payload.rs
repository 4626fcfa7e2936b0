#![no_main]
//! A hook's stdin: any bytes read as a payload without panicking, and a session id is only ever
//! a string the input held.

use devcoach_core::hook_payload::{Payload, reply_of};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = Payload::parse(data);
    if let Some(id) = &p.session_id {
        assert!(!id.is_empty());
    }
    if let Some(reply) = reply_of(data) {
        assert!(!reply.is_empty() && reply.len() <= data.len());
    }
});
