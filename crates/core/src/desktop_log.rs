//! Claude Desktop's log of one MCP server (`mcp-server-<name>.log`), read for `doctor`: how
//! the last start went, and the most specific reason it failed. Outside input, read leniently:
//! fuzzed (`fuzz/fuzz_targets/desktop_log.rs`).
//!
//! Desktop writes one record a line, `<ISO-8601> [<server>] [info|warn|error] <message>`,
//! followed by metadata: one line of JSON (older builds), or Node's `util.inspect` output, which
//! either ends the line (`{ metadata: undefined }`) or opens with a `{` that ends the line and
//! closes with a `}` in column 0, its lines between indented. What the server itself writes to
//! stderr appears between the records as it is. A start begins with `Initializing server...`;
//! `Using MCP server command: <command> with args and path: {` carries the command, its
//! arguments and the PATH Desktop ran it with; `Message from server:` means it answered.
//!
//! The work is linear in the text and what is kept is capped (the consts below), so a log of
//! any shape costs no more than its length; the caller bounds that length
//! (`limits::DESKTOP_LOG_TAIL_BYTES`).

use crate::limits;

/// How many of the server's own stderr lines a [`Run`] keeps (the last ones).
pub const SAID_LINES: usize = 3;
/// How many characters of each of those lines are kept.
pub const SAID_CHARS: usize = 300;
/// How many of the command's arguments are kept.
pub const KEPT_ARGS: usize = 64;
/// How many PATH entries are kept.
pub const KEPT_PATHS: usize = 256;
/// How many characters of each argument, PATH entry, command and failed program are kept.
pub const ITEM_CHARS: usize = 1024;

/// How far into a line `spawn <program> <CODE>` is looked for, past the word `spawn`.
const SPAWN_WINDOW: usize = 1024;
/// How many `spawn ` words one line is searched at: a line of nothing else costs no more.
const SPAWN_TRIES: usize = 4;

/// The last start of the server in the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Run {
    /// The time of its `Initializing server...` record (as written), or of the first record
    /// of it the text holds when its beginning was cut off.
    pub started: Option<String>,
    /// The command Desktop ran, as it logged it (on Windows, `cmd.exe` wrapping the configured
    /// one).
    pub command: Option<String>,
    pub args: Vec<String>,
    /// The PATH Desktop ran it with, one folder an entry, when it logged one.
    pub path: Option<Vec<String>>,
    /// The most specific reason the run failed, if it did.
    pub failure: Option<Failure>,
    /// The time of the first record that showed the failure.
    pub failed_at: Option<String>,
    /// The server answered Desktop (`Message from server:`).
    pub answered: bool,
    /// The last lines the server wrote to stderr, each cut to [`SAID_CHARS`].
    pub server_said: Vec<String>,
}

/// Why a run failed, the most specific first: a program that could not be started, then what
/// the server said before it stopped, then Desktop giving up waiting, then the connection
/// closing (which every failure ends with).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Node could not start `program` (`spawn <program> ENOENT`): `code` is its error code.
    Spawn { program: String, code: String },
    /// The line of the server's stderr that best says what went wrong.
    ServerSaid(String),
    /// `MCP error -32001: Request timed out`.
    TimedOut,
    /// `Connection closed`, `Server disconnected`, the transport closing unexpectedly, or any
    /// other error record.
    Closed,
}

/// The program a script's `#!` line names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    /// A path (`/bin/bash`), or with `via_env` a name looked up on PATH (`node`).
    pub program: String,
    /// Run through `env`, which finds `program` on the PATH the script was started with.
    pub via_env: bool,
}

/// The last run in a server's log, or `None` when the text holds no line at all. A caller
/// reading the log's end drops the partial first line itself.
pub fn last_run(text: &str) -> Option<Run> {
    let mut reader = Reader::default();
    let mut seen = false;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        seen |= reader.line(line);
    }
    seen.then(|| reader.finish())
}

