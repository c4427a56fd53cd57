//! The approximate repair of bilinear-resize artefacts, only on request: every pixel whose id
//! is one of the artefact ids takes the most frequent id among its 8 neighbours that are not
//! artefacts (ties: the smaller id). Pixels with no such neighbour wait for the next pass;
//! each pass reads the previous one, so the result does not depend on the scan order.

use std::collections::BTreeMap;

/// How many passes at most: a band wider than this keeps its remaining pixels.
const MAX_PASSES: usize = 16;

/// What the fill did: pixels replaced (per old id -> new id) and pixels left.
#[derive(Debug, Default, PartialEq)]
pub struct Filled {
    pub moved: BTreeMap<(i64, i64), u64>,
    pub left: u64,
}

/// Fills the artefact ids of a `height x width` mask in place.
pub fn fill(ids: &mut [i64], width: usize, height: usize, artefacts: &[i64]) -> Filled {
    let is_artefact = |v: i64| artefacts.contains(&v);
    let original: Vec<i64> = ids.to_vec();
    let mut pending: Vec<usize> = (0..ids.len()).filter(|&i| is_artefact(ids[i])).collect();
    let mut done = vec![false; ids.len()];
    for i in 0..ids.len() {
        done[i] = !is_artefact(ids[i]);
    }
    for _ in 0..MAX_PASSES {
        if pending.is_empty() {
            break;
        }
        let mut decided: Vec<(usize, i64)> = Vec::new();
        for &i in &pending {
            let (y, x) = (i / width, i % width);
            let mut votes: BTreeMap<i64, u32> = BTreeMap::new();
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (ny, nx) = (y as i64 + dy, x as i64 + dx);
                    if (dy, dx) == (0, 0)
                        || ny < 0
                        || nx < 0
                        || ny >= height as i64
                        || nx >= width as i64
                    {
                        continue;
                    }
                    let j = ny as usize * width + nx as usize;
                    if done[j] {
                        *votes.entry(ids[j]).or_insert(0) += 1;
                    }
                }
            }
            // The largest count; among equals the smallest id (BTreeMap order, first max).
            let best = votes
                .iter()
                .fold(None::<(i64, u32)>, |best, (&v, &n)| match best {
                    Some((_, bn)) if bn >= n => best,
                    _ => Some((v, n)),
                });
            if let Some((v, _)) = best {
                decided.push((i, v));
            }
        }
        if decided.is_empty() {
            break;
        }
        for &(i, v) in &decided {
            ids[i] = v;
            done[i] = true;
        }
        pending.retain(|&i| !done[i]);
    }
    let mut filled = Filled {
        left: pending.len() as u64,
        ..Filled::default()
    };
    for (i, (&old, &new)) in original.iter().zip(ids.iter()).enumerate() {
        if old != new && done[i] {
            *filled.moved.entry((old, new)).or_insert(0) += 1;
        }
    }
    filled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_pixels_take_their_neighbours_majority() {
        // 0 | 5 band | 10 ; the band pixels see three 0s and three 10s: the tie goes to 0.
        #[rustfmt::skip]
        let mut m = vec![
            0, 0, 5, 10, 10,
            0, 0, 5, 10, 10,
            0, 0, 5, 10, 10,
        ];
        let f = fill(&mut m, 5, 3, &[5]);
        assert_eq!(f.left, 0);
        assert_eq!(m, [0, 0, 0, 10, 10, 0, 0, 0, 10, 10, 0, 0, 0, 10, 10]);
        assert_eq!(f.moved[&(5, 0)], 3);
        // A pixel with a clear majority.
        let mut m = vec![7, 7, 7, 7, 3, 7, 1, 1, 7];
        fill(&mut m, 3, 3, &[3]);
        assert_eq!(m[4], 7);
        // Nothing labelled around: stays, and is counted.
        let mut m = vec![4, 4, 4, 4];
        assert_eq!(fill(&mut m, 2, 2, &[4]).left, 4);
    }
}
