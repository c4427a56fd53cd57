use crate::rule::declare_rule;

declare_rule! {
    /// Extreme class imbalance: the most frequent class outnumbers the rarest by more than the limit.
    ///
    /// ## What it checks
    /// The ratio of the largest to the smallest non-zero class count (pixels for masks, samples for tables),
    /// against `imbalance_ratio` (default 10,000).
    ///
    /// ## Why it matters
    /// With plain cross-entropy the rare classes contribute almost nothing to the gradient; the model learns to
    /// ignore them and mIoU suffers.
    ///
    /// ## Fix
    /// Weight the loss (the scan suggests weights: inverse frequency, median-frequency balancing, ENet's
    /// `1/ln(c + p)`; `--write-weights FILE`), oversample rare classes, or use a focal / Dice loss.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/report/dataset_checks/lg611_class_imbalance.rs` (same name, in the scan crate's report, which has the whole dataset's histogram)
    /// - fixture: `lg611_class_imbalance` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    /// - tests: `crates/labelguard-cli/tests/scan_truth.rs`, the cases in `crates/labelguard-cli/tests/cmd/scan/`
    "LG611", "class-imbalance", Warning
}
