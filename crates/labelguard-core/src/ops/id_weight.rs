//! How much weight out-of-range class ids carry: the evidence every class-id cause is weighed on.
//!
//! A systematic cause (labels numbered from 1, Cityscapes labelIds, 0 meaning "other", raw ids,
//! a head one class too narrow) says every label of the dataset means something else, and its
//! repair rewrites every label. So it is named only when the ids beyond the classes weigh as
//! classes do. A value far rarer than the classes beside it (a 6x6 patch in a mask, one row of a
//! table, one label of a batch) is a data error in its sample: it is reported as itself, with its
//! place, and the fix is to correct or drop that sample. The losses (`class_ids`), the index ops
//! (`indexing::label_set_cause`), and through them the scan, `enable()` and `GuardedDataset`,
//! all weigh with this one piece, so the same evidence gets the same answer.

use std::collections::BTreeMap;

/// A value is stray when it is at least this many times rarer than the typical class present
/// (a share of all labels alone would not do: with 150 classes a real class holds well under 1%)...
const RARER_THAN_TYPICAL: u64 = 4;
/// ... and the stray values together hold at most this share of the labels: an eighth of a mask
/// is a region, not a stray patch, whatever the classes beside it.
const MAX_STRAY_SHARE: f64 = 0.05;

/// The counts that out-of-range ids are weighed against: the labelled ids (the ignore value left
/// out) of one tensor, one file or one dataset.
pub(crate) struct IdWeights<'a> {
    histogram: &'a BTreeMap<i64, u64>,
    /// The median count of the in-range ids present: how often a class typically occurs.
    typical: Option<u64>,
    /// Every labelled element, in range or not.
    labelled: u64,
}

impl<'a> IdWeights<'a> {
    pub(crate) fn new(histogram: &'a BTreeMap<i64, u64>, c: i64, ignore: i64) -> Self {
        let mut in_range: Vec<u64> = histogram
            .iter()
            .filter(|(&v, &n)| v != ignore && (0..c).contains(&v) && n > 0)
            .map(|(_, &n)| n)
            .collect();
        in_range.sort_unstable();
        let typical = (!in_range.is_empty()).then(|| in_range[in_range.len() / 2]);
        let labelled = histogram
            .iter()
            .filter(|(&v, _)| v != ignore)
            .map(|(_, &n)| n)
            .sum();
        IdWeights {
            histogram,
            typical,
            labelled,
        }
    }

    /// How many elements hold `v`.
    fn count(&self, v: i64) -> u64 {
        self.histogram.get(&v).copied().unwrap_or(0)
    }

    /// Whether `v` is a stray value: far rarer than the classes present. With no class present
    /// beside it nothing says it is rare.
    fn is_stray(&self, v: i64) -> bool {
        self.typical
            .is_some_and(|typical| self.count(v).saturating_mul(RARER_THAN_TYPICAL) <= typical)
    }

    /// Whether every one of `values` is stray and together they are a small share of the labels:
    /// none of them weighs as a class does.
    pub(crate) fn all_stray(&self, values: &[i64]) -> bool {
        !values.is_empty()
            && values.iter().all(|&v| self.is_stray(v))
            && self.share(values) <= MAX_STRAY_SHARE
    }

    /// The share of the labelled elements that `values` hold, in `[0, 1]`.
    pub(crate) fn share(&self, values: &[i64]) -> f64 {
        if self.labelled == 0 {
            return 0.0;
        }
        values.iter().map(|&v| self.count(v)).sum::<u64>() as f64 / self.labelled as f64
    }
}

/// Whether `values` (bad ids) are a few stray values in `histogram` (for `c` classes, `ignore`
/// left out): every one far rarer than the classes, together a small share. Without a histogram
/// (too many distinct ids to tally) there is no evidence of rarity: not stray, and the value
/// profile alone decides the cause.
pub(crate) fn stray(
    histogram: Option<&BTreeMap<i64, u64>>,
    c: i64,
    ignore: i64,
    values: &[i64],
) -> bool {
    histogram.is_some_and(|h| IdWeights::new(h, c, ignore).all_stray(values))
}

/// How unlikely a missing 0 must be, were 0 a class as common as the ids present, before the
/// labels are read as numbered from 1: one chance in twenty.
const ZERO_MISSING_BY_CHANCE: f64 = 0.05;

