//! A finding as one paragraph of sentences, for the formats that hold one text per finding
//! (SARIF messages, JUnit failures, GitHub annotations).

use labelguard_core::Finding;

/// "message. Hint: ... Fix: ...", without doubling the hint's own final punctuation.
pub fn full_text(f: &Finding) -> String {
    let sentence = |s: &str| {
        if s.ends_with(['.', '?', '!']) {
            s.to_string()
        } else {
            format!("{s}.")
        }
    };
    let mut s = sentence(&f.message);
    if let Some(h) = &f.hint {
        s += &format!(" Hint: {}", sentence(h));
    }
    if !f.fix.is_empty() {
        s += &format!(" Fix: {}", sentence(&f.fix));
    }
    s
}
