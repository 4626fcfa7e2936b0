//! The palette: colours live only in the stylesheet's token blocks, every text/background pair
//! reads (WCAG contrast ≥ 4.5, charts ≥ 3), and the pages that share the neutrals agree.

use std::collections::BTreeMap;
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every `#rrggbb` / `#rgb` colour in a text.
fn hex_colours(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for (i, b) in bytes.iter().enumerate() {
        if *b != b'#' {
            continue;
        }
        let run = bytes[i + 1..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        let after = bytes.get(i + 1 + run).copied().unwrap_or(b' ');
        if (run == 6 || run == 3) && !after.is_ascii_alphanumeric() && !matches!(after, b'-' | b'_') {
            out.push(text[i..=i + run].to_ascii_lowercase());
        }
    }
    out
}

/// The custom properties declared in the block opened by `selector {`.
fn tokens(css: &str, selector: &str) -> BTreeMap<String, String> {
    let start = css.find(&format!("{selector} {{")).unwrap_or_else(|| panic!("no block {selector}"));
    let end = start + css[start..].find('}').expect("block end");
    css[start..end]
        .lines()
        .filter_map(|l| l.trim().strip_prefix("--"))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().trim_end_matches(';').trim().to_ascii_lowercase()))
        .collect()
}

fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")) / 255.0;
        if c <= 0.039_28 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

const TEXT_PAIRS: [(&str, &str); 19] = [
    ("text", "bg"),
    ("text", "panel"),
    ("muted", "bg"),
    ("muted", "panel"),
    ("accent", "bg"),
    ("accent", "panel"),
    ("accent-strong", "panel"),
    ("on-accent", "accent"),
    ("on-accent", "accent-strong"),
    ("ok", "ok-soft"),
    ("warn", "warn-soft"),
    ("danger", "danger-soft"),
    ("ok", "panel"),
    ("warn", "panel"),
    ("danger", "panel"),
    ("text", "accent-soft"),
    ("text", "code-bg"),
    ("text", "ok-soft"),
    ("text", "warn-soft"),
];

const CHART_COLOURS: [&str; 7] = ["accent", "chart-shared", "chart-none", "ok", "warn", "danger", "muted"];

#[test]
fn every_pair_reads_in_both_themes() {
    let css = read("assets/static/app.css");
    let light = tokens(&css, ":root");
    let dark = tokens(&css, ":root[data-theme=\"dark\"]");
    let no_script_dark = tokens(&css, "  :root:not([data-theme=\"light\"])");
    assert_eq!(dark, no_script_dark, "the two dark blocks must agree");
    assert_eq!(light.keys().collect::<Vec<_>>(), dark.keys().collect::<Vec<_>>(), "both themes define the same tokens");
    let mut failures = Vec::new();
    for (theme, t) in [("light", &light), ("dark", &dark)] {
        for (fg, bg) in TEXT_PAIRS {
            let c = contrast(&t[fg], &t[bg]);
            if c < 4.5 {
                failures.push(format!("{theme}: --{fg} on --{bg} is {c:.2}:1"));
            }
        }
        for colour in CHART_COLOURS {
            for surface in ["panel", "bg"] {
                let c = contrast(&t[colour], &t[surface]);
                if c < 3.0 {
                    failures.push(format!("{theme}: chart --{colour} on --{surface} is {c:.2}:1"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // The dark neutrals step up from the page to the panels.
    assert!(luminance(&dark["bg"]) < luminance(&dark["panel"]));
    assert!(luminance(&light["bg"]) < luminance(&light["panel"]));
}

#[test]
fn colours_appear_only_as_tokens() {
    let css = read("assets/static/app.css");
    // Outside the three token blocks the stylesheet names no colour.
    let mut rest = css.clone();
    for selector in [":root {", ":root[data-theme=\"dark\"] {", "@media (prefers-color-scheme: dark) {"] {
        let start = rest.find(selector).expect("block");
        let end = if selector.starts_with("@media") {
            start + rest[start..].find("\n}\n").expect("media end") + 3
        } else {
            start + rest[start..].find('}').expect("end") + 1
        };
        rest.replace_range(start..end, "");
    }
    assert_eq!(hex_colours(&rest), Vec::<String>::new(), "colours outside the token blocks");
    for word in ["rgb(", "hsl(", "indigo", "color: red", "color: white", "color: black"] {
        assert!(!rest.contains(word), "stray colour {word:?} in app.css");
    }
    for entry in std::fs::read_dir(repo().join("crates/web/templates")).expect("templates") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("template");
        assert_eq!(hex_colours(&text), Vec::<String>::new(), "{}", path.display());
        assert!(!text.contains("color:") && !text.contains("background:"), "{}: inline colour", path.display());
    }
    for source in [
        "crates/web/src/plots.rs",
        "assets/static/app.js",
        "assets/static/course-viewer.js",
        "assets/static/mcp-app.js",
        "assets/static/mcp-app.css",
    ] {
        assert_eq!(hex_colours(&read(source)), Vec::<String>::new(), "{source}");
    }
}

#[test]
fn pages_outside_the_stylesheet_share_its_neutrals() {
    let css = read("assets/static/app.css");
    let light = tokens(&css, ":root");
    let dark = tokens(&css, ":root[data-theme=\"dark\"]");
    // The course frame script sets the dashboard's neutrals inside a course document.
    let frame = read("assets/static/course-frame.js");
    for (theme, t) in [("light", &light), ("dark", &dark)] {
        let start = frame.find(&format!("{theme}: {{")).expect("theme in course-frame.js");
        let block = &frame[start..start + frame[start..].find('}').expect("end")];
        for name in ["bg", "panel", "text", "muted", "line"] {
            assert!(block.contains(&format!("\"--{name}\": \"{}\"", t[name])), "course-frame.js {theme} --{name}");
        }
    }
    // The share page is published on its own: its colours are the dashboard's.
    let page = read("assets/site/lesson.html");
    let allowed: Vec<&String> = light.values().chain(dark.values()).collect();
    for colour in hex_colours(&page) {
        assert!(allowed.contains(&&colour), "assets/site/lesson.html uses {colour}, not a dashboard token");
    }
}
