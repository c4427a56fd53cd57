use crate::rule::declare_rule;

declare_rule! {
    /// One-based labels: the targets run from 1 to C instead of 0 to C-1.
    ///
    /// ## What it checks
    /// No target is 0, the smallest is at least 1 and the largest equals `C`: the labels were numbered from 1
    /// (MATLAB, R, a CSV exported by hand, `LabelEncoder` run on strings that start at "1").
    ///
    /// ## Why it crashes
    /// Class `C` does not exist, so the loss kernel asserts on CUDA and raises `IndexError: Target C is out
    /// of bounds.` on the CPU. Even when no sample of class C is in the batch, every class is shifted by one.
    ///
    /// ## Fix
    /// Subtract one: `target = target - 1`, once, where the labels are loaded.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::class_ids::class_finding`]
    /// - fixture: `lg104_one_based` in `tests/rule_fixtures.rs`
    "LG104", "one-based-labels", Error
}
