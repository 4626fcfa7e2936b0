//! Is a block the learner sent source code? Rules only (fast, deterministic, no model): fences,
//! the shapes of traces, shell sessions, JSON and problem examples, then a per-line score of
//! code syntax against English prose. "Code" is source in a programming language, one-liners,
//! unfenced and unindented code and pseudo-code written in code syntax included. Where the rules
//! cannot tell, the answer is [`Verdict::Undecided`] and the gate may ask a model.

/// What the rules decided about a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Code,
    NotCode,
    Undecided,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Code => "code",
            Self::NotCode => "not_code",
            Self::Undecided => "undecided",
        }
    }
}

/// Fence tags that hold something other than source code.
const DATA_TAGS: [&str; 19] = [
    "json",
    "jsonc",
    "text",
    "txt",
    "plain",
    "plaintext",
    "console",
    "shell",
    "sh",
    "bash",
    "zsh",
    "output",
    "log",
    "md",
    "markdown",
    "yaml",
    "yml",
    "csv",
    "math",
];

/// Classifies one block of learner text.
pub fn classify(block: &str) -> Verdict {
    if block.trim().is_empty() {
        return Verdict::NotCode;
    }
    let (fenced, outside) = split_fences(block);
    let mut fenced_verdict = None;
    for (tag, body) in &fenced {
        let tag = tag.to_ascii_lowercase();
        let verdict = if DATA_TAGS.contains(&tag.as_str()) {
            Verdict::NotCode
        } else if !tag.is_empty() {
            Verdict::Code
        } else {
            classify_plain(body)
        };
        if verdict == Verdict::Code {
            return Verdict::Code;
        }
        fenced_verdict = Some(match (fenced_verdict, verdict) {
            (Some(Verdict::Undecided), _) | (_, Verdict::Undecided) => Verdict::Undecided,
            _ => Verdict::NotCode,
        });
    }
    match (fenced_verdict, classify_plain(&outside)) {
        (_, Verdict::Code) => Verdict::Code,
        (Some(v), Verdict::NotCode) | (_, v) => v,
    }
}

/// The fenced sections (tag, body) and the text outside them.
fn split_fences(block: &str) -> (Vec<(String, String)>, String) {
    let mut fenced = Vec::new();
    let mut outside = String::new();
    let mut open: Option<(String, String)> = None;
    for line in block.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("```").or_else(|| t.strip_prefix("~~~"))
            && is_fence_info(rest)
        {
            match open.take() {
                Some(section) => fenced.push(section),
                None => open = Some((rest.split_whitespace().next().unwrap_or("").to_owned(), String::new())),
            }
            continue;
        }
        match &mut open {
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {
                outside.push_str(line);
                outside.push('\n');
            }
        }
    }
    // An unclosed fence still fences what follows it.
    if let Some(section) = open {
        fenced.push(section);
    }
    (fenced, outside)
}

/// What may follow a fence's backticks: nothing, or a language tag (so `~~~~^^^` under a
/// traceback line is not a fence).
fn is_fence_info(rest: &str) -> bool {
    let tag = rest.trim();
    tag.split_whitespace().next().is_none_or(|w| {
        w.chars().all(|c| c.is_ascii_alphanumeric() || "+#-._{}".contains(c)) && !w.starts_with(['~', '`'])
    })
}

/// Each non-blank line of a block, how the rules read it and its score (for `practice check
/// code --explain`).
pub fn explain(block: &str) -> Vec<(String, &'static str, i32)> {
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let kind = match line_kind(l) {
                Line::Code => "code",
                Line::WeakCode => "weak code",
                Line::Prose => "prose",
                Line::Neutral => "neutral",
            };
            (l.to_owned(), kind, score(l.trim()))
        })
        .collect()
}

/// How one line reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// Source code, sure.
    Code,
    /// Looks like code, but short or plain (`x = y`, `i++`).
    WeakCode,
    Prose,
    /// Says nothing either way (blank, a comment, a lone bracket).
    Neutral,
}

