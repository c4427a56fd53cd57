use crate::rule::declare_rule;

declare_rule! {
    /// Cityscapes labelIds used where trainIds are expected.
    ///
    /// ## What it checks
    /// With 19 classes, targets above 18 and up to 33 are the 34 Cityscapes *labelIds* (`*_gtFine_labelIds.png`),
    /// not the 19 *trainIds* (`*_gtFine_labelTrainIds.png`, 0..18 plus 255 for void).
    ///
    /// ## Why it crashes
    /// Ids 19..33 are not classes of a 19-class model, so the CUDA loss kernel asserts (`t >= 0 && t <
    /// n_classes`); the CPU raises `IndexError: Target 26 is out of bounds.`
    ///
    /// ## Fix
    /// Load the `*_labelTrainIds.png` masks (made by cityscapesScripts' `createTrainIdLabelImgs.py`), or map
    /// labelIds to trainIds with the table in cityscapesScripts' `labels.py`; pass `ignore_index=255`.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::class_ids::class_finding`]
    /// - fixture: `lg105_cityscapes_label_ids` in `tests/rule_fixtures.rs`
    "LG105", "cityscapes-label-ids", Error
}
