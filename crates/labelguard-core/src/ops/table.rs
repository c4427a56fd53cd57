//! The op table: one row per op, everything labelguard knows about it. Its contract (the
//! check's inputs and the function that decides), its PyTorch surface (sites, parameters in
//! PyTorch's order and what a wrapped call does with each, modules, kernel names) and the rules
//! its check can raise. Every face reads this table: `check`, `enable()` (which builds its
//! wrappers from it), `diagnose` (its op vocabulary and kernel names), `labelguard ops` and
//! `labelguard.guarded_ops()`. CONTRIBUTING.md says how to add a row.
//!
//! PyTorch's signatures are those of torch 2.x: `torch/nn/functional.py` for the Python
//! functions, the ATen schemas (`native_functions.yaml`) for the builtins and Tensor methods,
//! whose docstrings are not reliable about keyword names. `python/tests/test_op_table.py` checks
//! every site and parameter list against the installed torch.

use super::surface::{arg, exposed, PyParam, Use, INTERNAL};
use super::{
    advanced_index, bce, bincount, classification, ctc, embedding, embedding_bag, index_along_dim,
    indexing, kl_div, masked_scatter, multi_margin, multinomial, nll_loss2d, one_hot, take_put,
    OpSpec,
};
use crate::call::{Default as D, Kind, Param, TensorParam};
use crate::rule::Rule;
use crate::rules::*;

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
const IGNORE_INDEX: Param = p("ignore_index", Kind::Int, Some(D::Int(-100)));
/// The tensors of a loss over class ids: scores, targets, an optional weight per class.
const CLASS_LOSS: &[TensorParam] = &[t("input"), t("target"), opt("weight")];
/// What nll_loss can raise; nll_loss2d is the same loss on [N, C, H, W] scores.
const NLL_LOSS_RULES: &[Rule] = &[
    LG101, LG102, LG103, LG104, LG105, LG106, LG107, LG108, LG201, LG202, LG203, LG204, LG205,
    LG206, LG208, LG209, LG210, LG301, LG302, LG418, LG420, LG508,
];

// PyTorch's parameters that recur.
const LEGACY_SIZE_AVERAGE: PyParam = arg("size_average").or("None").uses(Use::Legacy);
const LEGACY_REDUCE: PyParam = arg("reduce").or("None").uses(Use::Legacy);
const PY_REDUCTION: PyParam = arg("reduction").or("'mean'");
const OUT: PyParam = arg("out").or("None").kw().uses(Use::Dropped);
/// The tensor a method is called on, or a function's first argument, read by shape only.
const INDEXED_INPUT: PyParam = arg("input").uses(Use::Shape);