fn classify_plain(text: &str) -> Verdict {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return Verdict::NotCode;
    }
    let trimmed = text.trim();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<serde_json::Value>(trimmed).is_ok()
    {
        return Verdict::NotCode;
    }
    if lines.iter().any(|l| is_trace_line(l)) {
        return Verdict::NotCode;
    }
    if is_shell_session(&lines) {
        return Verdict::NotCode;
    }
    let kinds: Vec<Line> = lines.iter().map(|l| line_kind(l)).collect();
    decide(&lines, &kinds)
}

/// A line scoring this much is code whatever surrounds it.
const CLEAR_CODE: i32 = 5;

fn decide(lines: &[&str], kinds: &[Line]) -> Verdict {
    let strong = kinds.iter().filter(|k| **k == Line::Code).count();
    let weak = kinds.iter().filter(|k| **k == Line::WeakCode).count();
    let prose = kinds.iter().filter(|k| **k == Line::Prose).count();
    let code = strong + weak;
    if code == 0 {
        return Verdict::NotCode;
    }
    if prose == 0 {
        return if strong > 0 || weak >= 1 { Verdict::Code } else { Verdict::Undecided };
    }
    // Prose that introduces code ("here is my attempt:") followed by the code itself.
    let first_code = kinds.iter().position(|k| matches!(k, Line::Code | Line::WeakCode)).unwrap_or(0);
    let after = &kinds[first_code..];
    let prose_after = after.iter().filter(|k| **k == Line::Prose).count();
    if prose_after == 0 && code >= 2 && strong >= 1 {
        return Verdict::Code;
    }
    if first_code > 0 && lines[first_code - 1].trim_end().ends_with(':') && strong >= 1 && prose_after <= code / 3 {
        return Verdict::Code;
    }
    // A line that is plainly a statement of code, on its own line among prose ("I changed it
    // to" / the line / a question about it): the learner is sending code.
    if lines.iter().zip(kinds).any(|(l, k)| *k == Line::Code && score(l.trim()) >= CLEAR_CODE) {
        return Verdict::Code;
    }
    // The longest run of code lines (neutral lines do not break it).
    let mut run = 0;
    let mut best = 0;
    for k in kinds {
        match k {
            Line::Code | Line::WeakCode => {
                run += 1;
                best = best.max(run);
            }
            Line::Prose => run = 0,
            Line::Neutral => {}
        }
    }
    if best >= 3 && strong >= 2 {
        return Verdict::Code;
    }
    if code > prose && strong >= 1 {
        return Verdict::Code;
    }
    if prose >= code * 2 || strong == 0 {
        return Verdict::NotCode;
    }
    Verdict::Undecided
}

// ---------------------------------------------------------------------------------------------
// Whole-block shapes that are not code.

