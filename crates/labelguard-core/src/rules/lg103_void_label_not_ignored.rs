use crate::rule::declare_rule;

declare_rule! {
    /// Void label 255 without `ignore_index=255`.
    ///
    /// ## What it checks
    /// A segmentation or classification target contains 255 (the "void"/"unlabelled" value of Pascal VOC,
    /// Cityscapes trainIds, ADE20K with `reduce_zero_label`, and padding in most segmentation pipelines)
    /// while `ignore_index` is not 255 and 255 is not a class.
    ///
    /// ## Why it crashes
    /// 255 is not a class id, so the CUDA loss kernel asserts (`t >= 0 && t < n_classes`), per pixel, and
    /// the CPU raises `IndexError: Target 255 is out of bounds.` PyTorch's default `ignore_index` is -100.
    ///
    /// ## Example
    /// `F.cross_entropy(logits_NCHW, mask_NHW)` with VOC masks, whose object borders are 255.
    ///
    /// ## Fix
    /// Pass `ignore_index=255` to the loss (`nn.CrossEntropyLoss(ignore_index=255)`), and pad crops with 255.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::class_ids::class_finding`]
    /// - fixture: `lg103_void_label` in `tests/rule_fixtures.rs`
    "LG103", "void-label-not-ignored", Error
}
