//! Value tables: repairs composed into one map, applied to decoded samples with per-value
//! pixel counts. Every value repair is a table of `[from, to]` pairs (values not listed stay),
//! so composing them and counting what moved is the same code for every repair and format.

use crate::evidence::Guard;
use labelguard_labels::repair::Repair;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One value that moved, and how many elements moved with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Moved {
    pub from: i64,
    pub to: i64,
    pub pixels: u64,
}

/// Value repairs applied one after another.
#[derive(Clone, Debug, Default)]
pub struct ValueMap {
    steps: Vec<BTreeMap<i64, i64>>,
    /// The preconditions of the numbering tables among them ([`Guard`]).
    guards: Vec<Guard>,
}

impl ValueMap {
    pub fn new<'a>(repairs: impl IntoIterator<Item = &'a Repair>) -> ValueMap {
        let repairs: Vec<&Repair> = repairs
            .into_iter()
            .filter(|r| r.kind.is_value_map())
            .collect();
        ValueMap {
            steps: repairs
                .iter()
                .map(|r| r.map.iter().map(|[a, b]| (*a, *b)).collect())
                .collect(),
            guards: repairs.iter().filter_map(|r| Guard::of(r)).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.steps.iter().all(|s| s.is_empty())
    }

    /// Where `v` ends up after every step.
    pub fn apply(&self, v: i64) -> i64 {
        self.steps
            .iter()
            .fold(v, |x, step| step.get(&x).copied().unwrap_or(x))
    }

    /// The composed table: only values that change (no value outside the steps' `from`
    /// sets can change).
    pub fn composed(&self) -> BTreeMap<i64, i64> {
        let domain: BTreeSet<i64> = self.steps.iter().flat_map(|s| s.keys().copied()).collect();
        domain
            .into_iter()
            .map(|v| (v, self.apply(v)))
            .filter(|(a, b)| a != b)
            .collect()
    }

    /// The lookup table of every value in `0..n`, with the targets as `i64`.
    fn lut(&self, n: usize) -> Vec<i64> {
        let mut lut: Vec<i64> = (0..n as i64).collect();
        for (from, to) in self.composed() {
            if (0..n as i64).contains(&from) {
                lut[from as usize] = to;
            }
        }
        lut
    }
}

/// Why a table is not applied to a file.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NotApplied {
    #[error(transparent)]
    DoesNotFit(#[from] DoesNotFit),
    /// A numbering table whose convention the file's ids do not show ([`Guard::refuses`]).
    #[error("{0}")]
    NotThisConvention(String),
}

/// Why a table cannot be applied to a file: a target the file's format cannot hold.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{from} maps to {to}, which {what} cannot hold (values {min}..={max})")]
pub struct DoesNotFit {
    pub from: i64,
    pub to: i64,
    pub what: String,
    pub min: i64,
    pub max: i64,
}

/// The moves of a histogram under `map`, checked against the range the output can hold.
pub fn moves(
    map: &ValueMap,
    histogram: impl IntoIterator<Item = (i64, u64)>,
    range: (i64, i64),
    what: &str,
) -> Result<Vec<Moved>, NotApplied> {
    let histogram: BTreeMap<i64, u64> = histogram.into_iter().filter(|&(_, n)| n > 0).collect();
    if let Some(why) = map.guards.iter().find_map(|g| g.refuses(&histogram)) {
        return Err(NotApplied::NotThisConvention(why));
    }
    let table = map.composed();
    let mut out = Vec::new();
    for (v, n) in histogram {
        if n == 0 {
            continue;
        }
        if let Some(&to) = table.get(&v) {
            if to < range.0 || to > range.1 {
                return Err(NotApplied::DoesNotFit(DoesNotFit {
                    from: v,
                    to,
                    what: what.to_string(),
                    min: range.0,
                    max: range.1,
                }));
            }
            out.push(Moved {
                from: v,
                to,
                pixels: n,
            });
        }
    }
    Ok(out)
}

/// Remaps 8-bit samples in place; returns the moves. `max` is the largest value the output
/// holds (255, or 2^depth - 1 for 1/2/4-bit PNGs).
pub fn remap_u8(
    map: &ValueMap,
    samples: &mut [u8],
    max: i64,
    what: &str,
) -> Result<Vec<Moved>, NotApplied> {
    let mut bins = [0u64; 256];
    for &s in samples.iter() {
        bins[s as usize] += 1;
    }
    let moved = moves(
        map,
        bins.iter().enumerate().map(|(v, &n)| (v as i64, n)),
        (0, max),
        what,
    )?;
    if !moved.is_empty() {
        let wide = map.lut(256);
        let lut: Vec<u8> = wide.iter().map(|&t| t.clamp(0, 255) as u8).collect();
        for s in samples.iter_mut() {
            *s = lut[*s as usize];
        }
    }
    Ok(moved)
}

