//! Fixture tests: for every contract rule, a call that triggers it, with the finding's
//! message, hint, fix and locations pinned by a snapshot (tests/snapshots/).

mod calls;

use calls::*;
use labelguard_core::{rules, DType, Tensor, Value};
use std::collections::BTreeSet;

/// Runs a fixture, asserts that `code` fires, and snapshots the whole report.
macro_rules! fixture {
    ($name:ident, $code:literal, $op:literal, [$(($tn:literal, $tv:expr)),*], [$(($an:literal, $av:expr)),*]) => {
        #[test]
        fn $name() {
            let tensors: Vec<(&str, Tensor)> = vec![$(($tn, $tv)),*];
            let refs: Vec<(&str, &Tensor)> = tensors.iter().map(|(n, t)| (*n, t)).collect();
            let report = run($op, &refs, &[$(($an, $av)),*]);
            assert!(
                report.findings.iter().any(|f| f.code == $code),
                "{} did not fire: {:#?}", $code, report
            );
            insta::assert_yaml_snapshot!(stringify!($name), report);
        }
    };
}

// LG1xx: class ids.
fixture!(
    lg101_out_of_range,
    "LG101",
    "cross_entropy",
    [
        ("input", logits(&[4, 3])),
        ("target", i64s(&[4], &[0, 1, 2, 3]))
    ],
    []
);
fixture!(
    lg101_binary_mask_0_255,
    "LG101",
    "cross_entropy",
    [
        ("input", logits(&[1, 2, 2, 2])),
        ("target", i64s(&[1, 2, 2], &[0, 255, 255, 0]))
    ],
    []
);
fixture!(
    lg102_negative,
    "LG102",
    "nll_loss",
    [
        ("input", logits(&[3, 4])),
        ("target", i64s(&[3], &[2, -5, 0]))
    ],
    []
);
fixture!(
    lg103_void_label,
    "LG103",
    "cross_entropy",
    [
        ("input", logits(&[1, 19, 2, 3])),
        (
            "target",
            t(DType::I64, &[1, 2, 3], &[0.0, 5.0, 255.0, 255.0, 18.0, 1.0])
        )
    ],
    []
);
fixture!(
    lg104_one_based,
    "LG104",
    "cross_entropy",
    [
        ("input", logits(&[5, 3])),
        ("target", i64s(&[5], &[1, 2, 3, 3, 1]))
    ],
    []
);
fixture!(
    lg105_cityscapes_label_ids,
    "LG105",
    "cross_entropy",
    [
        ("input", logits(&[1, 19, 2, 3])),
        ("target", i64s(&[1, 2, 3], &[7, 8, 26, 24, 0, 11]))
    ],
    [("ignore_index", Value::Int(255))]
);
fixture!(
    lg106_zero_means_ignore,
    "LG106",
    "cross_entropy",
    [
        ("input", logits(&[1, 150, 1, 4])),
        ("target", i64s(&[1, 1, 4], &[0, 150, 3, 0]))
    ],
    []
);
fixture!(
    lg107_padding_minus_one,
    "LG107",
    "cross_entropy",
    [
        ("input", logits(&[2, 5, 3])),
        ("target", i64s(&[2, 3], &[1, 2, -1, 4, -1, -1]))
    ],
    []
);
fixture!(
    lg108_all_ignored,
    "LG108",
    "cross_entropy",
    [
        ("input", logits(&[2, 3])),
        ("target", i64s(&[2], &[255, 255]))
    ],
    [("ignore_index", Value::Int(255))]
);

