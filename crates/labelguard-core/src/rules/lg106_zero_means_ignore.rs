use crate::rule::declare_rule;

declare_rule! {
    /// Zero means "ignore" in this dataset: the targets run from 0 to C.
    ///
    /// ## What it checks
    /// The targets span `0..C` (C+1 values) with a C-class model: the ADE20K convention, where 0 is
    /// "other/unlabelled" and the classes are 1..C. mmsegmentation calls the remedy `reduce_zero_label`.
    ///
    /// ## Why it crashes
    /// Class id C does not exist; the CUDA loss kernel asserts and the CPU raises `IndexError: Target C is
    /// out of bounds.`
    ///
    /// ## Fix
    /// Map 0 to 255 and subtract one from the rest (`reduce_zero_label=True` in mmseg; by hand:
    /// `t = t.long() - 1; t[t == -1] = 255`), then pass `ignore_index=255`.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::class_ids::class_finding`]
    /// - fixture: `lg106_zero_means_ignore` in `tests/rule_fixtures.rs`
    "LG106", "zero-means-ignore", Error
}
