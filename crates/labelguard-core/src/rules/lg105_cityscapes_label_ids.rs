use crate::finding::count;
use crate::ops::class_id_words::{ClassIdCause, ClassIdFacts, Words};
use crate::ops::id_weight::IdWeights;
use crate::rule::{declare_rule, RuleRepair, RepairKind};

declare_rule! {
    /// Cityscapes labelIds used where trainIds are expected.
    ///
    /// ## What it checks
    /// With 19 classes, targets above 18 and up to 33 are the 34 Cityscapes *labelIds* (`*_gtFine_labelIds.png`),
    /// not the 19 *trainIds* (`*_gtFine_labelTrainIds.png`, 0..18 plus 255 for void). Named only when the ids
    /// have labelIds' shape: no labelled id above 33, and the ids beyond 18 weigh as classes do (not stray,
    /// and at least two of them or 5% of the labels). A 6x6 patch of 19 in a trainIds mask is LG101, and
    /// `labelguard fix` refuses to map a file whose ids do not show the labelId space.
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

/// Whether the ids beyond 19 classes have the shape of Cityscapes labelIds: every bad id in
/// 19..=33 and none labelled above 33 (trainIds' void 255 is absent), and they weigh as the
/// classes do: not stray, and at least two of labelIds' ids beyond 18 or 5% of the labels. A
/// patch of 19 in a trainIds mask is a data error in that mask, not the labelId space.
pub fn shape(
    bad: &[i64],
    max: i64,
    histogram: Option<&std::collections::BTreeMap<i64, u64>>,
    ignore: i64,
) -> bool {
    if bad.is_empty() || max > 33 || !bad.iter().all(|v| (19..=33).contains(v)) {
        return false;
    }
    let Some(h) = histogram else {
        // Too many distinct ids to tally is no labelIds mask (34 ids).
        return false;
    };
    let w = IdWeights::new(h, 19, ignore);
    !w.all_stray(bad) && (bad.len() >= 2 || w.share(bad) >= 0.05)
}

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
