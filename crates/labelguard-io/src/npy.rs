//! NumPy `.npy` and `.npz` (format spec: numpy/lib/format.py, "NPY format" NEP 1).
//!
//! An `.npy` file is the magic `\x93NUMPY`, a version byte pair, a little-endian header length
//! (u16 for version 1, u32 for versions 2 and 3), and a Python dict literal with `descr`,
//! `fortran_order` and `shape`, padded with spaces; the raw array bytes follow. An `.npz` is a
//! zip archive of `.npy` members.

use crate::{Limits, NamedTensor, ReadError};
use labelguard_core::{tensor::contiguous_strides, DType, Tensor};
use std::io::{Read, Seek};
use std::path::Path;
use std::sync::Arc;

/// The parsed header of an `.npy` array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyHeader {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub fortran_order: bool,
    /// Offset of the array bytes from the start of the file.
    pub data_offset: usize,
}

/// Parses the header of an `.npy` byte buffer.
pub fn parse_npy(bytes: &[u8]) -> Result<NpyHeader, String> {
    if !bytes.starts_with(b"\x93NUMPY") {
        return Err("not an .npy array (bad magic)".into());
    }
    if bytes.len() < 10 {
        return Err("truncated .npy header".into());
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("truncated .npy header".into());
            }
            (
                u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
                12,
            )
        }
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    let end = start
        .checked_add(len)
        .filter(|&e| e <= bytes.len())
        .ok_or("truncated .npy header")?;
    let text =
        std::str::from_utf8(&bytes[start..end]).map_err(|_| "the .npy header is not text")?;
    let dict = parse_dict(text)?;
    let descr = dict.descr.ok_or("the .npy header has no 'descr'")?;
    let dtype = npy_dtype(&descr)?;
    Ok(NpyHeader {
        dtype,
        shape: dict.shape.ok_or("the .npy header has no 'shape'")?,
        fortran_order: dict.fortran_order.unwrap_or(false),
        data_offset: end,
    })
}

/// NumPy type strings to dtypes. Only little-endian (or byte-order free) types are read.
fn npy_dtype(descr_raw: &str) -> Result<DType, String> {
    // Echoed in every message below: bounded like every value from a file.
    let descr = &labelguard_core::clip::echo(descr_raw);
    // The byte-order mark is one ASCII character; anything else (a non-ASCII first character
    // included, which must not be split inside) is not a type string numpy writes.
    let (order, code) = match descr_raw.char_indices().nth(1) {
        Some((i, _)) => descr_raw.split_at(i),
        None => (descr_raw, ""),
    };
    if order == ">" && !code.ends_with('1') {
        return Err(format!(
            "dtype '{descr}' is big-endian; convert it first: a.astype(a.dtype.newbyteorder('<'))"
        ));
    }
    if !matches!(order, "<" | "|" | "=" | ">") {
        return Err(format!("dtype '{descr}' is not a plain numeric type (structured or object arrays are not tensors)"));
    }
    Ok(match code {
        "b1" => DType::Bool,
        "u1" => DType::U8,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "u2" => DType::U16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        "u4" | "u8" => {
            return Err(format!(
                "dtype '{descr}' (unsigned {}-bit) has no PyTorch equivalent that losses accept; cast it to int64",
                if code == "u4" { 32 } else { 64 }
            ))
        }
        _ => return Err(format!("dtype '{descr}' is not supported (expected bool, integers up to 64 bits, or floats)")),
    })
}

#[derive(Default)]
struct Dict {
    descr: Option<String>,
    fortran_order: Option<bool>,
    shape: Option<Vec<usize>>,
}

