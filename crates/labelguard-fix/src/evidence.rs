//! What a numbering table may touch. A value repair (void -> ignore, 255 -> 1, a user's `--map`)
//! moves only the values it lists, and its counts say so. A numbering table (1-based -> 0-based,
//! labelIds -> trainIds, reduce the zero label) rewrites every label of a file, so it is applied
//! only to a file whose own ids fit the convention: one whose change the finding explains. A
//! file that does not fit is refused with the reason and copied unchanged, never rewritten on a
//! guess (a 6x6 patch of id 19 in a trainIds mask is no reason to map its road to void).

use labelguard_labels::repair::{Repair, RepairKind};
use std::collections::BTreeMap;

/// The largest Cityscapes labelId (cityscapesScripts' `labels.py`: ids 0..33; -1, the licence
/// plate, is never written to the PNGs).
const LAST_LABEL_ID: i64 = 33;

/// A numbering table's precondition on the ids a file holds.
#[derive(Clone, Debug)]
pub(crate) struct Guard {
    kind: RepairKind,
    /// The table's own `from` values: the ids the convention numbers.
    domain: Vec<i64>,
    /// Proposed by a scan's finding rather than named by the user: the file's ids must also
    /// show the cause (a user's explicit repair is applied as asked, within its domain).
    proposed: bool,
    /// Where the table sends void ids (its image of 0 where it has one, else 255).
    void: i64,
}

impl Guard {
    /// The guard of a repair, for the numbering tables (value repairs need none).
    pub(crate) fn of(r: &Repair) -> Option<Guard> {
        let numbering = matches!(
            r.kind,
            RepairKind::OneBased | RepairKind::CityscapesTrainIds | RepairKind::ReduceZeroLabel
        );
        numbering.then(|| Guard {
            kind: r.kind,
            domain: r.map.iter().map(|[from, _]| *from).collect(),
            proposed: r.rule.is_some(),
            void: r
                .map
                .iter()
                .find(|[from, _]| *from == 0)
                .map_or(255, |[_, to]| *to),
        })
    }

    /// Why the table must not be applied to a file holding `ids` (each id present and its
    /// count), or `None` when the file fits the convention.
    pub(crate) fn refuses(&self, ids: &BTreeMap<i64, u64>) -> Option<String> {
        let void = self.void;
        let present = |v: i64| ids.get(&v).is_some_and(|&n| n > 0);
        match self.kind {
            // 1..C -> 0..C-1 merges class 1 into a 0 that is already there.
            RepairKind::OneBased if present(0) => Some(format!(
                "it holds id 0 ({} pixels): subtracting one would merge class 1 into class 0; a 1-based mask has no 0",
                ids[&0]
            )),
            RepairKind::CityscapesTrainIds => {
                let beyond: Vec<i64> = ids
                    .keys()
                    .copied()
                    .filter(|&v| !(0..=LAST_LABEL_ID).contains(&v) && present(v))
                    .collect();
                if !beyond.is_empty() {
                    return Some(format!(
                        "it holds ids that are no Cityscapes labelIds ({}): it is not a labelIds mask",
                        list(&beyond)
                    ));
                }
                let bad: Vec<i64> = (19..=LAST_LABEL_ID).filter(|&v| present(v)).collect();
                let max = ids.keys().copied().filter(|&v| present(v)).max().unwrap_or(0);
                let shaped = labelguard_core::rules::lg105_cityscapes_label_ids::shape(
                    &bad,
                    max,
                    Some(ids),
                    void,
                );
                (self.proposed && !bad.is_empty() && !shaped).then(|| format!(
                    "its ids beyond 18 ({}) are a few stray values, not the labelId space: mapping every labelId would rewrite its valid trainIds",
                    list(&bad)
                ))
            }
            RepairKind::ReduceZeroLabel => {
                let beyond: Vec<i64> = ids
                    .keys()
                    .copied()
                    .filter(|&v| present(v) && v != void && !self.domain.contains(&v))
                    .collect();
                (!beyond.is_empty()).then(|| {
                    format!(
                        "it holds ids beyond the table of reduce_zero_label ({})",
                        list(&beyond)
                    )
                })
            }
            _ => None,
        }
    }
}

/// The first few values of a list, for a message.
fn list(values: &[i64]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(|v| v.to_string()).collect();
    let more = if values.len() > 8 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use labelguard_labels::repair::table;

    fn guard(kind: RepairKind, proposed: bool) -> Guard {
        let r = Repair {
            kind,
            rule: proposed.then(|| "LG105".to_string()),
            map: table(kind, 19, 255, &[]),
            values: Vec::new(),
            automatic: true,
            description: String::new(),
        };
        Guard::of(&r).expect("a numbering table")
    }

    #[test]
    fn a_stray_patch_is_no_labelid_space() {
        let mut train: BTreeMap<i64, u64> = (0..19).map(|v| (v, 3000)).collect();
        train.insert(19, 36);
        let g = guard(RepairKind::CityscapesTrainIds, true);
        assert!(g.refuses(&train).unwrap().contains("stray"));
        // The user named the table: applied as asked.
        assert!(guard(RepairKind::CityscapesTrainIds, false)
            .refuses(&train)
            .is_none());
        let label_ids: BTreeMap<i64, u64> = (0..34).map(|v| (v, 1000)).collect();
        assert!(g.refuses(&label_ids).is_none());
        train.insert(255, 10);
        assert!(g.refuses(&train).unwrap().contains("no Cityscapes"));
    }

    #[test]
    fn one_based_never_merges_zero() {
        let g = guard(RepairKind::OneBased, false);
        let with_zero: BTreeMap<i64, u64> = [(0, 5), (1, 5), (19, 2)].into();
        assert!(g.refuses(&with_zero).unwrap().contains("merge"));
        let one_based: BTreeMap<i64, u64> = [(1, 5), (19, 2)].into();
        assert!(g.refuses(&one_based).is_none());
    }
}
