//! A count with its word, as every scan report writes it.

use crate::thousands;

/// `1 file`, `2 files`, `1,024 files`, `1 class`, `2 classes`.
pub fn plural(n: u64, word: &str) -> String {
    let many = if word.ends_with('s') { "es" } else { "s" };
    format!("{} {word}{}", thousands(n), if n == 1 { "" } else { many })
}
