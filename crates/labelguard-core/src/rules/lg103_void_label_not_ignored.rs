use crate::finding::{count, is_are};
use crate::ops::class_id_words::{drop_marked, ClassIdCause, ClassIdFacts, Words, NO_IGNORE};
use crate::rule::{declare_rule, RepairKind, RuleRepair};

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
    /// - [`words`] (in this file) words the finding; [`CAUSE`] ties it to the rule
    /// - fixture: `lg103_void_label` in `tests/rule_fixtures.rs`
    "LG103", "void-label-not-ignored", Error;
    repair = RuleRepair::OfValues(RepairKind::VoidToIgnore, &[255])
}

/// LG103's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// 255 is the void label: the fix is the loss's ignore_index, or, for a loss without one, the
/// samples' removal. On one label per sample (a classification table, MNIST's targets) 255 is
/// no unlabelled pixel but a sample marked unlabelled, or a corrupt label: its words say so.
fn words(f: &ClassIdFacts<'_>) -> Words {
    let (n, c, ignore, first) = (f.n, f.c, f.ignore, &f.first);
    let per_sample = f.per_sample();
    let (ignored, fix) = if ignore == NO_IGNORE {
        ("the loss has no ignore_index".to_string(), drop_marked(255))
    } else if per_sample {
        (
            format!("ignore_index is {ignore}"),
            "relabel or drop the samples labelled 255; or, to skip them in the loss, pass ignore_index=255 (nn.CrossEntropyLoss(ignore_index=255))".into(),
        )
    } else {
        (
            format!("ignore_index is {ignore}"),
            "pass ignore_index=255 (nn.CrossEntropyLoss(ignore_index=255))".into(),
        )
    };
    let (what, hint) = if per_sample {
        (
            "the 'unlabelled' marker",
            format!("one label per sample, and 255 is none of the {c} classes: samples marked unlabelled (255 is the void value of segmentation masks), or corrupt labels"),
        )
    } else {
        (
            "the void label",
            "255 marks unlabelled pixels (object borders, padding) in VOC, Cityscapes trainIds and most segmentation pipelines".to_string(),
        )
    };
    Words {
        message: format!("{} {} 255, {what}, but {ignored} and the model has {c} classes{first}", count(n, "target"), is_are(n)),
        hint: Some(hint),
        fix,
    }
}
