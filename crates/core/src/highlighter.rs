//! Code highlighting for course documents. A document carries one placeholder,
//! `<script data-devcoach="highlighter"></script>`; devcoach fills it with the vendored
//! highlight.js, its licence and a token stylesheet, and strips that exact block again (byte for
//! byte) when a course goes into a backup.

/// The canonical placeholder.
pub const PLACEHOLDER: &str = r#"<script data-devcoach="highlighter"></script>"#;
const SCRIPT_OPEN: &str = r#"<script data-devcoach="highlighter">"#;
const STYLE_OPEN: &str = r#"<style data-devcoach="highlighter">"#;

/// The highlighter library and its licence.
#[derive(Debug, Clone, Copy)]
pub struct Bundle<'a> {
    pub library: &'a str,
    pub licence: &'a str,
}

const TOKENS: [(&str, &str, &str); 8] = [
    ("keyword", "#0033b3", "#cf8e6d"),
    ("string", "#067d17", "#6aab73"),
    ("comment", "#5f6672", "#8b8f96"),
    ("number", "#1750eb", "#2aacb8"),
    ("title", "#00627a", "#56a8f5"),
    ("type", "#871094", "#c77dbb"),
    ("attr", "#374151", "#bcbec4"),
    ("meta", "#7a6a00", "#b3ae60"),
];

/// highlight.js classes and the token that colours them.
const CLASSES: [(&str, &str); 21] = [
    ("keyword", "keyword"),
    ("built_in", "type"),
    ("type", "type"),
    ("literal", "number"),
    ("number", "number"),
    ("string", "string"),
    ("regexp", "string"),
    ("symbol", "string"),
    ("char.escape_", "string"),
    ("comment", "comment"),
    ("doctag", "comment"),
    ("quote", "comment"),
    ("title", "title"),
    ("title.function_", "title"),
    ("title.class_", "type"),
    ("attr", "attr"),
    ("attribute", "attr"),
    ("variable", "attr"),
    ("property", "attr"),
    ("meta", "meta"),
    ("section", "title"),
];

fn token_css() -> String {
    let vars = |dark: bool| {
        let mut out = String::new();
        for (name, light, dark_value) in TOKENS {
            out.push_str(&format!("--syn-{name}:{};", if dark { dark_value } else { light }));
        }
        out
    };
    let mut css = format!(":where(:root){{{}}}", vars(false));
    css.push_str(&format!(
        "@media (prefers-color-scheme: dark){{:where(:root:not([data-theme=\"light\"])){{{}}}}}",
        vars(true)
    ));
    css.push_str(&format!(":where(:root[data-theme=\"dark\"]){{{}}}", vars(true)));
    for (class, token) in CLASSES {
        // `title.function_` becomes `.hljs-title.function_`: highlight.js writes both classes.
        css.push_str(&format!(".hljs-{class}{{color:var(--syn-{token})}}"));
    }
    css.push_str(".hljs-emphasis{font-style:italic}.hljs-strong{font-weight:bold}");
    css
}

const RUN: &str = "hljs.configure({ignoreUnescapedHTML:true});\
document.addEventListener(\"DOMContentLoaded\",function(){\
document.querySelectorAll(\"pre code\").forEach(function(el){\
if(!el.classList.contains(\"hljs\")&&!el.classList.contains(\"nohighlight\")){hljs.highlightElement(el);}});});";

/// The block that replaces the placeholder. `None` when the bundle could break out of its tag.
pub fn block(bundle: Bundle<'_>) -> Option<String> {
    if bundle.library.contains("</script") || bundle.licence.contains("*/") {
        return None;
    }
    Some(format!(
        "{STYLE_OPEN}{}</style>\n{SCRIPT_OPEN}/*\n{}\n*/\n{}\n{RUN}</script>",
        token_css(),
        bundle.licence.trim_end(),
        bundle.library.trim_end()
    ))
}

