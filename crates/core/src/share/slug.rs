//! File-name slugs (`.devcoach.md` files, course ids).

/// The longest slug produced.
pub const MAX_SLUG: usize = 60;

/// Lowercase ASCII letters and digits, every other run of characters becomes one `-`, no `-` at
/// either end, at most 60 characters; `fallback` when nothing is left.
pub fn slugify(text: &str, fallback: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_SLUG));
    let mut dash = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
        } else {
            dash = true;
        }
    }
    out.truncate(MAX_SLUG);
    let out = out.trim_end_matches('-');
    if out.is_empty() { fallback.to_owned() } else { out.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slugify("  Über id!! ", "lesson"), "ber-id");
        assert_eq!(slugify("Rebase --onto, explained", "lesson"), "rebase-onto-explained");
        assert_eq!(slugify("!!!", "lesson"), "lesson");
        assert_eq!(slugify("", "course"), "course");
        let long = slugify(&"ab ".repeat(40), "x");
        assert!(long.len() <= MAX_SLUG && !long.ends_with('-'));
    }
}
