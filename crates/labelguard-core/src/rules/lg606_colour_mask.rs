use crate::rule::declare_rule;

declare_rule! {
    /// An RGB colour mask where a class-index mask is expected.
    ///
    /// ## What it checks
    /// Masks stored with 3 or 4 channels. With a palette (`--palette FILE` or a preset's), each colour is mapped to
    /// its class id and the colours that are not in the palette are reported with their first pixels; without one,
    /// the distinct colours are counted. A mask whose three channels are equal is a grey index mask saved as RGB.
    ///
    /// ## Why it crashes
    /// Loaded as is, the target has shape `[H, W, 3]` and values up to 255: `cross_entropy` raises
    /// `only batches of spatial targets supported` or, once reshaped, hits the device-side assert
    /// `t >= 0 && t < n_classes`. `cv2.imread` turns VOC palette masks into such BGR images.
    ///
    /// ## Example
    /// Cityscapes `*_gtFine_color.png` files used instead of `*_gtFine_labelTrainIds.png`.
    ///
    /// ## Fix
    /// Use the index masks, open palette PNGs with `Image.open(path)` (not `.convert('RGB')`, not `cv2.imread`),
    /// or convert colours to ids once with the palette and save single-channel PNGs.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg606_colour_mask.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg606_colour_mask` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG606", "colour-mask", Error
}