/// Every op labelguard knows, in the order of `labelguard check --help` and `labelguard ops`.
pub const OPS: &[OpSpec] = &[
    OpSpec {
        name: "cross_entropy",
        note: "",
        tensors: CLASS_LOSS,
        params: &[
            IGNORE_INDEX,
            REDUCTION,
            p("label_smoothing", Kind::Float, Some(D::Float(0.0))),
        ],
        check: classification::cross_entropy,
        rules: &[LG101, LG102, LG103, LG104, LG105, LG106, LG107, LG108, LG201, LG202, LG203, LG204, LG205, LG206, LG208, LG209, LG210, LG301, LG302, LG418, LG420, LG504, LG508],
        surface: exposed(
            &["torch.nn.functional.cross_entropy"],
            &[
                arg("input").uses(Use::Finite),
                arg("target"),
                arg("weight").or("None"),
                LEGACY_SIZE_AVERAGE,
                arg("ignore_index").or("-100"),
                LEGACY_REDUCE,
                PY_REDUCTION,
                arg("label_smoothing").or("0.0"),
            ],
        )
        .modules(&["CrossEntropyLoss"]),
    },
    OpSpec {
        name: "nll_loss",
        note: "",
        tensors: CLASS_LOSS,
        params: &[IGNORE_INDEX, REDUCTION],
        check: classification::nll_loss,
        rules: NLL_LOSS_RULES,
        surface: exposed(
            &["torch.nn.functional.nll_loss"],
            &[
                arg("input").uses(Use::Finite),
                arg("target"),
                arg("weight").or("None"),
                LEGACY_SIZE_AVERAGE,
                arg("ignore_index").or("-100"),
                LEGACY_REDUCE,
                PY_REDUCTION,
            ],
        )
        .modules(&["NLLLoss"])
        .kernels(&["nll_loss_forward", "nll_loss_backward"]),
    },
    OpSpec {
        name: "binary_cross_entropy",
        note: "",
        tensors: CLASS_LOSS,
        params: &[REDUCTION],
        check: bce::binary_cross_entropy,
        rules: &[LG108, LG204, LG206, LG208, LG209, LG302, LG303, LG501, LG502],
        surface: exposed(
            &["torch.nn.functional.binary_cross_entropy"],
            &[
                arg("input").within(0.0, 1.0),
                arg("target").within(0.0, 1.0),
                arg("weight").or("None"),
                LEGACY_SIZE_AVERAGE,
                LEGACY_REDUCE,
                PY_REDUCTION,
            ],
        )
        .modules(&["BCELoss"]),
    },
    OpSpec {
        name: "binary_cross_entropy_with_logits",
        note: "",
        tensors: &[t("input"), t("target"), opt("weight"), opt("pos_weight")],
        params: &[REDUCTION],
        check: bce::binary_cross_entropy_with_logits,
        rules: &[LG108, LG204, LG206, LG208, LG209, LG302, LG303, LG503, LG508],
        surface: exposed(
            &["torch.nn.functional.binary_cross_entropy_with_logits"],
            &[
                arg("input").uses(Use::Finite),
                arg("target").within(0.0, 1.0),
                arg("weight").or("None"),
                LEGACY_SIZE_AVERAGE,
                LEGACY_REDUCE,
                PY_REDUCTION,
                arg("pos_weight").or("None"),
            ],
        )
        .modules(&["BCEWithLogitsLoss"])
        .never_raises_on_values(),
    },
    OpSpec {
        name: "kl_div",
        note: "",
        tensors: &[t("input"), t("target")],
        params: &[REDUCTION, p("log_target", Kind::Bool, Some(D::Bool(false)))],
        check: kl_div::kl_div,
        rules: &[LG204, LG208, LG422, LG423],
        surface: exposed(
            &["torch.nn.functional.kl_div"],
            &[
                arg("input"),
                arg("target"),
                LEGACY_SIZE_AVERAGE,
                LEGACY_REDUCE,
                PY_REDUCTION,
                arg("log_target").or("False"),
            ],
        )
        .modules(&["KLDivLoss"])
        .kernels(&["kl_div"])
        .never_raises_on_values(),
    },
    OpSpec {
        name: "embedding",
        note: "(or num_embeddings=N instead of weight)",
        tensors: &[t("input"), opt("weight")],
        params: &[
            p("padding_idx", Kind::OptInt, Some(D::None)),
            p("num_embeddings", Kind::OptInt, Some(D::None)),
        ],
        check: embedding::embedding,
        rules: &[LG103, LG104, LG107, LG204, LG205, LG208, LG210, LG401, LG414, LG415, LG417, LG420, LG421],
        surface: exposed(
            &["torch.nn.functional.embedding"],
            &[
                arg("input"),
                arg("weight").uses(Use::Table),
                arg("padding_idx").or("None").uses(Use::ReadNone),
                arg("max_norm").or("None").uses(Use::Dropped),
                arg("norm_type").or("2.0").uses(Use::Dropped),
                arg("scale_grad_by_freq").or("False").uses(Use::Dropped),
                arg("sparse").or("False").uses(Use::Dropped),
            ],
        )
        .modules(&["Embedding"])
        .kernels(&["embedding", "embedding_dense_backward"]),
    },
    OpSpec {
        name: "gather",
        note: "",
        tensors: &[t("input"), t("index")],
        params: &[p("dim", Kind::Int, None)],
        check: indexing::gather,
        rules: &[LG103, LG104, LG107, LG204, LG205, LG207, LG208, LG209, LG210, LG402, LG416, LG417, LG420],
        surface: exposed(
            &["torch.gather", "torch.Tensor.gather"],
            &[
                INDEXED_INPUT,
                arg("dim"),
                arg("index"),
                arg("sparse_grad").or("False").kw().uses(Use::Dropped),
                OUT,
            ],
        )
        .kernels(&["gather"]),
    },
    OpSpec {
        name: "scatter",
        note: "",
        tensors: &[t("input"), t("index"), opt("src")],
        params: &[
            p("dim", Kind::Int, None),
            p("value", Kind::OptFloat, Some(D::None)),
            // ("": none; a Python None is left out before the check.)
            p("reduce", Kind::Str, Some(D::Str(""))),
        ],
        check: indexing::scatter,
        rules: &[LG103, LG104, LG107, LG204, LG205, LG207, LG208, LG209, LG210, LG402, LG416, LG417, LG420],
        surface: exposed(
            &["torch.scatter", "torch.Tensor.scatter", "torch.Tensor.scatter_"],
            &[
                INDEXED_INPUT,
                arg("dim"),
                arg("index"),
                arg("src").or("None").uses(Use::ScatterSrc),
                arg("value").or("None").kw(),
                arg("reduce").or("None").kw(),
                OUT,
            ],
        )
        .kernels(&["scatter"]),
    },
    OpSpec {
        name: "scatter_add",
        note: "",
        tensors: &[t("input"), t("index"), t("src")],
        params: &[p("dim", Kind::Int, None)],
        check: indexing::scatter_add,
        rules: &[LG103, LG104, LG107, LG204, LG205, LG207, LG208, LG209, LG210, LG402, LG416, LG417, LG420],
        surface: exposed(
            &[
                "torch.scatter_add",
                "torch.Tensor.scatter_add",
                "torch.Tensor.scatter_add_",
            ],
            &[
                INDEXED_INPUT,
                arg("dim"),
                arg("index"),
                arg("src").uses(Use::Shape),
                OUT,
            ],
        )
        .kernels(&["scatter_add"]),
    },
    OpSpec {
        name: "index_select",
        note: "",
        tensors: &[t("input"), t("index")],
        params: &[p("dim", Kind::Int, None)],
        check: indexing::index_select,
        rules: &[LG103, LG104, LG107, LG204, LG205, LG207, LG208, LG209, LG210, LG402, LG416, LG417, LG420],
        surface: exposed(
            &["torch.index_select", "torch.Tensor.index_select"],
            &[INDEXED_INPUT, arg("dim"), arg("index"), OUT],
        )
        .kernels(&["index_select"]),
    },
    OpSpec {
        name: "one_hot",
        note: "",
        tensors: &[t("tensor")],
        params: &[p("num_classes", Kind::Int, Some(D::Int(-1)))],
        check: one_hot::one_hot,
        rules: &[LG103, LG104, LG107, LG205, LG208, LG403, LG416, LG417, LG420],
        surface: exposed(
            &["torch.nn.functional.one_hot"],
            &[arg("tensor"), arg("num_classes").or("-1")],
        ),
    },
    OpSpec {
        name: "multinomial",
        note: "",
        tensors: &[t("input")],
        params: &[
            p("num_samples", Kind::Int, None),
            p("replacement", Kind::Bool, Some(D::Bool(false))),
        ],
        check: multinomial::multinomial,
        rules: &[LG206, LG208, LG210, LG505, LG506, LG507],
        surface: exposed(
            &["torch.multinomial", "torch.Tensor.multinomial"],
            &[
                arg("input"),
                arg("num_samples"),
                arg("replacement").or("False"),
                arg("generator").or("None").kw().uses(Use::Dropped),
                OUT,
            ],
        ),
    },
    OpSpec {
        name: "ctc_loss",
        note: "",
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
        rules: &[LG107, LG108, LG205, LG206, LG208, LG210, LG405, LG406, LG407, LG408, LG508],
        surface: exposed(
            &["torch.nn.functional.ctc_loss"],
            &[
                arg("log_probs").uses(Use::Finite),
                arg("targets"),
                arg("input_lengths"),
                arg("target_lengths"),
                arg("blank").or("0"),
                PY_REDUCTION,
                arg("zero_infinity").or("False"),
            ],
        )
        .modules(&["CTCLoss"])
        .breaks_graph(),
    },
    OpSpec {
        name: "bincount",
        note: "",
        tensors: &[t("input"), opt("weights")],
        params: &[p("minlength", Kind::Int, Some(D::Int(0)))],
        check: bincount::bincount,
        rules: &[LG204, LG205, LG208, LG210, LG404],
        surface: exposed(
            &["torch.bincount", "torch.Tensor.bincount"],
            &[
                arg("input"),
                arg("weights").or("None"),
                arg("minlength").or("0"),
            ],
        ),
    },
    OpSpec {
        name: "scatter_reduce",
        note: "",
        tensors: &[t("input"), t("index"), t("src")],
        params: &[
            p("dim", Kind::Int, None),
            p("reduce", Kind::Str, None),
            p("include_self", Kind::Bool, Some(D::Bool(true))),
        ],
        check: indexing::scatter_reduce,
        rules: &[LG103, LG104, LG107, LG204, LG205, LG207, LG208, LG209, LG210, LG402, LG416, LG417, LG420],
        surface: exposed(
            &[
                "torch.scatter_reduce",
                "torch.Tensor.scatter_reduce",
                "torch.Tensor.scatter_reduce_",
            ],
            &[
                INDEXED_INPUT,
                arg("dim"),
                arg("index"),
                arg("src").uses(Use::Shape),
                arg("reduce"),
                arg("include_self").or("True").kw(),
                OUT,
            ],
        )
        .kernels(&["scatter_reduce"]),
    },
    OpSpec {
        name: "index",
        note: "input[index, index1, ...]  (Tensor.__getitem__ with tensor indices; dims=[d, ...] where each starts)",
        tensors: INDEXED,
        params: &[p("dims", Kind::IntList, Some(D::None))],
        check: advanced_index::index,
        rules: &[LG103, LG104, LG107, LG205, LG208, LG211, LG212, LG214, LG409, LG416, LG417, LG420],
        surface: exposed(&["torch.Tensor.__getitem__"], &[]).kernels(&["index"]),
    },
    OpSpec {
        name: "index_put",
        note: "(and input[index] = values)",
        tensors: INDEXED_PUT,
        params: &[
            p("dims", Kind::IntList, Some(D::None)),
            p("accumulate", Kind::Bool, Some(D::Bool(false))),
        ],
        check: advanced_index::index_put,
        rules: &[LG103, LG104, LG107, LG205, LG208, LG209, LG211, LG212, LG213, LG214, LG409, LG416, LG417, LG420],
        surface: exposed(
            &[
                "torch.Tensor.index_put_",
                "torch.Tensor.index_put",
                "torch.index_put",
                "torch.Tensor.__setitem__",
            ],
            &[
                INDEXED_INPUT,
                arg("indices").uses(Use::Indices),
                arg("values").uses(Use::Shape),
                arg("accumulate").or("False"),
            ],
        )
        .kernels(&["index_put"]),
    },
    OpSpec {
        name: "take",
        note: "",
        tensors: &[t("input"), t("index")],
        params: &[],
        check: take_put::take,
        rules: &[LG204, LG205, LG402, LG410],
        surface: exposed(
            &["torch.take", "torch.Tensor.take"],
            &[INDEXED_INPUT, arg("index"), OUT],
        ),
    },
    OpSpec {
        name: "put",
        note: "",
        tensors: &[t("input"), t("index"), t("source")],
        params: &[p("accumulate", Kind::Bool, Some(D::Bool(false)))],
        check: take_put::put,
        rules: &[LG204, LG205, LG209, LG213, LG402, LG410],
        surface: exposed(
            &["torch.Tensor.put_", "torch.Tensor.put"],
            &[
                INDEXED_INPUT,
                arg("index"),
                arg("source").uses(Use::Shape),
                arg("accumulate").or("False"),
            ],
        ),
    },
    OpSpec {
        name: "masked_scatter",
        note: "(exact=true: one source element per True entry, as transformers' vision-language models require)",
        tensors: &[t("input"), t("mask"), t("source")],
        params: &[p("exact", Kind::Bool, Some(D::Bool(false)))],
        check: masked_scatter::masked_scatter,
        rules: &[LG205, LG209, LG211, LG419],
        surface: exposed(
            &[
                "torch.Tensor.masked_scatter",
                "torch.Tensor.masked_scatter_",
                "torch.masked_scatter",
            ],
            &[INDEXED_INPUT, arg("mask"), arg("source").uses(Use::Shape), OUT],
        ),
    },
    OpSpec {
        name: "take_along_dim",
        note: "",
        tensors: &[t("input"), t("indices")],
        params: &[p("dim", Kind::OptInt, Some(D::None))],
        check: take_put::take_along_dim,
        rules: &[LG204, LG205, LG207, LG402],
        surface: exposed(
            &["torch.take_along_dim", "torch.Tensor.take_along_dim"],
            &[INDEXED_INPUT, arg("indices"), arg("dim").or("None"), OUT],
        ),
    },
    OpSpec {
        name: "index_add",
        note: "",
        tensors: &[t("input"), t("index"), t("source")],
        params: &[
            p("dim", Kind::Int, None),
            p("alpha", Kind::Float, Some(D::Float(1.0))),
        ],
        check: index_along_dim::index_add,
        rules: &[LG205, LG207, LG209, LG210, LG213, LG411],
        surface: exposed(
            &[
                "torch.index_add",
                "torch.Tensor.index_add",
                "torch.Tensor.index_add_",
            ],
            &[
                INDEXED_INPUT,
                arg("dim"),
                arg("index"),
                arg("source").uses(Use::Shape),
                arg("alpha").or("1").kw().uses(Use::Dropped),
                OUT,
            ],
        ),
    },
    OpSpec {
        name: "index_copy",
        note: "",
        tensors: &[t("input"), t("index"), t("source")],
        params: &[p("dim", Kind::Int, None)],
        check: index_along_dim::index_copy,
        rules: &[LG205, LG207, LG209, LG210, LG213, LG411],
        surface: exposed(
            &[
                "torch.index_copy",
                "torch.Tensor.index_copy",
                "torch.Tensor.index_copy_",
            ],
            &[
                INDEXED_INPUT,
                arg("dim"),
                arg("index"),
                arg("source").uses(Use::Shape),
                OUT,
            ],
        ),
    },
    OpSpec {
        name: "index_fill",
        note: "",
        tensors: &[t("input"), t("index")],
        params: &[
            p("dim", Kind::Int, None),
            p("value", Kind::Float, Some(D::Float(0.0))),
        ],
        check: index_along_dim::index_fill,
        rules: &[LG205, LG207, LG209, LG210, LG411],
        surface: exposed(
            &[
                "torch.index_fill",
                "torch.Tensor.index_fill",
                "torch.Tensor.index_fill_",
            ],
            // The fill value (a number or a 0-d tensor) never decides a verdict.
            &[
                INDEXED_INPUT,
                arg("dim"),
                arg("index"),
                arg("value").uses(Use::Dropped),
            ],
        ),
    },
    OpSpec {
        name: "embedding_bag",
        note: "(or num_embeddings=N instead of weight)",
        tensors: &[t("input"), opt("weight"), opt("offsets"), opt("per_sample_weights")],
        params: &[
            p("num_embeddings", Kind::OptInt, Some(D::None)),
            p("mode", Kind::Str, Some(D::Str("mean"))),
            p("include_last_offset", Kind::Bool, Some(D::Bool(false))),
            p("padding_idx", Kind::OptInt, Some(D::None)),
        ],
        check: embedding_bag::embedding_bag,
        rules: &[LG103, LG104, LG107, LG204, LG205, LG208, LG210, LG412, LG413, LG417, LG420, LG421],
        surface: exposed(
            &["torch.nn.functional.embedding_bag"],
            &[
                arg("input"),
                arg("weight").uses(Use::Shape),
                arg("offsets").or("None"),
                arg("max_norm").or("None").uses(Use::Dropped),
                arg("norm_type").or("2").uses(Use::Dropped),
                arg("scale_grad_by_freq").or("False").uses(Use::Dropped),
                arg("mode").or("'mean'"),
                arg("sparse").or("False").uses(Use::Dropped),
                arg("per_sample_weights").or("None").uses(Use::Shape),
                arg("include_last_offset").or("False"),
                arg("padding_idx").or("None").uses(Use::ReadNone),
            ],
        )
        .modules(&["EmbeddingBag"]),
    },
    OpSpec {
        name: "multi_margin_loss",
        note: "",
        tensors: CLASS_LOSS,
        params: &[
            p("p", Kind::Int, Some(D::Int(1))),
            p("margin", Kind::Float, Some(D::Float(1.0))),
            REDUCTION,
        ],
        check: multi_margin::multi_margin_loss,
        rules: &[LG101, LG102, LG103, LG104, LG105, LG106, LG107, LG108, LG201, LG202, LG203, LG204, LG205, LG206, LG208, LG209, LG210, LG301, LG420],
        surface: exposed(
            &["torch.nn.functional.multi_margin_loss"],
            &[
                arg("input").uses(Use::Shape),
                arg("target"),
                arg("p").or("1"),
                arg("margin").or("1.0"),
                arg("weight").or("None").uses(Use::Shape),
                LEGACY_SIZE_AVERAGE,
                LEGACY_REDUCE,
                PY_REDUCTION,
            ],
        )
        .modules(&["MultiMarginLoss"]),
    },
    OpSpec {
        name: "nll_loss2d",
        note: "torch._C._nn.nll_loss2d(input, target, weight=None, reduction, ignore_index=-100)  (F.nll_loss with [N, C, H, W] input)",
        tensors: CLASS_LOSS,
        params: &[IGNORE_INDEX, REDUCTION],
        check: nll_loss2d::nll_loss2d,
        rules: NLL_LOSS_RULES,
        surface: INTERNAL.kernels(&["nll_loss2d_forward", "nll_loss2d_backward"]),
    },
];
