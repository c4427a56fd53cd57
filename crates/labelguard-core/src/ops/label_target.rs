//! The label-target contract: what a class-index target (a mask, a label array) must be before
//! any loss sees it. Integer (LG201 float, LG205 bool), shaped like class ids (LG210 a rank that
//! is no target, LG203 a size-1 dimension, LG202 one-hot rows, LG606 colours last), then in
//! range (the class-id analysis of [`super::class_ids`]).
//!
//! One contract for the dataset scan (label arrays in `.npy`/`.npz`/`.safetensors` files) and the
//! Python data guards (`guard_collate`, `GuardedDataset`), so that one array gets one verdict in
//! one wording wherever it is checked. The only thing that differs is the fix: it is written in
//! the API of the library that holds the data ([`Holder`]), because `.long()` on a numpy array is
//! an AttributeError and `.astype` on a tensor is one too.

use super::class_ids::class_ids;
use super::dtypes::index_dtype;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::kernels::scan_float;
use crate::ops::values::is_binary;
use crate::rules::lg606_colour_mask::{colour_array, colours_last};
use crate::rules::{LG201, LG202, LG203, LG210};
use crate::tensor::TensorView;

/// The library that holds the labels: the fixes name its API and its dtype names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A numpy array (a `.npy` or `.npz` file, a Dataset that returns arrays).
    Numpy,
    /// A torch tensor (a `.safetensors` file, a Dataset that returns tensors).
    Torch,
}

impl Holder {
    /// `float32` for numpy, `torch.float32` for torch: the name the user sees in their code.
    fn dtype_name(self, dtype: DType) -> String {
        match self {
            Holder::Numpy => dtype.torch_name().to_string(),
            Holder::Torch => dtype.to_string(),
        }
    }
}

/// How much of a dataset one target holds: it decides whether a 0-d target is a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// One sample of a Dataset: a 0-d class id is the label of an image classifier's sample.
    Sample,
    /// An array stored in a file: the labels of many samples, so at least one dimension.
    Stored,
}

/// The class-index target being checked: its name in the messages, the class count when known,
/// what holds it and how much of the dataset it is.
#[derive(Clone, Copy, Debug)]
pub struct LabelTarget<'n> {
    pub name: &'n str,
    pub num_classes: Option<i64>,
    pub holder: Holder,
    pub extent: Extent,
}

/// The verdict of the shape rules: the finding (if any) and the class ids left to check for
/// values, without the size-1 dimension of LG203; `ids` is `None` when the shape is not that of
/// class ids at all (one-hot, colours, a rank no loss takes).
pub struct Shaped<'a> {
    pub finding: Option<Finding>,
    pub ids: Option<TensorView<'a>>,
}

/// A hint for a float tensor given where class ids are expected.
pub fn float_ids_hint(t: &TensorView<'_>) -> Option<String> {
    let s = scan_float(t, 0.0, 1.0);
    if s.count == 0 || s.nan > 0 {
        return None;
    }
    if s.fractional == 0 {
        Some(
            "the values are whole numbers: the class ids were converted to float on the way".into(),
        )
    } else if s.below == 0 && s.above == 0 {
        Some("the values lie in [0, 1] with fractions: ids divided by 255 (torchvision's ToTensor() on a mask)?".into())
    } else {
        None
    }
}

