//! The raw files torchvision's classification datasets read, as their class labels:
//!
//! * MNIST, FashionMNIST, KMNIST (torchvision `datasets/mnist.py`): `<root>/<Class>/raw/`
//!   `{train,t10k}-labels-idx1-ubyte`, in the IDX format of `read_sn3_pascalvincent_tensor`: a
//!   big-endian u32 magic whose low byte is the number of dimensions and next byte the type
//!   (`0x00000801`: one dimension of uint8, what `read_label_file` requires), the size of each
//!   dimension as a big-endian u32, then the values; `.view(*sizes)` needs exactly that many.
//!   The images (`{train,t10k}-images-idx3-ubyte`, magic `0x00000803`) give the sample count.
//!   torchvision reads the files uncompressed; the `.gz` files it downloads are read here when
//!   the uncompressed file is not beside them (what `download=True` would extract).
//! * CIFAR-10 / CIFAR-100 (torchvision `datasets/cifar.py`): `cifar-10-batches-py/`
//!   `data_batch_1`..`data_batch_5` and `test_batch`, `cifar-100-python/train` and `test`: each a
//!   pickled dict read with `pickle.load(f, encoding="latin1")` whose `labels` (CIFAR-10) or else
//!   `fine_labels` (CIFAR-100) list the class of each row of `data` (a uint8 array of
//!   `rows x 3072`). Read with the restricted pickle reader ([`super::pickle`]): nothing runs.

use super::pickle::{parse, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The kind of a raw label file of torchvision's classification datasets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawLabels {
    /// An MNIST-style IDX labels file, with the images file of the same split when present.
    Mnist { images: Option<PathBuf> },
    /// A CIFAR-10/100 python batch.
    Cifar,
}

/// The IDX magic of a labels file (uint8, one dimension) and of an images file (three).
pub const MNIST_LABELS_MAGIC: u32 = 0x0000_0801;
pub const MNIST_IMAGES_MAGIC: u32 = 0x0000_0803;

/// The most bytes one raw file may hold once decompressed (CIFAR-100's `train` is 155 MB).
const MAX_RAW_BYTES: u64 = 1 << 30;

/// The bytes of `path`, gunzipped when its name ends in `.gz`; at most `limit` bytes are kept
/// (a larger file is an error, unless `prefix_only`).
fn read_maybe_gz(path: &Path, limit: u64, prefix_only: bool) -> Result<Vec<u8>, String> {
    let (file, _) = crate::source::file::open_regular(path).map_err(|f| f.message)?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    let mut r: Box<dyn Read> = if gz {
        Box::new(flate2::read::GzDecoder::new(std::io::BufReader::new(file)))
    } else {
        Box::new(file)
    };
    let mut out = Vec::new();
    (&mut r)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            if gz {
                format!("not a complete gzip file: {e}")
            } else {
                format!("cannot read: {e}")
            }
        })?;
    if out.len() as u64 > limit {
        if prefix_only {
            out.truncate(limit as usize);
        } else {
            return Err(format!("holds more than {limit} bytes"));
        }
    }
    Ok(out)
}

/// An IDX header: its magic and the size of each dimension; `Err` says what is wrong.
fn idx_header(b: &[u8]) -> Result<(u32, Vec<u32>), String> {
    let be = |o: usize| {
        b.get(o..o + 4)
            .map(|x| u32::from_be_bytes(x.try_into().expect("4")))
    };
    let magic = be(0).ok_or("truncated: shorter than its 4-byte magic")?;
    let (nd, ty) = (magic % 256, magic / 256);
    if !(1..=3).contains(&nd) || !(8..=14).contains(&ty) {
        return Err(format!(
            "not an IDX file: its magic is 0x{magic:08x} (torchvision reads 1-3 dimensions of types 8-14)"
        ));
    }
    let dims = (0..nd as usize)
        .map(|i| be(4 * (i + 1)))
        .collect::<Option<Vec<u32>>>()
        .ok_or("truncated inside its header")?;
    Ok((magic, dims))
}

/// The labels of an MNIST labels file, as `read_label_file` reads them.
pub fn mnist_labels(path: &Path) -> Result<Vec<u8>, String> {
    let b = read_maybe_gz(path, MAX_RAW_BYTES, false)?;
    let (magic, dims) = idx_header(&b)?;
    if magic != MNIST_LABELS_MAGIC {
        let what = if magic == MNIST_IMAGES_MAGIC {
            " (an images file)"
        } else {
            ""
        };
        return Err(format!(
            "its magic is 0x{magic:08x}{what}, not 0x00000801: torchvision's read_label_file reads one dimension of uint8 labels"
        ));
    }
    let n = dims[0] as usize;
    let data = &b[8..];
    if data.len() != n {
        return Err(format!(
            "its header counts {n} labels but it holds {}: torchvision's .view({n}) raises on it ({})",
            data.len(),
            if data.len() < n {
                "truncated"
            } else {
                "bytes after the labels"
            }
        ));
    }
    Ok(data.to_vec())
}

/// The sample count of an MNIST images file (its first dimension), from its header.
pub fn mnist_image_count(path: &Path) -> Result<u64, String> {
    let b = read_maybe_gz(path, 16, true)?;
    let (magic, dims) = idx_header(&b)?;
    if magic != MNIST_IMAGES_MAGIC {
        return Err(format!(
            "its magic is 0x{magic:08x}, not 0x00000803 (three dimensions of uint8 images)"
        ));
    }
    Ok(dims[0] as u64)
}

