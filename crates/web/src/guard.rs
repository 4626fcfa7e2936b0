//! What every request passes before a handler runs: the Host check (DNS rebinding), the
//! cross-site guard for every state-changing method, and the security headers every response
//! carries; plus the `next` redirect check.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::WebError;
use crate::state::SharedState;

/// The policy of every page of ours: our own scripts and styles (plus `style` attributes, which
/// draw the bars), images from us or inline data, frames only from us (course documents), forms
/// only to us, and no framing by anyone.
pub(crate) const PAGE_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data:; frame-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; \
object-src 'none'; frame-ancestors 'none'";

/// The share landing page is one self-contained file (published as is): its inline script and
/// style, and the probe of a local dashboard.
pub(crate) const LANDING_CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
img-src data:; connect-src 'self' http://127.0.0.1:* http://localhost:*; base-uri 'none'; form-action 'none'; \
frame-ancestors 'none'";

/// Whether the request names us: `localhost`, `127.0.0.1` or `[::1]`, on our port when it names
/// one. A page on another site that rebinds its own name to 127.0.0.1 still sends its own name,
/// and is refused. A request without `Host` (not a browser) is let through.
pub(crate) fn host_allowed(headers: &HeaderMap, port: Option<u16>) -> bool {
    let Some(host) = headers.get(header::HOST) else { return true };
    let Ok(host) = host.to_str() else { return false };
    let host = host.trim().to_ascii_lowercase();
    let (name, given_port) = match host.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, rest)) => (format!("[{addr}]"), rest.strip_prefix(':')),
            None => return false,
        },
        None => match host.split_once(':') {
            Some((name, p)) => (name.to_owned(), Some(p)),
            None => (host.clone(), None),
        },
    };
    if !matches!(name.as_str(), "localhost" | "127.0.0.1" | "[::1]") {
        return false;
    }
    match (given_port, port) {
        (Some(given), Some(ours)) => given.parse::<u16>().is_ok_and(|p| p == ours),
        (Some(given), None) => given.parse::<u16>().is_ok(),
        (None, _) => true,
    }
}

/// Routes that refuse a cross-site write themselves, with the original's own answer (the import
/// form redirects back with `error=cross` instead of a 403 page).
const OWN_CROSS_SITE_ANSWER: [&str; 1] = ["/lessons/import"];

fn is_unsafe(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The layer in front of every route, so a route added later cannot forget it.
pub(crate) async fn layer(State(state): State<SharedState>, request: Request, next: Next) -> Response {
    if !host_allowed(request.headers(), state.port) {
        return (StatusCode::FORBIDDEN, "This dashboard answers only at 127.0.0.1 or localhost.").into_response();
    }
    if is_unsafe(request.method())
        && is_cross_site(request.headers())
        && !OWN_CROSS_SITE_ANSWER.contains(&request.uri().path())
    {
        return WebError::Forbidden.into_response();
    }
    let landing = request.uri().path() == "/lesson";
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    let html = h.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|t| t.starts_with("text/html"));
    // Course documents set their own, stricter policy.
    if html && !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(if landing { LANDING_CSP } else { PAGE_CSP }),
        );
    }
    response
}

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
    fn hosts() {
        let with = |host: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_str(host).expect("header"));
            h
        };
        for ok in ["127.0.0.1:7860", "localhost:7860", "LOCALHOST:7860", "[::1]:7860", "127.0.0.1", "localhost"] {
            assert!(host_allowed(&with(ok), Some(7860)), "{ok}");
        }
        for bad in [
            "evil.example:7860",
            "127.0.0.1.evil.example:7860",
            "localhost.:7860",
            "127.0.0.1:7861",
            "0.0.0.0:7860",
            "[::1",
            "127.0.0.1:port",
            "2130706433:7860",
        ] {
            assert!(!host_allowed(&with(bad), Some(7860)), "{bad}");
        }
        assert!(host_allowed(&HeaderMap::new(), Some(7860)), "no Host: not a browser");
    }

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
