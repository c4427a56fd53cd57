//! LG620 internal-error: a panic while analysing one file, caught by [`labelguard_formats::isolate`] and
//! reported for that file so the rest of the scan goes on.
//! Documentation: `labelguard_core::rules::lg620_internal_error`.

use labelguard_core::rules::LG620;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// LG620 for a panic met while reading a file.
pub fn internal_error(message: &str) -> Finding {
    problem(
        &LG620,
        format!("internal error while reading: {message} (please report)"),
    )
    .hint("labelguard failed on this file, so it could not tell whether the file is fine")
    .fix("report it with the file to labelguard's issue tracker; meanwhile check the file by hand or exclude it")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_finding_names_the_panic() {
        let p = super::internal_error("x");
        assert_eq!(p.code, "LG620");
        assert!(p.message.starts_with("internal error while reading: x"));
    }
}