/// The class labels of a CIFAR batch and the key they are under (`labels`, else
/// `fine_labels`, as torchvision picks), with the row count of its `data` when it states one.
pub fn cifar_labels(path: &Path) -> Result<(Vec<i64>, &'static str, Option<u64>), String> {
    let b = read_maybe_gz(path, MAX_RAW_BYTES, false)?;
    let v = parse(&b).map_err(|e| format!("not a pickle labelguard can read: {e}"))?;
    if !matches!(v, Value::Dict(_)) {
        return Err(format!("holds {}, not a dict of labels and data", v.kind()));
    }
    let (key, list) = match (v.get("labels"), v.get("fine_labels")) {
        (Some(l), _) => ("labels", l),
        (None, Some(l)) => ("fine_labels", l),
        (None, None) => {
            return Err(
                "holds no 'labels' (CIFAR-10) or 'fine_labels' (CIFAR-100) key: torchvision raises KeyError on it".into(),
            )
        }
    };
    let items = list
        .items()
        .ok_or_else(|| format!("its '{key}' is {}, not a list", list.kind()))?;
    let mut ids = Vec::with_capacity(items.len());
    for (i, x) in items.iter().enumerate() {
        match x {
            Value::Int(n) => ids.push(*n),
            Value::Bool(b) => ids.push(*b as i64),
            other if numpy_int(other).is_some() => ids.extend(numpy_int(other)),
            other => return Err(format!("'{key}'[{i}] is {}, not a class id", other.kind())),
        }
    }
    Ok((ids, key, v.get("data").and_then(array_rows)))
}

/// A pickled NumPy integer scalar (`np.int64(3)` in a list rebuilt with `list(array)`): numpy's
/// `scalar(dtype, bytes)` (`numpy/_core/multiarray` `scalar`), the dtype `dtype('i8', False,
/// True)` with its byte order in its `BUILD` state `(3, '<', ...)`, the bytes raw (protocol 3+)
/// or as `_codecs.encode(text, 'latin1')` (protocol 2).
fn numpy_int(v: &Value) -> Option<i64> {
    let Value::Object { callable, args, .. } = v else {
        return None;
    };
    let Value::Global(name) = &**callable else {
        return None;
    };
    if !matches!(
        &**name,
        "numpy._core.multiarray.scalar" | "numpy.core.multiarray.scalar"
    ) {
        return None;
    }
    let [dtype, data] = args.items()? else {
        return None;
    };
    let Value::Object {
        args: dargs, state, ..
    } = dtype
    else {
        return None;
    };
    let Value::Str(code) = dargs.items()?.first()? else {
        return None;
    };
    let order = state
        .as_deref()
        .and_then(Value::items)
        .and_then(|s| s.get(1));
    let big = matches!(order, Some(Value::Str(o)) if &**o == ">");
    let mut bytes: Vec<u8> = match data {
        Value::Bytes(b) => b.to_vec(),
        Value::Object { callable, args, .. } if matches!(&**callable, Value::Global(g) if &**g == "_codecs.encode") =>
        {
            let Value::Str(s) = args.items()?.first()? else {
                return None;
            };
            s.chars()
                .map(|c| u8::try_from(c as u32).ok())
                .collect::<Option<_>>()?
        }
        _ => return None,
    };
    let (kind, size) = code.split_at(1);
    let size: usize = size.parse().ok()?;
    if bytes.len() != size || !(1..=8).contains(&size) {
        return None;
    }
    let signed = match kind {
        "i" => true,
        "u" => false,
        _ => return None,
    };
    if big {
        bytes.reverse();
    }
    let fill = if signed && bytes[size - 1] & 0x80 != 0 {
        0xff
    } else {
        0
    };
    let mut b = [fill; 8];
    b[..size].copy_from_slice(&bytes);
    let v = i64::from_le_bytes(b);
    // A u8 id beyond i64 is no class id.
    (signed || size < 8 || v >= 0).then_some(v)
}

/// The first dimension of a pickled NumPy array (`_reconstruct` then `BUILD` with the state
/// `(version, shape, dtype, is_fortran, data)`, numpy `ndarray.__reduce__`).
fn array_rows(v: &Value) -> Option<u64> {
    let Value::Object { state: Some(s), .. } = v else {
        return None;
    };
    match s.items()?.get(1)?.items()?.first()? {
        Value::Int(n) if *n >= 0 => Some(*n as u64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(magic: u32, dims: &[u32], data: &[u8]) -> Vec<u8> {
        let mut b = magic.to_be_bytes().to_vec();
        for d in dims {
            b.extend(d.to_be_bytes());
        }
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn mnist_labels_are_read_and_every_bad_header_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("train-labels-idx1-ubyte");
        std::fs::write(&p, idx(0x801, &[3], &[5, 0, 9])).unwrap();
        assert_eq!(mnist_labels(&p).unwrap(), vec![5, 0, 9]);
        let gz = dir.path().join("t10k-labels-idx1-ubyte.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, &idx(0x801, &[2], &[1, 2])).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        assert_eq!(mnist_labels(&gz).unwrap(), vec![1, 2]);
        for (bytes, want) in [
            (idx(0x801, &[4], &[1, 2]), "truncated"),
            (idx(0x801, &[1], &[1, 2]), "bytes after the labels"),
            (idx(0x803, &[1, 1, 1], &[1]), "an images file"),
            (idx(0x1234, &[1], &[1]), "not an IDX file"),
            (vec![0, 0], "shorter than its 4-byte magic"),
            (vec![0, 0, 8, 1, 0], "inside its header"),
        ] {
            std::fs::write(&p, bytes).unwrap();
            let e = mnist_labels(&p).unwrap_err();
            assert!(e.contains(want), "{e} lacks {want}");
        }
        let img = dir.path().join("train-images-idx3-ubyte");
        std::fs::write(&img, idx(0x803, &[7, 28, 28], &[])).unwrap();
        assert_eq!(mnist_image_count(&img).unwrap(), 7);
    }
}