/// A minimal parser for the dict literal NumPy writes (string keys; string, bool and int-tuple values).
fn parse_dict(text: &str) -> Result<Dict, String> {
    let s = text.trim().trim_end_matches(['\n', ' ', '\0']);
    let inner = s
        .strip_prefix('{')
        .and_then(|s| s.trim_end().strip_suffix('}'))
        .ok_or("the .npy header is not a dict")?;
    let mut dict = Dict::default();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let (key, after) = take_string(rest).ok_or("bad key in the .npy header")?;
        let after = after
            .trim_start()
            .strip_prefix(':')
            .ok_or("missing ':' in the .npy header")?
            .trim_start();
        let after = match key.as_str() {
            "descr" => {
                let (v, a) = take_string(after).ok_or("'descr' is not a simple type string")?;
                dict.descr = Some(v);
                a
            }
            "fortran_order" => {
                if let Some(a) = after.strip_prefix("True") {
                    dict.fortran_order = Some(true);
                    a
                } else if let Some(a) = after.strip_prefix("False") {
                    dict.fortran_order = Some(false);
                    a
                } else {
                    return Err("'fortran_order' is not True or False".into());
                }
            }
            "shape" => {
                let close = after.find(')').ok_or("'shape' is not a tuple")?;
                let body = after.strip_prefix('(').ok_or("'shape' is not a tuple")?;
                let body = &body[..close - 1];
                let mut shape = Vec::new();
                for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    shape.push(part.trim_end_matches('L').parse::<usize>().map_err(|_| {
                        format!(
                            "bad dimension '{}' in 'shape'",
                            labelguard_core::clip::echo(part)
                        )
                    })?);
                }
                dict.shape = Some(shape);
                &after[close + 1..]
            }
            other => {
                return Err(format!(
                    "unexpected key '{}' in the .npy header",
                    labelguard_core::clip::echo(other)
                ))
            }
        };
        rest = after.trim_start().trim_start_matches(',').trim_start();
    }
    Ok(dict)
}

fn take_string(s: &str) -> Option<(String, &str)> {
    let quote = s.chars().next().filter(|&c| c == '\'' || c == '"')?;
    let end = s[1..].find(quote)? + 1;
    Some((s[1..end].to_string(), &s[end + 1..]))
}

/// Builds a tensor over `.npy` bytes held in `storage`, checking size and truncation.
pub(crate) fn tensor_from_npy(
    storage: Arc<dyn AsRef<[u8]> + Send + Sync>,
    path: &Path,
    limits: &Limits,
) -> Result<Tensor, ReadError> {
    let bytes = (*storage).as_ref();
    let header = parse_npy(bytes).map_err(|m| ReadError::malformed(path, m))?;
    let needed = crate::size::tensor_bytes(&header.shape, header.dtype, limits).map_err(|m| {
        ReadError::TooLarge {
            path: path.to_path_buf(),
            message: format!("the array header claims {m}"),
        }
    })?;
    let available = bytes.len() - header.data_offset;
    if (available as u128) < needed {
        return Err(ReadError::malformed(
            path,
            format!("truncated: shape {} of {} needs {needed} bytes but only {available} follow the header", labelguard_core::clip::echo(&format!("{:?}", header.shape)), header.dtype),
        ));
    }
    let strides = if header.fortran_order {
        let mut s = vec![1usize; header.shape.len()];
        for d in 1..header.shape.len() {
            s[d] = s[d - 1].saturating_mul(header.shape[d - 1].max(1));
        }
        s
    } else {
        contiguous_strides(&header.shape)
    };
    Tensor::new(
        header.dtype,
        header.shape,
        strides,
        storage,
        header.data_offset,
    )
    .map_err(|e| ReadError::malformed(path, e.to_string()))
}

