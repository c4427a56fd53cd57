use crate::rule::declare_rule;

declare_rule! {
    /// A flat index outside the tensor: `torch.take`, `Tensor.put_`.
    ///
    /// ## What it checks
    /// `take` and `put_` address the tensor as if it were 1-D: every index must lie in `[-numel, numel-1]`.
    ///
    /// ## Why it crashes
    /// On CUDA the kernel asserts (`Assertion `idx < numel && idx >= -numel && "cuda_take_put_kernel() index out
    /// of bounds"` failed`); on the CPU: `IndexError: out of range: tried to access index 20 on a tensor of 20
    /// elements.`
    ///
    /// ## Fix
    /// Compute flat indices with the tensor's own strides (`row * x.size(1) + col`), and check them against
    /// `x.numel()`.
    ///
    /// ## Checked by
    /// - [`crate::ops::take_put::flat_range`]
    /// - fixture: `lg410_take` in `tests/rule_fixtures.rs`
    "LG410", "flat-index-out-of-range", Error
}
