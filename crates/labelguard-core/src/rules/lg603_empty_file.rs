use crate::rule::declare_rule;

declare_rule! {
    /// A label file is empty: zero bytes, zero pixels, or a table without rows.
    ///
    /// ## What it checks
    /// Files of 0 bytes, images whose width or height is 0, arrays with a zero-sized dimension and label tables
    /// whose label column holds no rows.
    ///
    /// ## Why it matters
    /// An empty mask cannot be decoded (Pillow: `cannot identify image file`); an empty target tensor makes
    /// `cross_entropy` with `reduction='mean'` return NaN, which then spreads through the weights.
    ///
    /// ## Fix
    /// Regenerate the file, or drop the sample.
    ///
    /// ## Checked by
    /// - `crates/labelguard-formats/src/checks/lg603_empty_file.rs` (same name, in the formats crate, which reads the files; the scan crate names it in its `checks`)
    /// - fixture: `lg603_empty_file` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG603", "empty-file", Error;
    category = Unreadable
}