// LG2xx: dtypes, shapes, arguments.
fixture!(
    lg201_float_target,
    "LG201",
    "cross_entropy",
    [
        ("input", logits(&[3, 4])),
        ("target", f32s(&[3], &[0.0, 2.0, 3.0]))
    ],
    []
);
fixture!(
    lg202_one_hot_long,
    "LG202",
    "cross_entropy",
    [
        ("input", logits(&[2, 3])),
        ("target", i64s(&[2, 3], &[0, 1, 0, 1, 0, 0]))
    ],
    []
);
fixture!(
    lg202_one_hot_spatial,
    "LG202",
    "cross_entropy",
    [
        ("input", logits(&[1, 2, 1, 2])),
        ("target", i64s(&[1, 1, 2, 2], &[1, 0, 0, 1]))
    ],
    []
);
fixture!(
    lg203_channel_dim,
    "LG203",
    "cross_entropy",
    [
        ("input", logits(&[2, 3, 2, 2])),
        ("target", i64s(&[2, 1, 2, 2], &[0, 1, 2, 0, 1, 1, 2, 2]))
    ],
    []
);
fixture!(
    lg204_batch_mismatch,
    "LG204",
    "cross_entropy",
    [("input", logits(&[4, 3])), ("target", i64s(&[2], &[0, 1]))],
    []
);
fixture!(
    lg205_int32_target,
    "LG205",
    "cross_entropy",
    [
        ("input", logits(&[2, 3])),
        ("target", t(DType::I32, &[2], &[0.0, 2.0]))
    ],
    []
);
fixture!(
    lg206_integer_logits,
    "LG206",
    "cross_entropy",
    [
        ("input", i64s(&[2, 3], &[0, 1, 2, 3, 4, 5])),
        ("target", i64s(&[2], &[0, 1]))
    ],
    []
);
fixture!(
    lg207_dim_out_of_range,
    "LG207",
    "gather",
    [
        ("input", logits(&[2, 3])),
        ("index", i64s(&[2, 1], &[0, 1]))
    ],
    [("dim", Value::Int(2))]
);
fixture!(
    lg208_label_smoothing,
    "LG208",
    "cross_entropy",
    [("input", logits(&[2, 3])), ("target", i64s(&[2], &[0, 1]))],
    [("label_smoothing", Value::Float(1.5))]
);
fixture!(
    lg209_weight_dtype,
    "LG209",
    "cross_entropy",
    [
        ("input", logits(&[2, 3])),
        ("target", i64s(&[2], &[0, 1])),
        ("weight", t(DType::F64, &[3], &[1.0, 1.0, 2.0]))
    ],
    []
);
fixture!(
    lg210_multinomial_rank,
    "LG210",
    "multinomial",
    [("input", f32s(&[1, 1, 2], &[0.5, 0.5]))],
    [("num_samples", Value::Int(1))]
);

// LG3xx: weights.
fixture!(
    lg301_weight_length,
    "LG301",
    "cross_entropy",
    [
        ("input", logits(&[2, 3])),
        ("target", i64s(&[2], &[0, 1])),
        ("weight", f32s(&[4], &[1.0, 1.0, 1.0, 0.5]))
    ],
    []
);
fixture!(
    lg302_negative_weight,
    "LG302",
    "cross_entropy",
    [
        ("input", logits(&[2, 3])),
        ("target", i64s(&[2], &[0, 1])),
        ("weight", f32s(&[3], &[1.0, -1.0, f64::NAN]))
    ],
    []
);
fixture!(
    lg303_pos_weight_shape,
    "LG303",
    "binary_cross_entropy_with_logits",
    [
        ("input", logits(&[2, 3])),
        ("target", f32s(&[2, 3], &[0.0, 1.0, 0.0, 1.0, 1.0, 0.0])),
        ("pos_weight", f32s(&[2], &[1.0, 2.0]))
    ],
    []
);

