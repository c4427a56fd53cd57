use crate::rule::declare_rule;

declare_rule! {
    /// A file name is not valid UTF-8.
    ///
    /// ## What it checks
    /// Every path found while walking the dataset. Such names are shown with U+FFFD in place of the bad bytes.
    ///
    /// ## Why it matters
    /// Python represents them with surrogate escapes: printing, logging or writing them to a JSON or CSV split list
    /// raises `UnicodeEncodeError`, and other machines (or an archive) may spell them differently, so the pairing
    /// of masks and images breaks.
    ///
    /// ## Fix
    /// Rename the file to UTF-8 (`convmv -f latin1 -t utf8 --notest`).
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg614_non_utf8_path.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg614_non_utf8_path` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG614", "non-utf8-path", Warning
}
