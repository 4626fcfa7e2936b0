//! Everything the binary prints goes through here: stdout for results, stderr for notes and
//! errors. Colours only on a terminal and never with `NO_COLOR`.
//!
//! Text from outside (a lesson's title, a topic, a model's reply) may hold what a terminal acts
//! on, so every write passes one door ([`clean::door`]): nothing but newline, tab and the
//! module's own styles reaches the terminal, however the text was put together.

pub mod clean;
pub mod markdown;
pub mod style;
pub mod table;

use std::io::{self, BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub use style::Style;

/// Whether stdout and stderr take our styles (set once by [`Term::detect`]): the door keeps
/// them only then.
static COLOR_OUT: AtomicBool = AtomicBool::new(false);
static COLOR_ERR: AtomicBool = AtomicBool::new(false);
/// The width prose is fitted to, and whether it is (`--wide` turns it off for stdout).
static WIDTH: AtomicUsize = AtomicUsize::new(PIPED_WIDTH);
static FIT: AtomicBool = AtomicBool::new(true);

/// Where output goes, whether it may be coloured, and how wide it may be.
#[derive(Debug, Clone, Copy)]
pub struct Term {
    pub color_out: bool,
    pub color_err: bool,
    /// The columns output should fit: `COLUMNS` when set, else the terminal's, else 80.
    pub width: usize,
    /// Whether tables are fitted to `width` (`--wide` turns it off).
    pub fit: bool,
}

/// Narrower than this, nothing useful fits; a smaller `COLUMNS` is taken as this.
const MIN_WIDTH: usize = 20;
/// The width when stdout is not a terminal and `COLUMNS` is not set.
const PIPED_WIDTH: usize = 80;

impl Term {
    pub fn detect(wide: bool) -> Self {
        let allowed = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        let term = Self {
            color_out: allowed && io::stdout().is_terminal(),
            color_err: allowed && io::stderr().is_terminal(),
            width: detect_width(),
            fit: !wide,
        };
        COLOR_OUT.store(term.color_out, Ordering::Relaxed);
        COLOR_ERR.store(term.color_err, Ordering::Relaxed);
        WIDTH.store(term.width, Ordering::Relaxed);
        FIT.store(term.fit, Ordering::Relaxed);
        term
    }

    /// The widest a table may be, or `None` with `--wide`.
    pub fn table_width(self) -> Option<usize> {
        self.fit.then_some(self.width)
    }

    /// Styles text for stdout.
    pub fn out(self, style: Style, text: &str) -> String {
        style.paint(text, self.color_out)
    }

    /// Styles text for stderr.
    pub fn err(self, style: Style, text: &str) -> String {
        style.paint(text, self.color_err)
    }

    pub fn warn(self, text: &str) {
        note(&self.err(Style::Yellow, &format!("warning: {text}")));
    }
}

/// `COLUMNS` (what users set to ask for a width) wins over the terminal's own size, so a test or
/// a script gets the width it asked for. Piped into `head` or `less` from a terminal, stderr is
/// still that terminal: its width is the screen the text lands on.
fn detect_width() -> usize {
    let asked = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|c| *c > 0);
    let width = asked
        .or_else(|| terminal_size::terminal_size_of(io::stdout()).map(|(w, _)| usize::from(w.0)))
        .or_else(|| terminal_size::terminal_size_of(io::stderr()).map(|(w, _)| usize::from(w.0)))
        .unwrap_or(PIPED_WIDTH);
    width.max(MIN_WIDTH)
}

/// Writes a result to stdout as one piece, ending in a newline; a line wider than the terminal
/// is wrapped at spaces (never inside a word), unless `--wide` asked for lines as they are.
pub fn print(text: &str) -> io::Result<()> {
    if FIT.load(Ordering::Relaxed) {
        print_verbatim(&fill(text, WIDTH.load(Ordering::Relaxed)))
    } else {
        print_verbatim(text)
    }
}