impl LabelTarget<'_> {
    /// LG201 for float ids, LG205 for bool ones; `None` for integer dtypes (their values are
    /// the class-id analysis's concern).
    pub fn dtype(&self, t: &TensorView<'_>) -> Option<Finding> {
        let name = self.name;
        let dtype = t.dtype();
        let shown = self.holder.dtype_name(dtype);
        if dtype.is_floating() {
            let fix = match self.holder {
                Holder::Numpy => format!("store integer ids: {name}.astype(np.int64) after checking that the values are whole, or rebuild them from the masks"),
                Holder::Torch => format!("cast the class ids: {name}.long()"),
            };
            return Some(
                Finding::new(
                    &LG201,
                    Verdict::Error,
                    format!("{name} is {shown}: class-index targets must be integers (expected target dtype to be Long or Byte)"),
                )
                .fix(fix)
                .maybe_hint(float_ids_hint(t)),
            );
        }
        if dtype == DType::Bool {
            let message = format!(
                "{name} is {shown}: expected target dtype to be Long or Byte, but got Bool"
            );
            let f = index_dtype(t, name, &[DType::I64], message).expect("bool is not int64");
            return Some(match self.holder {
                Holder::Numpy => f.fix(format!("store integer ids: {name}.astype(np.int64)")),
                Holder::Torch => f,
            });
        }
        None
    }

    /// The shape rules of a class-index target: a rank no loss takes (LG210), a size-1
    /// dimension (LG203, the ids go on without it), one-hot rows (LG202), colours last (LG606).
    /// One-hot is judged before colours: with C = 3 a `[H, W, 3]` array of 0/1 is one-hot rows.
    pub fn shape<'a>(&self, t: &TensorView<'a>) -> Shaped<'a> {
        let name = self.name;
        let shape = t.shape();
        let rank = shape.len();
        let rejected = |f: Finding| Shaped {
            finding: Some(f),
            ids: None,
        };
        if (rank == 0 && self.extent == Extent::Stored) || rank >= 5 {
            return rejected(
                Finding::new(
                    &LG210,
                    Verdict::Error,
                    format!(
                        "{name} has shape {}: a class-index target is [N], [H, W] or [N, H, W]",
                        shape_str(shape)
                    ),
                )
                .fix("reshape or split the array"),
            );
        }
        let size_one = match rank {
            2 if shape[1] == 1 && shape[0] > 1 => Some((1, "squeeze(1)")),
            3 | 4 if shape[rank - 1] == 1 => Some((rank - 1, "squeeze(-1)")),
            4 if shape[1] == 1 => Some((1, "squeeze(1)")),
            _ => None,
        };
        if let Some((dim, squeeze)) = size_one {
            let finding = Finding::new(
                &LG203,
                Verdict::Error,
                format!("{name} has shape {} with a size-1 dimension {dim}: a class-index target has none", shape_str(shape)),
            )
            .hint("masks read as single-channel images, or labels read as a one-column table, keep this dimension")
            .fix(format!("{name}.{squeeze}"));
            return Shaped {
                finding: Some(finding),
                ids: Some(without_dim(t, dim)),
            };
        }
        if rank == 3 || rank == 4 {
            if let Some(dim) = self.one_hot_dim(t) {
                return rejected(
                    Finding::new(
                        &LG202,
                        Verdict::Error,
                        format!("{name} has shape {} and holds only 0 and 1 along dimension {dim} ({} classes): a one-hot target where class indices are expected", shape_str(shape), shape[dim]),
                    )
                    .fix(format!("take the index: {name}.argmax({dim}); or train on the one-hot form as probabilities with a float target")),
                );
            }
            if let Some(channels) = colours_last(shape) {
                return rejected(colour_array(name, shape, channels));
            }
            if rank == 4 {
                return rejected(
                    Finding::new(&LG210, Verdict::Error, format!("{name} has shape {}: a 4-D class-index target is not supported by cross_entropy", shape_str(shape)))
                        .fix("reshape to [N, H, W]"),
                );
            }
        }
        Shaped {
            finding: None,
            ids: Some(t.clone()),
        }
    }

    /// The dimension that holds one-hot rows of a 3-D or 4-D target: the last, or the channels
    /// (dimension 1 of `[N, C, H, W]`; dimension 0 of `[C, H, W]` only when it is exactly C,
    /// since `[N, H, W]` is the usual batch of masks).
    fn one_hot_dim(&self, t: &TensorView<'_>) -> Option<usize> {
        let shape = t.shape();
        let rank = shape.len();
        let c = self.num_classes.and_then(|c| usize::try_from(c).ok());
        let is_c = |n: usize| c == Some(n) || (c.is_none() && n > 1);
        let last = shape[rank - 1];
        let chan_first = if rank == 4 { shape[1] } else { shape[0] };
        if is_c(last) && last <= 1024 && is_binary(t) {
            Some(rank - 1)
        } else if rank == 4 && is_c(chan_first) && is_binary(t) {
            Some(1)
        } else if rank == 3 && c == Some(chan_first) && is_binary(t) {
            Some(0)
        } else {
            None
        }
    }
}

