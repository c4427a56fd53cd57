//! `.safetensors` (format: an 8-byte little-endian header length, a JSON header mapping names
//! to `{dtype, shape, data_offsets}` plus an optional `__metadata__` of strings, then the data).

use crate::{Limits, NamedTensor, ReadError};
use labelguard_core::{tensor::contiguous_strides, DType, Tensor};
use std::path::Path;
use std::sync::Arc;

/// Largest JSON header accepted (the reference implementation's limit is 100 MB).
const MAX_HEADER: u64 = 100 << 20;

pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    bytes.len() >= 9 && {
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        n <= MAX_HEADER && bytes[8] == b'{'
    }
}

fn header(
    path: &Path,
    bytes: &[u8],
) -> Result<(serde_json::Map<String, serde_json::Value>, usize), ReadError> {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    let end = 8u64
        .checked_add(n)
        .filter(|&e| e <= bytes.len() as u64)
        .ok_or_else(|| {
            ReadError::malformed(
                path,
                format!(
                    "truncated: the header claims {n} bytes but the file has {}",
                    bytes.len()
                ),
            )
        })? as usize;
    let value: serde_json::Value = serde_json::from_slice(&bytes[8..end]).map_err(|e| {
        ReadError::malformed(
            path,
            format!("the safetensors header is not valid JSON: {e}"),
        )
    })?;
    match value {
        serde_json::Value::Object(map) => Ok((map, end)),
        _ => Err(ReadError::malformed(
            path,
            "the safetensors header is not a JSON object",
        )),
    }
}

fn st_dtype(name: &str) -> Option<DType> {
    Some(match name {
        "BOOL" => DType::Bool,
        "U8" => DType::U8,
        "I8" => DType::I8,
        "I16" => DType::I16,
        "U16" => DType::U16,
        "I32" => DType::I32,
        "I64" => DType::I64,
        "F16" => DType::F16,
        "BF16" => DType::BF16,
        "F32" => DType::F32,
        "F64" => DType::F64,
        _ => return None,
    })
}

pub(crate) fn read(
    path: &Path,
    map: memmap2::Mmap,
    limits: &Limits,
) -> Result<Vec<NamedTensor>, ReadError> {
    let (entries, data_start) = header(path, &map)?;
    if entries.len() > limits.max_tensors + 1 {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            message: format!(
                "{} tensors, over the limit of {}",
                entries.len(),
                limits.max_tensors
            ),
        });
    }
    let data_len = map.len() - data_start;
    let storage: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(map);
    let mut out: Vec<(usize, NamedTensor)> = Vec::new();
    for (name, info) in entries {
        if name == "__metadata__" {
            continue;
        }
        let bad = |m: String| ReadError::malformed(path, format!("tensor '{name}': {m}"));
        let dtype_name = info
            .get("dtype")
            .and_then(|d| d.as_str())
            .ok_or_else(|| bad("no dtype".into()))?;
        let dtype = st_dtype(dtype_name)
            .ok_or_else(|| bad(format!("dtype {dtype_name} is not supported")))?;
        let shape: Vec<usize> = info
            .get("shape")
            .and_then(|s| s.as_array())
            .ok_or_else(|| bad("no shape".into()))?
            .iter()
            .map(|d| d.as_u64().map(|d| d as usize))
            .collect::<Option<_>>()
            .ok_or_else(|| bad("shape is not a list of sizes".into()))?;
        let offsets: Vec<u64> = info
            .get("data_offsets")
            .and_then(|s| s.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_u64()).collect())
            .filter(|v: &Vec<u64>| v.len() == 2)
            .ok_or_else(|| bad("data_offsets is not [begin, end]".into()))?;
        let (begin, end) = (offsets[0], offsets[1]);
        let numel: u128 = shape.iter().map(|&d| d as u128).product();
        let needed = numel * dtype.size() as u128;
        if needed > limits.max_tensor_bytes as u128 {
            return Err(ReadError::TooLarge {
                path: path.to_path_buf(),
                message: format!(
                    "tensor '{name}' of shape {shape:?} needs {needed} bytes, over the limit"
                ),
            });
        }
        if end < begin || (end - begin) as u128 != needed {
            return Err(bad(format!(
                "data_offsets [{begin}, {end}] do not match shape {shape:?} of {dtype}"
            )));
        }
        if end > data_len as u64 {
            return Err(bad(format!(
                "truncated: data ends at {end} but the file holds {data_len} data bytes"
            )));
        }
        let strides = contiguous_strides(&shape);
        let tensor = Tensor::new(
            dtype,
            shape,
            strides,
            storage.clone(),
            data_start + begin as usize,
        )
        .map_err(|e| bad(e.to_string()))?;
        out.push((begin as usize, NamedTensor { name, tensor }));
    }
    out.sort_by_key(|(begin, t)| (*begin, t.name.clone()));
    Ok(out.into_iter().map(|(_, t)| t).collect())
}

pub(crate) fn metadata(path: &Path, bytes: &[u8]) -> Result<Vec<(String, String)>, ReadError> {
    let (entries, _) = header(path, bytes)?;
    Ok(entries
        .get("__metadata__")
        .and_then(|m| m.as_object())
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect()
        })
        .unwrap_or_default())
}

/// `MAX_HEADER` is the limit the header length is checked against before anything is parsed.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_length_over_the_limit_is_not_safetensors() {
        let mut b = (MAX_HEADER + 1).to_le_bytes().to_vec();
        b.push(b'{');
        assert!(!looks_like(&b));
    }
}
