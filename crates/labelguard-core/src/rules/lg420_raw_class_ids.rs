use crate::finding::count;
use crate::ops::class_id_words::{ClassIdCause, ClassIdFacts, Words};
use crate::rule::declare_rule;

declare_rule! {
    /// Raw, non-contiguous ids used as class indices: the labels were never remapped to `0..C-1`.
    ///
    /// ## What it checks
    /// Class indices (a loss's target, a one-hot or scatter of labels, an index into a class dimension, a
    /// class or category embedding) with at least two distinct ids beyond the classes, no more distinct ids
    /// than classes, a sparse id set (at most half of `0..max` used) reaching at least `2C`: identity numbers of a re-identification
    /// or metric-learning dataset (`[3, 7, 11, 42]` for 4 classes), COCO category ids, database keys.
    ///
    /// ## Why it crashes
    /// Every id at or above C is out of range: the CUDA kernel asserts (loss, scatter, gather, indexing,
    /// embedding), the CPU raises `IndexError`/`RuntimeError`.
    ///
    /// ## Fix
    /// Remap the ids once over the whole dataset to `0..K-1` (sorted unique ids → position:
    /// `torch.unique(ids, return_inverse=True)`, `sklearn.preprocessing.LabelEncoder`) and give the model or
    /// loss `num_classes=K`, the number of distinct ids. Remapping per batch would give one class different
    /// numbers in different batches.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::group_causes`] (losses)
    /// - [`crate::ops::indexing::labels_cause`] (one_hot, scatter/gather, advanced indexing, class embeddings)
    /// - fixtures: `lg420_raw_ids_loss`, `lg420_raw_ids_one_hot` in `tests/rule_fixtures.rs`
    "LG420", "raw-class-ids", Error
}

/// LG420's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// Whether the labelled ids (sorted, distinct, the ignore value left out) are raw ids that
/// were never remapped to `0..c-1`: two or more beyond the classes, no more ids than classes,
/// and a sparse set.
pub(crate) fn applies(ids: &[i64], c: i64) -> bool {
    let (Some(&min), Some(&max)) = (ids.first(), ids.last()) else {
        return false;
    };
    let beyond = ids.iter().filter(|&&v| v >= c).count();
    // Far beyond the classes (at least 2C): a small batch of a larger class set (ids 1, 6, 8, 9
    // for 5 classes of 10) is sparse too, but its ids stay below 2C.
    min >= 0
        && c >= 2
        && beyond >= 2
        && ids.len() as i64 <= c
        && (ids.len() as i128) * 2 <= max as i128 + 1
        && max as i128 >= 2 * c as i128
}

/// The hint and the fix, shared by every path that takes class indices.
pub(crate) fn hint_fix(ids: &[i64], c: i64) -> (String, String) {
    let shown: Vec<String> = ids.iter().take(8).map(|v| v.to_string()).collect();
    let more = if ids.len() > 8 { ", ..." } else { "" };
    (
        format!(
            "the labels are raw, non-contiguous ids ({}{more}): {} for {c} classes, numbered as the dataset names them, not 0..{}",
            shown.join(", "),
            count(ids.len() as u64, "distinct id"),
            c - 1
        ),
        format!(
            "remap the ids to 0..{} once over the whole dataset (sorted unique ids -> index: torch.unique(ids, return_inverse=True), sklearn LabelEncoder) and set num_classes to the number of distinct ids",
            c - 1
        ),
    )
}

fn words(f: &ClassIdFacts<'_>) -> Words {
    let ids: Vec<i64> = f.ids.to_vec();
    let (hint, fix) = hint_fix(&ids, f.c);
    Words {
        message: format!("{} of {} {} outside [0, {}] (C={}): {}{}", f.n, f.count, if f.count == 1 { "target is" } else { "targets are" }, f.c - 1, f.c, f.values, f.first),
        hint: Some(hint),
        fix,
    }
}
