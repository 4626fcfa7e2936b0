//! The only crate that makes HTTP requests.
//!
//! `dashboard` talks to a local devcoach dashboard (ping, stop) on 127.0.0.1.
//!
//! `model` posts chat requests to the model server the user chose (Ollama, OpenAI-compatible).
//!
//! `fetch` downloads a pasted URL for import, and refuses anything but the public internet:
//! every hop's host is resolved and each address vetted before a socket opens, the socket goes to
//! exactly the vetted address (no second lookup for a DNS-rebinding attack to win), redirects are
//! followed by hand and re-vetted, and time and bytes are capped.

pub mod address;
pub mod dashboard;
pub mod fetch;
pub mod import;
pub mod leetcode;
pub mod model;

pub use fetch::{FetchError, FetchPolicy, fetch};
