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

/// A client for a server the user named or started (a model server, this machine's dashboard):
/// no proxy, no redirect followed, every status answered rather than raised, one deadline for
/// the whole exchange. Not for outside addresses: those go through [`fetch`].
fn plain_agent(timeout: std::time::Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .build()
        .new_agent()
}
