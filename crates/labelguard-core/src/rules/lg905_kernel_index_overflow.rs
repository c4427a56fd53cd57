use crate::rule::declare_rule;

declare_rule! {
    /// A kernel's index arithmetic overflowed: the tensor is too large, the labels are fine.
    ///
    /// ## What it checks
    /// A device assert on an overflow guard rather than on a label: `nll_loss2d_forward_kernel: ... Assertion
    /// `input_index >= 0` failed.` (`NLLLoss2d.cu`) or `nll_loss_backward_reduce_cuda_kernel_2d: ... Assertion
    /// `index >= 0` failed.` (`Loss.cu`).
    ///
    /// ## Why it crashes
    /// The kernel computes element offsets in 32 bits; with more than 2^31 logits (a large batch of
    /// high-resolution segmentation logits with many classes) the offset wraps to a negative number.
    ///
    /// ## Fix
    /// Use a smaller batch or resolution, compute the loss in chunks, or upgrade PyTorch. Checking the labels
    /// will not help.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg905_kernel_index_overflow.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG905", "kernel-index-overflow", Error
}
