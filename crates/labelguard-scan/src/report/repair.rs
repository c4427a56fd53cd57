//! The repair each scan finding proposes.
//!
//! A scan finding that has a mechanical fix carries it as a [`Repair`] in the JSON report
//! (`files[].findings[].repair`), so that CI can turn a scan into a plan for `labelguard
//! fix`. The repairs and their value tables live in `labelguard-labels`, once.

use labelguard_core::rules::by_code;
use labelguard_core::Finding;
pub use labelguard_labels::repair::{table, void_target, Repair, RepairKind};
use labelguard_scan_model::Settings;

/// A repair of `kind` with its table, for the settings of a scan.
pub fn repair(kind: RepairKind, rule: Option<&str>, settings: &Settings, values: &[i64]) -> Repair {
    let c = settings.num_classes.unwrap_or(0) as i64;
    Repair::new(kind, rule, c, settings.ignore_index, values)
}

/// The repair a finding proposes, if its rule has one: the rule's declaration decides
/// ([`labelguard_core::rule::RuleRepair`]), from the finding's values and fact.
pub fn propose(f: &Finding, settings: &Settings) -> Option<Repair> {
    let rule = by_code(f.code)?;
    let found: Vec<i64> = f
        .values
        .iter()
        .filter_map(|v| v.value.parse().ok())
        .collect();
    let (kind, values) = rule.repair.propose(&found, f.fact, settings.num_classes)?;
    if settings.reduce_zero_label && kind.is_value_map() {
        // The findings describe ids after the reduction; a table on the raw values would
        // be wrong.
        return None;
    }
    let r = repair(kind, Some(f.code), settings, &values);
    // A value table that moves nothing (void already at the ignore value) is no repair.
    (!kind.is_value_map() || !r.map.is_empty()).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_follow_their_conventions() {
        let cs = table(RepairKind::CityscapesTrainIds, 19, 255, &[]);
        assert!(cs.contains(&[7, 0]) && cs.contains(&[26, 13]) && cs.contains(&[0, 255]));
        assert_eq!(
            cs.len(),
            34,
            "every labelId moves (none equals its trainId)"
        );
        assert_eq!(
            table(RepairKind::OneBased, 3, 255, &[]),
            [[1, 0], [2, 1], [3, 2]]
        );
        assert_eq!(
            table(RepairKind::ReduceZeroLabel, 2, 255, &[]),
            [[0, 255], [1, 0], [2, 1]]
        );
        assert_eq!(table(RepairKind::VoidToIgnore, 5, 0, &[255]), [[255, 0]]);
        assert_eq!(void_target(-100), 255);
        assert_eq!(
            RepairKind::by_name("label_ids"),
            Some(RepairKind::CityscapesTrainIds)
        );
        for k in RepairKind::ALL {
            assert_eq!(RepairKind::by_name(k.name()), Some(k));
            // The JSON name is the same name.
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
    }
}
