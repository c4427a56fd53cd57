use crate::rule::declare_rule;

declare_rule! {
    /// A mask and its image have different sizes.
    ///
    /// ## What it checks
    /// The width and height of each mask against those of its paired image (read from the image header only).
    ///
    /// ## Why it matters
    /// Random crops and flips applied to both then cut different regions, so the labels no longer lie on their
    /// objects; without such transforms the logits `[N, C, h, w]` and the target `[N, H, W]` disagree and PyTorch
    /// raises `input and target batch or spatial sizes don't match`.
    ///
    /// ## Fix
    /// Regenerate the mask at the image's size (nearest-neighbour), or pair it with the right image.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg607_mask_image_size_mismatch.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg607_mask_image_size_mismatch` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG607", "mask-image-size-mismatch", Error
}