/// Whether the lack of a 0 among the labels of `histogram` (for `c` classes, `ignore` left out)
/// shows that they are numbered from 1: every id 1..=c is present (the classes shifted by one),
/// or there are so many labels that a class 0 as common as the ids present would have shown but
/// for a one-in-twenty chance. A few labels of a batch (timm's batch of 4 images that holds two
/// ids, 2 and 3, of a 4th class folder) lack a 0 by chance, and show no numbering. Without a
/// histogram (too many distinct ids to tally) the value profile alone decides, as for `stray`.
pub(crate) fn zero_absent_by_design(
    histogram: Option<&BTreeMap<i64, u64>>,
    c: i64,
    ignore: i64,
) -> bool {
    let Some(h) = histogram else {
        return true;
    };
    let present = |v: i64| h.get(&v).is_some_and(|&n| n > 0);
    if c >= 1 && h.len() as i64 >= c && (1..=c).all(present) {
        return true;
    }
    let labelled: Vec<u64> = h
        .iter()
        .filter(|(&v, &n)| v != ignore && n > 0)
        .map(|(_, &n)| n)
        .collect();
    let (n, m) = (labelled.iter().sum::<u64>() as f64, labelled.len() as f64);
    // P(no 0 in n labels) = (m / (m + 1))^n when 0 would be one more of the m ids present.
    m > 0.0 && n * (m / (m + 1.0)).ln() <= ZERO_MISSING_BY_CHANCE.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(i64, u64)]) -> BTreeMap<i64, u64> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn a_patch_in_a_mask_is_stray_and_a_class_is_not() {
        // 19 classes of ~3000 pixels each and a 6x6 patch of 19.
        let mut m: Vec<(i64, u64)> = (0..19).map(|v| (v, 3000 + v as u64)).collect();
        m.push((19, 36));
        let m = h(&m);
        assert!(stray(Some(&m), 19, 255, &[19]));
        // The same id as common as a class weighs as one.
        let mut m2 = m.clone();
        m2.insert(19, 2500);
        assert!(!stray(Some(&m2), 19, 255, &[19]));
    }

    #[test]
    fn one_label_among_a_batch_is_stray_only_when_the_batch_says_so() {
        // 64 MNIST labels, ~6 per class, one 12.
        let mut b: Vec<(i64, u64)> = (0..10).map(|v| (v, 6)).collect();
        b.push((12, 1));
        assert!(stray(Some(&h(&b)), 10, -100, &[12]));
        // 1-based labels: 10 is as common as the others.
        let one: Vec<(i64, u64)> = (1..=10).map(|v| (v, 6)).collect();
        assert!(!stray(Some(&h(&one)), 10, -100, &[10]));
        // An eighth of the labels is a region, not a stray, however many classes are beside it.
        let mut big: Vec<(i64, u64)> = (0..4).map(|v| (v, 1000)).collect();
        big.push((19, 240));
        assert!(!stray(Some(&h(&big)), 19, 255, &[19]));
        // Nothing in range to compare with: no evidence of rarity.
        assert!(!stray(Some(&h(&[(12, 1)])), 10, -100, &[12]));
        assert!(!stray(None, 10, -100, &[12]));
    }

    #[test]
    fn a_missing_zero_shows_a_numbering_only_on_enough_labels() {
        // [1, 2, 3, 3] with 3 classes: every class shifted by one.
        assert!(zero_absent_by_design(
            Some(&h(&[(1, 1), (2, 1), (3, 2)])),
            3,
            -100
        ));
        // timm's batch of 4 from a 4th class folder: 2 and 3, no 0 by chance.
        assert!(!zero_absent_by_design(Some(&h(&[(2, 1), (3, 3)])), 3, -100));
        // 16 random labels of 20 classes, one of them 20: 12 ids present, 0 is just not drawn.
        let mut drawn: Vec<(i64, u64)> =
            (1..=11).map(|v| (v, if v <= 4 { 2 } else { 1 })).collect();
        drawn.push((20, 1));
        assert!(!zero_absent_by_design(Some(&h(&drawn)), 20, -100));
        // A mask of 1-based classes that lacks one class: thousands of pixels and no 0.
        let mask: Vec<(i64, u64)> = (2..=19).map(|v| (v, 400)).collect();
        assert!(zero_absent_by_design(Some(&h(&mask)), 19, 255));
        // The ignore value is no label.
        assert!(!zero_absent_by_design(
            Some(&h(&[(3, 2), (255, 5000)])),
            3,
            255
        ));
        assert!(zero_absent_by_design(None, 3, -100));
    }
}