/// A line from a stack trace, a compiler error or a crash report.
fn is_trace_line(line: &str) -> bool {
    let t = line.trim();
    let starts = |p: &str| t.starts_with(p);
    if starts("Traceback (most recent call last)")
        || starts("Exception in thread")
        || starts("Caused by:")
        || t.contains("panicked at")
        || starts("goroutine ") && t.contains('[')
        || starts("panic: ")
        || t.contains("Segmentation fault")
        || t.contains("core dumped")
        || t.contains("AddressSanitizer")
        || t.contains("undefined reference to")
        || starts("error[E")
        || starts("error: ")
        || starts("warning: ")
        || starts("note: ")
        || starts("help: ")
        || starts("--> ")
        || starts("= note:")
        || starts("= help:")
        || t.starts_with("... ") && t.ends_with(" more")
        || t.starts_with("terminate called")
        || t.starts_with("what():")
        || t.starts_with("Aborted")
        || t.starts_with("SUMMARY: ")
        || t.starts_with("==") && t.contains("==ERROR")
        || t.starts_with("exit status ")
        || t.starts_with("[signal ")
    {
        return true;
    }
    // `  File "sol.py", line 12, in two_sum`
    if let Some(rest) = t.strip_prefix("File \"")
        && rest.contains("\", line ")
    {
        return true;
    }
    // `at Main.solve(Main.java:14)`, `at Object.<anonymous> (/tmp/a.js:3:9)`
    if let Some(rest) = t.strip_prefix("at ")
        && rest.ends_with(')')
        && (rest.contains(".java:")
            || rest.contains(".js:")
            || rest.contains(".ts:")
            || rest.contains("Native Method")
            || rest.contains("node:")
            || rest.contains(".kt:")
            || rest.contains("Unknown Source"))
    {
        return true;
    }
    // `IndexError: list index out of range`, `java.lang.NullPointerException: …`
    if let Some((head, _)) = t.split_once(": ") {
        let name = head.rsplit('.').next().unwrap_or(head);
        if (name.ends_with("Error") || name.ends_with("Exception"))
            && !head.contains(' ')
            && name.chars().next().is_some_and(char::is_uppercase)
        {
            return true;
        }
    }
    if let Some((head, _)) = t.split_once(": ")
        && head == name_of_uncaught(head)
    {
        return true;
    }
    // `sol.c:12:5: error: …`, `src/a.ts(3,7): error TS2322: …`, `./main.go:9:2: undefined: x`
    file_position_prefix(t)
}

fn name_of_uncaught(head: &str) -> &str {
    match head {
        "Uncaught TypeError"
        | "Uncaught ReferenceError"
        | "Uncaught RangeError"
        | "Uncaught SyntaxError"
        | "fatal error" => head,
        _ => "",
    }
}

const SOURCE_EXTENSIONS: [&str; 16] =
    ["py", "js", "mjs", "ts", "tsx", "java", "c", "h", "cc", "cpp", "hpp", "cxx", "go", "rs", "kt", "rb"];

fn file_position_prefix(t: &str) -> bool {
    let Some(first) = t.split_whitespace().next() else { return false };
    let Some(dot) = first.rfind('.') else { return false };
    let after = &first[dot + 1..];
    let ext: String = after.chars().take_while(char::is_ascii_alphanumeric).collect();
    if !SOURCE_EXTENSIONS.contains(&ext.as_str()) {
        return false;
    }
    let rest = &after[ext.len()..];
    (rest.starts_with(':') && rest[1..].starts_with(|c: char| c.is_ascii_digit()))
        || (rest.starts_with('(') && rest[1..].starts_with(|c: char| c.is_ascii_digit()))
}

const COMMANDS: [&str; 44] = [
    "cargo",
    "rustc",
    "rustup",
    "git",
    "python",
    "python3",
    "pip",
    "pip3",
    "pytest",
    "node",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "tsc",
    "deno",
    "go",
    "gcc",
    "g++",
    "clang",
    "clang++",
    "make",
    "cmake",
    "javac",
    "java",
    "mvn",
    "gradle",
    "ls",
    "cd",
    "cat",
    "echo",
    "grep",
    "time",
    "./a.out",
    "diff",
    "curl",
    "sudo",
    "export",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "valgrind",
    "hyperfine",
];

/// A shell command line: `$ …`, or a known program followed by words and flags rather than
/// code syntax.
fn is_command(line: &str) -> bool {
    let t = line.trim();
    if let Some(rest) = t.strip_prefix("$ ").or_else(|| t.strip_prefix("% ")).or_else(|| t.strip_prefix("> ")) {
        return !rest.is_empty();
    }
    let Some(first) = t.split_whitespace().next() else { return false };
    let program = first.rsplit('/').next().unwrap_or(first);
    let known = COMMANDS.contains(&program) || first.starts_with("./");
    if !known {
        return false;
    }
    let rest = t[first.len()..].trim();
    // `print(x)` or `go = 3` are code, `go test ./...` is not.
    !(rest.starts_with('(') || rest.starts_with('=') || rest.starts_with(":=") || t.ends_with(';') || t.ends_with('{'))
}