/// The interpreter named by a program's first line, if it starts with `#!`: `#!/bin/bash`,
/// `#!/usr/bin/env node`, `#!/usr/bin/env -S node --flag`. Only the first [`limits::SHEBANG_BYTES`]
/// are looked at.
pub fn interpreter_of(head: &[u8]) -> Option<Interpreter> {
    let head = head.get(..limits::SHEBANG_BYTES).unwrap_or(head);
    let rest = head.strip_prefix(b"#!")?;
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let line = String::from_utf8_lossy(rest.get(..end).unwrap_or(rest));
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if first != "env" && !first.ends_with("/env") {
        return Some(Interpreter { program: first.to_owned(), via_env: false });
    }
    for word in words {
        // `-S` splits the rest into words; it may be glued to the first of them.
        if let Some(glued) = word.strip_prefix("-S").filter(|g| !g.is_empty() && !g.starts_with('-')) {
            return Some(Interpreter { program: glued.to_owned(), via_env: true });
        }
        // Other options, and `NAME=value` assignments, come before the program.
        if word.starts_with('-') || word.contains('=') {
            continue;
        }
        return Some(Interpreter { program: word.to_owned(), via_env: true });
    }
    None
}

/// The program `env` said it could not find (`env: node: No such file or directory`, GNU's
/// `/usr/bin/env: 'node': No such file or directory`), from one line of a server's stderr.
pub fn missing_interpreter(line: &str) -> Option<&str> {
    let (head, rest) = line.trim().split_once(": ")?;
    if head != "env" && !head.ends_with("/env") {
        return None;
    }
    let name = rest.strip_suffix(": No such file or directory")?;
    let name = name.trim_matches(|c| matches!(c, '\'' | '"' | '‘' | '’'));
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Info,
    Warn,
    Error,
}

/// One record line, borrowed.
struct Record<'a> {
    stamp: &'a str,
    level: Level,
    message: &'a str,
}

/// `<time> [<server>] [<level>] <message>` (or without the server): `None` for any other line.
fn record(line: &str) -> Option<Record<'_>> {
    let (stamp, rest) = line.split_once(' ')?;
    let b = stamp.as_bytes();
    let looks_like_time = (10..=40).contains(&b.len())
        && b.iter().take(4).all(u8::is_ascii_digit)
        && b.get(4) == Some(&b'-')
        && b.contains(&b'T');
    if !looks_like_time || !rest.starts_with('[') {
        return None;
    }
    if let Some((level, message)) = level_prefix(rest) {
        return Some(Record { stamp, level, message });
    }
    // The server's name may hold anything, brackets included: try each `] [` (a few).
    rest.match_indices("] [").take(8).find_map(|(at, _)| {
        let (level, message) = level_prefix(rest.get(at + 2..)?)?;
        Some(Record { stamp, level, message })
    })
}

/// `[info] rest` → the level and the rest; the bracket is looked for only a few bytes in.
fn level_prefix(s: &str) -> Option<(Level, &str)> {
    let inner = s.strip_prefix('[')?;
    let close = inner.bytes().take(9).position(|b| b == b']')?;
    let word = inner.get(..close)?;
    let level = if word.eq_ignore_ascii_case("error") {
        Level::Error
    } else if word.eq_ignore_ascii_case("warn") || word.eq_ignore_ascii_case("warning") {
        Level::Warn
    } else if word.eq_ignore_ascii_case("info") || word.eq_ignore_ascii_case("debug") {
        Level::Info
    } else {
        return None;
    };
    Some((level, inner.get(close + 1..)?.trim_start()))
}

