use crate::rule::declare_rule;

declare_rule! {
    /// Class id out of range: a class-index target is `>= C`, the number of classes.
    ///
    /// ## What it checks
    /// Every target of `cross_entropy` / `nll_loss` that is not `ignore_index` must lie in `[0, C-1]`,
    /// where `C` is the size of the class dimension of `input` (dim 1, or dim 0 for unbatched input).
    ///
    /// ## Why it crashes
    /// On CUDA the loss kernel checks each target with a device assertion
    /// (`Assertion `t >= 0 && t < n_classes` failed`, in `Loss.cu` or `NLLLoss2d.cu`). The assertion kills
    /// the CUDA context, and the Python traceback points at a later, innocent line. On the CPU the same
    /// call raises `IndexError: Target 5 is out of bounds.`
    ///
    /// ## Example
    /// `F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 3]))`: 3 is not a class of a 3-class head.
    ///
    /// ## Fix
    /// Give the model head as many outputs as there are classes (`num_classes` / `num_labels`), or remap the
    /// labels to `0..C-1`. Values that mean "no label" belong in `ignore_index`.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::class_ids::class_finding`]
    /// - [`crate::ops::classification::background_cause`]
    /// - fixtures: `lg101_out_of_range`, `lg101_binary_mask_0_255` in `tests/rule_fixtures.rs`
    "LG101", "class-id-out-of-range", Error
}
