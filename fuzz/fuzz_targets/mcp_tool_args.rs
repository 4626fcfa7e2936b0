#![no_main]
//! Every MCP tool with arbitrary arguments, on a scratch database: a result always comes back,
//! and no handler panics (the server turns a panic into an "internal error" result, which would
//! hide the bug from the fuzzer, so that answer fails here).

use std::sync::OnceLock;

use devcoach_mcp::{DevcoachServer, ServerOptions, tool_names};
use devcoach_store::DataDir;
use libfuzzer_sys::fuzz_target;

struct Scratch {
    _dir: tempfile::TempDir,
    server: DevcoachServer,
    tools: Vec<String>,
}

fn scratch() -> &'static Scratch {
    static S: OnceLock<Scratch> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::TempDir::new().expect("tmp");
        let data = DataDir::new(dir.path().join("data"));
        devcoach_store::Store::open(&data).expect("store").seed_demo(chrono::Utc::now()).expect("demo");
        let opts = ServerOptions {
            dir: data,
            cwd: dir.path().to_path_buf(),
            now: None,
            claude: None,
            version: "fuzz".into(),
            dashboard: None,
        };
        // Tools that start processes stay out of the fuzzer.
        // The tools listed only to hosts that render the cards are fuzzed too.
        let frame_only = ["show_lesson", "lesson_card", "lesson_card_answer", "review_answer", "review_card_grade"]
            .map(str::to_owned);
        let tools = tool_names().into_iter().chain(frame_only).filter(|t| t != "open_ui" && t != "stop_ui").collect();
        Scratch { server: DevcoachServer::new(opts, None), _dir: dir, tools }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let s = scratch();
    let name = &s.tools[usize::from(pick) % s.tools.len()];
    let text = String::from_utf8_lossy(rest);
    let args = serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text.into_owned()));
    let result = s.server.run_tool(name, args).expect("every listed tool runs");
    let shown = result.to_string();
    assert!(!shown.contains("an internal error occurred"), "{name} panicked: {shown}");
});
