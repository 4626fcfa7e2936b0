#![no_main]
//! The dashboard's two decisions on request headers: where a write came from, and whether a
//! `next` may be redirected to. Any bytes; the rules hold for every answer.

use devcoach_web::guard::{Provenance, is_local_path, provenance};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{1}');
    let mut field = || parts.next().filter(|p| !p.is_empty());
    let (site, origin, referer, content_type, next) = (field(), field(), field(), field(), field());
    let verdict = provenance(site, origin, referer, content_type, Some(7860));
    if let Some(site) = site {
        let trusted = matches!(site.trim().to_ascii_lowercase().as_str(), "same-origin" | "none");
        assert_eq!(verdict == Provenance::Ours, trusted, "fetch metadata decides: {site:?}");
    } else if let Some(origin) = origin {
        if verdict == Provenance::Ours {
            assert!(origin.trim().starts_with("http://"), "an origin of ours is http on this machine: {origin:?}");
        }
    }
    if let Some(next) = next {
        if is_local_path(next) {
            let mut chars = next.chars();
            assert_eq!(chars.next(), Some('/'));
            assert!(!matches!(chars.next(), Some('/' | '\\')), "{next:?}");
            assert!(!next.chars().any(char::is_control), "{next:?}");
        }
    }
});
