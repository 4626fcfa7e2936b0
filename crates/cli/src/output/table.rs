//! Tables with rounded borders and an optional centred title, rendered column by column
//! straight into a writer (a 1,000-lesson list never builds its cells or its text in memory).
//!
//! A table fits the width it is given by giving things up in rank order: at each rank, first the
//! cells of columns marked [`Column::shrink`] at that rank are cut (ending in `…`) down to their
//! floor, then the columns marked [`Column::optional`] at that rank are left out. If that is still
//! not enough every column is cut. The frame itself never wraps.
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
    /// Dropped when the table does not fit; lower ranks go first.
    optional: Option<u8>,
    /// The ranks at which this column's cells may be cut, each with the narrowest they are cut to.
    shrink: Vec<(u8, usize)>,
}

impl<'a, R> Column<'a, R> {
    /// `text` must give a row the same text each time it is asked: the table measures and
    /// cleans a cell once, and writes a cell that came clean as it comes the second time.
    pub fn new(header: &'a str, text: impl for<'r> Fn(&'r R) -> Cow<'r, str> + 'a) -> Self {
        Self { header, text: Box::new(text), style: Box::new(|_| Style::Plain), optional: None, shrink: Vec::new() }
    }

    /// The column may be left out, at `rank`, when the table does not fit.
    #[must_use]
    pub fn optional(mut self, rank: u8) -> Self {
        self.optional = Some(rank);
        self
    }

    /// The column's cells may be cut, at `rank`, down to `min` columns (ending in `…`); a column
    /// may give way in stages (cut a little early, the rest late).
    #[must_use]
    pub fn shrink(mut self, rank: u8, min: usize) -> Self {
        self.shrink.push((rank, min));
        self
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

    /// Writes the table; `color` enables the cells' styles and a bold title and header; `fit`
    /// is the widest the table may be (`None`: as wide as its cells).
    pub fn render<'r>(
        &self,
        rows: &'r [R],
        color: bool,
        fit: Option<usize>,
        out: &mut impl super::Sink,
    ) -> io::Result<()> {
        // Cells are cleaned before they are measured, so the frame fits what is shown; a cell is
        // one line, so the newlines and tabs cleaning keeps become spaces.
        let cell = |col: &Column<'a, R>, row: &'r R| one_line((col.text)(row));
        let mut natural: Vec<usize> = self.columns.iter().map(|c| style::width(c.header)).collect();
        // Each cell's width is kept (four bytes, not its text) so the rows below are not measured
        // a second time, with a bit that says whether cleaning changed it: a cell that came
        // clean (nearly all) is not looked at again on the way out.
        let mut measured: Vec<u32> = Vec::with_capacity(rows.len() * self.columns.len());
        for row in rows {
            for (w, col) in natural.iter_mut().zip(&self.columns) {
                let (text, width) = measured_line((col.text)(row));
                let changed = if matches!(text, Cow::Owned(_)) { CHANGED } else { 0 };
                measured.push(u32::try_from(width).ok().filter(|w| *w < CHANGED).map_or(u32::MAX, |w| w | changed));
                *w = (*w).max(width);
            }
        }
        let (shown, widths) = match fit {
            Some(max) => self.fit(natural, max),
            None => ((0..self.columns.len()).collect(), natural),
        };
        let columns: Vec<&Column<'a, R>> = shown.iter().map(|&i| &self.columns[i]).collect();
        let total: usize = widths.iter().map(|w| w + 3).sum::<usize>() + 1;
        let mut line = String::with_capacity(total * 4);
        if let Some(title) = self.title {
            let title = style::truncate(title, total);
            spaces(out, total.saturating_sub(style::width(&title)) / 2)?;
            writeln!(out, "{}", Style::Bold.paint(&title, color))?;
        }
        write_rule(out, &widths, ['╭', '┬', '╮'])?;
        line.push('│');
        for (w, col) in widths.iter().zip(&columns) {
            let header = one_line(Cow::Borrowed(col.header));
            push_cell(&mut line, &header, style::width(&header), *w, Style::Bold, color);
        }
        writeln!(out, "{line}")?;
        write_rule(out, &widths, ['├', '┼', '┤'])?;
        let stride = self.columns.len();
        for (r, row) in rows.iter().enumerate() {
            line.clear();
            line.push('│');
            for ((w, col), &c) in widths.iter().zip(&columns).zip(&shown) {
                // A width too large to keep (u32::MAX, from 2^31 - 1 up) is measured and cleaned
                // again on the way out.
                match measured.get(r * stride + c) {
                    Some(&m) if m & CHANGED == 0 => {
                        let known = usize::try_from(m).unwrap_or(usize::MAX);
                        push_cell(&mut line, &(col.text)(row), known, *w, (col.style)(row), color);
                    }
                    Some(&m) if m < u32::MAX => {
                        let known = usize::try_from(m & !CHANGED).unwrap_or(usize::MAX);
                        push_cell(&mut line, &cell(col, row), known, *w, (col.style)(row), color);
                    }
                    _ => push_cell(&mut line, &cell(col, row), usize::MAX, *w, (col.style)(row), color),
                }
            }
            line.push('\n');
            out.write_cleaned(&line)?;
        }
        write_rule(out, &widths, ['╰', '┴', '╯'])
    }

    /// Which columns to show, and how wide, so the frame is at most `max` columns wide.
    fn fit(&self, mut widths: Vec<usize>, max: usize) -> (Vec<usize>, Vec<usize>) {
        let total = |shown: &[usize], widths: &[usize]| shown.iter().map(|&i| widths[i] + 3).sum::<usize>() + 1;
        let mut shown: Vec<usize> = (0..self.columns.len()).collect();
        let mut ranks: Vec<u8> = self
            .columns
            .iter()
            .flat_map(|c| c.optional.into_iter().chain(c.shrink.iter().map(|(rank, _)| *rank)))
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        for rank in ranks {
            let excess = total(&shown, &widths).saturating_sub(max);
            let floors: Vec<(usize, usize)> = shown
                .iter()
                .filter_map(|&i| {
                    self.columns[i].shrink.iter().find(|(r, _)| *r == rank).map(|(_, min)| (i, (*min).max(1)))
                })
                .collect();
            cut_widest(&mut widths, &floors, excess);
            // Then the optional columns of this rank, rightmost first, while still too wide.
            while total(&shown, &widths) > max {
                let Some(pos) = shown.iter().rposition(|&i| self.columns[i].optional == Some(rank)) else { break };
                shown.remove(pos);
            }
        }
        // Last, every column gives way, but never below its narrowest declared cut (an id cut
        // further would name another lesson): past that the table is wider than asked.
        let excess = total(&shown, &widths).saturating_sub(max);
        let everyone: Vec<(usize, usize)> = shown
            .iter()
            .map(|&i| (i, self.columns[i].shrink.iter().map(|(_, min)| *min).min().unwrap_or(1).max(1)))
            .collect();
        cut_widest(&mut widths, &everyone, excess);
        let widths = shown.iter().map(|&i| widths[i]).collect();
        (shown, widths)
    }

    /// The table as text, coloured and fitted for `term` (for small tables).
    pub fn for_term(&self, rows: &[R], term: super::Term) -> String {
        self.to_text(rows, term.color_out, term.table_width())
    }

    pub fn to_text(&self, rows: &[R], color: bool, fit: Option<usize>) -> String {
        let mut buf = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = self.render(rows, color, fit, &mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    }
}

/// Lowers the widest of the `(column, floor)` columns until `excess` columns are saved or all sit
/// at their floors. The cap is found by bisection, so a 70,000-column cell costs no more than a
/// short one.
fn cut_widest(widths: &mut [usize], floors: &[(usize, usize)], excess: usize) {
    if excess == 0 {
        return;
    }
    let saved =
        |cap: usize| -> usize { floors.iter().map(|&(i, floor)| widths[i].saturating_sub(cap.max(floor))).sum() };
    // The largest cap that saves enough (0, and so every column at its floor, when none does).
    let (mut lo, mut hi) = (0, floors.iter().map(|&(i, _)| widths[i]).max().unwrap_or(0));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if saved(mid) >= excess { lo = mid } else { hi = mid - 1 }
    }
    // That cap may save a little more than needed: the first few cut columns keep one more.
    let mut surplus = saved(lo).saturating_sub(excess);
    for &(i, floor) in floors {
        let to = lo.max(floor);
        if widths[i] > to {
            widths[i] = if surplus > 0 && widths[i] > to {
                surplus -= 1;
                to + 1
            } else {
                to
            };
        }
    }
}

/// The bit of a measured width that says the cell did not come back as it went in (cleaning
/// changed it, or the column built its text): such a cell is cleaned again on the way out.
const CHANGED: u32 = 1 << 31;

/// A cell's text as [`one_line`] gives it, and its width: printable ASCII (nearly every cell)
/// is looked at once, not cleaned, searched for line breaks and measured in turn.
fn measured_line(text: Cow<'_, str>) -> (Cow<'_, str>, usize) {
    if super::clean::printable_ascii(&text) {
        let width = text.len();
        return (text, width);
    }
    let text = one_line(text);
    let width = style::width(&text);
    (text, width)
}

/// A cell's text cleaned and on one line; borrowed as it came when there was nothing to change
/// (nearly always), so measuring and printing a large table allocates nothing per cell.
fn one_line(text: Cow<'_, str>) -> Cow<'_, str> {
    let text = match super::clean::clean(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(cleaned) => Cow::Owned(cleaned),
    };
    // Cleaning leaves newlines and tabs (a carriage return is gone already).
    if text.bytes().any(|b| b == b'\n' || b == b'\t') { Cow::Owned(text.replace(['\n', '\t'], " ")) } else { text }
}

/// One cell, `text` being `text_width` columns wide, in a column `width` wide.
fn push_cell(line: &mut String, text: &str, text_width: usize, width: usize, style: Style, color: bool) {
    let (text, used) = if text_width <= width {
        (Cow::Borrowed(text), text_width)
    } else if text_width == usize::MAX && style::width(text) <= width {
        // Not measured before (too wide to keep): it may fit after all.
        (Cow::Borrowed(text), style::width(text))
    } else {
        let (cut, used) = style::cut(text, width);
        (Cow::Owned(cut), used.min(width))
    };
    line.push(' ');
    // Cleaned already: every cell, the header too, went through `one_line`.
    style.paint_cleaned_into(line, &text, color);
    let mut pad = width.saturating_sub(used) + 1;
    while pad > 0 {
        let n = pad.min(SPACES.len());
        line.push_str(&SPACES[..n]);
        pad -= n;
    }
    line.push('│');
}

const SPACES: &str = "                                                                ";

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
            table().to_text(&rows, false, None),
            "         Map\n\
             ╭────────────┬──────╮\n\
             │ Topic      │ Conf │\n\
             ├────────────┼──────┤\n\
             │ rust       │ 5/10 │\n\
             │ typescript │ 8/10 │\n\
             ╰────────────┴──────╯\n"
        );
        assert!(table().to_text(&rows, true, None).contains("\x1b[33m5/10\x1b[0m"));
    }

    #[test]
    fn wide_characters_keep_columns_aligned() {
        let t: Table<'_, &str> = Table::new(vec![
            Column::new("★", |_: &&str| Cow::Borrowed("★")),
            Column::new("Title", |r: &&str| Cow::Borrowed(*r)),
        ]);
        let lines: Vec<usize> = t.to_text(&["💡 idea", "plain"], false, None).lines().map(style::width).collect();
        assert!(lines.windows(2).all(|w| w[0] == w[1]), "{lines:?}");
    }

    /// A cell cleaning changes is cleaned again on the way out (only its width is kept), and a
    /// clean one is written as it came: no control byte or tab reaches the terminal either way.
    #[test]
    fn cells_are_shown_cleaned_whichever_way_they_came() {
        let t: Table<'_, &str> = Table::new(vec![Column::new("Cell", |r: &&str| Cow::Borrowed(*r))]);
        let rows = ["plain", "\x1b[31mred\x1b[0m", "a\tb", "x\u{7}y\nz", "café"];
        let text = t.to_text(&rows, false, None);
        assert!(!text.bytes().any(|b| b == 0x1b || b == b'\t' || b == 0x07), "{text:?}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), rows.len() + 4);
        assert!(lines.iter().map(|l| style::width(l)).collect::<Vec<_>>().windows(2).all(|w| w[0] == w[1]), "{text}");
        assert!(text.contains("│ plain "));
        assert!(text.contains("│ a b "));
        assert!(text.contains("│ café "));
    }

    #[test]
    fn any_width_renders_without_panicking() {
        let long = "t".repeat(70_000);
        let t: Table<'_, (String, String)> = Table::new(vec![
            Column::new("Topic", |r: &(String, String)| Cow::Borrowed(r.0.as_str())),
            Column::new("Group", |r: &(String, String)| Cow::Borrowed(r.1.as_str())),
        ])
        .title("Knowledge profile");
        let text = t.to_text(&[(long.clone(), long.clone())], false, None);
        assert!(text.contains(&long));
        assert!(text.lines().all(|l| l.ends_with('│')
            || l.ends_with('╮')
            || l.ends_with('╯')
            || l.ends_with('┤')
            || l.trim_start().starts_with("Knowledge")));
    }

    fn cell(i: usize) -> impl for<'r> Fn(&'r Vec<String>) -> Cow<'r, str> {
        move |r: &Vec<String>| Cow::Borrowed(r.get(i).map_or("", String::as_str))
    }

    fn fitted<'a>() -> Table<'a, Vec<String>> {
        Table::new(vec![
            Column::new("★", cell(0)),
            Column::new("ID", cell(1)).shrink(5, 6),
            Column::new("Date", cell(2)).optional(4),
            Column::new("Topic", cell(3)).optional(2).shrink(2, 8),
            Column::new("Title", cell(4)).shrink(3, 24).shrink(5, 12),
            Column::new("Categories", cell(5)).optional(0),
        ])
        .title("Lessons")
    }

    #[test]
    fn narrow_tables_give_up_columns_in_rank_order() {
        let rows = vec![
            [
                "★",
                "redis-ttl-jitter",
                "2026-11-30",
                "redis",
                "Add jitter to cache expiry, or every key expires at once",
                "redis, caching",
            ]
            .map(String::from)
            .to_vec(),
        ];
        let header =
            |fit| fitted().to_text(&rows, false, Some(fit)).lines().nth(2).map(str::to_owned).unwrap_or_default();
        let shown = |fit| -> Vec<&str> {
            let h = header(fit);
            ["Categories", "Topic", "Date", "ID", "Title"].into_iter().filter(|c| h.contains(c)).collect()
        };
        assert_eq!(shown(200), ["Categories", "Topic", "Date", "ID", "Title"]);
        assert_eq!(shown(110), ["Topic", "Date", "ID", "Title"]);
        assert_eq!(shown(80), ["Date", "ID", "Title"]);
        assert_eq!(shown(60), ["ID", "Title"]);
        assert_eq!(shown(30), ["ID", "Title"]);
        // Only as much is cut as the width needs; the title gives way to 24 before the date goes.
        let at = |fit| fitted().to_text(&rows, false, Some(fit));
        assert!(at(80).contains("│ Add jitter to cache expiry, or every ke… │"), "{}", at(80));
        assert!(at(60).contains("│ Add jitter to cache exp… │"), "{}", at(60));
    }

    proptest::proptest! {
        /// Whatever the cells and the width, every line of the frame is exactly as wide as the
        /// others and no wider than asked (down to the narrowest frame the columns can make).
        #[test]
        fn every_fitted_frame_is_whole(
            rows in proptest::collection::vec(proptest::collection::vec("[a-z🎓 ]{0,40}", 6), 0..6),
            fit in 0usize..160,
        ) {
            let text = fitted().to_text(&rows, false, Some(fit));
            let mut lines = text.lines();
            let _title = lines.next();
            let widths: Vec<usize> = lines.map(style::width).collect();
            proptest::prop_assert!(widths.windows(2).all(|w| w[0] == w[1]), "{text}");
            // The columns that are never left out, at their narrowest cuts (★ 1, ID 6, Title
            // 12), with borders: from that width on the table fits; below it, it is as narrow
            // as its cuts allow.
            let narrowest = (1 + 6 + 12) + 3 * 3 + 1;
            if fit >= narrowest {
                proptest::prop_assert!(widths[0] <= fit, "{fit}: {text}");
            } else {
                proptest::prop_assert!(widths[0] <= narrowest, "{fit}: {text}");
            }
        }
    }
}
