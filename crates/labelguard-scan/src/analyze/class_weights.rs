//! The class-weight file: its length against the number of classes (LG301) and its values
//! (NaN, infinite, negative or all-zero weights), read by [`labelguard_formats::read::class_weights`].

use super::ctx::Ctx;
use super::result::{FileKind, FileResult};
use crate::layout::Item;
use labelguard_core::rules::LG301;
use labelguard_core::{DType, Finding, TensorView, Verdict};
use labelguard_formats::read::class_weights::read_weights;

pub(crate) fn class_weights_file(item: &Item, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::ClassWeights);
    let weights = match read_weights(&item.source) {
        Ok(w) => w,
        Err(p) => {
            r.findings.push(p);
            return r;
        }
    };
    r.shape = Some(vec![weights.len()]);
    let bytes: Vec<u8> = weights.iter().flat_map(|v| v.to_le_bytes()).collect();
    let view = TensorView::new(DType::F64, &[weights.len()], &bytes).expect("one value per weight");
    if let Some(c) = ctx.opts.num_classes {
        let (n, c) = (weights.len(), c as usize);
        if n != c {
            let hint = if n == c + 1 {
                "one entry too many: a weight for the background or the void label (255) was included".to_string()
            } else if n == 256 {
                "256 entries: weights computed over every u8 value, void included".to_string()
            } else if n + 1 == c {
                "one entry too few: the background class (0) or the last class was left out"
                    .to_string()
            } else {
                format!("computed for a {n}-class label set")
            };
            r.findings.push(
                Finding::new(
                    &LG301,
                    Verdict::Error,
                    format!("the class-weight file has {n} entries but there are {c} classes: weight tensor should be defined either for all {c} classes or no classes"),
                )
                .hint(hint)
                .fix(format!("compute one weight per class 0..{}, leaving out the ignore value (the scan's suggestion: --write-weights FILE)", c - 1)),
            );
        }
    }
    if let Some(f) = labelguard_core::ops::values::weight_values(&view, "weight") {
        r.findings.push(f);
    }
    r
}