/// Writes a result to stdout exactly as laid out: something to copy (a share card, a command)
/// or text already fitted (a lesson's body, whose code lines must not be reflowed).
pub fn print_verbatim(text: &str) -> io::Result<()> {
    let text = clean::door(text, COLOR_OUT.load(Ordering::Relaxed));
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// A writer that passes what goes through it by the door, one line at a time (a partial line
/// waits for its end, or for `flush`, so a sequence split across writes is still seen whole).
pub struct Door<W: Write> {
    inner: W,
    pending: Vec<u8>,
    own_styles: bool,
}

impl<W: Write> Door<W> {
    pub fn new(inner: W, own_styles: bool) -> Self {
        Self { inner, pending: Vec::new(), own_styles }
    }

    fn pass(&mut self, upto: usize) -> io::Result<()> {
        let text = utf8(&self.pending[..upto]);
        let written = self.inner.write_all(clean::door(&text, self.own_styles).as_bytes());
        self.pending.drain(..upto);
        written
    }
}

/// Where a table writes its rows. A row is made only of cells [`clean::clean`] has passed, the module's
/// own frame and its own styles, so the door need not look at it a second time (in a
/// 1,000-lesson list that second look was a fifth of the work).
pub trait Sink: Write {
    fn write_cleaned(&mut self, line: &str) -> io::Result<()> {
        self.write_all(line.as_bytes())
    }
}

impl Sink for Vec<u8> {}

impl<W: Write> Sink for Door<W> {
    fn write_cleaned(&mut self, line: &str) -> io::Result<()> {
        let waiting = self.pending.len();
        if waiting > 0 {
            self.pass(waiting)?;
        }
        self.inner.write_all(line.as_bytes())
    }
}

/// Bytes as text: checked by the fast validator, replaced only where they are not UTF-8.
fn utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    std::str::from_utf8(bytes).map_or_else(|_| String::from_utf8_lossy(bytes), std::borrow::Cow::Borrowed)
}

impl<W: Write> Write for Door<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Only the new bytes can hold a newline: a long line written in pieces costs linear time.
        let Some(last) = buf.iter().rposition(|b| *b == b'\n') else {
            self.pending.extend_from_slice(buf);
            return Ok(buf.len());
        };
        if self.pending.is_empty() {
            // Whole lines, the usual case: cleaned where they are, not copied first.
            let (lines, rest) = buf.split_at(last + 1);
            let text = utf8(lines);
            self.inner.write_all(clean::door(&text, self.own_styles).as_bytes())?;
            self.pending.extend_from_slice(rest);
        } else {
            let before = self.pending.len();
            self.pending.extend_from_slice(buf);
            self.pass(before + last + 1)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let n = self.pending.len();
        self.pass(n)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Door<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Stdout behind the door, for commands that write as they go (the interactive review).
pub fn stdout() -> Door<io::StdoutLock<'static>> {
    Door::new(io::stdout().lock(), COLOR_OUT.load(Ordering::Relaxed))
}

/// A note for the person at the terminal (stderr, so piped output stays clean).
/// Rewrites the current stderr line (a spinner); `clear_status` wipes it.
pub fn status(text: &str) {
    let text = clean::door(text, COLOR_ERR.load(Ordering::Relaxed));
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r{text}");
    let _ = err.flush();
}

pub fn clear_status() {
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K");
    let _ = err.flush();
}

