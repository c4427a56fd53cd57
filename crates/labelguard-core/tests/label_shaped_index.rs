//! Which gather/scatter indices are read as labels (LG416, LG417): one class per sample along
//! dim 1, or the one-hot of one channel-first sample along dim 0; other indices keep LG402.

mod calls;

use calls::*;
use labelguard_core::Value;

fn code(op: &str, input: &[usize], index: (&[usize], &[i64]), dim: i64) -> String {
    let input = logits(input);
    let index = i64s(index.0, index.1);
    let mut args = vec![("dim", Value::Int(dim))];
    if op == "scatter" {
        args.push(("value", Value::Float(1.0)));
    }
    let report = run(op, &[("input", &input), ("index", &index)], &args);
    report.findings[0].code.to_string()
}

#[test]
fn a_channel_first_one_hot_along_dim_0_is_read_as_labels() {
    assert_eq!(
        code("scatter", &[3, 2, 2], (&[1, 2, 2], &[0, 1, 3, 2]), 0),
        "LG416"
    );
    // BraTS {0, 1, 2, 4} on 4 channels, channel-first.
    assert_eq!(
        code("scatter", &[4, 2, 2], (&[1, 2, 2], &[0, 1, 2, 4]), 0),
        "LG417"
    );
}

#[test]
fn other_dim_0_indices_are_not_labels() {
    // A gather along dim 0 (a time step per column, say): no class dimension.
    assert_eq!(
        code("gather", &[3, 2, 2], (&[1, 2, 2], &[0, 1, 3, 2]), 0),
        "LG402"
    );
    // A 2-D table scattered along dim 0: rows, not channels of an image.
    assert_eq!(
        code("scatter", &[3, 4], (&[1, 4], &[0, 1, 3, 2]), 0),
        "LG402"
    );
    // More than one entry along dim 0: not one label per position.
    assert_eq!(
        code(
            "scatter",
            &[3, 2, 2],
            (&[2, 2, 2], &[0, 1, 3, 2, 0, 1, 2, 2]),
            0
        ),
        "LG402"
    );
}

fn advanced(
    op: &str,
    input: &[usize],
    indices: &[(&[usize], &[i64])],
    values: Option<&[usize]>,
) -> String {
    let input = logits(input);
    let names = ["index", "index1", "index2", "index3"];
    let tensors: Vec<_> = indices.iter().map(|(s, v)| i64s(s, v)).collect();
    let values = values.map(logits);
    let mut refs: Vec<(&str, &labelguard_core::Tensor)> = vec![("input", &input)];
    refs.extend(names.iter().copied().zip(tensors.iter()));
    if let Some(v) = &values {
        refs.push(("values", v));
    }
    run(op, &refs, &[]).findings[0].code.to_string()
}

#[test]
fn one_class_per_element_in_advanced_indexing() {
    let rows: &[i64] = &[0, 1, 2, 3];
    // Hand-written NLL: log_probs[arange(4), target] with a target of 5 on 5 classes.
    assert_eq!(
        advanced(
            "index",
            &[4, 5],
            &[(&[4], rows), (&[4], &[0, 5, 2, 1])],
            None
        ),
        "LG416"
    );
    // A one-hot target: t[rows, labels] = 1 (RetinaNet's head), BraTS labels on 4 classes.
    assert_eq!(
        advanced(
            "index_put",
            &[6, 4],
            &[(&[4], rows), (&[4], &[0, 1, 2, 4])],
            None
        ),
        "LG417"
    );
    // mmseg's bin_labels[n, labels, h, w] = 1 on [N, C, H, W].
    let n: &[i64] = &[0, 0, 1];
    assert_eq!(
        advanced(
            "index_put",
            &[2, 3, 4, 5],
            &[
                (&[3], n),
                (&[3], &[0, 3, 0]),
                (&[3], &[0, 1, 2]),
                (&[3], &[4, 0, 1])
            ],
            None
        ),
        "LG416"
    );
}

#[test]
fn other_advanced_indices_keep_lg409() {
    let rows: &[i64] = &[0, 1, 2, 3];
    // An adjacency matrix: both dims have the size N, neither is a class dim.
    assert_eq!(
        advanced(
            "index_put",
            &[4, 4],
            &[(&[4], rows), (&[4], &[1, 2, 3, 4])],
            None
        ),
        "LG409"
    );
    // Only some dims indexed: rows of a table, not elements.
    assert_eq!(
        advanced("index", &[4, 5], &[(&[2], &[1, 4])], None),
        "LG409"
    );
    // Several values written: not a one-hot.
    assert_eq!(
        advanced(
            "index_put",
            &[4, 5],
            &[(&[4], rows), (&[4], &[0, 5, 2, 1])],
            Some(&[4])
        ),
        "LG409"
    );
}
