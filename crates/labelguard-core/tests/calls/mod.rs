//! What the integration tests share: tensors built from values, and a call of an op contract.
// Each test crate uses only some of these.
#![allow(dead_code)]

use labelguard_core::{lookup, DType, Report, Tensor, Value};

/// A tensor built from values, in a dtype.
pub fn t(dtype: DType, shape: &[usize], values: &[f64]) -> Tensor {
    assert_eq!(
        values.len(),
        shape.iter().product::<usize>(),
        "fixture values do not fill the shape"
    );
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|&v| match dtype {
            DType::Bool => vec![(v != 0.0) as u8],
            DType::U8 => vec![v as u8],
            DType::I8 => vec![v as i8 as u8],
            DType::I16 => (v as i16).to_le_bytes().to_vec(),
            DType::U16 => (v as u16).to_le_bytes().to_vec(),
            DType::I32 => (v as i32).to_le_bytes().to_vec(),
            DType::I64 => (v as i64).to_le_bytes().to_vec(),
            DType::F16 => half::f16::from_f64(v).to_le_bytes().to_vec(),
            DType::BF16 => half::bf16::from_f64(v).to_le_bytes().to_vec(),
            DType::F32 => (v as f32).to_le_bytes().to_vec(),
            DType::F64 => v.to_le_bytes().to_vec(),
        })
        .collect();
    Tensor::from_vec(dtype, shape.to_vec(), bytes).unwrap()
}

pub fn i64s(shape: &[usize], values: &[i64]) -> Tensor {
    t(
        DType::I64,
        shape,
        &values.iter().map(|&v| v as f64).collect::<Vec<_>>(),
    )
}

pub fn f32s(shape: &[usize], values: &[f64]) -> Tensor {
    t(DType::F32, shape, values)
}

/// Uniform f32 logits of a shape.
pub fn logits(shape: &[usize]) -> Tensor {
    f32s(shape, &vec![0.25; shape.iter().product()])
}

pub fn run(op: &str, tensors: &[(&str, &Tensor)], args: &[(&str, Value)]) -> Report {
    let views = tensors
        .iter()
        .map(|(n, t)| (n.to_string(), t.view()))
        .collect();
    let args = args
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    lookup(op).unwrap().check(views, args).unwrap()
}
