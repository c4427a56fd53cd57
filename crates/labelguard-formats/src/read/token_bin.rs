//! Flat token files that language-model training scripts memory-map: nanoGPT's `train.bin` /
//! `val.bin` and the Megatron / NeMo / GPT-NeoX indexed datasets (`PREFIX.bin` + `PREFIX.idx`).
//!
//! * nanoGPT (`data/*/prepare.py`): the token ids as `np.uint16`, native (little-endian) order,
//!   no header (`arr = np.memmap(filename, dtype=np.uint16, mode='w+', shape=(arr_len,))`);
//!   `train.py` reads them with `np.memmap(..., dtype=np.uint16, mode='r')`. A `meta.pkl` beside
//!   them (the character-level sets) is a pickled dict whose `vocab_size` becomes the model's
//!   (`meta_vocab_size`), read here with the restricted reader of [`super::pickle`].
//! * Megatron-LM `megatron/core/datasets/indexed_dataset.py` (`_IndexWriter`, `_IndexReader`):
//!   the `.idx` holds the magic `MMIDIDX\x00\x00`, a u64 version (1), a u8 dtype code (`DType`:
//!   1 uint8, 2 int8, 3 int16, 4 int32, 5 int64, 6 float64, 7 float32, 8 uint16), the u64
//!   sequence count and u64 document count, then `int32` sequence lengths, `int64` byte pointers
//!   into the `.bin` (one per sequence) and `int64` document indices (sequence numbers where
//!   documents start, `count + 1` of them for `count` documents), all little-endian; a
//!   multimodal dataset adds one `int8` mode per sequence. The `.bin` is the sequences' tokens
//!   of that dtype, back to back.
//!
//! The `.bin` is mapped and read a range at a time on the scan's threads ([`scan_ranges`]): one pass of the
//! core's range kernel per range, then the offending positions located only in the ranges that
//! hold one.

use labelguard_core::kernels::{scan_int, IntRange, IntStats};
use labelguard_core::{DType, TensorView};
use std::path::{Path, PathBuf};

/// The kind of a flat token file, with the files that describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenBin {
    /// nanoGPT's `train.bin` / `val.bin` (uint16), with the `meta.pkl` beside it if any.
    NanoGpt { meta: Option<PathBuf> },
    /// A Megatron indexed dataset's `.bin`, with its `.idx`.
    Megatron { index: PathBuf },
}

/// The magic bytes that start a Megatron `.idx`.
pub const MEGATRON_MAGIC: &[u8; 9] = b"MMIDIDX\x00\x00";

/// A Megatron `.idx`, checked against its `.bin`.
#[derive(Clone, Debug, PartialEq)]
pub struct MegatronIndex {
    pub dtype: DType,
    /// Each sequence's first token and token count, in tokens from the start of the `.bin`.
    pub sequences: Vec<(u64, u64)>,
    pub documents: u64,
    /// Tokens of the `.bin` that sequences cover: `[0, end)`.
    pub end: u64,
}

/// Megatron's dtype codes (`DType` in `indexed_dataset.py`); `Err` names a float dtype.
fn megatron_dtype(code: u8) -> Result<DType, String> {
    Ok(match code {
        1 => DType::U8,
        2 => DType::I8,
        3 => DType::I16,
        4 => DType::I32,
        5 => DType::I64,
        8 => DType::U16,
        6 => return Err("float64 tokens (dtype code 6): token ids must be integers".into()),
        7 => return Err("float32 tokens (dtype code 7): token ids must be integers".into()),
        c => {
            return Err(format!(
                "dtype code {c}, which Megatron does not define (1-8)"
            ))
        }
    })
}

/// The most bytes of a `.idx` read (its tables are 12 bytes per sequence: 4 GiB is over 300
/// million sequences).
const MAX_INDEX_BYTES: u64 = 4 << 30;