/// Commands, each possibly followed by its output, and nothing that reads as code.
fn is_shell_session(lines: &[&str]) -> bool {
    if !is_command(lines[0]) {
        return false;
    }
    lines.iter().all(|l| is_command(l) || !matches!(line_kind(l), Line::Code))
}

// ---------------------------------------------------------------------------------------------
// Lines.

/// English words that code rarely holds as bare words.
const PROSE_WORDS: [&str; 58] = [
    "the", "a", "an", "is", "are", "was", "were", "be", "been", "we", "i", "you", "it", "its", "this", "that", "these",
    "those", "should", "would", "could", "can", "will", "then", "and", "but", "because", "so", "when", "what", "why",
    "how", "which", "of", "to", "my", "our", "your", "me", "do", "does", "did", "think", "need", "use", "using",
    "there", "here", "than", "just", "also", "about", "each", "every", "after", "before", "until", "wrong",
];

/// Words that start a line of code in one of the languages we know.
const LEADING_KEYWORDS: [&str; 63] = [
    "def",
    "class",
    "fn",
    "pub",
    "impl",
    "struct",
    "enum",
    "trait",
    "func",
    "function",
    "import",
    "from",
    "package",
    "public",
    "private",
    "protected",
    "static",
    "const",
    "let",
    "var",
    "mut",
    "elif",
    "else",
    "try",
    "except",
    "catch",
    "finally",
    "switch",
    "case",
    "break",
    "continue",
    "yield",
    "lambda",
    "async",
    "await",
    "#include",
    "#define",
    "template",
    "typedef",
    "using",
    "namespace",
    "int",
    "long",
    "double",
    "float",
    "char",
    "bool",
    "void",
    "auto",
    "unsigned",
    "string",
    "String",
    "usize",
    "i32",
    "i64",
    "u32",
    "u64",
    "interface",
    "type",
    "export",
    "match",
    "loop",
    "defer",
];

/// Control keywords that need code after them to count (`for` and `while` are English too).
const CONTROL: [&str; 5] = ["for", "while", "if", "return", "do"];

/// The words of a line. An identifier is one word (`me_me`, `first_seen`): split at its
/// underscores, its parts would read as English (`me`, `first`) and a line of code as prose.
fn words(t: &str) -> impl Iterator<Item = &str> {
    t.split(|c: char| !c.is_alphanumeric() && !matches!(c, '\'' | '#' | '_')).filter(|w| !w.is_empty())
}

fn line_kind(line: &str) -> Line {
    let t = line.trim();
    if t.is_empty() {
        return Line::Neutral;
    }
    // No letters at all: data (`[1,2,3] -> [[1],[2]]`), numbers or maths, not code.
    if !t.chars().any(char::is_alphabetic) && !t.chars().all(|c| "{}[]();,".contains(c)) {
        return Line::Neutral;
    }
    // Comments and lone brackets.
    if t.starts_with("//") || t.starts_with("/*") || t.starts_with("*/") || (t.starts_with("* ") && t.len() < 3) {
        return Line::Neutral;
    }
    if t.starts_with("# ") || t == "#" {
        return Line::Neutral;
    }
    if t.chars().all(|c| "{}[]();,".contains(c)) {
        return Line::WeakCode;
    }
    // Closing words of pseudo-code and shells-like languages.
    let structural = t.trim_end_matches(';').to_ascii_lowercase();
    if matches!(
        structural.as_str(),
        "else"
            | "end"
            | "end if"
            | "endif"
            | "end for"
            | "endfor"
            | "end while"
            | "endwhile"
            | "end procedure"
            | "end function"
            | "end loop"
            | "done"
            | "fi"
            | "begin"
    ) {
        return Line::WeakCode;
    }
    let lower = t.to_ascii_lowercase();
    for label in [
        "req:",
        "input:",
        "output:",
        "explanation:",
        "example",
        "constraints:",
        "note:",
        "time:",
        "space:",
        "time complexity",
        "space complexity",
        "expected:",
        "got:",
        "returns:",
        "edge cases:",
        "requirements:",
    ] {
        if lower.starts_with(label) {
            return Line::Prose;
        }
    }
    let bullet = ["- ", "* ", "+ ", "• "].iter().find_map(|b| t.strip_prefix(b)).or_else(|| numbered(t));
    if let Some(rest) = bullet {
        return if score(rest) >= 6 { Line::Code } else { Line::Prose };
    }
    let s = score(t);
    if s >= 4 {
        Line::Code
    } else if s >= 2 {
        Line::WeakCode
    } else if s <= -1 || words(t).count() >= 3 {
        Line::Prose
    } else {
        Line::Neutral
    }
}