/// Remaps 16-bit samples given as `get`/`set` over a byte buffer of `width`-byte elements.
pub fn remap_u16(
    map: &ValueMap,
    samples: &mut [u8],
    big_endian: bool,
    what: &str,
) -> Result<Vec<Moved>, NotApplied> {
    let read = |b: &[u8]| {
        if big_endian {
            u16::from_be_bytes([b[0], b[1]])
        } else {
            u16::from_le_bytes([b[0], b[1]])
        }
    };
    let mut bins = vec![0u64; 65536];
    for b in samples.chunks_exact(2) {
        bins[read(b) as usize] += 1;
    }
    let moved = moves(
        map,
        bins.iter().enumerate().map(|(v, &n)| (v as i64, n)),
        (0, 65535),
        what,
    )?;
    if !moved.is_empty() {
        let lut: Vec<u16> = map.lut(65536).iter().map(|&t| t as u16).collect();
        for b in samples.chunks_exact_mut(2) {
            let t = lut[read(b) as usize];
            b.copy_from_slice(&if big_endian {
                t.to_be_bytes()
            } else {
                t.to_le_bytes()
            });
        }
    }
    Ok(moved)
}

/// Remaps little-endian signed integers of `size` bytes (1, 2, 4 or 8) in place.
pub fn remap_signed(
    map: &ValueMap,
    samples: &mut [u8],
    size: usize,
    what: &str,
) -> Result<Vec<Moved>, NotApplied> {
    let read = |b: &[u8]| -> i64 {
        match size {
            1 => b[0] as i8 as i64,
            2 => i16::from_le_bytes([b[0], b[1]]) as i64,
            4 => i32::from_le_bytes(b.try_into().expect("4 bytes")) as i64,
            _ => i64::from_le_bytes(b.try_into().expect("8 bytes")),
        }
    };
    let bits = size as u32 * 8;
    let range = if bits == 64 {
        (i64::MIN, i64::MAX)
    } else {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    };
    let table = map.composed();
    // Only the values the table moves, unless a numbering table needs to see every id.
    let every_id = !map.guards.is_empty();
    let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
    for b in samples.chunks_exact(size) {
        let v = read(b);
        if every_id || table.contains_key(&v) {
            *hist.entry(v).or_insert(0) += 1;
        }
    }
    let moved = moves(map, hist, range, what)?;
    if !moved.is_empty() {
        for b in samples.chunks_exact_mut(size) {
            if let Some(&t) = table.get(&read(b)) {
                b.copy_from_slice(&t.to_le_bytes()[..size]);
            }
        }
    }
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use labelguard_labels::repair::{table, RepairKind};

    fn rep(kind: RepairKind, map: Vec<[i64; 2]>) -> Repair {
        Repair {
            kind,
            rule: None,
            map,
            values: Vec::new(),
            automatic: true,
            description: String::new(),
        }
    }

    #[test]
    fn steps_compose_in_order_and_count_pixels() {
        let m = ValueMap::new(&[
            rep(RepairKind::VoidToIgnore, vec![[255, 0]]),
            rep(RepairKind::Map, vec![[0, 7], [3, 2]]),
        ]);
        assert_eq!(m.apply(255), 7);
        assert_eq!(m.apply(3), 2);
        assert_eq!(m.apply(5), 5);
        let mut px = vec![255u8, 255, 3, 5, 0];
        let moved = remap_u8(&m, &mut px, 255, "an 8-bit PNG").unwrap();
        assert_eq!(px, [7, 7, 2, 5, 7]);
        assert_eq!(
            moved,
            [
                Moved {
                    from: 0,
                    to: 7,
                    pixels: 1
                },
                Moved {
                    from: 3,
                    to: 2,
                    pixels: 1
                },
                Moved {
                    from: 255,
                    to: 7,
                    pixels: 2
                }
            ]
        );
    }

    #[test]
    fn targets_that_do_not_fit_are_refused_before_anything_changes() {
        let m = ValueMap::new(&[rep(RepairKind::Map, vec![[1, 300]])]);
        let mut px = vec![1u8, 2];
        let e = remap_u8(&m, &mut px, 255, "an 8-bit PNG").unwrap_err();
        let NotApplied::DoesNotFit(e) = e else {
            panic!("{e}")
        };
        assert_eq!((e.from, e.to), (1, 300));
        assert_eq!(px, [1, 2]);
        let m = ValueMap::new(&[rep(RepairKind::Map, vec![[255, -100]])]);
        let mut wide: Vec<u8> = [255i64, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
        remap_signed(&m, &mut wide, 8, "int64").unwrap();
        assert_eq!(i64::from_le_bytes(wide[..8].try_into().unwrap()), -100);
        let mut be = vec![0x01, 0x00, 0x00, 0x05]; // 256, 5 big-endian
        let m = ValueMap::new(&[rep(RepairKind::Map, vec![[256, 2]])]);
        remap_u16(&m, &mut be, true, "a 16-bit PNG").unwrap();
        assert_eq!(be, [0, 2, 0, 5]);
    }

    #[test]
    fn cityscapes_table_maps_every_label_id() {
        let m = ValueMap::new(&[rep(
            RepairKind::CityscapesTrainIds,
            table(RepairKind::CityscapesTrainIds, 19, 255, &[]),
        )]);
        let mut px: Vec<u8> = (0..34).collect();
        remap_u8(&m, &mut px, 255, "PNG").unwrap();
        assert_eq!(
            &px[..],
            &labelguard_scan::preset::CITYSCAPES_LABEL_TO_TRAIN[..]
        );
    }
}