/// Reads and checks a Megatron `.idx` against the length of its `.bin` (`bin_len` bytes), as
/// `_IndexReader` and `_MMapBinReader.read` would: every check that fails there, or that makes
/// a sequence read past the `.bin`, is an `Err` saying what is wrong.
pub fn read_megatron_index(path: &Path, bin_len: u64) -> Result<MegatronIndex, String> {
    let mut bytes = Vec::new();
    crate::source::file::read_file(path, MAX_INDEX_BYTES, &mut bytes).map_err(|f| f.message)?;
    parse_megatron_index(&bytes, bin_len)
}

/// [`read_megatron_index`] over the bytes of the `.idx`.
pub fn parse_megatron_index(b: &[u8], bin_len: u64) -> Result<MegatronIndex, String> {
    const HEADER: usize = 34;
    if b.len() < HEADER {
        return Err(if b.starts_with(&MEGATRON_MAGIC[..b.len().min(9)]) {
            format!(
                "truncated: {} bytes, shorter than the 34-byte header",
                b.len()
            )
        } else {
            "not a Megatron index: it does not start with MMIDIDX\\x00\\x00".into()
        });
    }
    if &b[..9] != MEGATRON_MAGIC {
        return Err("not a Megatron index: it does not start with MMIDIDX\\x00\\x00".into());
    }
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let version = u64_at(9);
    if version != 1 {
        return Err(format!("index version {version}; Megatron reads version 1"));
    }
    let dtype = megatron_dtype(b[17])?;
    let count = u64_at(18);
    let docs = u64_at(26);
    let need = count
        .checked_mul(12)
        .and_then(|n| docs.checked_mul(8).and_then(|d| n.checked_add(d)))
        .and_then(|n| n.checked_add(HEADER as u64));
    let have = b.len() as u64;
    match need {
        Some(n) if n <= have => {}
        _ => {
            return Err(format!(
                "truncated: the header counts {count} sequences and {docs} document indices, whose tables need {} bytes; the file has {have}",
                need.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string())
            ))
        }
    }
    let count = count as usize;
    let lengths = &b[HEADER..HEADER + 4 * count];
    let pointers = &b[HEADER + 4 * count..HEADER + 12 * count];
    let doc_idx = &b[HEADER + 12 * count..HEADER + 12 * count + 8 * docs as usize];
    let size = dtype.size() as u64;
    let mut sequences = Vec::with_capacity(count);
    let mut end = 0u64;
    for (i, (l, p)) in lengths
        .chunks_exact(4)
        .zip(pointers.chunks_exact(8))
        .enumerate()
    {
        let len = i32::from_le_bytes(l.try_into().expect("4 bytes"));
        let ptr = i64::from_le_bytes(p.try_into().expect("8 bytes"));
        if len < 0 {
            return Err(format!("sequence {i} has the length {len}"));
        }
        if ptr < 0 || !(ptr as u64).is_multiple_of(size) {
            return Err(format!(
                "sequence {i} starts at byte {ptr}, which is not a {size}-byte token of the .bin"
            ));
        }
        let stop = (ptr as u64).checked_add(len as u64 * size);
        match stop {
            Some(s) if s <= bin_len => end = end.max(s / size),
            _ => {
                return Err(format!(
                    "sequence {i} ({len} tokens from byte {ptr}) ends past the end of the .bin ({bin_len} bytes): the .bin is truncated or belongs to another index"
                ))
            }
        }
        sequences.push((ptr as u64 / size, len as u64));
    }
    let mut last = 0i64;
    for (i, d) in doc_idx.chunks_exact(8).enumerate() {
        let v = i64::from_le_bytes(d.try_into().expect("8 bytes"));
        if v < last || v as u64 > count as u64 {
            return Err(format!(
                "document index {i} is {v}: document indices rise from 0 to the {count} sequences"
            ));
        }
        last = v;
    }
    Ok(MegatronIndex {
        dtype,
        sequences,
        documents: docs.saturating_sub(1),
        end,
    })
}

