use crate::finding::{shape_str, Fact};
use crate::rule::{declare_rule, RuleRepair, RepairKind};
use crate::{Finding, Verdict};

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
    /// - [`colour_array`] (in this file): an array or tensor with colours last, in the scan's arrays and in
    ///   [`crate::ops::label_target::LabelTarget::shape`] (the Python guards), in the same words
    /// - fixture: `lg606_colour_mask` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG606", "colour-mask", Error;
    repair = RuleRepair::ByFact(&[
        (Fact::EveryColourKnown, RepairKind::ColourToIndex),
        (Fact::EqualChannels, RepairKind::FirstChannel),
    ])
}

/// The channels of a target whose shape is `[H, W, 3|4]` or `[N, H, W, 3|4]` with `H >= 8`:
/// colours last, an image where class ids are expected.
pub fn colours_last(shape: &[usize]) -> Option<usize> {
    let rank = shape.len();
    let last = *shape.last()?;
    ((rank == 3 || rank == 4) && (last == 3 || last == 4) && shape[rank - 2] >= 8).then_some(last)
}

/// An array of shape `[.., H, W, 3|4]`: colours last where class ids are expected.
pub fn colour_array(name: &str, shape: &[usize], channels: usize) -> Finding {
    Finding::new(&RULE, Verdict::Error, format!("{name} has shape {} with {channels} channels last: an RGB colour mask where class ids are expected", shape_str(shape)))
        .hint("an image-like array (H, W, 3) of colours; class ids need one value per pixel")
        .fix("map colours to ids with the palette, or save the index mask instead")
}
