//! The plan: which repairs each file gets. It comes from a scan's findings (the proposed
//! repair each finding carries), from a plan file, or from a `--map` table for every mask.
//!
//! Plan files:
//! * a scan report (`labelguard scan --format json`): its findings' `repair` fields;
//! * the JSON `labelguard fix --dry-run --format json` prints, or a manifest (`files[].plan`
//!   names the repairs in `plans`);
//! * a hand-written TOML (or JSON) table:
//!
//! ```toml
//! [[repair]]
//! kind = "cityscapes_train_ids"       # or one_based, binary_255, reduce_zero_label, void_to_ignore, map, ...
//! files = ["gtFine/train/a_gtFine_labelIds.png"]   # optional: without it, every mask
//!
//! [[repair]]
//! kind = "map"
//! map = [[255, 0], [3, 2]]
//! ```

use labelguard_labels::repair::{Repair, RepairKind};
use labelguard_scan::repair;
use labelguard_scan::report::{ScanReport, Settings};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Repairs by file (relative path, `/`-separated), and repairs for every mask.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub files: BTreeMap<String, Vec<Repair>>,
    pub every_mask: Vec<Repair>,
    /// Files with error findings that no repair addresses, with their codes (and, for stray
    /// ids, the values).
    pub unrepairable: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{0}")]
    Invalid(String),
}

fn invalid(s: impl Into<String>) -> PlanError {
    PlanError::Invalid(s.into())
}

impl Plan {
    /// The repairs of one file: its own, then those for every mask that it does not already
    /// have (a 1-based dataset proposes the same `one_based` table for every mask and for each
    /// file holding C: applied twice it would shift every label by two).
    pub fn repairs_for(&self, rel: &str, is_mask: bool) -> Vec<Repair> {
        let mut v = self.files.get(rel).cloned().unwrap_or_default();
        if is_mask {
            for r in &self.every_mask {
                if !v.contains(r) {
                    v.push(r.clone());
                }
            }
        }
        v
    }

    /// The plan a scan report proposes. `root` is the scanned directory as the report
    /// shows it (its file paths start with it).
    pub fn from_report(report: &ScanReport) -> Plan {
        let root = report.settings.roots.first().cloned().unwrap_or_default();
        let mut plan = Plan::default();
        for file in &report.files {
            let rel = relative(&root, &file.path);
            let repairs: Vec<Repair> = file
                .findings
                .iter()
                .filter_map(|f| f.repair.clone())
                .collect();
            let stuck: Vec<String> = file
                .findings
                .iter()
                .filter(|f| {
                    f.repair.is_none() && f.finding.severity == labelguard_core::Severity::Error
                })
                .map(|f| match f.finding.fact {
                    // A stray value is a data error of this file: named, so nobody looks for a table.
                    Some(labelguard_core::rule::Fact::StrayValues) => format!(
                        "{} (stray ids {}: correct or drop this sample)",
                        f.finding.code,
                        f.finding
                            .values
                            .iter()
                            .map(|v| v.value.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    _ => f.finding.code.to_string(),
                })
                .collect();
            if !stuck.is_empty() {
                plan.unrepairable.insert(rel.clone(), stuck);
            }
            if !repairs.is_empty() {
                plan.files.insert(rel, dedup(repairs));
            }
        }
        // Dataset findings (every mask is 0/255) propose a repair of every mask.
        plan.every_mask = dedup(
            report
                .dataset
                .iter()
                .filter_map(|f| f.repair.clone())
                .collect(),
        );
        plan
    }

    /// Reads a plan file (a scan report, a dry-run plan, or a TOML/JSON plan table).
    pub fn load(path: &Path, settings: &Settings) -> Result<Plan, PlanError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
        let at = |e: String| invalid(format!("{}: {e}", path.display()));
        let is_json = text.trim_start().starts_with('{');
        if is_json {
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| at(e.to_string()))?;
            if v.get("schema").and_then(|s| s.as_str())
                == Some(labelguard_scan::report::SCHEMA_NAME)
            {
                let report: ScanReport =
                    serde_json::from_value(v).map_err(|e| at(format!("not a scan report: {e}")))?;
                return Ok(Plan::from_report(&report));
            }
            let table: PlanTable = serde_json::from_value(v).map_err(|e| at(e.to_string()))?;
            table.into_plan(settings).map_err(|e| at(e.to_string()))
        } else {
            let table: PlanTable = toml::from_str(&text).map_err(|e| at(e.to_string()))?;
            table.into_plan(settings).map_err(|e| at(e.to_string()))
        }
    }
}