/// The `vocab_size` of nanoGPT's `meta.pkl` (`Ok(None)`: the dict has none).
pub fn meta_vocab_size(path: &Path) -> Result<Option<u64>, String> {
    use super::pickle::{parse, Value};
    let mut bytes = Vec::new();
    crate::source::file::read_file(path, 256 << 20, &mut bytes).map_err(|f| f.message)?;
    let v = parse(&bytes).map_err(|e| format!("not a pickle labelguard can read: {e}"))?;
    if !matches!(v, Value::Dict(_)) {
        return Err(format!("holds {}, not a dict", v.kind()));
    }
    match v.get("vocab_size") {
        None => Ok(None),
        Some(Value::Int(n)) if *n > 0 => Ok(Some(*n as u64)),
        Some(other) => Err(format!(
            "its vocab_size is {}, not a positive int",
            match other {
                Value::Int(n) => n.to_string(),
                o => o.kind(),
            }
        )),
    }
}

/// Bytes scanned per range: large enough that a range costs its bytes and nothing more, small
/// enough that the threads share a file of a few ranges.
const RANGE_BYTES: usize = 16 << 20;

/// Bytes per block of the second pass: a range that holds an offending token is scanned again
/// in blocks of this size with the same kernel, and read token by token only in the blocks that
/// hold one (a token at a time costs about ten times the kernel's pass).
const BLOCK_BYTES: usize = 64 << 10;

/// `part` (whole tokens of `dtype`) as a one-dimensional tensor.
fn view(dtype: DType, part: &[u8]) -> TensorView<'_> {
    TensorView::new(dtype, &[part.len() / dtype.size()], part).expect("whole tokens")
}

/// `bad(position, value)` for every token of `part` outside `range`, in order; `first` is the
/// position of `part`'s first token.
fn locate(dtype: DType, part: &[u8], range: IntRange, first: u64, bad: &mut impl FnMut(u64, i64)) {
    let size = dtype.size();
    let block = (BLOCK_BYTES / size).max(1) * size;
    for (k, b) in part.chunks(block).enumerate() {
        let v = view(dtype, b);
        if scan_int(&v, range).bad == 0 {
            continue;
        }
        let start = first + (k * block / size) as u64;
        for j in 0..v.numel() {
            let x = v.read_i64(j);
            if range.is_bad(x) {
                bad(start + j as u64, x);
            }
        }
    }
}