fn numbered(t: &str) -> Option<&str> {
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    t[digits..].strip_prefix(". ").or_else(|| t[digits..].strip_prefix(") "))
}

/// Evidence of code (positive) against evidence of prose (negative).
fn score(t: &str) -> i32 {
    let ws: Vec<&str> = words(t).collect();
    let first = ws.first().copied().unwrap_or("");
    let lower_words: Vec<String> = ws.iter().map(|w| w.to_ascii_lowercase()).collect();
    let alpha_words = count(ws.iter().filter(|w| w.chars().all(char::is_alphabetic) && w.len() > 1).count());
    // `a` and `i` are variables as often as they are English: they count only in a sentence
    // without code punctuation.
    let symbolic = t.contains(['(', '[', '{', '=', ';']);
    let prose_words = count(
        lower_words
            .iter()
            .filter(|w| PROSE_WORDS.contains(&w.as_str()) && (w.len() > 1 || (alpha_words >= 4 && !symbolic)))
            .count(),
    );
    let mut s = 0;

    // Line shape.
    let ends = |p: &str| t.ends_with(p);
    if ends(";") || ends("{") || ends("};") || ends("});") {
        s += 3;
    } else if ends("}") || ends(")") || ends("]") {
        s += 1;
    }
    if ends(":") && (LEADING_KEYWORDS.contains(&first) || CONTROL.contains(&first)) {
        s += 3;
    }
    if ends(".") || ends("?") || ends("!") {
        s -= 2;
    }

    // The first word.
    // What follows the first word (which need not start the line: `(foo`, `→ x`).
    let after_first = t.find(first).map_or("", |i| &t[i + first.len()..]);
    if LEADING_KEYWORDS.contains(&first) && ws.len() > 1 && !after_first.is_empty() {
        let after = after_first.trim_start();
        // `import x`, `let x =`, `def f(`; not "let me know" or "using a map".
        if after.starts_with(|c: char| c.is_alphanumeric() || "_<*&([{\"'".contains(c)) && prose_words <= 2 {
            s += 3;
        }
    }
    if CONTROL.contains(&first) {
        let after = after_first.trim_start();
        let shaped = after.starts_with('(')
            || after.starts_with('{')
            || after.ends_with(':')
            || after.ends_with('{')
            || after.ends_with(';');
        // `return x`, `return best;`: a value, not "return the index when…".
        let returns_value = first == "return" && (prose_words == 0 || !after.trim_end_matches(';').contains(' '));
        if shaped || returns_value {
            s += 3;
        } else if (first == "for" || first == "while" || first == "if") && prose_words == 0 && has_operator(t) {
            s += 2;
        }
    }

    // Pseudo-code structure: `IF x > y THEN`, `for each v in adj[u] do`.
    let last = lower_words.last().map_or("", String::as_str);
    let lead = first.to_ascii_lowercase();
    if (CONTROL.contains(&lead.as_str()) || matches!(lead.as_str(), "foreach" | "repeat" | "procedure" | "algorithm"))
        && matches!(last, "then" | "do")
        && ws.len() >= 3
    {
        s += 3;
    }
    // Python's one-line compound statements: `if not root: return 0`.
    let compound = [": return", ": break", ": continue", ": pass", ": yield"].iter().any(|p| t.contains(p))
        || (matches!(first, "if" | "elif" | "while" | "for")
            && t.split_once(": ").is_some_and(|(_, body)| assignment(body)));
    if compound {
        s += 3;
    }
    // Closures (`{ |x, i| … }`, `|a, b| a + b`) and assignment arrows of pseudo-code (`mid <- …`).
    if t.contains("{ |") || t.contains("| {") || t.contains(" <- ") {
        s += 2;
    }
    // Method chains: `nums.each_with_index.map`, `merged.last.end`.
    if t.split(|c: char| c.is_whitespace() || "(){}[],;".contains(c)).any(is_chain) {
        s += 2;
    }

    // Syntax.
    for op in [
        "==", "!=", "<=", ">=", "&&", "||", "->", "=>", "::", "+=", "-=", "*=", "/=", "%=", "++", "--", ":=", "<<",
        ">>",
    ] {
        if t.contains(op) {
            s += 2;
        }
    }
    if t.contains("#include") || t.contains("std::") || t.contains("println!") || t.contains("vec!") {
        s += 3;
    }
    let calls = count_calls(t);
    s += calls.min(3) * 2;
    if t.contains('[') && t.contains(']') && indexes(t) {
        s += 1;
    }
    if assignment(t) {
        s += 2;
    }
    if t.contains("()") {
        s += 1;
    }
    if t.contains('{') && t.contains('}') && !t.contains("{ }") {
        s += 1;
    }

    // English.
    s -= prose_words * 2;
    if alpha_words >= 6 && prose_words >= 2 {
        s -= 2;
    }
    if first.chars().next().is_some_and(char::is_uppercase)
        && !LEADING_KEYWORDS.contains(&first)
        && ws.get(1).is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        && ws.len() >= 4
        && !t.contains('(')
    {
        s -= 1;
    }
    if t.contains(" O(") || t.starts_with("O(") {
        s -= 2;
    }
    // Mathematical notation: `sum_{k=0}^{n-1}`, `×`, `≤`, `∑`.
    if t.contains("_{") || t.contains("^{") || t.contains(['×', '−', '≤', '≥', '∑', '∏', '√', '∈', '∞', '·', '⌊', '⌈'])
    {
        s -= 4;
    }
    // `f(n) = f(n-1) + f(n-2)`: a recurrence, since code cannot assign to a call.
    if call_on_left(t) {
        s -= 5;
    }
    // Ranges in pseudo-code and Rust (`0..n`), not an ellipsis.
    if t.contains("..") && !t.contains("...") && !t.contains("…") {
        s += 1;
    }
    s
}

