//! The MCP layer's single integration-test binary, without the devcoach binary: the server's
//! tools run in-process over a real store in a temporary data directory (the protocol over
//! stdio, and everything that needs the binary, is tested in the binary's crate).

mod apps;
mod tools;

use devcoach_mcp::{DevcoachServer, ServerOptions};
use devcoach_store::{DataDir, Store};
use serde_json::Value;
use tempfile::TempDir;

/// A server over the demo learner, with a pinned clock and no dashboard launcher.
pub struct Demo {
    pub server: DevcoachServer,
    pub tmp: TempDir,
}

pub fn now() -> chrono::DateTime<chrono::Utc> {
    devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
}

impl Default for Demo {
    fn default() -> Self {
        Self::new()
    }
}

impl Demo {
    pub fn new() -> Self {
        let tmp = TempDir::new().expect("tmp");
        let dir = DataDir::new(tmp.path().join("data"));
        Store::open(&dir).expect("store").seed_demo(now()).expect("demo");
        let opts = ServerOptions {
            dir,
            cwd: tmp.path().to_path_buf(),
            now: Some(now()),
            claude: None,
            version: "9.9.9-test".into(),
            dashboard: None,
        };
        Self { server: DevcoachServer::new(opts, None), tmp }
    }

    /// A tool's result as MCP would answer it.
    pub fn call(&self, name: &str, args: Value) -> Value {
        self.server.run_tool(name, args).unwrap_or_else(|| panic!("no tool named {name}"))
    }

    /// The text a client shows for a result.
    pub fn text(result: &Value) -> String {
        result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

devcoach_core::no_forgotten_test_files!();
