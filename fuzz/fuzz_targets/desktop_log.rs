#![no_main]
//! Claude Desktop's server log, as doctor reads it: any bytes read as a log without panicking,
//! and what is kept of it stays within its caps.

use devcoach_core::desktop_log::{
    Failure, ITEM_CHARS, KEPT_ARGS, KEPT_PATHS, SAID_CHARS, SAID_LINES, interpreter_of, last_run, missing_interpreter,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(run) = last_run(&text) {
        assert!(run.server_said.len() <= SAID_LINES);
        assert!(run.server_said.iter().all(|l| l.chars().count() <= SAID_CHARS));
        assert!(run.args.len() <= KEPT_ARGS && run.args.iter().all(|a| a.chars().count() <= ITEM_CHARS));
        assert!(run.path.as_ref().is_none_or(|p| p.len() <= KEPT_PATHS));
        if let Some(Failure::Spawn { program, code }) = &run.failure {
            assert!(!program.is_empty() && program.chars().count() <= ITEM_CHARS);
            assert!(code.starts_with('E') && code.len() <= 16);
        }
        if let Some(Failure::ServerSaid(line)) = &run.failure {
            assert!(line.chars().count() <= SAID_CHARS);
        }
    }
    if let Some(found) = interpreter_of(data) {
        assert!(!found.program.is_empty());
    }
    for line in text.lines().take(64) {
        if let Some(name) = missing_interpreter(line) {
            assert!(!name.is_empty());
        }
    }
});
