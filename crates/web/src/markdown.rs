//! Lesson markdown to HTML, safe to put in a page: raw HTML in the source is shown as text,
//! links keep only http(s), mailto and in-page targets, and images become links (a lesson someone
//! shared must not make the browser fetch anything).

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd, html};

fn safe_url(url: &str) -> bool {
    let url = url.trim().to_ascii_lowercase();
    if url.starts_with("http://") || url.starts_with("https://") || url.starts_with("mailto:") {
        return true;
    }
    // A relative URL: no scheme before the first path, query or fragment character.
    let end = url.find(['/', '?', '#']).unwrap_or(url.len());
    !url[..end].contains(':') && !url.starts_with("//")
}

/// Renders `markdown` (CommonMark with tables, strikethrough and task lists).
pub(crate) fn to_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // For each open link or image: whether it is kept as a link.
    let mut open: Vec<bool> = Vec::new();
    let events = Parser::new_ext(markdown, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link { dest_url, title, id, link_type }) => {
            let keep = safe_url(&dest_url);
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link { link_type, dest_url, title, id }))
        }
        Event::Start(Tag::Image { dest_url, title, id, .. }) => {
            let keep = safe_url(&dest_url) && !dest_url.trim().is_empty();
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link { link_type: LinkType::Inline, dest_url, title, id }))
        }
        Event::End(TagEnd::Link | TagEnd::Image) => open.pop().unwrap_or(false).then_some(Event::End(TagEnd::Link)),
        other => Some(other),
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_markdown_is_inert() {
        let html = to_html(
            "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) \
             [data](data:text/html,hi) [ok](https://example.com/a?b=\"c\") ![pic](https://example.com/p.png) \
             [rel](/lessons#x) <javascript:alert(1)> [vb](VBScript:x) [sp]( javascript:x)",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.to_ascii_lowercase().contains("href=\"javascript"), "{html}");
        assert!(!html.contains("href=\"data:"), "{html}");
        assert!(!html.to_ascii_lowercase().contains("vbscript"), "{html}");
        assert!(html.contains("href=\"https://example.com/a?b=%22c%22\""), "{html}");
        assert!(html.contains("<a href=\"https://example.com/p.png\">pic</a>"), "{html}");
        assert!(html.contains("href=\"/lessons#x\""), "{html}");
        assert!(html.contains(">click<") || html.contains("click"), "the text of a dropped link stays");
    }

    #[test]
    fn ordinary_markdown_renders() {
        let html = to_html(
            "# T\n\nSome `code` and **bold**.\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        assert!(html.contains("<h1>T</h1>"));
        assert!(html.contains("<code>code</code>"));
        assert!(html.contains("<pre><code class=\"language-rust\">"));
        assert!(html.contains("<table>"));
    }
}