/// `text` cut to `max` characters.
fn cap(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// Undoes the backslash escapes of a JSON or JavaScript string (`\\`, `\'`, `\"`, `\n`).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Node's words for a program it could not start, `spawn <program> <CODE>` (`ENOENT`, `EACCES`,
/// …), in `text`. `quoted`: the text is inside a JSON or JavaScript string (metadata), whose
/// escapes are undone in the program.
fn spawn_in(text: &str, quoted: bool) -> Option<(String, String)> {
    text.match_indices("spawn ").take(SPAWN_TRIES).find_map(|(at, _)| {
        // A word of its own, not the end of another (`respawn `).
        let before = at.checked_sub(1).and_then(|i| text.as_bytes().get(i));
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            return None;
        }
        let window = prefix(text.get(at + "spawn ".len()..)?, SPAWN_WINDOW);
        let (program, code) = code_after(window)?;
        let program = program.trim();
        if program.is_empty() {
            return None;
        }
        let program = if quoted { unescape(program) } else { program.to_owned() };
        Some((cap(&program, ITEM_CHARS), code.to_owned()))
    })
}

/// Splits `<program> <CODE>…` at the first ` E…` word of 3 to 16 capitals and digits.
fn code_after(window: &str) -> Option<(&str, &str)> {
    let bytes = window.as_bytes();
    window.match_indices(" E").find_map(|(at, _)| {
        let start = at + 1;
        let len = bytes.get(start..)?.iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit()).count();
        let end = start + len;
        let ends_word = bytes.get(end).is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_');
        if at == 0 || !(3..=16).contains(&len) || !ends_word {
            return None;
        }
        Some((window.get(..at)?, window.get(start..end)?))
    })
}

/// devcoach's own lines on stderr (`devcoach 1.4.0 mcp · …`), which say it started, not
/// that anything went wrong.
fn is_banner(line: &str) -> bool {
    line.starts_with("devcoach ") && line.contains(" mcp · ")
}

/// Words in a line of stderr that say something went wrong: such a line is preferred over
/// the last one (`'npx' is not recognized…` over `operable program or batch file.`).
fn sounds_wrong(line: &str) -> bool {
    let lower = line.to_lowercase();
    [
        "error",
        "not found",
        "no such file",
        "not recognized",
        "cannot",
        "can't",
        "panicked",
        "denied",
        "failed",
        "missing",
        "not permitted",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Which list of the command record is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Args,
    Paths,
}

/// Reads `args: [ … ]` and `paths: [ … ]` out of the command record's metadata, in either form
/// (`"args":["mcp"]` or `args: [ 'mcp', [length]: 1 ]`), across lines; only whole strings at the
/// list's own level are items (`[length]: 1` is not one).
#[derive(Debug, Default)]
struct Lists {
    /// The list being read, and how deep in brackets.
    open: Option<(Key, usize)>,
    /// A key just read (`args:`), waiting for its `[`.
    pending: Option<Key>,
    /// The last word or short string seen outside a list: a key if a `:` follows.
    word: String,
    in_word: bool,
}

impl Lists {
    fn feed(&mut self, line: &str, run: &mut Run) {
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\'' | '"' | '`' => {
                    let (text, closed) = read_string(&mut chars, c);
                    self.in_word = false;
                    match self.open {
                        Some((key, 1)) if closed => push_item(run, key, text),
                        Some(_) => {}
                        None => {
                            self.pending = None;
                            self.word = if text.len() <= 8 { text } else { String::new() };
                        }
                    }
                }
                '[' => match &mut self.open {
                    Some((_, depth)) => *depth += 1,
                    None => {
                        if let Some(key) = self.pending.take() {
                            if key == Key::Paths && run.path.is_none() {
                                run.path = Some(Vec::new());
                            }
                            self.open = Some((key, 1));
                        }
                        self.in_word = false;
                    }
                },
                ']' => {
                    if let Some((_, depth)) = &mut self.open {
                        *depth -= 1;
                        if *depth == 0 {
                            self.open = None;
                        }
                    }
                    self.in_word = false;
                }
                _ if self.open.is_some() => {}
                ':' => {
                    self.pending = match self.word.as_str() {
                        "args" => Some(Key::Args),
                        "paths" => Some(Key::Paths),
                        _ => None,
                    };
                    self.word.clear();
                    self.in_word = false;
                }
                c if c.is_alphanumeric() || c == '_' => {
                    if !self.in_word {
                        self.word.clear();
                        self.pending = None;
                    }
                    if self.word.len() < 8 {
                        self.word.push(c);
                    }
                    self.in_word = true;
                }
                c if c.is_whitespace() => self.in_word = false,
                _ => {
                    self.pending = None;
                    self.word.clear();
                    self.in_word = false;
                }
            }
        }
        // Strings never run over a line end, and a key waits at most for the next line.
        self.in_word = false;
    }
}

