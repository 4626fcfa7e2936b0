//! The cross-site guard every state-changing route applies, and the `next` redirect check.

use axum::http::HeaderMap;

/// A request a browser marks as coming from another site. Browsers that send no
/// `Sec-Fetch-Site` (and non-browser clients) are allowed, as in the original.
pub(crate) fn is_cross_site(headers: &HeaderMap) -> bool {
    headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|site| !matches!(site.trim().to_ascii_lowercase().as_str(), "same-origin" | "none"))
}

/// `next` when it is a path on this site (`/…` but not `//…` or `/\…`), else `fallback`.
pub(crate) fn local_next<'a>(next: Option<&'a str>, fallback: &'a str) -> &'a str {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.starts_with("/\\") && !n.contains(['\r', '\n']) => {
            n
        }
        _ => fallback,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn cross_site_and_next() {
        let mut h = HeaderMap::new();
        assert!(!is_cross_site(&h));
        for (site, cross) in [("same-origin", false), ("none", false), ("same-site", true), ("cross-site", true)] {
            h.insert("sec-fetch-site", HeaderValue::from_static(site));
            assert_eq!(is_cross_site(&h), cross, "{site}");
        }
        assert_eq!(local_next(Some("/lessons?page=2"), "/"), "/lessons?page=2");
        for bad in ["//evil.example", "https://evil.example", "/\\evil", "lessons", "/x\r\nSet-Cookie: a"] {
            assert_eq!(local_next(Some(bad), "/fallback"), "/fallback", "{bad}");
        }
        assert_eq!(local_next(None, "/f"), "/f");
    }
}