/// Asks a yes/no question on the terminal (the prompt on stderr); `None` when stdin is not a
/// terminal, so a script is never asked and never answered for.
pub fn confirm(question: &str) -> io::Result<Option<bool>> {
    let stdin = io::stdin();
    if !stdin.is_terminal() {
        return Ok(None);
    }
    let asked = format!("{question} [y/N]");
    let question = wrap(&clean::door(&asked, COLOR_ERR.load(Ordering::Relaxed)), detect_width());
    let mut err = io::stderr().lock();
    write!(err, "{question} ")?;
    err.flush()?;
    let mut line = String::new();
    stdin.lock().read_line(&mut line)?;
    Ok(Some(matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")))
}

/// A line on stderr exactly as given: a JSON error, a log line another program reads.
pub fn note_verbatim(text: &str) {
    let text = clean::door(text, COLOR_ERR.load(Ordering::Relaxed));
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// Prose for the person at the terminal, on stderr, wrapped at spaces to the width.
pub fn note(text: &str) {
    let filled = fill(text, WIDTH.load(Ordering::Relaxed));
    let text = clean::door(&filled, COLOR_ERR.load(Ordering::Relaxed));
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// A hook's answer: one JSON object on one line, the only thing a hook writes to stdout. JSON
/// escapes every control character, and the door passes it as it is.
pub fn hook_answer(value: &serde_json::Value) {
    let text = format!("{value}\n");
    let line = clean::door(&text, false);
    let mut out = io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.flush();
}

/// Prints a value as pretty JSON with a final newline, streamed to stdout.
pub fn json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    write_stdout(|out| {
        serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
        out.write_all(b"\n")
    })?;
    Ok(())
}

/// Streams output to a buffered stdout, through the door.
pub fn write_stdout(
    f: impl FnOnce(&mut Door<io::BufWriter<io::StdoutLock<'static>>>) -> io::Result<()>,
) -> io::Result<()> {
    let mut out =
        Door::new(io::BufWriter::with_capacity(64 * 1024, io::stdout().lock()), COLOR_OUT.load(Ordering::Relaxed));
    f(&mut out)?;
    out.flush()
}

/// `text` with its lines wrapped at word boundaries to `width` columns (words longer than a line
/// are broken; escape codes take no room).
pub fn wrap(text: &str, width: usize) -> String {
    wrap_indented(text, width, "", "")
}

/// One finding or step as a list line: two spaces, the glyph in its colour, the text wrapped
/// to the width under a four-space hanging indent.
pub fn glyph_line(term: Term, style: Style, glyph: &str, text: &str) -> String {
    let wrapped = wrap_indented(text, term.width, "    ", "    ");
    format!("  {} {}\n", term.out(style, glyph), wrapped.get(4..).unwrap_or(""))
}

/// Like [`wrap`], with a prefix for the first line of each paragraph and one for the lines after.
pub fn wrap_indented(text: &str, width: usize, first: &str, rest: &str) -> String {
    let options = textwrap::Options::new(width.max(1))
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(true);
    text.split('\n').map(|line| textwrap::fill(line, &options)).collect::<Vec<_>>().join("\n")
}

/// Prose fitted to `width`: each line wrapped at spaces, its continuation lines indented as far
/// as the line itself. A word is never cut: a path, link or code longer than the line stays whole
/// on a line of its own (a terminal breaks it where it must, and a copy still pastes whole).
pub fn fill(text: &str, width: usize) -> String {
    text.split('\n')
        .map(|line| {
            if style::width(line) <= width {
                return line.to_owned();
            }
            let body = line.trim_start_matches(' ');
            let indent = &line[..line.len() - body.len()];
            let options = textwrap::Options::new(width.max(1))
                .initial_indent(indent)
                .subsequent_indent(indent)
                .word_splitter(textwrap::WordSplitter::NoHyphenation)
                .break_words(false);
            textwrap::fill(body, &options)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A command to paste, laid out to fit `width`: on one line when it fits, else one piece per
/// line joined by ` \` (as a shell reads it), each after `indent`; a piece longer than a line
/// stays whole on its own.
pub fn command_line(pieces: &[&str], indent: &str, width: usize) -> String {
    let one = format!("{indent}{}", pieces.join(" "));
    if style::width(&one) <= width || cfg!(windows) {
        return one;
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = indent.to_owned();
    for piece in pieces {
        let continued = if line.trim().is_empty() { format!("{line}{piece}") } else { format!("{line} {piece}") };
        if style::width(&continued) + 2 > width && !line.trim().is_empty() {
            lines.push(format!("{line} \\"));
            line = format!("{indent}  {piece}");
        } else {
            line = continued;
        }
    }
    lines.push(line);
    lines.join("\n")
}

/// "1 course", "3 courses".
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// `text` as a clickable link (OSC 8) where the terminal shows them, else `text` alone.
pub fn link(term: Term, url: &str, text: &str) -> String {
    if term.color_out && hyperlinks_supported() {
        format!("\x1b]8;;{url}\x07{text}\x1b]8;;\x07")
    } else {
        text.to_owned()
    }
}

/// `FORCE_HYPERLINK=1/0` decides; else the terminals known to show OSC 8 links.
fn hyperlinks_supported() -> bool {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if let Some(force) = var("FORCE_HYPERLINK") {
        return force != "0";
    }
    if var("TERM").as_deref() == Some("dumb") {
        return false;
    }
    matches!(var("TERM_PROGRAM").as_deref(), Some("iTerm.app" | "vscode" | "ghostty" | "WezTerm"))
        || var("TERM").as_deref() == Some("xterm-kitty")
        || var("WT_SESSION").is_some()
        || var("VTE_VERSION").and_then(|v| v.parse::<u32>().ok()).is_some_and(|v| v >= 5000)
}

#[cfg(test)]
mod door_tests {
    use std::io::Write;

    use super::Door;

    #[test]
    fn a_sequence_split_across_writes_still_goes_whole() {
        let mut out = Vec::new();
        {
            let mut door = Door::new(&mut out, false);
            for piece in ["tit", "le \u{1b}]5", "2;c;eA", "==\u{7}end\n", "next ", "\u{1b}[2", "Jline"] {
                door.write_all(piece.as_bytes()).expect("in memory");
            }
        }
        assert_eq!(String::from_utf8(out).expect("in memory"), "title end\nnext line");
    }

    #[test]
    fn a_long_line_in_many_pieces_is_written_once_whole() {
        let mut out = Vec::new();
        {
            let mut door = Door::new(&mut out, false);
            for _ in 0..100_000 {
                door.write_all(b"ab").expect("in memory");
            }
            door.write_all(b"\n").expect("in memory");
        }
        assert_eq!(out.len(), 200_001);
    }
}