/// A quoted string's contents after its opening `quote`, escapes undone and cut to
/// [`ITEM_CHARS`] (the rest is still read past); whether it was closed on this line.
fn read_string(chars: &mut std::str::Chars<'_>, quote: char) -> (String, bool) {
    let mut out = String::new();
    let mut kept = 0;
    let mut keep = |out: &mut String, c: char| {
        if kept < ITEM_CHARS {
            out.push(c);
            kept += 1;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => keep(&mut out, '\n'),
                Some('t') => keep(&mut out, '\t'),
                Some(other) => keep(&mut out, other),
                None => return (out, false),
            },
            c if c == quote => return (out, true),
            c => keep(&mut out, c),
        }
    }
    (out, false)
}

fn push_item(run: &mut Run, key: Key, item: String) {
    match key {
        Key::Args if run.args.len() < KEPT_ARGS => run.args.push(item),
        Key::Paths => {
            if let Some(path) = run.path.as_mut().filter(|p| p.len() < KEPT_PATHS) {
                path.push(item);
            }
        }
        Key::Args => {}
    }
}

/// What the lines after a record that opened a metadata block belong to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Block {
    #[default]
    None,
    /// Any record's metadata: only a spawn failure is looked for there.
    Meta,
    /// The command record's: its args and PATH.
    Command,
}

/// The state of the run being read; a new `Initializing server...` starts over.
#[derive(Debug, Default)]
struct Reader {
    run: Run,
    first_stamp: Option<String>,
    block: Block,
    lists: Lists,
    spawn: Option<(String, String)>,
    /// The last line of stderr that sounds wrong, and the last line of stderr at all (devcoach's
    /// own start lines aside).
    wrong_line: Option<String>,
    last_line: Option<String>,
    /// Lines of stderr since devcoach's start line with no record between: that line wrapped.
    after_banner: bool,
    timed_out: bool,
    closed: bool,
}

impl Reader {
    /// Reads one line (without its line end); whether it was anything but blank.
    fn line(&mut self, line: &str) -> bool {
        if let Some(rec) = record(line) {
            self.block = Block::None;
            self.after_banner = false;
            self.record(&rec);
            return true;
        }
        if self.block != Block::None {
            if line.starts_with('}') {
                self.block = Block::None;
                return true;
            }
            if line.starts_with([' ', '\t']) {
                match self.block {
                    Block::Command => self.lists.feed(line, &mut self.run),
                    Block::Meta | Block::None => self.look_for_spawn(line, true),
                }
                return true;
            }
            // Anything else ends a block left open: it is the server's stderr again.
            self.block = Block::None;
        }
        let said = line.trim_end();
        if said.trim().is_empty() {
            return false;
        }
        self.said(said);
        true
    }

    fn record(&mut self, rec: &Record<'_>) {
        let message = rec.message;
        if message.starts_with("Initializing server") {
            *self = Self::default();
            self.run.started = Some(rec.stamp.to_owned());
        }
        if self.first_stamp.is_none() {
            self.first_stamp = Some(rec.stamp.to_owned());
        }
        let opens_block = message.trim_end().ends_with('{');
        if let Some(rest) = message.strip_prefix("Using MCP server command:") {
            self.command(rest);
            if opens_block {
                self.block = Block::Command;
            }
            return;
        }
        if opens_block {
            self.block = Block::Meta;
        }
        // Messages carry the conversation itself (a lesson may well quote an error): only
        // their presence counts.
        if message.starts_with("Message from server") {
            self.run.answered = true;
            return;
        }
        if message.starts_with("Message from client") {
            return;
        }
        let timed_out = message.contains("Request timed out") || message.contains("-32001");
        let closed = message.contains("Connection closed")
            || message.contains("-32000")
            || message.contains("closed unexpectedly")
            || message.contains("Server disconnected")
            || rec.level == Level::Error;
        self.look_for_spawn(message, false);
        if timed_out || closed || self.spawn.is_some() {
            if self.run.failed_at.is_none() {
                self.run.failed_at = Some(rec.stamp.to_owned());
            }
            self.timed_out |= timed_out;
            self.closed |= closed;
        }
    }

