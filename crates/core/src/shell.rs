//! Quoting for a command a person pastes or an agent's config runs: one rule for the binary's
//! printed commands and the MCP server's.

/// Quotes `word` for `sh -c` (and for cmd.exe when it only holds spaces) when it needs it.
pub fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=~\\".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_owned();
    }
    let mut out = String::from("\"");
    for c in word.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}
