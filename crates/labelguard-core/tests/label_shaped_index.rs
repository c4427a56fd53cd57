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