/// `t` without its size-1 dimension `dim`: a view of the same storage.
fn without_dim<'a>(t: &TensorView<'a>, dim: usize) -> TensorView<'a> {
    let mut dims = t.shape().to_vec();
    dims.remove(dim);
    let mut strides = t.strides().to_vec();
    strides.remove(dim);
    TensorView::with_strides(t.dtype(), &dims, &strides, t.bytes()).expect("same storage")
}

/// The whole contract for guards that run where only the targets exist (DataLoader workers):
/// dtype, shape, then the class ids; the verdicts are those cross_entropy would reach.
pub fn class_targets(t: &TensorView<'_>, target: &LabelTarget<'_>, ignore: i64) -> Vec<Finding> {
    if let Some(f) = target.dtype(t) {
        return vec![f];
    }
    let shaped = target.shape(t);
    let mut findings: Vec<Finding> = shaped.finding.into_iter().collect();
    if let (Some(ids), Some(c)) = (shaped.ids, target.num_classes) {
        findings.extend(class_ids(
            &ids,
            target.name,
            c,
            ignore,
            Verdict::DeviceAssert,
        ));
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(holder: Holder, extent: Extent) -> LabelTarget<'static> {
        LabelTarget {
            name: "mask",
            num_classes: Some(19),
            holder,
            extent,
        }
    }

    #[test]
    fn float_ids_get_one_message_and_the_fix_of_their_library() {
        let values = [1.0f32, 2.0, 3.0, 4.0];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let t = TensorView::new(DType::F32, &[4], &bytes).unwrap();
        let numpy = target(Holder::Numpy, Extent::Stored).dtype(&t).unwrap();
        let torch = target(Holder::Torch, Extent::Sample).dtype(&t).unwrap();
        assert_eq!(numpy.code, "LG201");
        assert_eq!(numpy.message, "mask is float32: class-index targets must be integers (expected target dtype to be Long or Byte)");
        assert_eq!(torch.message, "mask is torch.float32: class-index targets must be integers (expected target dtype to be Long or Byte)");
        assert!(numpy.fix.contains("mask.astype(np.int64)"), "{}", numpy.fix);
        assert_eq!(torch.fix, "cast the class ids: mask.long()");
        assert_eq!(numpy.hint, torch.hint);
        assert!(numpy.hint.unwrap().contains("whole numbers"));
    }

    #[test]
    fn a_scalar_is_a_sample_label_but_no_stored_array() {
        let v = [3i64];
        let t = TensorView::new(
            DType::I64,
            &[],
            crate::tensor::TensorView::of_i64(&v).bytes(),
        )
        .unwrap();
        assert!(class_targets(&t, &target(Holder::Torch, Extent::Sample), -100).is_empty());
        let stored = target(Holder::Numpy, Extent::Stored).shape(&t);
        assert_eq!(stored.finding.unwrap().code, "LG210");
        assert!(stored.ids.is_none());
    }

    #[test]
    fn a_channel_dimension_is_reported_and_the_ids_are_checked_without_it() {
        let v = vec![0i64, 1, 2, 40];
        let t = TensorView::new(
            DType::I64,
            &[2, 2, 1],
            crate::tensor::TensorView::of_i64(&v).bytes(),
        )
        .unwrap();
        let found = class_targets(&t, &target(Holder::Torch, Extent::Sample), -100);
        let codes: Vec<&str> = found.iter().map(|f| f.code).collect();
        assert_eq!(codes, ["LG203", "LG101"], "{found:?}");
        assert_eq!(found[0].fix, "mask.squeeze(-1)");
    }
}