// LG4xx: index ops.
fixture!(
    lg401_token_id,
    "LG401",
    "embedding",
    [("input", i64s(&[2, 3], &[101, 2054, 30522, 102, -100, 0]))],
    [("num_embeddings", Value::Int(30522))]
);
fixture!(
    lg402_gather,
    "LG402",
    "gather",
    [
        ("input", logits(&[2, 3])),
        ("index", i64s(&[2, 1], &[2, 7]))
    ],
    [("dim", Value::Int(1))]
);
fixture!(
    lg402_index_select_void,
    "LG402",
    "index_select",
    [
        ("input", logits(&[19])),
        ("index", i64s(&[4], &[0, 255, 3, 255]))
    ],
    [("dim", Value::Int(0))]
);
fixture!(
    lg403_one_hot,
    "LG403",
    "one_hot",
    [("tensor", i64s(&[5], &[0, 1, 9, 2, 13]))],
    [("num_classes", Value::Int(3))]
);
fixture!(
    lg103_one_hot_void,
    "LG103",
    "one_hot",
    [("tensor", i64s(&[4], &[0, 1, 255, 2]))],
    [("num_classes", Value::Int(3))]
);
fixture!(
    lg104_one_hot_one_based,
    "LG104",
    "one_hot",
    [("tensor", i64s(&[4], &[1, 2, 3, 3]))],
    [("num_classes", Value::Int(3))]
);
fixture!(
    lg404_bincount,
    "LG404",
    "bincount",
    [("input", i64s(&[4], &[0, 3, -1, 2]))],
    []
);
fixture!(
    lg405_ctc_target,
    "LG405",
    "ctc_loss",
    [
        ("log_probs", logits(&[6, 1, 4])),
        ("targets", i64s(&[1, 3], &[1, 5, 2]))
    ],
    [
        ("input_lengths", Value::IntList(vec![6])),
        ("target_lengths", Value::IntList(vec![3]))
    ]
);
fixture!(
    lg406_ctc_blank,
    "LG406",
    "ctc_loss",
    [
        ("log_probs", logits(&[6, 1, 4])),
        ("targets", i64s(&[1, 3], &[1, 0, 2]))
    ],
    [
        ("input_lengths", Value::IntList(vec![6])),
        ("target_lengths", Value::IntList(vec![3]))
    ]
);
fixture!(
    lg407_ctc_lengths,
    "LG407",
    "ctc_loss",
    [
        ("log_probs", logits(&[6, 1, 4])),
        ("targets", i64s(&[1, 3], &[1, 2, 3]))
    ],
    [
        ("input_lengths", Value::IntList(vec![9])),
        ("target_lengths", Value::IntList(vec![3]))
    ]
);
fixture!(
    lg408_ctc_infeasible,
    "LG408",
    "ctc_loss",
    [
        ("log_probs", logits(&[3, 1, 4])),
        ("targets", i64s(&[1, 3], &[1, 1, 2]))
    ],
    [
        ("input_lengths", Value::IntList(vec![3])),
        ("target_lengths", Value::IntList(vec![3]))
    ]
);

// LG5xx: probabilities.
fixture!(
    lg501_bce_logits_passed,
    "LG501",
    "binary_cross_entropy",
    [
        ("input", f32s(&[4], &[-1.5, 0.2, 2.0, 0.9])),
        ("target", f32s(&[4], &[0.0, 1.0, 1.0, 0.0]))
    ],
    []
);
fixture!(
    lg502_bce_target_255,
    "LG502",
    "binary_cross_entropy",
    [
        ("input", f32s(&[4], &[0.1, 0.2, 0.8, 0.9])),
        ("target", f32s(&[4], &[0.0, 255.0, 255.0, 0.0]))
    ],
    []
);
fixture!(
    lg503_logits_target,
    "LG503",
    "binary_cross_entropy_with_logits",
    [
        ("input", f32s(&[3], &[0.1, -2.0, 3.0])),
        ("target", f32s(&[3], &[0.0, 255.0, 1.0]))
    ],
    []
);
fixture!(
    lg504_soft_targets,
    "LG504",
    "cross_entropy",
    [
        ("input", logits(&[2, 3])),
        ("target", f32s(&[2, 3], &[0.5, 0.5, 0.5, 0.2, 0.2, 0.2]))
    ],
    []
);
fixture!(
    lg505_multinomial_nan,
    "LG505",
    "multinomial",
    [(
        "input",
        f32s(&[2, 3], &[0.2, f64::NAN, 0.5, 0.1, 0.1, f64::INFINITY])
    )],
    [("num_samples", Value::Int(1))]
);
fixture!(
    lg506_multinomial_zero_row,
    "LG506",
    "multinomial",
    [("input", f32s(&[2, 3], &[0.2, 0.3, 0.5, 0.0, 0.0, 0.0]))],
    [
        ("num_samples", Value::Int(2)),
        ("replacement", Value::Bool(true))
    ]
);
fixture!(
    lg507_multinomial_too_few,
    "LG507",
    "multinomial",
    [("input", f32s(&[3], &[0.7, 0.0, 0.3]))],
    [("num_samples", Value::Int(3))]
);
fixture!(
    lg508_nan_logits,
    "LG508",
    "cross_entropy",
    [
        ("input", f32s(&[2, 2], &[f64::NAN, 1.0, 0.0, 1.0])),
        ("target", i64s(&[2], &[0, 1]))
    ],
    []
);

