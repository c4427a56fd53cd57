//! Op contracts: for each PyTorch op, exactly what PyTorch 2.x does with a call.
//!
//! Each contract follows the order of PyTorch's own checks (Python wrapper, then host checks in
//! ATen, then the kernel), so that the verdict is the one PyTorch would reach. Findings for host
//! errors stop the contract where PyTorch would stop, except where a later value check still
//! helps the user (say, int32 targets that also hold 255).

pub(crate) mod advanced_index;
pub(crate) mod bce;
pub(crate) mod bincount;
pub(crate) mod class_id_words;
pub mod class_ids;
pub(crate) mod classification;
pub(crate) mod ctc;
pub(crate) mod dtypes;
pub(crate) mod embedding;
pub(crate) mod embedding_bag;
mod evidence;
pub(crate) mod index_along_dim;
mod index_range;
pub(crate) mod indexing;
pub mod label_target;
pub(crate) mod multinomial;
pub(crate) mod nll_loss2d;
pub(crate) mod one_hot;
mod positions;
pub(crate) mod reduction;
pub(crate) mod shapes;
pub(crate) mod take_put;
pub mod values;

use crate::call::{Call, CallError, Default as D, Kind, Param, TensorParam, Value};
use crate::finding::{Finding, Report};
use crate::tensor::TensorView;

