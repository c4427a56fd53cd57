//! The cap on any value echoed in a message: a 300 MB CSV cell must not become a 300 MB line
//! of the report (twice). Values longer than the cap are cut at a character boundary and end
//! with an ellipsis and their full length.

/// The most characters of one value shown in a message (a label cell, a JSON value, a column
/// name, a panic text).
pub const MAX_ECHO: usize = 200;

/// `s` itself when it has at most `max` characters, else its first `max` characters, an
/// ellipsis and the full length: `abc… (1048576 bytes)`.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}… ({} bytes)", &s[..cut], s.len()),
    }
}

/// [`clip`] at [`MAX_ECHO`].
pub fn echo(s: &str) -> String {
    clip(s, MAX_ECHO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_on_characters_with_their_length() {
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "abc… (4 bytes)");
        assert_eq!(clip("ééé", 2), "éé… (6 bytes)");
        let big = "x".repeat(10_000_000);
        assert!(echo(&big).len() < MAX_ECHO + 30);
        assert!(echo(&big).ends_with("… (10000000 bytes)"));
    }
}
