use crate::rule::{declare_rule, RuleRepair, RepairKind};

declare_rule! {
    /// The mask was resized with bilinear or bicubic interpolation: new ids appear in thin bands between classes.
    ///
    /// ## What it checks
    /// Ids that cover a small share of the mask and whose pixels lie mostly in one-pixel bands between two other
    /// classes, with a value numerically between theirs (for example 7 between a region of 3 and a region of 11).
    /// That is what interpolating class ids does: it blends the numbers, not the classes. Ids outside the class
    /// set are also reported by LG101; this rule names the cause.
    ///
    /// ## Why it matters
    /// The interpolated ids are either out of range (a device-side assert, sporadically, on the batches that hold a
    /// border) or valid but wrong classes (silently wrong labels along every object border).
    ///
    /// ## Example
    /// `mask.resize((1024, 512))` in Pillow defaults to bicubic for `L` images since Pillow 7.0;
    /// `transforms.Resize` on a mask tensor defaults to bilinear; `cv2.resize` defaults to `INTER_LINEAR`.
    ///
    /// ## Fix
    /// Resize masks with nearest-neighbour interpolation (`Image.NEAREST`, `InterpolationMode.NEAREST`,
    /// `cv2.INTER_NEAREST`), and regenerate the affected files from the originals.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg605_resize_artefacts.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg605_resize_artefacts` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG605", "resize-artefacts", Warning;
    repair = RuleRepair::Always(RepairKind::ResizeArtefacts)
}
