//! The hardened download used to import a lesson from a URL.

use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use crate::address;

/// Why a URL could not be imported. The texts are what a person reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FetchError {
    #[error("Only http(s) URLs can be imported.")]
    NotHttp,
    #[error("Only public http(s) URLs can be imported.")]
    NotPublic,
    #[error("The URL could not be reached — copy the lesson text instead.")]
    Unreachable,
    #[error("The URL redirects too many times — copy the lesson text instead.")]
    TooManyRedirects,
    #[error("The URL answered {0} — nothing to import there.")]
    Status(u16),
    #[error("That URL is too large to be a lesson.")]
    TooLarge,
    #[error("The URL timed out — copy the lesson text instead.")]
    Timeout,
}

type Lookup = dyn Fn(&str, u16) -> io::Result<Vec<SocketAddr>> + Send + Sync;

/// The limits of a fetch, and how names are looked up and vetted.
#[derive(Clone)]
pub struct FetchPolicy {
    /// For the whole operation, redirects and body included.
    pub timeout: Duration,
    pub max_bytes: u64,
    pub max_redirects: u32,
    /// Name lookup (the system resolver by default).
    pub lookup: Arc<Lookup>,
    /// Which addresses may be dialled ([`address::is_public`] by default).
    pub allowed: fn(IpAddr) -> bool,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(5),
            max_bytes: devcoach_core::limits::FETCH_BYTES,
            max_redirects: 3,
            lookup: Arc::new(|host, port| (host, port).to_socket_addrs().map(Iterator::collect)),
            allowed: address::is_public,
        }
    }
}

impl std::fmt::Debug for FetchPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchPolicy")
            .field("timeout", &self.timeout)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

/// The marker a refused host travels in through ureq's error.
#[derive(Debug)]
struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a public address")
    }
}

impl std::error::Error for Refused {}

/// Resolves every host itself and vets every address; ureq then dials exactly these addresses,
/// so the socket is pinned to what was vetted.
struct Vetted {
    lookup: Arc<Lookup>,
    allowed: fn(IpAddr) -> bool,
}

impl std::fmt::Debug for Vetted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Vetted")
    }
}

impl Resolver for Vetted {
    fn resolve(&self, uri: &Uri, _config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri.host().ok_or(ureq::Error::HostNotFound)?;
        let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
        if address::is_local_name(&host) {
            return Err(ureq::Error::Other(Box::new(Refused)));
        }
        let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("https") { 443 } else { 80 });
        // An address written as one is vetted as it stands, whatever the resolver would do.
        if let Ok(ip) = host.parse::<IpAddr>() {
            if !(self.allowed)(ip) {
                return Err(ureq::Error::Other(Box::new(Refused)));
            }
            let mut out = self.empty();
            out.push(SocketAddr::new(ip, port));
            return Ok(out);
        }
        let lookup = Arc::clone(&self.lookup);
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let name = host.clone();
        std::thread::spawn(move || tx.send(lookup(&name, port)).ok());
        let wait = if timeout.after.is_not_happening() { Duration::from_secs(5) } else { *timeout.after };
        let addrs = match rx.recv_timeout(wait) {
            Ok(Ok(addrs)) => addrs,
            Ok(Err(_)) => return Err(ureq::Error::HostNotFound),
            Err(_) => return Err(ureq::Error::Timeout(ureq::Timeout::Resolve)),
        };
        if addrs.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        // One private address is enough to refuse: the host is not the public internet.
        if addrs.iter().any(|a| !(self.allowed)(a.ip())) {
            return Err(ureq::Error::Other(Box::new(Refused)));
        }
        let mut out = self.empty();
        for a in addrs.into_iter().take(16) {
            out.push(a);
        }
        Ok(out)
    }
}

fn is_http(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")) && !url.chars().any(char::is_whitespace)
}

