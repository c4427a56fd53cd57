//! The contracts at the edges the held-out differential test found wrong (issue 19): zero-size
//! dimensions, 0-d tensors, broadcasting to an empty shape, embedding_bag's per_sample_weights
//! and offsets. Each verdict is PyTorch's (CUDA's where its kernels differ from the CPU's).

mod calls;

use calls::*;
use labelguard_core::{DType, Tensor, Value, Verdict};

fn verdict(op: &str, tensors: &[(&str, &Tensor)], args: &[(&str, Value)]) -> Verdict {
    run(op, tensors, args).verdict
}

fn bag(ids: &[i64], offsets: &[i64], args: &[(&str, Value)], psw: Option<&Tensor>) -> Verdict {
    let input = i64s(&[ids.len()], ids);
    let weight = logits(&[5, 2]);
    let offsets = i64s(&[offsets.len()], offsets);
    let mut tensors = vec![
        ("input", &input),
        ("weight", &weight),
        ("offsets", &offsets),
    ];
    if let Some(p) = psw {
        tensors.push(("per_sample_weights", p));
    }
    verdict("embedding_bag", &tensors, args)
}

fn sum() -> Vec<(&'static str, Value)> {
    vec![("mode", Value::Str("sum".into()))]
}

#[test]
fn per_sample_weights_of_another_shape_or_dtype_are_host_errors() {
    let wrong_shape = f32s(&[1, 3], &[1.0; 3]);
    assert_eq!(
        bag(&[1, 2, 3], &[0], &sum(), Some(&wrong_shape)),
        Verdict::Error
    );
    let wrong_dtype = t(DType::F64, &[3], &[1.0; 3]);
    assert_eq!(
        bag(&[1, 2, 3], &[0], &sum(), Some(&wrong_dtype)),
        Verdict::Error
    );
    let right = f32s(&[3], &[1.0; 3]);
    assert_eq!(bag(&[1, 2, 3], &[0], &sum(), Some(&right)), Verdict::Ok);
}

#[test]
fn empty_offsets_make_zero_bags_or_fail_with_include_last_offset() {
    // Zero bags read no id, not even one outside the table.
    assert_eq!(bag(&[1, 7], &[], &sum(), None), Verdict::Ok);
    let mut last = sum();
    last.push(("include_last_offset", Value::Bool(true)));
    assert_eq!(bag(&[1, 2], &[], &last, None), Verdict::Error);
}

#[test]
fn decreasing_offsets_assert_on_cuda_in_every_mode() {
    for mode in ["sum", "mean", "max"] {
        let args = [("mode", Value::Str(mode.into()))];
        assert_eq!(
            bag(&[1, 2, 3], &[0, 2, 1], &args, None),
            Verdict::DeviceAssert
        );
        let padded = [
            ("mode", Value::Str(mode.into())),
            ("padding_idx", Value::Int(0)),
        ];
        assert_eq!(
            bag(&[1, 2, 3], &[0, 2, 1], &padded, None),
            Verdict::DeviceAssert
        );
    }
    // With include_last_offset the last offset ends no bag on CUDA.
    let mut last = sum();
    last.push(("include_last_offset", Value::Bool(true)));
    assert_eq!(bag(&[1, 2, 3], &[0, 3, 1], &last, None), Verdict::Ok);
}

#[test]
fn ids_after_the_last_offset_are_read_by_cudas_last_bag() {
    let mut last = vec![("mode", Value::Str("mean".into()))];
    last.push(("include_last_offset", Value::Bool(true)));
    assert_eq!(bag(&[0, 0, 6], &[0, 0], &last, None), Verdict::DeviceAssert);
}

#[test]
fn two_d_ids_of_width_zero_fail_in_the_wrapper() {
    let input = i64s(&[2, 0], &[]);
    let weight = logits(&[5, 2]);
    let tensors = [("input", &input), ("weight", &weight)];
    assert_eq!(verdict("embedding_bag", &tensors, &sum()), Verdict::Error);
}

#[test]
fn a_0d_input_takes_only_a_0d_source_in_index_add() {
    let input = logits(&[]);
    let index = i64s(&[1], &[0]);
    let args = [("dim", Value::Int(0))];
    let one = logits(&[1]);
    let tensors = [("input", &input), ("index", &index), ("source", &one)];
    assert_eq!(verdict("index_add", &tensors, &args), Verdict::Error);
    let scalar = logits(&[]);
    let tensors = [("input", &input), ("index", &index), ("source", &scalar)];
    assert_eq!(verdict("index_add", &tensors, &args), Verdict::Ok);
}

#[test]
fn take_along_dim_indices_that_broadcast_to_empty_take_nothing() {
    let input = logits(&[1, 0, 0]);
    let indices = i64s(&[1, 1, 1], &[5]);
    let tensors = [("input", &input), ("indices", &indices)];
    let args = [("dim", Value::Int(1))];
    assert_eq!(verdict("take_along_dim", &tensors, &args), Verdict::Ok);
    // A non-empty broadcast still divides by the size 0 of dim.
    let input = logits(&[2, 0, 3]);
    let indices = i64s(&[2, 1, 3], &[0; 6]);
    let tensors = [("input", &input), ("indices", &indices)];
    assert_eq!(verdict("take_along_dim", &tensors, &args), Verdict::Error);
}

#[test]
fn accumulate_checks_indices_even_on_an_empty_slice() {
    let input = logits(&[3, 0]);
    let index = i64s(&[1], &[5]);
    let values = logits(&[1, 0]);
    let tensors = [("input", &input), ("index", &index), ("values", &values)];
    let accumulate = [("accumulate", Value::Bool(true))];
    assert_eq!(verdict("index_put", &tensors, &accumulate), Verdict::Error);
    // Without accumulate nothing is written and nothing is checked.
    let plain = [("accumulate", Value::Bool(false))];
    assert_eq!(verdict("index_put", &tensors, &plain), Verdict::Ok);
}