fn dedup(mut v: Vec<Repair>) -> Vec<Repair> {
    let mut seen = Vec::new();
    v.retain(|r| {
        let new = !seen.contains(r);
        seen.push(r.clone());
        new
    });
    v
}

/// `file`'s path relative to `root` as the report shows both.
pub fn relative(root: &str, file: &str) -> String {
    let root = root.trim_end_matches('/');
    file.strip_prefix(root)
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(file)
        .to_string()
}

/// A plan table: `[[repair]]` entries, and/or the `files` and `plans` of a dry-run report or a
/// manifest (each file names the fingerprint of its repairs in `plans`); other keys of those
/// documents are ignored.
#[derive(Deserialize, Default)]
struct PlanTable {
    #[serde(default)]
    repair: Vec<PlanRepair>,
    #[serde(default)]
    files: Vec<PlanEntry>,
    #[serde(default)]
    plans: BTreeMap<String, Vec<Repair>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanRepair {
    kind: String,
    #[serde(default)]
    map: Option<Vec<[i64; 2]>>,
    #[serde(default)]
    values: Vec<i64>,
    #[serde(default)]
    files: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct PlanEntry {
    path: String,
    #[serde(default)]
    plan: String,
}

impl PlanTable {
    fn into_plan(self, settings: &Settings) -> Result<Plan, PlanError> {
        let mut plan = Plan::default();
        for e in self.files {
            if e.plan.is_empty() {
                continue;
            }
            let repairs = self
                .plans
                .get(&e.plan)
                .ok_or_else(|| invalid(format!("{}: plan {} is not in `plans`", e.path, e.plan)))?;
            plan.files
                .entry(e.path)
                .or_default()
                .extend(repairs.iter().cloned());
        }
        for r in self.repair {
            let kind = RepairKind::by_name(&r.kind).ok_or_else(|| {
                invalid(format!(
                    "unknown repair kind '{}' (known: {})",
                    r.kind,
                    RepairKind::ALL.map(|k| k.name()).join(", ")
                ))
            })?;
            let values = if kind == RepairKind::VoidToIgnore && r.values.is_empty() {
                vec![255]
            } else {
                r.values.clone()
            };
            let mut rep = repair::repair(kind, None, settings, &values);
            match (kind, r.map) {
                (_, Some(map)) => rep.map = map,
                (RepairKind::Map, None) => {
                    return Err(invalid(
                        "a repair of kind 'map' needs map = [[from, to], ...]",
                    ))
                }
                _ => {}
            }
            if kind == RepairKind::Map {
                rep.description = map_description(&rep.map);
            }
            if matches!(kind, RepairKind::OneBased | RepairKind::ReduceZeroLabel)
                && settings.num_classes.is_none()
            {
                return Err(invalid(format!(
                    "the '{}' repair needs the number of classes: pass --num-classes or --preset",
                    kind.name()
                )));
            }
            match r.files {
                Some(files) => {
                    for f in files {
                        plan.files.entry(f).or_default().push(rep.clone());
                    }
                }
                None => plan.every_mask.push(rep),
            }
        }
        for v in plan.files.values_mut() {
            *v = dedup(std::mem::take(v));
        }
        Ok(plan)
    }
}

fn map_description(map: &[[i64; 2]]) -> String {
    let pairs: Vec<String> = map.iter().map(|[a, b]| format!("{a} -> {b}")).collect();
    format!("the user's table: {}", pairs.join(", "))
}

/// `--map 255:0,3:2`, or a file: TOML (`255 = 0`) or JSON (`{"255": 0}` or `[[255, 0]]`).
pub fn parse_map(arg: &str) -> Result<Repair, PlanError> {
    let path = Path::new(arg);
    let map: Vec<[i64; 2]> = if !arg.contains(':') && path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
        let at = |e: String| invalid(format!("{}: {e}", path.display()));
        if text.trim_start().starts_with('[') {
            serde_json::from_str(&text).map_err(|e| at(e.to_string()))?
        } else {
            let table: BTreeMap<String, i64> = if text.trim_start().starts_with('{') {
                serde_json::from_str(&text).map_err(|e| at(e.to_string()))?
            } else {
                toml::from_str(&text).map_err(|e| at(e.to_string()))?
            };
            table
                .into_iter()
                .map(|(k, v)| {
                    k.trim()
                        .parse::<i64>()
                        .map(|k| [k, v])
                        .map_err(|_| at(format!("'{k}' is not an integer id")))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(|mut v| {
                    v.sort_unstable();
                    v
                })?
        }
    } else {
        arg.split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|pair| {
                let (a, b) = pair.split_once(':').ok_or_else(|| {
                    invalid(format!(
                        "--map: '{pair}' is not FROM:TO (e.g. --map 255:0,3:2)"
                    ))
                })?;
                let num = |s: &str| {
                    s.trim()
                        .parse::<i64>()
                        .map_err(|_| invalid(format!("--map: '{s}' is not an integer id")))
                };
                Ok([num(a)?, num(b)?])
            })
            .collect::<Result<_, PlanError>>()?
    };
    if map.is_empty() {
        return Err(invalid("--map: the table is empty"));
    }
    let mut froms: Vec<i64> = map.iter().map(|p| p[0]).collect();
    froms.sort_unstable();
    if froms.windows(2).any(|w| w[0] == w[1]) {
        return Err(invalid("--map: a value is mapped twice"));
    }
    Ok(Repair {
        kind: RepairKind::Map,
        rule: None,
        description: map_description(&map),
        map,
        values: Vec::new(),
        automatic: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_arguments_parse_inline_and_from_files() {
        assert_eq!(parse_map("255:0, 3:2").unwrap().map, [[255, 0], [3, 2]]);
        assert!(parse_map("255-0").is_err());
        assert!(parse_map("1:2,1:3").is_err());
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("m.toml");
        std::fs::write(&t, "255 = 0\n3 = 2\n").unwrap();
        assert_eq!(
            parse_map(t.to_str().unwrap()).unwrap().map,
            [[3, 2], [255, 0]]
        );
        let j = dir.path().join("m.json");
        std::fs::write(&j, "{\"-1\": 255}").unwrap();
        assert_eq!(parse_map(j.to_str().unwrap()).unwrap().map, [[-1, 255]]);
    }

    #[test]
    fn toml_plans_name_kinds_files_and_tables() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("plan.toml");
        std::fs::write(
            &p,
            "[[repair]]\nkind = \"label_ids\"\nfiles = [\"a.png\"]\n\n[[repair]]\nkind = \"map\"\nmap = [[255, 0]]\n",
        )
        .unwrap();
        let opts = labelguard_scan::ScanOptions {
            num_classes: Some(19),
            ignore_index: 255,
            ..Default::default()
        };
        let settings = labelguard_scan::report::settings_of(
            &[dir.path().to_path_buf()],
            Vec::new(),
            &opts,
            Vec::new(),
        );
        let plan = Plan::load(&p, &settings).unwrap();
        assert_eq!(plan.files["a.png"][0].kind, RepairKind::CityscapesTrainIds);
        assert!(plan.files["a.png"][0].map.contains(&[26, 13]));
        assert_eq!(plan.every_mask[0].map, [[255, 0]]);
        assert_eq!(plan.repairs_for("b.png", true).len(), 1);
        assert!(plan.repairs_for("b.png", false).is_empty());
        std::fs::write(&p, "[[repair]]\nkind = \"nope\"\n").unwrap();
        assert!(Plan::load(&p, &settings)
            .unwrap_err()
            .to_string()
            .contains("unknown repair kind"));
    }

    #[test]
    fn relative_paths_strip_the_root() {
        assert_eq!(relative("data/", "data/a/b.png"), "a/b.png");
        assert_eq!(relative("data", "data/a.png"), "a.png");
    }
}
