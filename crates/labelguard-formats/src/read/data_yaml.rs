//! YOLO's `data.yaml` (ultralytics' dataset description): the class names and `nc`, read for
//! the yolo layout.

use crate::checks::lg602_corrupt_file;
use crate::source::Source;
use labelguard_core::Finding;
use yaml_rust2::{Yaml, YamlLoader};

/// A `names` entry that is a list or a map.
const NOT_A_NAME: DataYamlProblem =
    DataYamlProblem::Malformed("names holds an entry that is not a name");

/// The largest `data.yaml` read: a real one is a few KiB even with a thousand class names.
const MAX_YAML_BYTES: u64 = 16 << 20;

/// What is wrong with a `data.yaml`, in the reader's words; the scan's checks word each as
/// its finding (`labelguard_scan::checks::data_yaml`).
#[derive(Clone, Debug, PartialEq)]
pub enum DataYamlProblem {
    /// The file cannot be read, or is not UTF-8 YAML: already the finding that reports it.
    Unreadable(Finding),
    /// ultralytics refuses the file before training: what is wrong with it.
    Malformed(&'static str),
    /// `nc` is not the number of `names`.
    NcDisagrees { nc: i64, names: usize },
}

/// An ultralytics dataset description: the class names (`names`, a list or a map from id to
/// name) and the class count `nc` when written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataYaml {
    /// Names by id; a map with gaps gives the missing ids an empty name.
    pub names: Vec<String>,
    /// `nc`, when the file writes it.
    pub nc: Option<i64>,
    /// Ids of a `names` map, in the file's order (to report gaps and duplicates).
    pub keys: Vec<i64>,
}

impl DataYaml {
    /// Whether the file's first 64 KiB have a top-level `names:` key.
    pub fn sniff(source: &Source) -> bool {
        let mut head = Vec::new();
        if source.read_head(64 << 10, &mut head).is_err() {
            return false;
        }
        String::from_utf8_lossy(&head)
            .lines()
            .any(|l| l.starts_with("names:"))
    }

    /// Reads and parses the file; a file that cannot be read or parsed is a finding on it.
    pub fn read(source: &Source) -> Result<DataYaml, DataYamlProblem> {
        let mut bytes = Vec::new();
        source
            .read_all(MAX_YAML_BYTES, &mut bytes)
            .map_err(DataYamlProblem::Unreadable)?;
        let Ok(text) = String::from_utf8(bytes) else {
            return Err(DataYamlProblem::Unreadable(
                lg602_corrupt_file::corrupt_text("data.yaml", "it is not UTF-8 text"),
            ));
        };
        Self::parse(&text)
    }

    /// Parses the text of a `data.yaml`.
    pub fn parse(text: &str) -> Result<DataYaml, DataYamlProblem> {
        let docs = YamlLoader::load_from_str(text).map_err(|e| {
            DataYamlProblem::Unreadable(lg602_corrupt_file::corrupt_text(
                "data.yaml",
                &format!("invalid YAML: {e}"),
            ))
        })?;
        let Some(doc) = docs.first() else {
            return Err(DataYamlProblem::Malformed("the file is empty"));
        };
        let nc = match &doc["nc"] {
            Yaml::Integer(n) => Some(*n),
            Yaml::BadValue | Yaml::Null => None,
            _ => return Err(DataYamlProblem::Malformed("nc is not an integer")),
        };
        let mut out = DataYaml {
            nc,
            ..DataYaml::default()
        };
        match &doc["names"] {
            Yaml::Array(list) => {
                for v in list {
                    out.names.push(scalar(v).ok_or(NOT_A_NAME)?);
                }
            }
            Yaml::Hash(map) => {
                let mut by_id: Vec<(i64, String)> = Vec::new();
                for (k, v) in map {
                    let id = match k {
                        Yaml::Integer(i) => *i,
                        Yaml::String(s) => s.trim().parse().map_err(|_| {
                            DataYamlProblem::Malformed(
                                "names is a map whose keys are not class ids",
                            )
                        })?,
                        _ => {
                            return Err(DataYamlProblem::Malformed(
                                "names is a map whose keys are not class ids",
                            ))
                        }
                    };
                    let name = scalar(v).ok_or(NOT_A_NAME)?;
                    out.keys.push(id);
                    by_id.push((id, name));
                }
                let top = by_id.iter().map(|(i, _)| *i).max().unwrap_or(-1);
                if by_id.iter().any(|(i, _)| *i < 0) || top >= 1 << 20 {
                    return Err(DataYamlProblem::Malformed(
                        "names has a class id that is negative or too large",
                    ));
                }
                out.names = vec![String::new(); (top + 1) as usize];
                for (i, n) in by_id {
                    out.names[i as usize] = n;
                }
            }
            Yaml::BadValue | Yaml::Null => {
                return Err(DataYamlProblem::Malformed(
                    "it has no 'names' (the class names)",
                ))
            }
            _ => {
                return Err(DataYamlProblem::Malformed(
                    "names is neither a list nor a map",
                ))
            }
        }
        Ok(out)
    }

    /// The class count ultralytics builds the head with: `len(names)`.
    pub fn class_count(&self) -> Option<u32> {
        u32::try_from(self.names.len()).ok()
    }

    /// What ultralytics refuses or silently mishandles in the file: `nc` that disagrees with
    /// the names, a `names` map with gaps.
    pub fn problems(&self) -> Vec<DataYamlProblem> {
        let mut out = Vec::new();
        if let Some(nc) = self.nc.filter(|n| *n != self.names.len() as i64) {
            out.push(DataYamlProblem::NcDisagrees {
                nc,
                names: self.names.len(),
            });
        }
        if !self.keys.is_empty() {
            let mut sorted = self.keys.clone();
            sorted.sort();
            let n = sorted.len();
            sorted.dedup();
            if sorted.len() != n {
                out.push(DataYamlProblem::Malformed("names maps a class id twice"));
            } else if sorted.len() as i64 != sorted.last().map_or(0, |l| l + 1) {
                out.push(DataYamlProblem::Malformed(
                    "names skips class ids: ultralytics numbers the classes 0..len(names)-1",
                ));
            }
        }
        out
    }
}

fn scalar(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_list_or_map() {
        let d = DataYaml::parse("path: .\ntrain: images/train\nnames: [cat, dog]\n").unwrap();
        assert_eq!(d.names, ["cat", "dog"]);
        assert!(d.problems().is_empty());
        let d = DataYaml::parse("nc: 3\nnames:\n  0: cat\n  1: dog\n").unwrap();
        assert_eq!(d.class_count(), Some(2));
        assert_eq!(d.problems().len(), 1);
        let d = DataYaml::parse("names:\n  0: cat\n  2: dog\n").unwrap();
        assert_eq!(d.names, ["cat", "", "dog"]);
        assert_eq!(d.problems().len(), 1);
    }

    #[test]
    fn broken_files_are_findings() {
        for text in [
            "names: [cat\n",
            "",
            "nc: x\nnames: [a]\n",
            "names:\n  -1: a\n",
            "train: x\n",
        ] {
            assert!(DataYaml::parse(text).is_err(), "{text:?}");
        }
    }
}