/// Resolves a `Location` against the URL that sent it.
fn join(base: &str, location: &str) -> Option<String> {
    let location = location.trim();
    // An absolute reference starts with a scheme (RFC 3986: a letter, then letters, digits,
    // `+`, `-` or `.`, then `:`), with or without `//`: `data:` and `javascript:` are absolute
    // too, and the checks that follow refuse them.
    let scheme = location.split_once(':').map(|(s, _)| s).filter(|s| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if scheme.is_some() {
        return Some(location.to_owned());
    }
    let scheme_end = base.find("://")? + 3;
    let scheme = &base[..scheme_end];
    let rest = &base[scheme_end..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if let Some(net) = location.strip_prefix("//") {
        return Some(format!("{scheme}{net}"));
    }
    if location.starts_with('/') {
        return Some(format!("{scheme}{authority}{location}"));
    }
    let path = &rest[authority.len()..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let dir = if dir.is_empty() { "/" } else { dir };
    Some(format!("{scheme}{authority}{dir}{location}"))
}

fn map_error(e: &ureq::Error) -> FetchError {
    match e {
        ureq::Error::Other(inner) if inner.downcast_ref::<Refused>().is_some() => FetchError::NotPublic,
        ureq::Error::Timeout(_) => FetchError::Timeout,
        ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge,
        ureq::Error::Io(io) if io.kind() == io::ErrorKind::TimedOut => FetchError::Timeout,
        _ => FetchError::Unreachable,
    }
}

/// Downloads `url` as text within the policy's limits.
pub fn fetch(url: &str, policy: &FetchPolicy) -> Result<String, FetchError> {
    let mut url = url.trim().to_owned();
    if !is_http(&url) {
        return Err(FetchError::NotHttp);
    }
    let config =
        Config::builder().max_redirects(0).http_status_as_error(false).proxy(None).user_agent("devcoach").build();
    let agent = ureq::Agent::with_parts(
        config,
        DefaultConnector::new(),
        Vetted { lookup: Arc::clone(&policy.lookup), allowed: policy.allowed },
    );
    let deadline = Instant::now() + policy.timeout;
    let mut hops = 0;
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(FetchError::Timeout);
        }
        let mut response =
            agent.get(&url).config().timeout_global(Some(remaining)).build().call().map_err(|e| map_error(&e))?;
        let status = response.status().as_u16();
        if matches!(status, 301 | 302 | 303 | 307 | 308) {
            hops += 1;
            let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let next = location.and_then(|l| join(&url, &l)).ok_or(FetchError::TooManyRedirects)?;
            if hops > policy.max_redirects {
                return Err(FetchError::TooManyRedirects);
            }
            if !is_http(&next) {
                return Err(FetchError::NotPublic);
            }
            url = next;
            continue;
        }
        if !(200..300).contains(&status) {
            return Err(FetchError::Status(status));
        }
        let declared = response
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > policy.max_bytes) {
            return Err(FetchError::TooLarge);
        }
        let bytes =
            response.body_mut().with_config().limit(policy.max_bytes).read_to_vec().map_err(|e| map_error(&e))?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_urls() {
        assert!(is_http("https://example.com/x") && is_http("HTTP://EXAMPLE.COM"));
        for bad in
            ["ftp://x", "file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "https://a b", "example.com"]
        {
            assert_eq!(fetch(bad, &FetchPolicy::default()), Err(FetchError::NotHttp), "{bad}");
        }
    }

    #[test]
    fn locations_are_joined() {
        let base = "https://a.example/dir/page?q=1";
        assert_eq!(join(base, "https://b.example/x").as_deref(), Some("https://b.example/x"));
        assert_eq!(join(base, "//c.example/y").as_deref(), Some("https://c.example/y"));
        assert_eq!(join(base, "/root").as_deref(), Some("https://a.example/root"));
        assert_eq!(join(base, "sibling").as_deref(), Some("https://a.example/dir/sibling"));
        assert_eq!(join("http://h", "x").as_deref(), Some("http://h/x"));
        assert_eq!(join(base, "file:///etc/passwd").as_deref(), Some("file:///etc/passwd"));
        assert_eq!(join(base, "data:text/plain,x").as_deref(), Some("data:text/plain,x"));
        assert_eq!(join(base, "JavaScript:alert(1)").as_deref(), Some("JavaScript:alert(1)"));
    }

    #[test]
    fn private_hosts_are_refused_before_any_connection() {
        let policy = FetchPolicy::default();
        for url in [
            "http://127.0.0.1:9/",
            "http://localhost:9/",
            "http://sub.localhost/",
            "http://[::1]:9/",
            "http://10.0.0.1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:10.0.0.1]/",
            "http://0.0.0.0/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://017700000001/",
            "http://127.1/",
            "http://[fe80::1]/",
            "http://[::]/",
            "http://[0:0:0:0:0:0:0:1]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[fc00::1]/",
            "http://0177.0.0.1/",
            "http://0x7f.0.0.1/",
            "http://127.000.000.001/",
            "http://192.168.0.1/",
            "http://172.16.0.1/",
            "http://100.64.0.1/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
            "http://LOCALHOST/",
            "http://localhost./",
        ] {
            assert_eq!(fetch(url, &policy), Err(FetchError::NotPublic), "{url}");
        }
    }
}
