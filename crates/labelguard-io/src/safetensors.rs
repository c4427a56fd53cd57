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

/// The most bytes a safetensors file may hold: its header plus at most the tensor limit of data.
pub(crate) fn file_cap(head: &[u8], limits: &Limits) -> u64 {
    let n = u64::from_le_bytes(head[..8].try_into().unwrap());
    8u64.saturating_add(n)
        .saturating_add(limits.max_tensor_bytes)
}

pub(crate) fn read(
    path: &Path,
    map: Vec<u8>,
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
        // A JSON key or value of the header, echoed in the messages below: bounded.
        let shown = labelguard_core::clip::echo(&name);
        let bad = |m: String| ReadError::malformed(path, format!("tensor '{shown}': {m}"));
        let dtype_name = info
            .get("dtype")
            .and_then(|d| d.as_str())
            .ok_or_else(|| bad("no dtype".into()))?;
        let dtype = st_dtype(dtype_name).ok_or_else(|| {
            bad(format!(
                "dtype {} is not supported",
                labelguard_core::clip::echo(dtype_name)
            ))
        })?;
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
        let needed =
            crate::size::tensor_bytes(&shape, dtype, limits).map_err(|m| ReadError::TooLarge {
                path: path.to_path_buf(),
                message: format!("tensor '{shown}' has {m}"),
            })?;
        if end < begin || (end - begin) as u128 != needed {
            return Err(bad(format!(
                "data_offsets [{begin}, {end}] do not match shape {} of {dtype}",
                labelguard_core::clip::echo(&format!("{shape:?}"))
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

/// Every tensor's name, dtype and shape, in name order (`__metadata__` left out).
pub(crate) fn shapes(path: &Path, bytes: &[u8]) -> Result<Vec<crate::TensorShape>, ReadError> {
    let (entries, _) = header(path, bytes)?;
    let mut out = Vec::new();
    for (name, info) in entries {
        if name == "__metadata__" {
            continue;
        }
        let shape = info
            .get("shape")
            .and_then(|s| s.as_array())
            .and_then(|a| a.iter().map(|d| d.as_u64()).collect::<Option<Vec<u64>>>())
            .ok_or_else(|| {
                let shown = labelguard_core::clip::echo(&name);
                ReadError::malformed(
                    path,
                    format!("tensor '{shown}': no shape (a list of sizes)"),
                )
            })?;
        let dtype = info
            .get("dtype")
            .and_then(|d| d.as_str())
            .unwrap_or("")
            .to_string();
        out.push(crate::TensorShape { name, dtype, shape });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn st_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "BOOL",
        DType::U8 => "U8",
        DType::I8 => "I8",
        DType::I16 => "I16",
        DType::U16 => "U16",
        DType::I32 => "I32",
        DType::I64 => "I64",
        DType::F16 => "F16",
        DType::BF16 => "BF16",
        DType::F32 => "F32",
        DType::F64 => "F64",
    }
}

/// Writes tensors (in row-major order, whatever their strides) and string metadata as a
/// `.safetensors` file, atomically (see [`crate::output`]).
pub fn write(
    path: &Path,
    tensors: &[(String, labelguard_core::TensorView<'_>)],
    metadata: &[(String, String)],
) -> std::io::Result<()> {
    let mut header = serde_json::Map::new();
    if !metadata.is_empty() {
        let meta: serde_json::Map<String, serde_json::Value> = metadata
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        header.insert("__metadata__".into(), serde_json::Value::Object(meta));
    }
    let mut offset = 0usize;
    for (name, t) in tensors {
        let n = t.numel() * t.dtype().size();
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": st_name(t.dtype()), "shape": t.shape(), "data_offsets": [offset, offset + n]}),
        );
        offset += n;
    }
    let mut head = serde_json::to_vec(&header).map_err(std::io::Error::other)?;
    while head.len() % 8 != 0 {
        head.push(b' ');
    }
    // Captures go through the one output writer: a regular file, replaced atomically.
    let dest = crate::output::check(path, false)?;
    crate::output::write_with(&dest, |w| {
        w.write_all(&(head.len() as u64).to_le_bytes())?;
        w.write_all(&head)?;
        for (_, t) in tensors {
            let size = t.dtype().size();
            if t.is_contiguous() {
                w.write_all(&t.bytes()[..t.numel() * size])?;
            } else {
                for o in t.offsets() {
                    w.write_all(&t.bytes()[o * size..(o + 1) * size])?;
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_files_read_back_with_metadata_and_strides() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("call.safetensors");
        // A transposed [3, 2] view of [0..6]: element [i, j] is i + 3j.
        let bytes: Vec<u8> = (0i64..6).flat_map(|v| v.to_le_bytes()).collect();
        let t = labelguard_core::TensorView::with_strides(DType::I64, &[3, 2], &[1, 3], &bytes)
            .unwrap();
        write(
            &path,
            &[("target".into(), t)],
            &[("op".into(), "cross_entropy".into())],
        )
        .unwrap();
        let back = crate::read_tensors(&path, &Limits::default()).unwrap();
        assert_eq!(back[0].name, "target");
        assert_eq!(back[0].tensor.view().shape(), &[3, 2]);
        assert_eq!(back[0].tensor.view().to_i64_vec(), vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(
            metadata(&path, &std::fs::read(&path).unwrap()).unwrap(),
            vec![("op".to_string(), "cross_entropy".to_string())]
        );
        let leftovers: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn names_and_values_from_the_header_are_echoed_bounded() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("x.safetensors");
        let long = "t".repeat(100_000);
        for (header, expect) in [
            (
                format!(r#"{{"{long}":{{"dtype":"{long}","shape":[1],"data_offsets":[0,1]}}}}"#),
                "is not supported",
            ),
            (
                format!(
                    r#"{{"{long}":{{"dtype":"U8","shape":[{}],"data_offsets":[0,2]}}}}"#,
                    vec!["1"; 50_000].join(",")
                ),
                "do not match shape [1, 1",
            ),
        ] {
            let mut b = (header.len() as u64).to_le_bytes().to_vec();
            b.extend(header.as_bytes());
            b.extend([0, 0]);
            std::fs::write(&path, &b).unwrap();
            let Err(err) = crate::read_tensors(&path, &Limits::default()) else {
                panic!("{expect}: read without an error");
            };
            let err = err.to_string();
            assert!(err.contains(expect), "{}", &err[..err.len().min(300)]);
            assert!(err.len() < 900, "{} bytes: {}", err.len(), &err[..300]);
        }
    }

    #[test]
    fn header_length_over_the_limit_is_not_safetensors() {
        let mut b = (MAX_HEADER + 1).to_le_bytes().to_vec();
        b.push(b'{');
        assert!(!looks_like(&b));
    }
}
