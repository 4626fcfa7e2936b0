//! Hint rungs: each coach reply carries `<!-- rung:Hn -->` (H1 a nudge, higher more revealing).
//! The REPL logs the rung and shows the reply without the marker.

/// The highest rung marked in `reply` (several markers: the highest counts) and the reply with
/// every marker removed; a line left empty by the removal goes too, and the text is trimmed so
/// no marker line can be the reply's last line.
pub fn strip(reply: &str) -> (Option<u8>, String) {
    let mut rung: Option<u8> = None;
    let mut out = String::with_capacity(reply.len());
    for line in reply.split_inclusive('\n') {
        let mut kept = String::with_capacity(line.len());
        let mut rest = line;
        let mut removed = false;
        while let Some(open) = rest.find("<!--") {
            // The comment's end is searched after its start (`<!-->` is not a closed comment).
            let body = open + 4;
            let Some(len) = rest[body..].find("-->") else { break };
            let end = body + len + 3;
            match parse_marker(&rest[body..body + len]) {
                Some(n) => {
                    rung = Some(rung.map_or(n, |r| r.max(n)));
                    kept.push_str(&rest[..open]);
                    removed = true;
                }
                None => kept.push_str(&rest[..end]),
            }
            rest = &rest[end..];
        }
        kept.push_str(rest);
        if removed && kept.trim().is_empty() {
            continue;
        }
        out.push_str(&kept);
    }
    (rung, out.trim().to_owned())
}

/// `rung:H2` (spaces and case ignored) → 2. Rungs run from 1 to 9.
fn parse_marker(inner: &str) -> Option<u8> {
    let compact: String = inner.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    let n = compact.strip_prefix("rung:h")?;
    match n.parse::<u8>() {
        Ok(n @ 1..=9) => Some(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_read_and_removed() {
        assert_eq!(
            strip("<!-- rung:H2 -->\nWhat is true of the input?"),
            (Some(2), "What is true of the input?".into())
        );
        assert_eq!(strip("Think about order.\n<!--rung:h1-->\n"), (Some(1), "Think about order.".into()));
        assert_eq!(strip("a <!-- rung:H1 --> b <!-- rung:H3 -->"), (Some(3), "a  b".into()));
        assert_eq!(strip("no marker here?"), (None, "no marker here?".into()));
        assert_eq!(strip("<!-- a comment --> stays"), (None, "<!-- a comment --> stays".into()));
        assert_eq!(strip("<!-- rung:H0 --> <!-- rung:H12 -->"), (None, "<!-- rung:H0 --> <!-- rung:H12 -->".into()));
        assert_eq!(strip("unclosed <!-- rung:H2"), (None, "unclosed <!-- rung:H2".into()));
        // Found by fuzzing: a comment opener that overlaps its own closer.
        assert_eq!(strip("a <!--> b"), (None, "a <!--> b".into()));
        assert_eq!(strip("<!---->x"), (None, "<!---->x".into()));
    }
}
