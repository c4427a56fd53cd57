use crate::rule::declare_rule;

declare_rule! {
    /// A class never occurs in the scanned labels.
    ///
    /// ## What it checks
    /// Every class id in `[0, C-1]` against the class histogram of the whole scan.
    ///
    /// ## Why it matters
    /// The model cannot learn a class it never sees: its logit only ever gets pushed down, and mIoU averages in a
    /// zero (or a NaN, depending on the metric). It also often means the ids are shifted (1-based, reduced) or
    /// `num_classes` is larger than the label set.
    ///
    /// ## Fix
    /// Check `num_classes` and the id mapping; drop the class from the head, or add labelled samples of it.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/report/dataset_checks/lg609_class_never_seen.rs` (same name, in the scan crate's report, which has the whole dataset's histogram)
    /// - fixture: `lg609_class_never_seen` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG609", "class-never-seen", Warning
}
