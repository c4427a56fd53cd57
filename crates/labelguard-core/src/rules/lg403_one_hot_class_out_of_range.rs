use crate::rule::declare_rule;

declare_rule! {
    /// `one_hot` got a value that is negative or not below `num_classes`.
    ///
    /// ## What it checks
    /// Every value of the tensor given to `F.one_hot(t, num_classes)` must lie in `[0, num_classes-1]`
    /// (with `num_classes=-1`, every value must be non-negative).
    ///
    /// ## Why it crashes
    /// On CUDA `one_hot` relies on `scatter`'s device assert (`index out of bounds`); on the CPU it raises
    /// `Class values must be smaller than num_classes.` or `Class values must be non-negative.` Masks with
    /// 255 borders and binary masks stored as 0/255 are the usual cause.
    ///
    /// ## Fix
    /// Map void pixels to a real class or drop them before `one_hot`; for 0/255 masks use `mask // 255`.
    ///
    /// ## Checked by
    /// - [`crate::ops::one_hot::one_hot`]
    /// - fixture: `lg403_one_hot` in `tests/rule_fixtures.rs`
    "LG403", "one-hot-class-out-of-range", Error
}
