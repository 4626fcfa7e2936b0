//! Tables with rounded borders and an optional centred title, rendered column by column
//! straight into a writer (a 1,000-lesson list never builds its cells or its text in memory).
//!
//! ```text
//!          Knowledge
//! ╭────────┬────────────╮
//! │ Topic  │ Confidence │
//! ├────────┼────────────┤
//! │ rust   │ 5/10       │
//! ╰────────┴────────────╯
//! ```

use std::borrow::Cow;
use std::io::{self, Write};

use super::style::{self, Style};

type Text<'a, R> = Box<dyn for<'r> Fn(&'r R) -> Cow<'r, str> + 'a>;
type Paint<'a, R> = Box<dyn Fn(&R) -> Style + 'a>;

/// One column: its header, how to read a row's text, how to paint it.
pub struct Column<'a, R> {
    header: &'a str,
    text: Text<'a, R>,
    style: Paint<'a, R>,
}

impl<'a, R> Column<'a, R> {
    pub fn new(header: &'a str, text: impl for<'r> Fn(&'r R) -> Cow<'r, str> + 'a) -> Self {
        Self { header, text: Box::new(text), style: Box::new(|_| Style::Plain) }
    }

    #[must_use]
    pub fn style(mut self, style: impl Fn(&R) -> Style + 'a) -> Self {
        self.style = Box::new(style);
        self
    }

    /// The same style for every row.
    #[must_use]
    pub fn fixed(self, style: Style) -> Self {
        self.style(move |_| style)
    }
}

pub struct Table<'a, R> {
    title: Option<&'a str>,
    columns: Vec<Column<'a, R>>,
}

impl<'a, R> Table<'a, R> {
    pub fn new(columns: Vec<Column<'a, R>>) -> Self {
        Self { title: None, columns }
    }

    #[must_use]
    pub fn title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Writes the table; `color` enables the cells' styles and a bold title and header.
    pub fn render(&self, rows: &[R], color: bool, out: &mut impl Write) -> io::Result<()> {
        // Cells are cleaned before they are measured, so the frame fits what is shown.
        let cell = |col: &Column<'a, R>, row: &R| super::clean::clean(&(col.text)(row)).into_owned();
        let mut widths: Vec<usize> = self.columns.iter().map(|c| style::width(c.header)).collect();
        for row in rows {
            for (w, col) in widths.iter_mut().zip(&self.columns) {
                *w = (*w).max(style::width(&cell(col, row)));
            }
        }
        let total: usize = widths.iter().map(|w| w + 3).sum::<usize>() + 1;
        let mut line = String::with_capacity(total * 4);
        if let Some(title) = self.title {
            spaces(out, total.saturating_sub(style::width(title)) / 2)?;
            writeln!(out, "{}", Style::Bold.paint(title, color))?;
        }
        write_rule(out, &widths, ['╭', '┬', '╮'])?;
        line.push('│');
        for (w, col) in widths.iter().zip(&self.columns) {
            push_cell(&mut line, col.header, style::width(col.header), *w, Style::Bold, color);
        }
        writeln!(out, "{line}")?;
        write_rule(out, &widths, ['├', '┼', '┤'])?;
        for row in rows {
            line.clear();
            line.push('│');
            for (w, col) in widths.iter().zip(&self.columns) {
                let text = cell(col, row);
                push_cell(&mut line, &text, style::width(&text), *w, (col.style)(row), color);
            }
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        write_rule(out, &widths, ['╰', '┴', '╯'])
    }

    /// The table as text (for small tables and tests).
    pub fn to_string(&self, rows: &[R], color: bool) -> String {
        let mut buf = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = self.render(rows, color, &mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    }
}

fn push_cell(line: &mut String, text: &str, used: usize, width: usize, style: Style, color: bool) {
    line.push(' ');
    style.paint_into(line, text, color);
    line.extend(std::iter::repeat_n(' ', width - used + 1));
    line.push('│');
}

fn spaces(out: &mut impl Write, n: usize) -> io::Result<()> {
    // Not `{:n$}`: a width past u16::MAX panics in the formatter, and cells can be that long.
    out.write_all(" ".repeat(n).as_bytes())
}

fn write_rule(out: &mut impl Write, widths: &[usize], [left, mid, right]: [char; 3]) -> io::Result<()> {
    let mut s = String::with_capacity(widths.iter().sum::<usize>() * 3 + 16);
    s.push(left);
    for (i, w) in widths.iter().enumerate() {
        s.extend(std::iter::repeat_n('─', w + 2));
        s.push(if i + 1 == widths.len() { right } else { mid });
    }
    s.push('\n');
    out.write_all(s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table<'a>() -> Table<'a, (&'static str, i64)> {
        Table::new(vec![
            Column::new("Topic", |r: &(&str, i64)| Cow::Borrowed(r.0)),
            Column::new("Conf", |r: &(&str, i64)| Cow::Owned(format!("{}/10", r.1)))
                .style(|r| if r.1 < 6 { Style::Yellow } else { Style::Plain }),
        ])
        .title("Map")
    }

    #[test]
    fn renders_rounded_with_a_centred_title() {
        let rows = [("rust", 5), ("typescript", 8)];
        assert_eq!(
            table().to_string(&rows, false),
            "         Map\n\
             ╭────────────┬──────╮\n\
             │ Topic      │ Conf │\n\
             ├────────────┼──────┤\n\
             │ rust       │ 5/10 │\n\
             │ typescript │ 8/10 │\n\
             ╰────────────┴──────╯\n"
        );
        assert!(table().to_string(&rows, true).contains("\x1b[33m5/10\x1b[0m"));
    }

    #[test]
    fn wide_characters_keep_columns_aligned() {
        let t: Table<'_, &str> = Table::new(vec![
            Column::new("★", |_: &&str| Cow::Borrowed("★")),
            Column::new("Title", |r: &&str| Cow::Borrowed(*r)),
        ]);
        let lines: Vec<usize> = t.to_string(&["💡 idea", "plain"], false).lines().map(style::width).collect();
        assert!(lines.windows(2).all(|w| w[0] == w[1]), "{lines:?}");
    }

    #[test]
    fn any_width_renders_without_panicking() {
        let long = "t".repeat(70_000);
        let t: Table<'_, (String, String)> = Table::new(vec![
            Column::new("Topic", |r: &(String, String)| Cow::Borrowed(r.0.as_str())),
            Column::new("Group", |r: &(String, String)| Cow::Borrowed(r.1.as_str())),
        ])
        .title("Knowledge profile");
        let text = t.to_string(&[(long.clone(), long.clone())], false);
        assert!(text.contains(&long));
        assert!(text.lines().all(|l| l.ends_with('│')
            || l.ends_with('╮')
            || l.ends_with('╯')
            || l.ends_with('┤')
            || l.trim_start().starts_with("Knowledge")));
    }
}