    /// `Using MCP server command: <command> with args and path: {…}` (or `with path:`).
    fn command(&mut self, rest: &str) {
        let rest = rest.trim_start();
        let split = rest.find(" with args and path:").or_else(|| rest.find(" with path:"));
        let (command, metadata) = match split {
            Some(at) => (rest.get(..at).unwrap_or_default(), rest.get(at..).unwrap_or_default()),
            None => (rest.trim_end().trim_end_matches('{').trim_end(), ""),
        };
        self.run.command = Some(cap(command.trim(), ITEM_CHARS));
        self.run.args.clear();
        self.run.path = None;
        self.lists = Lists::default();
        self.lists.feed(metadata, &mut self.run);
    }

    fn look_for_spawn(&mut self, text: &str, quoted: bool) {
        if self.spawn.is_some() {
            return;
        }
        // Metadata on the record's own line (JSON) is quoted from its first brace on.
        let found = if quoted {
            spawn_in(text, true)
        } else {
            match text.find('{') {
                Some(brace) => spawn_in(text.get(..brace).unwrap_or_default(), false)
                    .or_else(|| spawn_in(text.get(brace..).unwrap_or_default(), true)),
                None => spawn_in(text, false),
            }
        };
        self.spawn = found;
    }

    /// A line the server wrote to stderr.
    fn said(&mut self, line: &str) {
        let kept = cap(line, SAID_CHARS);
        if self.run.server_said.len() == SAID_LINES {
            self.run.server_said.remove(0);
        }
        self.run.server_said.push(kept.clone());
        if is_banner(line) {
            self.after_banner = true;
            return;
        }
        if self.after_banner {
            return;
        }
        if sounds_wrong(&kept) {
            self.wrong_line = Some(kept.clone());
        }
        self.last_line = Some(kept);
    }

