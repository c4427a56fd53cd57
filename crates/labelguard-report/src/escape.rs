//! Text that came from the input (file names, tensor and column names, table cells, log lines)
//! made safe to print on a terminal: every control character is shown as a visible escape and
//! never reaches the terminal, whatever `--color` says.

use std::borrow::Cow;

/// Whether `c` would act on a terminal (or reorder what it shows) instead of being shown: the C0
/// controls (tab and newline included: a name holding a newline forges a report line), DEL, the C1
/// controls (U+009B is a one-character CSI on some terminals) and the bidirectional overrides
/// and isolates that make text read differently from what it holds.
fn acts_on_terminal(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with each control character written as an escape: `\n`, `\r`, `\t`, `\x1b` for the
/// other ASCII ones, `\u{9b}` beyond ASCII. Text without any is returned as it is.
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acts_on_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if acts_on_terminal(c) && (c as u32) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if acts_on_terminal(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn control_characters_become_visible_escapes() {
        assert_eq!(visible("masks/a.png"), "masks/a.png");
        assert!(matches!(visible("é 日本"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(visible("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(visible("x\ny\rz\t"), "x\\ny\\rz\\t");
        assert_eq!(visible("\0\x07\x7f"), "\\x00\\x07\\x7f");
        assert_eq!(visible("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(visible("evil\u{202e}gnp.exe"), "evil\\u{202e}gnp.exe");
    }

    #[test]
    fn no_control_character_survives() {
        for c in (0u32..0x3000).filter_map(char::from_u32) {
            let s = format!("a{c}b");
            let out = visible(&s);
            assert!(
                !out.chars().any(super::acts_on_terminal),
                "{c:?} passed through as {out:?}"
            );
        }
    }
}
