use crate::finding::count;
use crate::ops::class_id_words::{ClassIdCause, ClassIdFacts, Words};
use crate::rule::{declare_rule, RuleRepair, RepairKind};

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
    /// - [`words`] (in this file) words the finding; [`CAUSE`] ties it to the rule
    /// - fixture: `lg105_cityscapes_label_ids` in `tests/rule_fixtures.rs`
    "LG105", "cityscapes-label-ids", Error;
    category = DatasetConvention;
    repair = RuleRepair::Always(RepairKind::CityscapesTrainIds)
}

/// LG105's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// Cityscapes labelIds given to a 19-class (trainIds) model.
fn words(f: &ClassIdFacts<'_>) -> Words {
    let (n, first, values) = (f.n, &f.first, &f.values);
    let lie = if n == 1 { "lies" } else { "lie" };
    Words {
        message: format!("{} {lie} in 19..=33 with 19 classes: these are Cityscapes labelIds, not trainIds ({values}){first}", count(n, "target")),
        hint: Some("Cityscapes *_gtFine_labelIds.png hold 34 ids (0..33); the 19 training classes are the *_labelTrainIds.png ids 0..18 with 255 as void".into()),
        fix: "use the *_gtFine_labelTrainIds.png masks (cityscapesScripts createTrainIdLabelImgs.py) or map labelIds to trainIds, and pass ignore_index=255".into(),
    }
}