/// The tokens `[0, end)` of `file` scanned against `range`, a range at a time on the current
/// rayon pool; then `bad(position, value)` for every offending token, in file order (only the
/// ranges that hold one are read again). Returns the min, max and counts of all tokens.
///
/// The file is memory-mapped (its pages populated up front), as `np.memmap` and Megatron's
/// `_MMapBinReader` map it: the page cache is read in place, with no copy. Like theirs, a map of
/// a file that another process truncates while it is read would fault.
pub fn scan_ranges(
    file: &std::fs::File,
    dtype: DType,
    end: u64,
    range: IntRange,
    mut bad: impl FnMut(u64, i64),
) -> Result<IntStats, String> {
    use rayon::prelude::*;
    if end == 0 {
        return Ok(IntStats::default());
    }
    let size = dtype.size();
    // SAFETY: a read-only private map that lives as long as the slices read from it.
    let map = unsafe { memmap2::MmapOptions::new().populate().map(file) }
        .map_err(|e| format!("cannot map the file: {e}"))?;
    let bytes = usize::try_from(end)
        .ok()
        .and_then(|n| n.checked_mul(size))
        .and_then(|n| map.get(..n))
        .ok_or_else(|| format!("the file is shorter than its {end} tokens"))?;
    let per = (RANGE_BYTES / size).max(1) * size;
    let stats: Vec<IntStats> = bytes
        .par_chunks(per)
        .map(|part| scan_int(&view(dtype, part), range))
        .collect();
    let mut total = IntStats::default();
    for (i, (s, part)) in stats.iter().zip(bytes.chunks(per)).enumerate() {
        total = total.merge(*s);
        if s.bad > 0 {
            locate(dtype, part, range, (i * per / size) as u64, &mut bad);
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index as `_IndexWriter` writes it.
    fn index(code: u8, lengths: &[i32], size: i64, docs: &[i64]) -> Vec<u8> {
        let mut b = MEGATRON_MAGIC.to_vec();
        b.extend(1u64.to_le_bytes());
        b.push(code);
        b.extend((lengths.len() as u64).to_le_bytes());
        b.extend((docs.len() as u64).to_le_bytes());
        for l in lengths {
            b.extend(l.to_le_bytes());
        }
        let mut p = 0i64;
        for l in lengths {
            b.extend(p.to_le_bytes());
            p += *l as i64 * size;
        }
        for d in docs {
            b.extend(d.to_le_bytes());
        }
        b
    }

    #[test]
    fn reads_an_index_and_places_its_sequences() {
        let b = index(8, &[3, 2, 4], 2, &[0, 2, 3]);
        let i = parse_megatron_index(&b, 18).unwrap();
        assert_eq!(i.dtype, DType::U16);
        assert_eq!(i.sequences, vec![(0, 3), (3, 2), (5, 4)]);
        assert_eq!(i.documents, 2);
        assert_eq!(i.end, 9);
    }

    #[test]
    fn every_inconsistency_is_named() {
        let good = index(4, &[3, 2], 4, &[0, 2]);
        let cases: Vec<(Vec<u8>, u64, &str)> = vec![
            (good.clone(), 19, "ends past the end of the .bin"),
            (good[..40].to_vec(), 20, "truncated"),
            (good[..20].to_vec(), 20, "shorter than the 34-byte header"),
            (b"PK\x03\x04".repeat(10), 20, "not a Megatron index"),
            (index(7, &[3], 4, &[0, 1]), 12, "float32"),
            (index(9, &[3], 4, &[0, 1]), 12, "dtype code 9"),
            (index(4, &[-1], 4, &[0, 1]), 12, "the length -1"),
            (index(4, &[1, 1], 4, &[0, 3]), 12, "document index 1 is 3"),
            (
                {
                    let mut b = good.clone();
                    b[9] = 2;
                    b
                },
                20,
                "version 2",
            ),
            (
                {
                    let mut b = good.clone();
                    b[18..26].copy_from_slice(&u64::MAX.to_le_bytes());
                    b
                },
                20,
                "need more than 2^64 bytes",
            ),
        ];
        for (b, bin, want) in cases {
            let e = parse_megatron_index(&b, bin).unwrap_err();
            assert!(e.contains(want), "{e} lacks {want}");
        }
        assert!(parse_megatron_index(&good, 20).is_ok());
    }

    #[test]
    fn a_scan_finds_every_bad_token_in_order_across_ranges() {
        let per = (RANGE_BYTES / 2) as u64;
        let n = per * 2 + 7;
        let mut ids: Vec<u16> = (0..n).map(|i| (i % 50) as u16).collect();
        let blk = (BLOCK_BYTES / 2) as u64;
        let planted = [3, blk - 1, blk, per - 1, per, 2 * per + 6];
        for &p in &planted {
            ids[p as usize] = 60 + (p % 3) as u16;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("train.bin");
        let bytes: Vec<u8> = ids.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let mut found = Vec::new();
        let s = scan_ranges(&file, DType::U16, n, IntRange::below(50, None), |p, v| {
            found.push((p, v))
        })
        .unwrap();
        let want: Vec<(u64, i64)> = planted
            .iter()
            .map(|&p| (p, ids[p as usize] as i64))
            .collect();
        assert_eq!(found, want);
        assert_eq!((s.count, s.bad, s.min, s.max), (n, 6, Some(0), Some(62)));
    }
}