/// Reads every `.npy` member of an `.npz` archive.
pub(crate) fn read_npz<R: Read + Seek>(
    path: &Path,
    reader: R,
    limits: &Limits,
) -> Result<Vec<NamedTensor>, ReadError> {
    let mut archive = zip::ZipArchive::new(reader).map_err(|e| {
        ReadError::malformed(path, format!("not a readable .npz (zip) archive: {e}"))
    })?;
    if archive.len() > limits.max_tensors {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            message: format!(
                "{} arrays, over the limit of {}",
                archive.len(),
                limits.max_tensors
            ),
        });
    }
    let mut out = Vec::with_capacity(archive.len());
    for i in 0..archive.len() {
        let mut member = archive.by_index(i).map_err(|e| {
            ReadError::malformed(
                path,
                format!("member {i} of the archive is unreadable: {e}"),
            )
        })?;
        if member.is_dir() {
            continue;
        }
        let name = member
            .name()
            .map(|n| labelguard_core::clip::echo(n.trim_end_matches(".npy")))
            .unwrap_or_else(|_| format!("member {i}"));
        let declared = member.size();
        // Header plus data; a member larger than the tensor limit is refused before reading.
        if declared > limits.max_tensor_bytes.saturating_add(1 << 20) {
            return Err(ReadError::TooLarge {
                path: path.to_path_buf(),
                message: format!("array '{name}' is {declared} bytes uncompressed, over the limit"),
            });
        }
        let mut bytes = Vec::with_capacity(declared.min(1 << 30) as usize);
        (&mut member)
            .take(declared.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| {
                ReadError::malformed(path, format!("array '{name}' is corrupt or truncated: {e}"))
            })?;
        if bytes.len() as u64 != declared {
            return Err(ReadError::malformed(
                path,
                format!(
                    "array '{name}' is truncated: {} of {declared} bytes",
                    bytes.len()
                ),
            ));
        }
        let tensor = tensor_from_npy(Arc::new(bytes), path, limits).map_err(|e| match e {
            ReadError::Malformed { path, message } => ReadError::Malformed {
                path,
                message: format!("array '{name}': {message}"),
            },
            other => other,
        })?;
        out.push(NamedTensor { name, tensor });
    }
    if out.is_empty() {
        return Err(ReadError::malformed(
            path,
            "the .npz archive holds no arrays",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, fortran: bool, data: &[u8]) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn parses_headers_numpy_writes() {
        let b = npy("<i8", "(2, 3)", false, &[0; 48]);
        let h = parse_npy(&b).unwrap();
        assert_eq!(
            (h.dtype, h.shape.clone(), h.fortran_order),
            (DType::I64, vec![2, 3], false)
        );
        assert_eq!(h.data_offset, b.len() - 48);
        assert_eq!(
            parse_npy(&npy("|u1", "()", false, &[7])).unwrap().shape,
            Vec::<usize>::new()
        );
        assert_eq!(
            parse_npy(&npy("|b1", "(5,)", false, &[0; 5]))
                .unwrap()
                .shape,
            vec![5]
        );
    }

    #[test]
    fn values_from_the_header_are_echoed_bounded() {
        // A .npy 1.0 header holds at most 65,535 bytes.
        let long = "x".repeat(20_000);
        let ones = vec!["1"; 10_000].join(", ");
        for (bytes, expect) in [
            (
                npy(&format!("<{long}"), "(1,)", false, &[0; 8]),
                "not supported",
            ),
            (
                npy("|u1", &format!("({long},)"), false, &[]),
                "bad dimension",
            ),
            (
                npy("|u1", &format!("({ones})"), false, &[]),
                "truncated: shape [1, 1",
            ),
        ] {
            let Err(err) = tensor_from_npy(Arc::new(bytes), Path::new("x.npy"), &Limits::default())
            else {
                panic!("{expect}: read without an error");
            };
            let err = err.to_string();
            assert!(err.contains(expect), "{}", &err[..err.len().min(300)]);
            assert!(err.len() < 600, "{} bytes: {}", err.len(), &err[..300]);
        }
    }

    #[test]
    fn fortran_order_becomes_strides() {
        let data: Vec<u8> = (0u8..6).collect();
        let b = npy("|u1", "(2, 3)", true, &data);
        let t = tensor_from_npy(Arc::new(b), Path::new("x.npy"), &Limits::default()).unwrap();
        // Column-major: element [i, j] is at i + 2j.
        assert_eq!(t.view().to_i64_vec(), vec![0, 2, 4, 1, 3, 5]);
    }

    #[test]
    fn rejects_bad_input_with_a_message() {
        for (bytes, expect) in [
            (npy("<i8", "(2, 3)", false, &[0; 40]), "truncated"),
            (npy(">i8", "(1,)", false, &[0; 8]), "big-endian"),
            (npy("<c16", "(1,)", false, &[0; 16]), "not supported"),
            (npy("<u8", "(1,)", false, &[0; 8]), "no PyTorch equivalent"),
            (
                npy("<i8", "(100000000000, 100000000000)", false, &[]),
                "over the size limit",
            ),
            (b"\x93NUMPY\x01\x00\xff\xff{".to_vec(), "truncated"),
            // A non-ASCII descriptor is a message, not a panic inside a character.
            (
                npy("\u{e9}i8", "(1,)", false, &[0; 8]),
                "not a plain numeric type",
            ),
            (
                npy("\u{e9}", "(1,)", false, &[0; 8]),
                "not a plain numeric type",
            ),
            (npy("", "(1,)", false, &[0; 8]), "not a plain numeric type"),
            // 2^128 elements: over the size limit, not "no elements" after a wrap.
            (
                npy(
                    "|u1",
                    "(4294967296, 4294967296, 4294967296, 4294967296)",
                    false,
                    &[],
                ),
                "more than 2^128",
            ),
        ] {
            let err = tensor_from_npy(Arc::new(bytes), Path::new("x.npy"), &Limits::default())
                .unwrap_err()
                .to_string();
            assert!(err.contains(expect), "{err}");
        }
    }
}