    fn finish(mut self) -> Run {
        let said = self.wrong_line.take().or_else(|| self.last_line.take());
        let failed = self.closed || self.timed_out;
        self.run.failure = match (self.spawn.take(), said) {
            (Some((program, code)), _) => Some(Failure::Spawn { program, code }),
            (None, Some(line)) if failed => Some(Failure::ServerSaid(line)),
            _ if self.timed_out => Some(Failure::TimedOut),
            _ if self.closed => Some(Failure::Closed),
            _ => None,
        };
        if self.run.started.is_none() {
            self.run.started = self.first_stamp;
        }
        self.run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/desktop-logs").join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn run_of(name: &str) -> Run {
        last_run(&fixture(name)).unwrap_or_else(|| panic!("{name}: no run"))
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn spawn(program: &str, code: &str) -> Failure {
        Failure::Spawn { program: program.to_owned(), code: code.to_owned() }
    }

    #[test]
    fn a_spawn_failure_in_json_metadata_outranks_the_closed_connection() {
        let run = run_of("spawn-enoent-json.log");
        assert_eq!(run.started.as_deref(), Some("2026-11-28T09:14:02.101Z"));
        assert_eq!(run.command.as_deref(), Some("devcoach"));
        assert_eq!(run.args, strings(&["mcp"]));
        assert_eq!(run.path, Some(strings(&["/usr/bin", "/bin", "/usr/sbin", "/sbin"])));
        assert_eq!(run.failure, Some(spawn("devcoach", "ENOENT")));
        assert_eq!(run.failed_at.as_deref(), Some("2026-11-28T09:14:02.152Z"));
        assert!(!run.answered);
        assert!(run.server_said.is_empty(), "{:?}", run.server_said);
    }

    #[test]
    fn a_spawn_failure_only_in_the_inspected_stack_is_found() {
        let run = run_of("spawn-enoent-inspect.log");
        assert_eq!(run.command.as_deref(), Some("devcoach"));
        assert_eq!(run.args, strings(&["mcp"]));
        assert_eq!(run.path, Some(strings(&["/usr/bin", "/bin", "/usr/sbin", "/sbin"])));
        assert_eq!(run.failure, Some(spawn("devcoach", "ENOENT")));
        assert_eq!(run.failed_at.as_deref(), Some("2026-11-29T08:15:01.921Z"));
        assert!(run.server_said.is_empty(), "metadata lines are not the server's: {:?}", run.server_said);
    }

    #[test]
    fn what_the_server_said_outranks_the_closed_connection() {
        let run = run_of("env-node-missing.log");
        assert_eq!(
            run.path,
            Some(strings(&["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/opt/homebrew/bin"]))
        );
        assert_eq!(run.failure, Some(Failure::ServerSaid("env: node: No such file or directory".into())));
        assert_eq!(run.server_said, strings(&["env: node: No such file or directory"]));
        assert_eq!(missing_interpreter("env: node: No such file or directory"), Some("node"));
        assert_eq!(missing_interpreter("/usr/bin/env: 'node': No such file or directory"), Some("node"));
        assert_eq!(missing_interpreter("/usr/bin/env: ‘python3’: No such file or directory"), Some("python3"));
        assert_eq!(missing_interpreter("cat: x: No such file or directory"), None);
    }

    #[test]
    fn windows_wraps_the_command_in_cmd_and_its_complaint_is_the_line_that_says_so() {
        let run = run_of("windows-cmd-wrapper.log");
        assert_eq!(run.command.as_deref(), Some(r"C:\WINDOWS\System32\cmd.exe"));
        assert_eq!(run.args, strings(&["/C", "npx", "-y", "@devcoach-rs/devcoach", "mcp"]));
        assert_eq!(
            run.path,
            Some(strings(&[
                r"C:\WINDOWS\system32",
                r"C:\WINDOWS",
                r"C:\WINDOWS\System32\WindowsPowerShell\v1.0\",
                r"C:\Users\Dev Coach\AppData\Local\Microsoft\WindowsApps",
            ]))
        );
        assert_eq!(
            run.failure,
            Some(Failure::ServerSaid("'npx' is not recognized as an internal or external command,".into()))
        );
        assert_eq!(run.server_said.len(), 2);
    }

    #[test]
    fn a_run_that_answered_has_no_failure_whatever_its_messages_quote() {
        let run = run_of("connected.log");
        assert!(run.answered);
        assert_eq!(run.failure, None);
        assert_eq!(run.failed_at, None);
        assert_eq!(run.command.as_deref(), Some("/usr/local/bin/devcoach"));
        assert_eq!(run.path, Some(strings(&["/usr/local/bin", "/usr/bin", "/bin"])));
        assert_eq!(run.server_said.len(), 3, "devcoach's own lines are kept: {:?}", run.server_said);
    }

    #[test]
    fn devcoachs_start_line_wrapped_is_no_complaint_so_a_timeout_is_a_timeout() {
        let run = run_of("timeout.log");
        assert_eq!(run.failure, Some(Failure::TimedOut));
        assert_eq!(run.failed_at.as_deref(), Some("2026-11-30T10:01:00.034Z"));
        assert_eq!(run.command.as_deref(), Some("/home/dev/.cargo/bin/devcoach"));
        assert!(run.args.is_empty());
        assert_eq!(
            run.path,
            Some(strings(&["/home/dev/.cargo/bin", "/usr/local/bin", "/usr/bin", "/bin"])),
            "the `with path:` variant"
        );
        assert!(!run.answered);
    }

    #[test]
    fn only_the_last_run_counts() {
        let run = run_of("two-runs.log");
        assert_eq!(run.started.as_deref(), Some("2026-11-30T08:00:00.000Z"));
        assert_eq!(run.command.as_deref(), Some("/home/dev/.cargo/bin/devcoach"));
        assert_eq!(run.path, Some(strings(&["/usr/bin", "/bin"])));
        assert!(run.answered);
        assert_eq!(run.failure, None);
        // The failure alone, as if the log stopped there.
        let text = fixture("two-runs.log");
        let first = text.split("2026-11-30T08:00:00.000Z").next().expect("first run");
        let run = last_run(first).expect("run");
        assert_eq!(run.failure, Some(spawn("devcoach", "ENOENT")));
        assert_eq!(run.path, Some(strings(&["/usr/bin", "/bin"])), "a one-line inspected object");
    }

    #[test]
    fn a_hostile_log_reads_within_bounds() {
        let run = run_of("hostile.log");
        assert_eq!(run.command.as_deref(), Some("/Users/o'brien/.cargo/bin/devcoach"));
        assert_eq!(run.args, strings(&["mcp"]));
        assert_eq!(
            run.path,
            Some(strings(&["/Users/o'brien/.cargo/bin", "/usr/bin"])),
            "an escaped quote read, an unterminated string dropped"
        );
        assert_eq!(run.failure, Some(spawn("/Users/o'brien/.cargo/bin/devcoach", "EACCES")));
        assert_eq!(run.server_said.len(), 2, "{:?}", run.server_said);
        assert!(run.server_said[0].starts_with("devcoach: cannot read \u{fffd}"), "{:?}", run.server_said[0]);
        assert_eq!(run.server_said[1], "x".repeat(SAID_CHARS), "a 100 KB line is cut");
        assert!(!run.answered);
    }

    #[test]
    fn a_log_cut_mid_run_dates_the_run_from_its_first_record() {
        let text = fixture("env-node-missing.log");
        let cut = text.split_once("directory\n").map(|(_, rest)| rest).expect("cut");
        let run = last_run(cut).expect("run");
        assert_eq!(run.started.as_deref(), Some("2026-11-30T07:58:10.063Z"));
        assert_eq!(run.path, None);
        assert_eq!(run.failure, Some(Failure::Closed));
        assert_eq!(last_run(""), None);
        assert_eq!(last_run("\n\r\n  \n"), None);
    }

    #[test]
    fn spawn_words_are_read_with_care() {
        assert_eq!(spawn_in("spawn devcoach ENOENT", false), Some(("devcoach".into(), "ENOENT".into())));
        assert_eq!(
            spawn_in("Error: spawn /Users/a b/devcoach EACCES\\n    at x", true),
            Some(("/Users/a b/devcoach".into(), "EACCES".into()))
        );
        assert_eq!(
            spawn_in(r"spawn C:\\Users\\dev\\npx.cmd ENOENT", true),
            Some((r"C:\Users\dev\npx.cmd".into(), "ENOENT".into()))
        );
        assert_eq!(spawn_in("respawn devcoach ENOENT", false), None);
        assert_eq!(spawn_in("spawn devcoach Eh", false), None);
        assert_eq!(spawn_in("spawn  ENOENT", false), None);
        assert_eq!(spawn_in("spawn devcoach ENOENTS_x", false), None);
    }

    #[test]
    fn interpreters_are_read_from_the_first_line() {
        let it = |p: &str, via_env| Some(Interpreter { program: p.to_owned(), via_env });
        assert_eq!(interpreter_of(b"#!/usr/bin/env node\nconsole.log(1)"), it("node", true));
        assert_eq!(interpreter_of(b"#!/usr/bin/env -S node --no-warnings\n"), it("node", true));
        assert_eq!(interpreter_of(b"#!/usr/bin/env -Snode\n"), it("node", true));
        assert_eq!(interpreter_of(b"#!/usr/bin/env -i PATH=/x python3\r\n"), it("python3", true));
        assert_eq!(interpreter_of(b"#! /bin/bash -e\r\necho"), it("/bin/bash", false));
        assert_eq!(interpreter_of(b"#!/bin/sh"), it("/bin/sh", false));
        assert_eq!(interpreter_of(b"#!/usr/bin/env\n"), None);
        assert_eq!(interpreter_of(b"#!\n"), None);
        assert_eq!(interpreter_of(b"\x7fELF\x02\x01\x01"), None);
        assert_eq!(interpreter_of(b""), None);
        // Past the bytes a kernel reads, nothing counts.
        let mut long = b"#!".to_vec();
        long.extend(std::iter::repeat_n(b' ', limits::SHEBANG_BYTES));
        long.extend(b"/bin/sh\n");
        assert_eq!(interpreter_of(&long), None);
        assert_eq!(interpreter_of(b"#!/opt/\xff\xfe/node\n"), it("/opt/\u{fffd}\u{fffd}/node", false));
    }

    /// Every prefix of every fixture, every line of them shuffled into odd company, and byte
    /// soup made of the words the reader looks for: never a panic, and what is kept stays
    /// within its caps.
    #[test]
    fn never_panics_on_any_input() {
        fn check(text: &str) {
            if let Some(run) = last_run(text) {
                assert!(run.server_said.len() <= SAID_LINES);
                assert!(run.server_said.iter().all(|l| l.chars().count() <= SAID_CHARS));
                assert!(run.args.len() <= KEPT_ARGS);
                assert!(run.path.as_ref().is_none_or(|p| p.len() <= KEPT_PATHS));
                assert!(run.args.iter().all(|a| a.chars().count() <= ITEM_CHARS));
                if let Some(Failure::Spawn { program, code }) = &run.failure {
                    assert!(!program.is_empty() && program.chars().count() <= ITEM_CHARS);
                    assert!(code.starts_with('E'));
                }
            }
            let _ = interpreter_of(text.as_bytes());
            for line in text.lines().take(50) {
                let _ = missing_interpreter(line);
            }
        }
        let names = [
            "spawn-enoent-json.log",
            "spawn-enoent-inspect.log",
            "env-node-missing.log",
            "windows-cmd-wrapper.log",
            "connected.log",
            "timeout.log",
            "two-runs.log",
        ];
        let mut all = String::new();
        for name in names {
            let text = fixture(name);
            let mut end = 0;
            while end <= text.len() {
                check(prefix(&text, end));
                check(text.get(prefix(&text, end).len()..).unwrap_or_default());
                end += 7;
            }
            all.push_str(&text);
        }
        let hostile = fixture("hostile.log");
        check(&hostile);
        check(hostile.get(hostile.len() / 2..).unwrap_or_default());
        // The fixtures' lines in a scrambled order, and byte soup from their pieces.
        let lines: Vec<&str> = all.lines().collect();
        let pieces = [
            "spawn ",
            " ENOENT",
            " E",
            "{",
            "}",
            "[",
            "]",
            "'",
            "\"",
            "\\",
            "\n",
            "\r\n",
            "  ",
            "args: [",
            "paths: [",
            "2026-11-30T10:00:00.000Z [devcoach] [error] ",
            "2026-11-30T10:00:00.000Z [",
            "] [info] ",
            "Initializing server...",
            "Using MCP server command: ",
            " with args and path: {",
            "Message from server:",
            "devcoach 1.4 mcp · ",
            "é",
            "\u{fffd}",
            "#!/usr/bin/env -S",
            "env: node: No such file or directory",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % (n as u64)).unwrap_or(0)
        };
        for _ in 0..300 {
            let mut text = String::new();
            for _ in 0..next(60) {
                if next(3) == 0 && !lines.is_empty() {
                    text.push_str(lines[next(lines.len())]);
                    text.push('\n');
                } else {
                    text.push_str(pieces[next(pieces.len())]);
                }
            }
            check(&text);
        }
        // Long runs of one piece: linear work, nothing kept past the caps.
        for piece in pieces {
            check(&piece.repeat(20_000));
        }
    }
}
