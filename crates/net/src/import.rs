//! What someone pasted to import, made into a shared input: a web address is fetched (through
//! the hardened fetch, public internet only), anything else is read as it is. The one path
//! every front end (CLI `import`, MCP `import_lesson`, the dashboard's import) takes before
//! handing the result to the store.

use devcoach_core::error_kind::{ErrorKind, Kinded};
use devcoach_core::share::{ShareError, SharedInput, parse_shared_input, url_to_fetch};

use crate::fetch::{FetchError, FetchPolicy, fetch};

/// Why a paste did not become something to import.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    Share(#[from] ShareError),
}

/// The shared lesson or lessons export `pasted` holds or points at.
pub fn resolve(pasted: &str, policy: &FetchPolicy) -> Result<SharedInput, ImportError> {
    match url_to_fetch(pasted) {
        Some(url) => Ok(parse_shared_input(&fetch(url, policy)?)?),
        None => Ok(parse_shared_input(pasted)?),
    }
}

impl Kinded for FetchError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::NotHttp | Self::NotPublic | Self::TooLarge => ErrorKind::InvalidInput,
            Self::Status(404 | 410) => ErrorKind::NotFound,
            Self::Unreachable | Self::TooManyRedirects | Self::Status(_) | Self::Timeout => ErrorKind::Io,
        }
    }
}

impl Kinded for ImportError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Fetch(e) => e.kind(),
            Self::Share(e) => e.kind(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_parsed_and_addresses_are_fetched_through_the_policy() {
        assert!(matches!(resolve("nothing to see", &FetchPolicy::default()), Err(ImportError::Share(_))));
        // A private address is refused by the fetch itself, before any connection.
        assert!(matches!(resolve("http://127.0.0.1:9/x.md", &FetchPolicy::default()), Err(ImportError::Fetch(_))));
    }
}
