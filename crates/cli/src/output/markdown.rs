//! Lesson bodies (CommonMark) as terminal text: headings, emphasis and inline code styled,
//! paragraphs and list items wrapped to the width, code blocks indented and dimmed. Without
//! colours the same layout comes out as plain text.
//!
//! Links show their address after the text: a body may come from someone else's share, and the
//! terminal door only lets through links whose target is this machine's dashboard, so a link's
//! destination is always visible rather than hidden behind its words.

use devcoach_core::limits;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::style::{self, Style};

/// `markdown` laid out for a terminal `width` columns wide; styled when `color`.
pub fn render(markdown: &str, width: usize, color: bool) -> String {
    // Escape sequences are removed whole before parsing: the parser would otherwise split one
    // at its `[` and leave the rest as text.
    let markdown = super::clean::clean(markdown);
    let mut r = Renderer { color, width: width.max(20), ..Renderer::default() };
    for event in Parser::new_ext(&markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        r.event(event);
    }
    r.flush();
    let mut out = r.out.trim_end().to_owned();
    out.push('\n');
    out
}

#[derive(Default)]
struct Renderer {
    color: bool,
    width: usize,
    out: String,
    /// The current block's text, already styled.
    inline: String,
    styles: Vec<Style>,
    /// Open lists, innermost last: the next number of an ordered one.
    lists: Vec<Option<u64>>,
    quotes: usize,
    /// The marker the next line of text starts with (a list item's bullet or number).
    bullet: Option<String>,
    /// Open links: the address and where the link's text starts in `inline`.
    links: Vec<(String, usize)>,
    code: Option<String>,
    /// The cells of the table row being read.
    cells: Vec<String>,
    in_head: bool,
}