/// `a.b.c`: three or more identifier segments of two or more characters (not `e.g.`).
fn is_chain(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() >= 3
        && parts.iter().all(|p| p.len() >= 2 && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
        && parts[0].chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn has_operator(t: &str) -> bool {
    t.contains(['<', '>', '=', '[', '(', '+', '%'])
}

/// `name(` or `.name(` where name is an identifier glued to the bracket.
fn count_calls(t: &str) -> i32 {
    let bytes = t.as_bytes();
    let mut count = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'(' && i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b'!')
        {
            // Skip "O(n)" and single capital letters like "T(n)": maths, not calls.
            let start = t[..i]
                .char_indices()
                .rev()
                .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '!'))
                .map_or(0, |(p, c)| p + c.len_utf8());
            let name = &t[start..i];
            if name.len() == 1 && name.chars().all(|c| c.is_ascii_uppercase()) {
                continue;
            }
            count += 1;
        }
    }
    count
}

/// `a[i]`, `grid[r][c]`: an identifier glued to a bracket.
fn indexes(t: &str) -> bool {
    let bytes = t.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'['
            && i > 0
            && (bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b']'
                || bytes[i - 1] == b')')
    })
}

/// The first plain `=` (not `==`, `!=`, `<=`, `>=`, `=>`, `+=`, …).
fn plain_equals(t: &str) -> Option<usize> {
    let bytes = t.as_bytes();
    (0..bytes.len()).find(|&i| {
        bytes[i] == b'='
            && bytes.get(i + 1).is_none_or(|b| *b != b'=' && *b != b'>')
            && (i == 0 || !b"!<>=+-*/%:&|^".contains(&bytes[i - 1]))
    })
}

