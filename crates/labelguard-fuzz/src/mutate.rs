//! Byte mutations of the kind that break real files: bit flips, random bytes, cuts (the
//! commonest corruption: an interrupted copy), insertions, deletions, splices of another seed,
//! and "interesting" integers written over length and size fields.

/// xorshift64*: small, fast, reproducible from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn word(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.word() % n.max(1) as u64) as usize
    }
}

const INTERESTING: [u32; 10] = [
    0,
    1,
    0x7f,
    0xff,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    16384,
];

/// Values written as LEB128 varints (the integers of Thrift's compact protocol, which Parquet's
/// footer and page headers use, and of protobuf): sizes, counts and offsets that are huge,
/// negative once zigzag-decoded, or just past a small file's end.
pub const INTERESTING_VARINT: [u64; 9] = [
    0,
    1,
    0x7f,
    4096,
    0x7fff_ffff,
    0xffff_ffff,
    1 << 40,
    u64::MAX >> 1,
    u64::MAX,
];

/// Replaces the varint that starts at `at` (its continuation bytes included) with `value`'s
/// LEB128 encoding.
pub fn write_varint(b: &mut Vec<u8>, at: usize, value: u64) {
    let mut end = at;
    while end < b.len() && end - at < 10 && b[end] & 0x80 != 0 {
        end += 1;
    }
    let end = (end + 1).min(b.len());
    let mut enc = Vec::with_capacity(10);
    let mut v = value;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            enc.push(byte);
            break;
        }
        enc.push(byte | 0x80);
    }
    b.splice(at..end, enc);
}

/// One to four mutations of `input`; `other` is another seed for splicing.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        if b.is_empty() {
            b.push(rng.word() as u8);
        }
        let at = rng.below(b.len());
        match rng.below(9) {
            0 => b[at] ^= 1 << rng.below(8),
            1 => b[at] = rng.word() as u8,
            2 => b.truncate(at),
            3 => b.insert(at, rng.word() as u8),
            4 => {
                let end = (at + 1 + rng.below(16)).min(b.len());
                b.drain(at..end);
            }
            5 => {
                let v = INTERESTING[rng.below(INTERESTING.len())];
                let bytes = if rng.below(2) == 0 {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                };
                for (i, x) in bytes.iter().enumerate() {
                    if let Some(slot) = b.get_mut(at + i) {
                        *slot = *x;
                    }
                }
            }
            6 => {
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let n = rng.below(64).min(other.len() - from);
                    b.splice(at..at, other[from..from + n].iter().copied());
                }
            }
            7 => {
                let v = INTERESTING_VARINT[rng.below(INTERESTING_VARINT.len())];
                write_varint(&mut b, at, v);
            }
            _ => {
                // Repeat a slice: long lines, long cells, many chunks.
                let end = (at + 1 + rng.below(32)).min(b.len());
                let piece = b[at..end].to_vec();
                for _ in 0..rng.below(64) {
                    b.splice(at..at, piece.iter().copied());
                }
            }
        }
    }
    b
}
