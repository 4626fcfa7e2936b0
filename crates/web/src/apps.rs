//! The documents a chat host shows beside devcoach's tool results (MCP Apps): the lesson card
//! and the review card. Each is one self-contained page (no file, font or script is fetched) that
//! carries the dashboard's palette, the card stylesheet and the card script inline, and its own
//! policy: scripts only by the hash of that one script (so a tag or handler that ever slipped into
//! a lesson body would not run), no connections, no frames, no forms. The host's sandbox applies
//! its own policy on top.

use std::sync::OnceLock;

use base64::Engine as _;
use sha2::{Digest, Sha256};

/// Which card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    Lesson,
    Review,
}

impl App {
    fn name(self) -> &'static str {
        match self {
            Self::Lesson => "lesson",
            Self::Review => "review",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Self::Lesson => "devcoach lesson",
            Self::Review => "devcoach review",
        }
    }
}

/// The palette's token blocks (light, dark, and the system's dark preference): the start of the
/// dashboard's stylesheet up to the end of its `prefers-color-scheme` block.
fn palette_tokens() -> &'static str {
    let css = devcoach_assets::APP_CSS;
    let end = css
        .find("@media (prefers-color-scheme: dark)")
        .and_then(|start| css[start..].find("\n}\n").map(|end| start + end + 3))
        .unwrap_or(0);
    &css[..end]
}

/// The policy every card document declares for itself.
pub fn content_security_policy() -> &'static str {
    static POLICY: OnceLock<String> = OnceLock::new();
    POLICY.get_or_init(|| {
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(devcoach_assets::MCP_APP_JS));
        format!(
            "default-src 'none'; script-src 'sha256-{hash}'; style-src 'unsafe-inline'; img-src data:; \
             connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
        )
    })
}

/// The whole document of a card.
pub fn app_document(app: App) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\" data-app=\"{name}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n\
         <style>\n{tokens}{css}</style>\n</head>\n<body>\n<main id=\"app\">\
         <p class=\"muted\">Loading…</p></main>\n<script>{js}</script>\n</body>\n</html>\n",
        name = app.name(),
        title = app.title(),
        policy = content_security_policy(),
        tokens = palette_tokens(),
        css = devcoach_assets::MCP_APP_CSS,
        js = devcoach_assets::MCP_APP_JS,
    )
}

/// A lesson body as the card shows it: the dashboard's markdown rules (raw HTML shown as text,
/// only http(s), mailto and relative links kept, images turned into links).
pub fn lesson_body_html(markdown: &str) -> String {
    crate::markdown::to_html(markdown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_self_contained_and_pins_its_one_script() {
        for app in [App::Lesson, App::Review] {
            let html = app_document(app);
            assert!(html.contains(&format!("data-app=\"{}\"", app.name())));
            assert_eq!(html.matches("<script").count(), 1, "one script");
            for fetches in ["src=", "href=", "@import", "url("] {
                assert!(!html.contains(fetches), "{fetches} in the {app:?} document");
            }
            assert!(html.contains("connect-src 'none'"));
            assert!(!content_security_policy().contains("script-src 'unsafe-inline'"));
        }
        // The tokens came along: both themes.
        let tokens = palette_tokens();
        assert!(tokens.contains(":root[data-theme=\"dark\"]") && tokens.contains("prefers-color-scheme"));
        assert!(tokens.trim_end().ends_with('}'));
    }

    #[test]
    fn the_hash_is_of_the_script_that_is_inlined() {
        let html = app_document(App::Review);
        let start = html.find("<script>").expect("script") + "<script>".len();
        let end = html.find("</script>").expect("end");
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&html[start..end]));
        assert!(content_security_policy().contains(&format!("'sha256-{hash}'")));
    }
}
