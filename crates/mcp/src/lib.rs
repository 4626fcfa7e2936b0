//! The only crate that knows MCP: devcoach's stdio server (rmcp). Tool handlers are thin
//! adapters over `devcoach-store` and `devcoach-core`; wire shapes (DTOs with JSON schemas) live
//! here and are converted by hand from domain values.
//!
//! Architecture invariants:
//! - stdout carries JSON-RPC only; anything for a person goes to stderr;
//! - every tool result is a JSON object with `structuredContent`, a JSON object sent once as
//!   text (`get_lessons`, whose lessons would otherwise go twice), or short prose (some clients
//!   reject bare scalars and arrays);
//! - a bad argument is an `isError` result that says how to recover, never a protocol error.

mod apps;
mod ctx;
mod dto;
mod elicit;
mod payloads;
mod prompt;
mod resources;
mod server;
mod tools;
mod transport;

/// The MCP Apps extension's id, the cards' MIME type and addresses (packaging and tests name them).
pub use apps::{EXTENSION as APPS_EXTENSION, LESSON_URI, MIME as APP_MIME, REVIEW_URI};
pub use ctx::{DashboardLauncher, ServerOptions};
/// The prompt's name and title (packaging manifests list it).
pub use prompt::{NAME as PROMPT_NAME, TITLE as PROMPT_TITLE};
/// The skill files `install` copies are the ones the prompt serves.
pub use prompt::{REFERENCES as SKILL_REFERENCES, SKILL};
pub use server::{ClientHook, DevcoachServer, serve_stdio};
pub use tools::{store_failure, tool_names, tool_summaries};
