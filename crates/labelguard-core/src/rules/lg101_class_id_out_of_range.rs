use crate::finding::is_are;
use crate::kernels::OrderedValue;
use crate::ops::class_id_words::{ClassIdCause, ClassIdFacts, Words};
use crate::rule::{declare_rule, RuleRepair};

declare_rule! {
    /// Class id out of range: a class-index target is `>= C`, the number of classes.
    ///
    /// ## What it checks
    /// Every target of `cross_entropy` / `nll_loss` that is not `ignore_index` must lie in `[0, C-1]`,
    /// where `C` is the size of the class dimension of `input` (dim 1, or dim 0 for unbatched input).
    /// Bad values far rarer than the classes beside them (a stray patch, row or label: at most a quarter of
    /// the typical class's count) are a data error in their samples: the finding says so (its fact is
    /// `stray_values`), its fix is to correct or drop those samples, and no table is proposed.
    ///
    /// ## Why it crashes
    /// On CUDA the loss kernel checks each target with a device assertion
    /// (`Assertion `t >= 0 && t < n_classes` failed`, in `Loss.cu` or `NLLLoss2d.cu`). The assertion kills
    /// the CUDA context, and the Python traceback points at a later, innocent line. On the CPU the same
    /// call raises `IndexError: Target 5 is out of bounds.`
    ///
    /// ## Example
    /// `F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 3]))`: 3 is not a class of a 3-class head.
    ///
    /// ## Fix
    /// Give the model head as many outputs as there are classes (`num_classes` / `num_labels`), or remap the
    /// labels to `0..C-1`. Values that mean "no label" belong in `ignore_index`.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`words`] (in this file) words the finding; [`CAUSE`] ties it to the rule
    /// - [`crate::ops::classification::background_cause`]
    /// - `crates/labelguard-scan/src/checks/lg101_class_id_out_of_range.rs`: more ImageFolder class folders than
    ///   classes (in the scan crate, which lists the folders)
    /// - fixtures: `lg101_out_of_range`, `lg101_binary_mask_0_255` in `tests/rule_fixtures.rs`
    "LG101", "class-id-out-of-range", Error;
    repair = RuleRepair::BinaryMask
}

/// LG101's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// Ids beyond the classes with no known convention behind them: the hint reads the value
/// profile (one too few outputs, a 0/255 binary mask, 16-bit instance ids, many distinct ids).
fn words(f: &ClassIdFacts<'_>) -> Words {
    let (n, c, ignore, min, max) = (f.n, f.c, f.ignore, f.min, f.max);
    let distinct = f.located.values.len();
    let binary = f
        .located
        .values
        .keys()
        .all(|k| matches!(k, OrderedValue::Int(255)))
        && c <= 2;
    let range = format!("[0, {}]", c as i128 - 1);
    let message = format!("{n} of {} targets {} outside {range} (C={c}, ignore_index={ignore}): {}{}", f.count, is_are(n), f.values, f.first);
    if f.stray {
        return Words {
            message,
            hint: Some(format!("{} far rarer than the classes beside {} ({n} of {} targets): a data error in the samples that hold {}, such as a stray patch, row or label, not a numbering convention and not a class the head lacks", if distinct == 1 { "this value is" } else { "these values are" }, if distinct == 1 { "it" } else { "them" }, f.count, if distinct == 1 { "it" } else { "them" })),
            fix: "correct or drop the samples that hold these values (the first place is above); neither a wider head nor remapping every label fixes a stray value".to_string(),
        };
    }
    // Ids beyond C that run on from C without a gap look like classes the head left out.
    let run_on = !f.ids.is_empty() && (c..=max).all(|v| f.ids.contains(&v));
    let hint = if max == c && min == 0 {
        let zero = if c >= 100 {
            " or the classes are 1..C with 0 meaning 'other' (ADE20K-style, reduce_zero_label)"
        } else {
            ""
        };
        Some(format!("the ids span 0..{c}, one more than the {c} classes: the head may need {} outputs (a class the labels use and the class count left out){zero}", c as i128 + 1))
    } else if max == c {
        Some(format!("the largest id equals C={c}: the model may have one output too few"))
    } else if binary {
        Some("a binary mask stored as 0/255: 255 is the foreground, not a void label".into())
    } else if max > 255 && c <= 256 {
        Some(format!("ids up to {max} need 16 bits: instance ids, or a dataset's full label set (ADE20K's full index, not its 150 SceneParsing classes) instead of the {c} training classes"))
    } else if distinct > 8 {
        Some(format!("{distinct} distinct ids beyond the classes: colour values, instance ids, or a mask resized with bilinear interpolation?"))
    } else {
        None
    };
    Words {
        message,
        hint,
        fix: fix(c, max, distinct, binary, run_on || f.ids.is_empty()),
    }
}

/// Widening the head is offered first only when the ids beyond the classes look like missing
/// classes (a few, running on from C without a gap); otherwise the labels are wrong and the fix
/// is to remap them.
fn fix(c: i64, max: i64, distinct: usize, binary: bool, run_on: bool) -> String {
    // In i128: a label of i64::MAX needs a class dimension of 2^63, which has no i64.
    let width = max.max(c) as i128 + 1;
    let remap = format!("remap the labels to 0..{}", c as i128 - 1);
    if binary {
        "map the mask to 0/1: target = (mask > 127).long()".to_string()
    } else if run_on && distinct <= 8 && width - c as i128 <= 8 {
        format!("make the class dimension of input {width} wide (num_classes={width}), or {remap}")
    } else if distinct > 8 {
        format!("find what produced {distinct} distinct ids beyond the classes (a bilinear resize blends ids at every border; colour or instance ids need their mapping) and regenerate the masks or {remap}; a head {width} wide would only hide the problem")
    } else {
        format!("{remap}: ids up to {max} are not classes of a {c}-class model (widen the head to {width} only if the dataset really has {width} classes)")
    }
}