fn call_on_left(t: &str) -> bool {
    let Some(eq) = plain_equals(t) else { return false };
    let left = t[..eq].trim();
    let first = left.split_whitespace().next().unwrap_or("");
    left.ends_with(')')
        && left.contains('(')
        && !left.starts_with('(')
        && !LEADING_KEYWORDS.contains(&first)
        && !CONTROL.contains(&first)
        && !left[..left.find('(').unwrap_or(0)].contains(' ')
}

/// `x = …`, `best = max(best, cur)`, `self.n = n`: an lvalue, one `=`, and a right side that is an
/// expression rather than a sentence.
fn assignment(t: &str) -> bool {
    let Some(eq) = t.find('=') else { return false };
    let bytes = t.as_bytes();
    if bytes.get(eq + 1) == Some(&b'=') || (eq > 0 && b"!<>=+-*/%:".contains(&bytes[eq - 1])) {
        return false;
    }
    let left = t[..eq].trim();
    let right = t[eq + 1..].trim();
    if left.is_empty() || right.is_empty() {
        return false;
    }
    let lvalue = left.split_whitespace().count() <= 3
        && left.chars().all(|c| c.is_alphanumeric() || "_.[]<>,: *&'".contains(c))
        && left.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '*' || c == '&');
    let expression =
        right.split_whitespace().filter(|w| w.chars().all(char::is_alphabetic) && w.len() > 2).count() <= 2;
    lvalue && expression
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_obvious_cases() {
        assert_eq!(classify("def f(x):\n    return x + 1\n"), Verdict::Code);
        assert_eq!(classify("```python\nprint(1)\n```"), Verdict::Code);
        assert_eq!(classify("```json\n{\"a\": 1}\n```"), Verdict::NotCode);
        assert_eq!(classify("I think we should sort the array first, then walk it once."), Verdict::NotCode);
        assert_eq!(classify("{\"a\": [1, 2]}"), Verdict::NotCode);
        assert_eq!(
            classify(
                "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    x = y[4]\nIndexError: list index out of range"
            ),
            Verdict::NotCode
        );
        assert_eq!(classify("$ cargo test\nrunning 3 tests"), Verdict::NotCode);
        assert_eq!(classify("let mut seen = HashSet::new();"), Verdict::Code);
        // Found by the pasteable-line property: identifiers made of English words are still code.
        assert_eq!(classify("me_me = aa(aa[0]) + 0"), Verdict::Code);
        assert_eq!(classify("is_it_in = first_seen(the_map[key]) + 1"), Verdict::Code);
        assert_eq!(classify(""), Verdict::NotCode);
    }

    #[test]
    fn multibyte_text_around_words_and_calls() {
        for text in ["→foo(x)", "→ return x", "(if x → y", "«def» f(x):", "é(1)", "—let x = 1;"] {
            // Every line is read, whole, in order; a tagged fence around it is code.
            let lines: Vec<String> = explain(text).into_iter().map(|(line, _, _)| line).collect();
            assert_eq!(lines, text.lines().map(str::to_owned).collect::<Vec<_>>(), "{text}");
            assert_eq!(classify(&format!("```rust\n{text}\n```")), Verdict::Code, "{text}");
        }
    }
}
