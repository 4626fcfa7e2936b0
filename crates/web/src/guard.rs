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

/// Routes that answer a refused write themselves, with the original's own answer (the import
/// form redirects back with `error=cross` instead of a 403 page). It asks [`is_cross_site_at`],
/// the same decision.
pub(crate) const OWN_CROSS_SITE_ANSWER: [&str; 1] = ["/lessons/import"];

fn is_unsafe(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The layer in front of every route, so a route added later cannot forget it.
pub(crate) async fn layer(State(state): State<SharedState>, request: Request, next: Next) -> Response {
    if !host_allowed(request.headers(), state.port) {
        return (StatusCode::FORBIDDEN, "This dashboard answers only at 127.0.0.1 or localhost.").into_response();
    }
    if is_unsafe(request.method())
        && is_cross_site_at(request.headers(), state.port)
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

/// Whether a write may go on, from what the request says about where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    /// From one of our own pages (or a client that is not a browser).
    Ours,
    /// From another site, or from a place that will not say (`Origin: null`).
    Foreign,
}

/// Our own origins: `http://localhost`, `http://127.0.0.1` or `http://[::1]`, on our port when
/// it is known. An origin names its port unless it is 80: `http://localhost` is another
/// program's page on port 80, not ours on 7860.
fn is_our_origin(origin: &str, port: Option<u16>) -> bool {
    let Some(rest) = origin.trim().strip_prefix("http://") else { return false };
    let rest = rest.trim_end_matches('/');
    if rest.contains(['/', '?', '#', '@']) {
        return false;
    }
    let names_a_port = rest.rsplit_once(':').is_some_and(|(_, p)| !p.contains(']'));
    if !names_a_port && port.is_some_and(|p| p != 80) {
        return false;
    }
    let mut headers = HeaderMap::new();
    match HeaderValue::from_str(rest) {
        Ok(v) => headers.insert(header::HOST, v),
        Err(_) => return false,
    };
    // The same rule as the Host check: our names, our port.
    host_allowed(&headers, port)
}

/// The one decision for every state-changing request, from the headers a browser sends:
///
/// 1. `Sec-Fetch-Site`, when present, decides: `same-origin` or `none` (typed, bookmarked) is
///    ours, anything else is not.
/// 2. Else `Origin` decides: it must be our own origin; `null` and any other site are not.
/// 3. Else `Referer` decides the same way, from the origin of the page it names.
/// 4. Else nothing says where the request came from. A browser sends `Origin` with every
///    cross-site `POST`, so such a request is a non-browser client (curl, a script, the CLI), and
///    it passes, unless it carries a body a page could forge without the browser asking first
///    (a form: `application/x-www-form-urlencoded`, `multipart/form-data` or `text/plain`): that
///    is refused, since an old browser might send one without `Origin`.
pub fn provenance(
    sec_fetch_site: Option<&str>,
    origin: Option<&str>,
    referer: Option<&str>,
    content_type: Option<&str>,
    port: Option<u16>,
) -> Provenance {
    let verdict = |ours: bool| if ours { Provenance::Ours } else { Provenance::Foreign };
    if let Some(site) = sec_fetch_site {
        return verdict(matches!(site.trim().to_ascii_lowercase().as_str(), "same-origin" | "none"));
    }
    if let Some(origin) = origin {
        return verdict(is_our_origin(origin, port));
    }
    if let Some(referer) = referer {
        let origin = referer.trim().strip_prefix("http://").map(|rest| {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            format!("http://{}", &rest[..end])
        });
        return verdict(origin.is_some_and(|o| is_our_origin(&o, port)));
    }
    let essence = content_type.map(|t| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase());
    verdict(!matches!(
        essence.as_deref(),
        Some("application/x-www-form-urlencoded" | "multipart/form-data" | "text/plain")
    ))
}

fn header_str(headers: &HeaderMap, name: impl axum::http::header::AsHeaderName) -> Option<&str> {
    // A header that is not text is present, but says nothing we accept.
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// [`provenance`] of a request's headers: whether a write from it must be refused.
pub(crate) fn is_cross_site_at(headers: &HeaderMap, port: Option<u16>) -> bool {
    provenance(
        header_str(headers, "sec-fetch-site"),
        header_str(headers, header::ORIGIN),
        header_str(headers, header::REFERER),
        header_str(headers, header::CONTENT_TYPE),
        port,
    ) == Provenance::Foreign
}

/// Whether `next` may be redirected to: a path on this site, `/` alone or `/` followed by a
/// character that is not `/`, `\` or a control character (which browsers drop, so `/\t/evil`
/// reads as `//evil`), and no control character anywhere. Checked on the decoded value.
pub fn is_local_path(next: &str) -> bool {
    let mut chars = next.chars();
    if chars.next() != Some('/') {
        return false;
    }
    if let Some(second) = chars.next()
        && (second == '/' || second == '\\' || second.is_whitespace())
    {
        return false;
    }
    !next.chars().any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
}

/// `next` when it is a local path (see [`is_local_path`]), else `fallback`.
pub fn local_next<'a>(next: Option<&'a str>, fallback: &'a str) -> &'a str {
    match next {
        Some(n) if is_local_path(n) => n,
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
    fn provenance_follows_fetch_metadata_then_origin_then_referer() {
        use Provenance::{Foreign, Ours};
        let p = |site, origin, referer, ct| provenance(site, origin, referer, ct, Some(7860));
        let form = Some("application/x-www-form-urlencoded");
        assert_eq!(p(Some("same-origin"), Some("http://evil.example"), None, form), Ours, "fetch metadata first");
        assert_eq!(p(Some("cross-site"), Some("http://localhost:7860"), None, form), Foreign);
        assert_eq!(p(None, Some("http://evil.example"), None, form), Foreign);
        assert_eq!(p(None, Some("null"), None, form), Foreign);
        assert_eq!(p(None, Some("http://localhost:7860"), None, form), Ours);
        assert_eq!(p(None, Some("http://127.0.0.1:7860"), None, form), Ours);
        assert_eq!(p(None, Some("http://[::1]:7860"), None, form), Ours);
        assert_eq!(p(None, Some("http://localhost:7861"), None, form), Foreign, "another port is another origin");
        assert_eq!(p(None, Some("https://localhost:7860"), None, form), Foreign);
        for portless in ["http://localhost", "http://127.0.0.1/", "http://[::1]"] {
            assert_eq!(p(None, Some(portless), None, form), Foreign, "{portless} is port 80, not ours");
        }
        assert_eq!(p(None, None, Some("http://localhost/page"), form), Foreign, "a page on port 80");
        let on_80 = provenance(None, Some("http://localhost"), None, form, Some(80));
        assert_eq!(on_80, Ours, "on port 80 an origin names no port");
        assert_eq!(p(None, Some("http://localhost:7860.evil.example"), None, form), Foreign);
        assert_eq!(p(None, None, Some("http://localhost:7860/lessons?x=1"), form), Ours);
        assert_eq!(p(None, None, Some("http://evil.example/localhost:7860"), form), Foreign);
        assert_eq!(p(None, None, None, form), Foreign, "a form with nothing saying where from");
        assert_eq!(p(None, None, None, Some("multipart/form-data; boundary=x")), Foreign);
        assert_eq!(p(None, None, None, Some("TEXT/PLAIN")), Foreign);
        assert_eq!(p(None, None, None, None), Ours, "a client without a body: curl, the CLI");
        assert_eq!(p(None, None, None, Some("application/json")), Ours, "a body a page cannot send unasked");
    }

    #[test]
    fn cross_site_and_next() {
        let mut h = HeaderMap::new();
        assert!(!is_cross_site_at(&h, Some(7860)));
        for (site, cross) in [("same-origin", false), ("none", false), ("same-site", true), ("cross-site", true)] {
            h.insert("sec-fetch-site", HeaderValue::from_static(site));
            assert_eq!(is_cross_site_at(&h, Some(7860)), cross, "{site}");
        }
        assert_eq!(local_next(Some("/lessons?page=2"), "/"), "/lessons?page=2");
        assert_eq!(local_next(Some("/"), "/f"), "/");
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil",
            "lessons",
            "/x\r\nSet-Cookie: a",
            "/\t/evil.example",
            "/ /evil.example",
            "/\n/evil.example",
            "/\u{7f}/x",
            "",
            "/lessons\u{0}",
        ] {
            assert_eq!(local_next(Some(bad), "/fallback"), "/fallback", "{bad:?}");
        }
        assert_eq!(local_next(None, "/f"), "/f");
    }
}