/// An op: its PyTorch parameters and its contract.
pub struct OpSpec {
    pub name: &'static str,
    /// How PyTorch spells the call, for help texts.
    pub signature: &'static str,
    pub tensors: &'static [TensorParam],
    pub params: &'static [Param],
    check: fn(&Call<'_>) -> Vec<Finding>,
}

const fn t(name: &'static str) -> TensorParam {
    TensorParam {
        name,
        required: true,
    }
}
const fn opt(name: &'static str) -> TensorParam {
    TensorParam {
        name,
        required: false,
    }
}
const fn p(name: &'static str, kind: Kind, default: Option<D>) -> Param {
    Param {
        name,
        kind,
        default,
    }
}
/// The tensors of advanced indexing: the indexed tensor and up to 8 index tensors.
const INDEXED: &[TensorParam] = &[
    t("input"),
    t("index"),
    opt("index1"),
    opt("index2"),
    opt("index3"),
    opt("index4"),
    opt("index5"),
    opt("index6"),
    opt("index7"),
];
const INDEXED_PUT: &[TensorParam] = &[
    t("input"),
    t("index"),
    opt("index1"),
    opt("index2"),
    opt("index3"),
    opt("index4"),
    opt("index5"),
    opt("index6"),
    opt("index7"),
    opt("values"),
];
const REDUCTION: Param = p("reduction", Kind::Str, Some(D::Str("mean")));

/// Every op labelguard knows, in the order of `labelguard check --help`.
pub const OPS: &[OpSpec] = &[
    OpSpec {
        name: "cross_entropy",
        signature: "F.cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0)",
        tensors: &[t("input"), t("target"), opt("weight")],
        params: &[
            p("ignore_index", Kind::Int, Some(D::Int(-100))),
            REDUCTION,
            p("label_smoothing", Kind::Float, Some(D::Float(0.0))),
        ],
        check: classification::cross_entropy,
    },
    OpSpec {
        name: "nll_loss",
        signature: "F.nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean')",
        tensors: &[t("input"), t("target"), opt("weight")],
        params: &[p("ignore_index", Kind::Int, Some(D::Int(-100))), REDUCTION],
        check: classification::nll_loss,
    },
    OpSpec {
        name: "binary_cross_entropy",
        signature: "F.binary_cross_entropy(input, target, weight=None, reduction='mean')",
        tensors: &[t("input"), t("target"), opt("weight")],
        params: &[REDUCTION],
        check: bce::binary_cross_entropy,
    },
    OpSpec {
        name: "binary_cross_entropy_with_logits",
        signature: "F.binary_cross_entropy_with_logits(input, target, weight=None, reduction='mean', pos_weight=None)",
        tensors: &[t("input"), t("target"), opt("weight"), opt("pos_weight")],
        params: &[REDUCTION],
        check: bce::binary_cross_entropy_with_logits,
    },
    OpSpec {
        name: "embedding",
        signature: "F.embedding(input, weight, padding_idx=None)  (or num_embeddings=N instead of weight)",
        tensors: &[t("input"), opt("weight")],
        params: &[
            p("padding_idx", Kind::OptInt, Some(D::None)),
            p("num_embeddings", Kind::OptInt, Some(D::None)),
        ],
        check: embedding::embedding,
    },
    OpSpec {
        name: "gather",
        signature: "torch.gather(input, dim, index)",
        tensors: &[t("input"), t("index")],
        params: &[p("dim", Kind::Int, None)],
        check: indexing::gather,
    },
    OpSpec {
        name: "scatter",
        signature: "torch.scatter(input, dim, index, src)  (or value=V instead of src)",
        tensors: &[t("input"), t("index"), opt("src")],
        params: &[
            p("dim", Kind::Int, None),
            p("value", Kind::OptFloat, Some(D::None)),
        ],
        check: indexing::scatter,
    },
    OpSpec {
        name: "scatter_add",
        signature: "torch.scatter_add(input, dim, index, src)",
        tensors: &[t("input"), t("index"), t("src")],
        params: &[p("dim", Kind::Int, None)],
        check: indexing::scatter_add,
    },
    OpSpec {
        name: "index_select",
        signature: "torch.index_select(input, dim, index)",
        tensors: &[t("input"), t("index")],
        params: &[p("dim", Kind::Int, None)],
        check: indexing::index_select,
    },
    OpSpec {
        name: "one_hot",
        signature: "F.one_hot(tensor, num_classes=-1)",
        tensors: &[t("tensor")],
        params: &[p("num_classes", Kind::Int, Some(D::Int(-1)))],
        check: one_hot::one_hot,
    },
    OpSpec {
        name: "multinomial",
        signature: "torch.multinomial(input, num_samples, replacement=False)",
        tensors: &[t("input")],
        params: &[
            p("num_samples", Kind::Int, None),
            p("replacement", Kind::Bool, Some(D::Bool(false))),
        ],
        check: multinomial::multinomial,
    },
    OpSpec {
        name: "ctc_loss",
        signature: "F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', zero_infinity=False)",
        tensors: &[
            t("log_probs"),
            t("targets"),
            opt("input_lengths"),
            opt("target_lengths"),
        ],
        params: &[
            p("input_lengths", Kind::IntList, Some(D::None)),
            p("target_lengths", Kind::IntList, Some(D::None)),
            p("blank", Kind::Int, Some(D::Int(0))),
            REDUCTION,
            p("zero_infinity", Kind::Bool, Some(D::Bool(false))),
        ],
        check: ctc::ctc_loss,
    },
    OpSpec {
        name: "bincount",
        signature: "torch.bincount(input, weights=None, minlength=0)",
        tensors: &[t("input"), opt("weights")],
        params: &[p("minlength", Kind::Int, Some(D::Int(0)))],
        check: bincount::bincount,
    },
    OpSpec {
        name: "scatter_reduce",
        signature: "torch.scatter_reduce(input, dim, index, src, reduce, include_self=True)",
        tensors: &[t("input"), t("index"), t("src")],
        params: &[
            p("dim", Kind::Int, None),
            p("reduce", Kind::Str, None),
            p("include_self", Kind::Bool, Some(D::Bool(true))),
        ],
        check: indexing::scatter_reduce,
    },
    OpSpec {
        name: "index",
        signature: "input[index, index1, ...]  (Tensor.__getitem__ with tensor indices; dims=[d, ...] where each starts)",
        tensors: INDEXED,
        params: &[p("dims", Kind::IntList, Some(D::None))],
        check: advanced_index::index,
    },
    OpSpec {
        name: "index_put",
        signature: "input.index_put_((index, index1, ...), values, accumulate=False)  (and input[index] = values)",
        tensors: INDEXED_PUT,
        params: &[
            p("dims", Kind::IntList, Some(D::None)),
            p("accumulate", Kind::Bool, Some(D::Bool(false))),
        ],
        check: advanced_index::index_put,
    },
    OpSpec {
        name: "take",
        signature: "torch.take(input, index)",
        tensors: &[t("input"), t("index")],
        params: &[],
        check: take_put::take,
    },
    OpSpec {
        name: "put",
        signature: "input.put_(index, source, accumulate=False)",
        tensors: &[t("input"), t("index"), t("source")],
        params: &[p("accumulate", Kind::Bool, Some(D::Bool(false)))],
        check: take_put::put,
    },
    OpSpec {
        name: "take_along_dim",
        signature: "torch.take_along_dim(input, indices, dim=None)",
        tensors: &[t("input"), t("indices")],
        params: &[p("dim", Kind::OptInt, Some(D::None))],
        check: take_put::take_along_dim,
    },
    OpSpec {
        name: "index_add",
        signature: "torch.index_add(input, dim, index, source, alpha=1)",
        tensors: &[t("input"), t("index"), t("source")],
        params: &[
            p("dim", Kind::Int, None),
            p("alpha", Kind::Float, Some(D::Float(1.0))),
        ],
        check: index_along_dim::index_add,
    },
    OpSpec {
        name: "index_copy",
        signature: "torch.index_copy(input, dim, index, source)",
        tensors: &[t("input"), t("index"), t("source")],
        params: &[p("dim", Kind::Int, None)],
        check: index_along_dim::index_copy,
    },
    OpSpec {
        name: "index_fill",
        signature: "torch.index_fill(input, dim, index, value)",
        tensors: &[t("input"), t("index")],
        params: &[
            p("dim", Kind::Int, None),
            p("value", Kind::Float, Some(D::Float(0.0))),
        ],
        check: index_along_dim::index_fill,
    },
    OpSpec {
        name: "embedding_bag",
        signature: "F.embedding_bag(input, weight, offsets=None, mode='mean', per_sample_weights=None, include_last_offset=False, padding_idx=None)  (or num_embeddings=N instead of weight)",
        tensors: &[t("input"), opt("weight"), opt("offsets"), opt("per_sample_weights")],
        params: &[
            p("num_embeddings", Kind::OptInt, Some(D::None)),
            p("mode", Kind::Str, Some(D::Str("mean"))),
            p("include_last_offset", Kind::Bool, Some(D::Bool(false))),
            p("padding_idx", Kind::OptInt, Some(D::None)),
        ],
        check: embedding_bag::embedding_bag,
    },
    OpSpec {
        name: "nll_loss2d",
        signature: "torch._C._nn.nll_loss2d(input, target, weight=None, reduction, ignore_index=-100)  (F.nll_loss with [N, C, H, W] input)",
        tensors: &[t("input"), t("target"), opt("weight")],
        params: &[p("ignore_index", Kind::Int, Some(D::Int(-100))), REDUCTION],
        check: nll_loss2d::nll_loss2d,
    },
];

/// The op with this name. `F.`/`torch.` prefixes and the module names
/// (`CrossEntropyLoss`, `NLLLoss`, `BCELoss`, `BCEWithLogitsLoss`, `Embedding`, `CTCLoss`) are accepted.
pub fn spec(name: &str) -> Option<&'static OpSpec> {
    let name = name
        .trim()
        .trim_start_matches("torch.nn.functional.")
        .trim_start_matches("torch.")
        .trim_start_matches("nn.functional.")
        .trim_start_matches("F.")
        .trim_start_matches("nn.");
    let canonical = match name {
        "CrossEntropyLoss" => "cross_entropy",
        "NLLLoss" => "nll_loss",
        "BCELoss" => "binary_cross_entropy",
        "BCEWithLogitsLoss" => "binary_cross_entropy_with_logits",
        "Embedding" => "embedding",
        "CTCLoss" => "ctc_loss",
        "EmbeddingBag" => "embedding_bag",
        "__getitem__" | "getitem" => "index",
        "__setitem__" | "setitem" | "index_put_" => "index_put",
        "put_" => "put",
        "index_add_" => "index_add",
        "index_copy_" => "index_copy",
        "index_fill_" => "index_fill",
        "scatter_reduce_" => "scatter_reduce",
        other => other,
    };
    OPS.iter().find(|op| op.name == canonical)
}

/// Looks an op up, with the list of known ops in the error.
pub fn lookup(name: &str) -> Result<&'static OpSpec, CallError> {
    spec(name).ok_or_else(|| CallError::UnknownOp {
        name: name.to_string(),
        known: OPS.iter().map(|o| o.name).collect::<Vec<_>>().join(", "),
    })
}

impl OpSpec {
    /// Decides what PyTorch does with this call.
    pub fn check<'a, T: AsRef<str>, A: AsRef<str>>(
        &self,
        tensors: Vec<(T, TensorView<'a>)>,
        args: Vec<(A, Value)>,
    ) -> Result<Report, CallError> {
        let call = Call::new(self.name, self.tensors, self.params, tensors, args)?;
        Ok(Report::new(self.name, (self.check)(&call)))
    }

    /// Like `check`, with arguments as `NAME=TEXT` strings (the CLI's `--arg`).
    pub fn check_text<'a>(
        &self,
        tensors: Vec<(String, TensorView<'a>)>,
        args: &[(String, String)],
    ) -> Result<Report, CallError> {
        let args = Call::parse_args(self.params, args)?;
        self.check(tensors, args)
    }
}
