//! Bytes as text: percent-encoding for a URL or IRI part, lowercase hexadecimal for digests.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but RFC 3986's unreserved characters (letters, digits, `-`, `.`, `_`, `~`).
const RESERVED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A path segment or query value: unreserved characters kept, every other byte as `%XX`.
pub fn percent_encode(text: &str) -> String {
    utf8_percent_encode(text, RESERVED).to_string()
}

/// Bytes as lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unreserved_characters_stay_as_they_are() {
        assert_eq!(percent_encode("a-Z_0.9~"), "a-Z_0.9~");
        assert_eq!(percent_encode("a b/c?d=é"), "a%20b%2Fc%3Fd%3D%C3%A9");
        assert_eq!(percent_encode("%"), "%25");
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