/// Where the first placeholder is (whitespace inside it allowed).
fn find_placeholder(html: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(pos) = html[from..].find(SCRIPT_OPEN) {
        let start = from + pos;
        let after = start + SCRIPT_OPEN.len();
        let rest = &html[after..];
        let inner = rest.len() - rest.trim_start().len();
        if rest[inner..].starts_with("</script>") {
            return Some((start, after + inner + "</script>".len()));
        }
        from = after;
    }
    None
}

/// The document contains code worth highlighting.
pub fn has_code(html: &str) -> bool {
    let tag_at = |tag: &str, from: usize| -> Option<usize> {
        let mut i = from;
        while let Some(p) = html[i..].find(tag) {
            let at = i + p;
            let next = html[at + tag.len()..].chars().next();
            if next.is_some_and(|c| c == '>' || c.is_whitespace()) {
                return Some(at);
            }
            i = at + tag.len();
        }
        None
    };
    tag_at("<pre", 0).is_some_and(|pre| tag_at("<code", pre).is_some())
}

/// A filled block is already there.
pub fn has_highlighter(html: &str) -> bool {
    html.contains(STYLE_OPEN)
        || html.match_indices(SCRIPT_OPEN).any(|(i, _)| {
            let rest = html[i + SCRIPT_OPEN.len()..].trim_start();
            !rest.starts_with("</script>")
        })
}

/// The document with its placeholder filled; `None` when there is nothing to do (already filled,
/// no placeholder, no code, or an unusable bundle).
pub fn fill(html: &str, bundle: Bundle<'_>) -> Option<String> {
    if has_highlighter(html) || !has_code(html) {
        return None;
    }
    let (start, end) = find_placeholder(html)?;
    let block = block(bundle)?;
    Some(format!("{}{block}{}", &html[..start], &html[end..]))
}

/// The document with this build's exact block replaced by the placeholder (other content,
/// including blocks written by anything else, is left as it is).
pub fn strip(html: &str, bundle: Bundle<'_>) -> String {
    match block(bundle) {
        Some(block) if html.contains(&block) => html.replacen(&block, PLACEHOLDER, 1),
        _ => html.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUNDLE: Bundle<'static> = Bundle { library: "var hljs={};", licence: "BSD 3-Clause License" };

    fn doc(placeholder: &str) -> String {
        format!("<html><body><pre><code class=\"language-rust\">fn main() {{}}</code></pre>{placeholder}</body></html>")
    }

    #[test]
    fn fill_and_strip_are_exact_inverses() {
        let original = doc(PLACEHOLDER);
        let filled = fill(&original, BUNDLE).expect("filled");
        assert!(filled.contains("BSD 3-Clause License") && filled.contains("--syn-keyword:#0033b3;"));
        assert!(has_highlighter(&filled));
        assert_eq!(fill(&filled, BUNDLE), None, "never filled twice");
        assert_eq!(strip(&filled, BUNDLE), original);
        assert_eq!(fill(&strip(&filled, BUNDLE), BUNDLE).as_deref(), Some(filled.as_str()));
    }

    #[test]
    fn whitespace_inside_the_placeholder_is_fine() {
        let filled = fill(&doc("<script data-devcoach=\"highlighter\">\n  </script>"), BUNDLE).expect("filled");
        assert_eq!(strip(&filled, BUNDLE), doc(PLACEHOLDER));
    }

    #[test]
    fn nothing_to_do() {
        assert_eq!(fill("<p>no code</p><script data-devcoach=\"highlighter\"></script>", BUNDLE), None);
        assert_eq!(fill("<pre><code>x</code></pre>", BUNDLE), None, "no placeholder");
        assert_eq!(fill(&doc(PLACEHOLDER), Bundle { library: "x</script>", licence: "" }), None);
        assert_eq!(fill(&doc(PLACEHOLDER), Bundle { library: "x", licence: "a */ b" }), None);
        let foreign = doc("<script data-devcoach=\"highlighter\">/* someone else's */</script>");
        assert_eq!(strip(&foreign, BUNDLE), foreign);
        assert!(!has_code("<prelude><code>x</code></prelude>"));
        assert!(has_code("<pre class=\"x\">\n<code>y</code></pre>"));
    }
}