// Advanced indexing and its relatives (issue 13).
fixture!(
    lg211_mask_shape,
    "LG211",
    "index",
    [
        ("input", logits(&[4, 5])),
        ("index", t(DType::Bool, &[3], &[1.0, 0.0, 1.0]))
    ],
    []
);
fixture!(
    lg212_index_broadcast,
    "LG212",
    "index",
    [
        ("input", logits(&[4, 5])),
        ("index", i64s(&[2], &[0, 1])),
        ("index1", i64s(&[3], &[0, 1, 2]))
    ],
    []
);
fixture!(
    lg213_value_shape,
    "LG213",
    "index_put",
    [
        ("input", logits(&[4, 5])),
        ("index", i64s(&[2], &[1, 2])),
        ("values", logits(&[3]))
    ],
    []
);
fixture!(
    lg214_too_many_indices,
    "LG214",
    "index",
    [
        ("input", logits(&[4])),
        ("index", i64s(&[1], &[0])),
        ("index1", i64s(&[1], &[0]))
    ],
    []
);
fixture!(
    lg409_class_weight_void,
    "LG409",
    "index",
    [
        ("input", logits(&[19])),
        ("index", i64s(&[2, 3], &[0, 18, 255, 255, 3, -20]))
    ],
    []
);
fixture!(
    lg409_second_index_dim,
    "LG409",
    "index_put",
    [
        ("input", logits(&[2, 3, 4])),
        ("index", i64s(&[2], &[0, 1])),
        ("index1", i64s(&[2], &[3, 4]))
    ],
    [
        ("dims", Value::IntList(vec![0, 2])),
        ("accumulate", Value::Bool(true))
    ]
);
fixture!(
    lg410_take,
    "LG410",
    "take",
    [
        ("input", logits(&[4, 5])),
        ("index", i64s(&[3], &[0, 19, 20]))
    ],
    []
);
fixture!(
    lg411_index_copy,
    "LG411",
    "index_copy",
    [
        ("input", logits(&[4, 5])),
        ("index", i64s(&[2], &[1, 4])),
        ("source", logits(&[2, 5]))
    ],
    [("dim", Value::Int(0))]
);
fixture!(
    lg412_embedding_bag,
    "LG412",
    "embedding_bag",
    [
        ("input", i64s(&[4], &[1, 9, 2, 3])),
        ("offsets", i64s(&[2], &[0, 2]))
    ],
    [("num_embeddings", Value::Int(5))]
);
fixture!(
    lg413_embedding_bag_offsets,
    "LG413",
    "embedding_bag",
    [
        ("input", i64s(&[3], &[1, 2, 3])),
        ("offsets", i64s(&[2], &[1, 2]))
    ],
    [("num_embeddings", Value::Int(5))]
);
fixture!(
    lg414_token_type_ids,
    "LG414",
    "embedding",
    [("input", i64s(&[2, 3], &[0, 0, 1, 0, 1, 2]))],
    [("num_embeddings", Value::Int(2))]
);
fixture!(
    lg415_positions_beyond_table,
    "LG415",
    "embedding",
    [(
        "input",
        i64s(&[2, 6], &[0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5])
    )],
    [("num_embeddings", Value::Int(4))]
);
fixture!(
    lg415_roberta_positions_beyond_table,
    "LG415",
    "embedding",
    [(
        "input",
        // RoBERTa (padding_idx 1): positions 2..6, and a row padded with 1.
        i64s(&[2, 5], &[2, 3, 4, 5, 6, 2, 3, 4, 1, 1])
    )],
    [("num_embeddings", Value::Int(6))]
);
fixture!(
    lg415_roberta_token_type_buffer_gathered_by_positions,
    "LG415",
    "gather",
    [
        ("input", i64s(&[2, 6], &[0; 12])),
        ("index", i64s(&[2, 5], &[2, 3, 4, 5, 6, 2, 3, 4, 5, 6]))
    ],
    [("dim", Value::Int(1))]
);
fixture!(
    lg416_label_shaped_scatter,
    "LG416",
    "scatter",
    [
        ("input", logits(&[3, 5])),
        ("index", i64s(&[3, 1], &[0, 5, 4]))
    ],
    [("dim", Value::Int(1)), ("value", Value::Float(1.0))]
);
fixture!(
    lg416_channel_first_one_hot,
    "LG416",
    "scatter",
    [
        // MONAI's AsDiscrete(to_onehot=3) on one [1, 2, 2] label map (no batch dim): dim 0.
        ("input", logits(&[3, 2, 2])),
        ("index", i64s(&[1, 2, 2], &[0, 1, 3, 2]))
    ],
    [("dim", Value::Int(0)), ("value", Value::Float(1.0))]
);
fixture!(
    lg416_one_hot_index_put,
    "LG416",
    "index_put",
    [
        // torchvision's RetinaNet head: target[foreground, labels] = 1.0 with labels 1..3 on 3 classes.
        ("input", logits(&[6, 3])),
        (
            "index",
            t(DType::Bool, &[6], &[1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
        ),
        ("index1", i64s(&[3], &[1, 3, 2]))
    ],
    []
);
fixture!(
    lg417_brats_labels,
    "LG417",
    "scatter",
    [
        ("input", logits(&[4, 4, 1])),
        ("index", i64s(&[4, 1, 1], &[0, 1, 2, 4]))
    ],
    [("dim", Value::Int(1)), ("value", Value::Float(1.0))]
);
fixture!(
    lg418_detection_background,
    "LG418",
    "cross_entropy",
    [
        ("input", logits(&[8, 3])),
        ("target", i64s(&[8], &[0, 0, 3, 0, 1, 0, 0, 2]))
    ],
    []
);
fixture!(
    lg419_more_ones_than_source,
    "LG419",
    "masked_scatter",
    [
        ("input", logits(&[2, 3])),
        (
            "mask",
            t(DType::Bool, &[2, 3], &[1.0, 0.0, 1.0, 1.0, 1.0, 1.0])
        ),
        ("source", f32s(&[4], &[1.0, 2.0, 3.0, 4.0]))
    ],
    []
);
// A VLM's merge: three image placeholder tokens in input_ids, two image feature vectors.
fixture!(
    lg419_placeholders_disagree_with_features,
    "LG419",
    "masked_scatter",
    [
        ("input", logits(&[1, 6, 4])),
        (
            "mask",
            t(DType::Bool, &[1, 6, 1], &[0.0, 1.0, 1.0, 1.0, 0.0, 0.0])
        ),
        ("source", logits(&[2, 4]))
    ],
    [("exact", Value::Bool(true))]
);
fixture!(
    lg107_ctc_padding_minus_one,
    "LG107",
    "ctc_loss",
    [
        ("log_probs", logits(&[6, 2, 4])),
        ("targets", i64s(&[2, 3], &[1, 2, 3, 2, -1, -1]))
    ],
    [
        ("input_lengths", Value::IntList(vec![6, 6])),
        ("target_lengths", Value::IntList(vec![3, 3]))
    ]
);

/// Every contract rule (LG1xx to LG5xx) has a fixture above.
#[test]
fn every_contract_rule_has_a_fixture() {
    let source = include_str!("rule_fixtures.rs");
    let covered: BTreeSet<&str> = source
        .match_indices("fixture!(")
        .filter_map(|(i, _)| source[i..].split('"').nth(1))
        .collect();
    let missing: Vec<&str> = rules::ALL
        .iter()
        .map(|r| r.code)
        .filter(|c| c.as_bytes()[2] <= b'5' && !covered.contains(c))
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
}

/// A valid call of every op gives `ok` with no findings: the fixtures above fire because of
/// what they plant, not because every call complains.
#[test]
fn valid_calls_are_ok() {
    type Case = (
        &'static str,
        Vec<(&'static str, Tensor)>,
        Vec<(&'static str, Value)>,
    );
    let cases: Vec<Case> = vec![
        (
            "cross_entropy",
            vec![
                ("input", logits(&[1, 19, 2, 2])),
                ("target", i64s(&[1, 2, 2], &[0, 18, 255, 3])),
            ],
            vec![("ignore_index", Value::Int(255))],
        ),
        (
            "nll_loss",
            vec![
                ("input", logits(&[2, 3])),
                ("target", t(DType::U8, &[2], &[0.0, 2.0])),
            ],
            vec![],
        ),
        (
            "binary_cross_entropy",
            vec![
                ("input", f32s(&[2], &[0.0, 1.0])),
                ("target", f32s(&[2], &[1.0, 0.5])),
            ],
            vec![],
        ),
        (
            "binary_cross_entropy_with_logits",
            vec![
                ("input", f32s(&[2, 2], &[-9.0, 1.0, 2.0, 0.0])),
                ("target", f32s(&[2, 2], &[1.0, 0.0, 0.5, 1.0])),
                ("pos_weight", f32s(&[2], &[2.0, 3.0])),
            ],
            vec![],
        ),
        (
            "embedding",
            vec![
                ("input", i64s(&[3], &[0, 4, 2])),
                ("weight", logits(&[5, 2])),
            ],
            vec![("padding_idx", Value::Int(0))],
        ),
        (
            "gather",
            vec![
                ("input", logits(&[2, 3])),
                ("index", i64s(&[2, 1], &[2, 0])),
            ],
            vec![("dim", Value::Int(-1))],
        ),
        (
            "scatter",
            vec![
                ("input", logits(&[2, 3])),
                ("index", i64s(&[2, 1], &[2, 0])),
            ],
            vec![("dim", Value::Int(1)), ("value", Value::Float(1.0))],
        ),
        (
            "scatter_add",
            vec![
                ("input", logits(&[2, 3])),
                ("index", i64s(&[1, 2], &[1, 0])),
                ("src", logits(&[1, 2])),
            ],
            vec![("dim", Value::Int(0))],
        ),
        (
            "index_select",
            vec![
                ("input", logits(&[4, 3])),
                ("index", t(DType::I32, &[2], &[3.0, 0.0])),
            ],
            vec![("dim", Value::Int(0))],
        ),
        (
            "one_hot",
            vec![("tensor", i64s(&[3], &[0, 2, 1]))],
            vec![("num_classes", Value::Int(3))],
        ),
        (
            "multinomial",
            vec![("input", f32s(&[2, 3], &[0.2, 0.3, 0.5, 1.0, 1.0, 0.0]))],
            vec![("num_samples", Value::Int(2))],
        ),
        (
            "ctc_loss",
            vec![
                ("log_probs", logits(&[6, 1, 4])),
                ("targets", i64s(&[3], &[1, 2, 3])),
                ("input_lengths", i64s(&[1], &[6])),
                ("target_lengths", i64s(&[1], &[3])),
            ],
            vec![],
        ),
        (
            "bincount",
            vec![
                ("input", t(DType::U8, &[3], &[0.0, 3.0, 3.0])),
                ("weights", f32s(&[3], &[1.0, 0.5, 2.0])),
            ],
            vec![("minlength", Value::Int(19))],
        ),
    ];
    for (op, tensors, args) in cases {
        let refs: Vec<(&str, &Tensor)> = tensors.iter().map(|(n, t)| (*n, t)).collect();
        let report = run(op, &refs, &args);
        assert!(report.findings.is_empty(), "{op}: {report:#?}");
        assert_eq!(report.verdict, labelguard_core::Verdict::Ok);
    }
}

// Issue 22: raw ids, unseen categories, kl_div's distributions.
fixture!(
    lg420_raw_ids_loss,
    "LG420",
    "cross_entropy",
    [
        ("input", logits(&[4, 3])),
        ("target", i64s(&[4], &[12, 40, 77, 12]))
    ],
    []
);
fixture!(
    lg420_raw_ids_one_hot,
    "LG420",
    "one_hot",
    [("tensor", i64s(&[5], &[3, 7, 11, 42, 3]))],
    [("num_classes", Value::Int(4))]
);
fixture!(
    lg421_unseen_category,
    "LG421",
    "embedding",
    [("input", i64s(&[4], &[0, 2, -1, 1]))],
    [("num_embeddings", Value::Int(3))]
);
fixture!(
    lg422_kl_div_log_target,
    "LG422",
    "kl_div",
    [
        (
            "input",
            f32s(
                &[2, 2],
                &[-0.287_682_1, -1.386_294_4, -1.386_294_4, -0.287_682_1]
            )
        ),
        (
            "target",
            f32s(
                &[2, 2],
                &[-1.386_294_4, -0.287_682_1, -0.287_682_1, -1.386_294_4]
            )
        )
    ],
    [("reduction", Value::Str("batchmean".into()))]
);
fixture!(
    lg423_kl_div_probabilities,
    "LG423",
    "kl_div",
    [
        ("input", f32s(&[2, 2], &[0.5, 0.5, 0.7, 0.3])),
        ("target", f32s(&[2, 2], &[0.7, 0.3, 0.5, 0.5]))
    ],
    [("reduction", Value::Str("batchmean".into()))]
);