impl Renderer {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => match &mut self.code {
                Some(code) => code.push_str(&t),
                None => self.text(&t, self.style()),
            },
            Event::Code(t) => {
                if self.color {
                    self.text(&t, Style::Cyan);
                } else {
                    self.text(&format!("`{t}`"), Style::Plain);
                }
            }
            Event::SoftBreak => self.inline.push(' '),
            Event::HardBreak => self.inline.push('\n'),
            Event::Rule => {
                self.flush();
                let rule = "─".repeat(self.width.min(40));
                self.line(&Style::Dim.paint(&rule, self.color));
                self.gap();
            }
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                self.styles.push(if matches!(level, HeadingLevel::H1 | HeadingLevel::H2) {
                    Style::BoldCyan
                } else {
                    Style::Bold
                });
            }
            Tag::Emphasis => self.styles.push(Style::Italic),
            Tag::Strong => self.styles.push(Style::Bold),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push((dest_url.into_string(), self.inline.len()));
            }
            Tag::Strikethrough => self.styles.push(Style::Dim),
            Tag::Table(_) | Tag::HtmlBlock => self.flush(),
            Tag::TableHead => self.in_head = true,
            Tag::TableRow => self.cells.clear(),
            Tag::TableCell => self.inline.clear(),

            Tag::List(first) => {
                self.flush();
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => if self.color { "• " } else { "- " }.to_owned(),
                };
                self.bullet = Some(marker);
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quotes += 1;
            }
            Tag::CodeBlock(_) => {
                self.flush();
                self.code = Some(String::new());
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush();
                self.gap();
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush();
                self.gap();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                if let Some((url, start)) = self.links.pop() {
                    // An address shown as its own text (an autolink) is not repeated.
                    let text = super::clean::door(self.inline.get(start..).unwrap_or(""), false);
                    if !url.is_empty() && text.trim() != url {
                        self.text(&format!(" ({url})"), Style::Dim);
                    }
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                self.cells.push(cell.trim().to_owned());
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                let bar = Style::Dim.paint(" │ ", self.color);
                let row = std::mem::take(&mut self.cells).join(&bar);
                self.inline =
                    if self.in_head { Style::Bold.paint(&super::clean::door(&row, false), self.color) } else { row };
                self.in_head = false;
                self.flush();
            }
            TagEnd::Table => self.gap(),
            TagEnd::Item => {
                // An item with no text still shows its bullet.
                if self.inline.trim().is_empty()
                    && let Some(bullet) = self.bullet.take()
                {
                    let line = format!("{}{}", self.prefix(), bullet.trim_end());
                    self.line(&line);
                }
                self.flush();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                self.gap();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quotes = self.quotes.saturating_sub(1);
                self.gap();
            }
            TagEnd::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                let indent = format!("{}    ", self.prefix());
                // Code keeps its lines (wrapping would change it); a line wider than the screen
                // is cut, so the layout still fits.
                let room = self.width.saturating_sub(style::width(&super::clean::door(&indent, false))).max(8);
                for line in code.trim_end_matches('\n').lines() {
                    let line = style::truncate(line, room);
                    let text = format!("{indent}{}", Style::Dim.paint(&line, self.color));
                    self.line(text.trim_end());
                }
                self.gap();
            }
            _ => {}
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or(Style::Plain)
    }

    fn text(&mut self, text: &str, style: Style) {
        style.paint_into(&mut self.inline, text, self.color);
    }

    /// What every line of the current block starts with: quote bars and list indentation, each
    /// at most [`limits::MARKDOWN_DEPTH`] deep.
    fn prefix(&self) -> String {
        let bar = if self.color { "│ " } else { "> " };
        let quote = Style::Dim.paint(&bar.repeat(self.quotes.min(limits::MARKDOWN_DEPTH)), self.color);
        format!("{quote}{}", "   ".repeat(self.lists.len().saturating_sub(1).min(limits::MARKDOWN_DEPTH)))
    }

    /// Writes the current block's text, wrapped, with its prefix (and a pending bullet).
    fn flush(&mut self) {
        let bullet = self.bullet.take();
        if self.inline.trim().is_empty() {
            self.inline.clear();
            if let Some(b) = bullet {
                // An item whose text comes in a later block (a paragraph) keeps its bullet.
                self.bullet = Some(b);
            }
            return;
        }
        let base = self.prefix();
        let first = format!("{base}{}", bullet.as_deref().unwrap_or(""));
        let rest = format!("{base}{}", " ".repeat(bullet.as_deref().map_or(0, style::width)));
        let text = std::mem::take(&mut self.inline);
        // At least half the width stays for the words, however deep the nesting.
        let (first, rest) = if style::width(&super::clean::door(&rest, false)) > self.width / 2 {
            (bullet.unwrap_or_default(), String::new())
        } else {
            (first, rest)
        };
        // A hard break starts a new line of the same block, with the continuation prefix.
        for (i, piece) in text.trim().lines().enumerate() {
            let wrapped = super::wrap_indented(piece.trim(), self.width, if i == 0 { &first } else { &rest }, &rest);
            self.line(&wrapped);
        }
    }

    fn line(&mut self, text: &str) {
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A blank line between blocks, except inside a list (items stay together).
    fn gap(&mut self) {
        if self.lists.is_empty() && !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::render;

    const BODY: &str = "## Examples\n\n*Senior tip:* use `?` with **context**.\n\n- one\n- two, a much longer item that has to wrap onto a second line at this width\n\n1. first\n2. second\n\n```rust\nlet x = 1;\n```\n\nSee [the docs](https://example.com/docs).\n";

    #[test]
    fn piped_text_has_no_markup_and_no_escapes() {
        let out = render(BODY, 40, false);
        assert_eq!(
            out,
            "Examples\n\nSenior tip: use `?` with context.\n\n- one\n- two, a much longer item that has to\n  wrap onto a second line at this width\n\n1. first\n2. second\n\n    let x = 1;\n\nSee the docs (https://example.com/docs).\n"
        );
    }

    #[test]
    fn a_terminal_gets_styles_and_every_line_fits() {
        let out = render(BODY, 40, true);
        assert!(out.contains("\x1b[1;36mExamples\x1b[0m"), "{out:?}");
        assert!(out.contains("\x1b[3mSenior tip:\x1b[0m"));
        assert!(out.contains("\x1b[36m?\x1b[0m"));
        assert!(out.contains("    \x1b[2mlet x = 1;\x1b[0m"));
        assert!(out.lines().all(|l| textwrap::core::display_width(l) <= 40), "{out}");
    }

    #[test]
    fn deep_nesting_costs_no_more_per_line_than_shallow() {
        let body = format!("{}{}", ">".repeat(12_500), " w".repeat(6_250));
        let out = render(&body, 60, true);
        assert!(out.len() < 200_000, "{} bytes", out.len());
        let lists: String = (0..2_000).map(|i| "  ".repeat(i) + "- item\n").collect();
        let out = render(&lists, 60, false);
        assert!(out.lines().all(|l| l.chars().count() <= 60), "{out}");
    }

    #[test]
    fn tables_html_autolinks_and_empty_items() {
        let out = render(
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n<div>raw</div>\n\nnext\n\n<https://x.example>\n\n- \n- two\n",
            60,
            false,
        );
        assert!(out.contains("a │ b\n1 │ 2"), "{out}");
        assert!(out.contains("<div>raw</div>\n\nnext"), "{out}");
        assert_eq!(out.matches("https://x.example").count(), 1, "{out}");
        assert!(out.contains("-\n- two"), "{out}");
        let colored = render("**<https://x.example>**", 60, true);
        assert_eq!(colored.matches("https://x.example").count(), 1, "{colored:?}");
    }

    #[test]
    fn outside_escapes_are_removed_and_long_words_broken() {
        let out = render(&format!("hi \x1b]52;c;AAAA\x07 \x1b[2J\x1b[31mred {}", "x".repeat(90)), 30, false);
        assert!(!out.contains('\x1b') && !out.contains("[2J") && !out.contains("[31m"), "{out:?}");
        assert!(out.lines().all(|l| l.chars().count() <= 30), "{out}");
    }
}
