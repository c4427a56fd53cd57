//! YOLO class ids remapped by a table, line by line.
//!
//! A YOLO label file has one object per line: `class x_center y_center width height` (and
//! polygon points for segmentation). Only the first column changes: the rest of each line,
//! its line ending and the blank lines are copied byte for byte. A line whose class the table
//! sends to `drop` is removed with its line ending.

use std::collections::{BTreeMap, BTreeSet};

/// Where an old class goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Id(i64),
    Drop,
}

/// The class table: old id -> new id or drop.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassTable(pub BTreeMap<i64, Target>);

impl ClassTable {
    /// Parses `old new` lines (`#` comments, blank lines; `new` may be `drop`; `old:new`,
    /// `old,new` and `old -> new` also read) or a JSON object `{"old": new|"drop"}`.
    pub fn parse(text: &str) -> Result<ClassTable, String> {
        let mut t = BTreeMap::new();
        let mut put = |old: i64, to: Target, at: &str| -> Result<(), String> {
            if t.insert(old, to).is_some_and(|prev| prev != to) {
                return Err(format!("{at}: class {old} is mapped twice, differently"));
            }
            Ok(())
        };
        let target = |s: &str, at: &str| -> Result<Target, String> {
            if s.eq_ignore_ascii_case("drop") {
                return Ok(Target::Drop);
            }
            match s.parse::<i64>() {
                Ok(n) if n >= 0 => Ok(Target::Id(n)),
                _ => Err(format!(
                    "{at}: the new class '{}' is neither a class id (0 or more) nor drop",
                    labelguard_core::clip::echo(s)
                )),
            }
        };
        if text.trim_start().starts_with('{') {
            let v: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))?;
            for (k, v) in v {
                let at = format!("key \"{}\"", labelguard_core::clip::echo(&k));
                let old = k
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| format!("{at}: not a class id"))?;
                let to = match &v {
                    serde_json::Value::Number(n) => target(&n.to_string(), &at)?,
                    serde_json::Value::String(s) => target(s, &at)?,
                    _ => return Err(format!("{at}: the value is not a class id or \"drop\"")),
                };
                put(old, to, &at)?;
            }
        } else {
            for (n, line) in text.lines().enumerate() {
                let line = line.split('#').next().unwrap_or("").trim();
                if line.is_empty() {
                    continue;
                }
                let at = format!("line {}", n + 1);
                let parts: Vec<&str> = line
                    .split(|c: char| c.is_whitespace() || c == ':' || c == ',')
                    .filter(|p| !p.is_empty() && *p != "->")
                    .collect();
                let [old, new] = parts[..] else {
                    return Err(format!("{at}: expected `OLD NEW` (NEW a class id or drop)"));
                };
                let old = old.parse::<i64>().ok().ok_or_else(|| {
                    format!(
                        "{at}: '{}' is not a class id",
                        labelguard_core::clip::echo(old)
                    )
                })?;
                put(old, target(new, &at)?, &at)?;
            }
        }
        if t.is_empty() {
            return Err("the class table maps no class".into());
        }
        Ok(ClassTable(t))
    }

    /// The new ids, sorted.
    pub fn targets(&self) -> BTreeSet<i64> {
        self.0
            .values()
            .filter_map(|t| match t {
                Target::Id(n) => Some(*n),
                Target::Drop => None,
            })
            .collect()
    }

    /// A stable fingerprint (for the journal).
    pub fn fingerprint(&self) -> String {
        crate::hash::hex(format!("yolo-map{:?}", self.0).as_bytes())
    }
}

/// What happened to one file's lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Object lines written (remapped or unchanged).
    pub kept: u64,
    pub dropped: u64,
    /// Lines whose id changed.
    pub changed: u64,
}

/// Why a file cannot be remapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A line's first column is not a class id (line number, 1-based, and its text).
    Malformed { line: usize, text: String },
    /// Class ids the table does not map, with their counts.
    Unmapped(BTreeMap<i64, u64>),
}

/// Splits `bytes` into lines with their endings.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split_inclusive(|&b| b == b'\n')
}

/// The first column's span in a line: leading whitespace skipped, up to the next space or tab.
fn first_column(line: &[u8]) -> Option<(usize, usize)> {
    let start = line.iter().position(|b| !b.is_ascii_whitespace())?;
    let end = line[start..]
        .iter()
        .position(|b| b.is_ascii_whitespace())
        .map_or(line.len(), |k| start + k);
    Some((start, end))
}

/// A class id as YOLO writes it: an integer, or a float with no fraction (`3.0`, which
/// ultralytics reads through `float` and `int`).
fn class_id(col: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(col).ok()?;
    if let Ok(n) = s.parse::<i64>() {
        return Some(n);
    }
    let f = s.parse::<f64>().ok()?;
    (f.fract() == 0.0 && f.abs() < 1e15).then_some(f as i64)
}

/// Remaps one label file. Refuses the whole file when one line cannot be mapped.
pub fn remap(bytes: &[u8], table: &ClassTable) -> Result<(Vec<u8>, LineCounts), Refusal> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut counts = LineCounts::default();
    let mut unmapped: BTreeMap<i64, u64> = BTreeMap::new();
    for (n, line) in lines(bytes).enumerate() {
        let Some((s, e)) = first_column(line) else {
            out.extend_from_slice(line); // blank line
            continue;
        };
        let Some(id) = class_id(&line[s..e]) else {
            let text = String::from_utf8_lossy(line.trim_ascii()).into_owned();
            return Err(Refusal::Malformed {
                line: n + 1,
                text: labelguard_core::clip::echo(&text).to_string(),
            });
        };
        match table.0.get(&id) {
            None => *unmapped.entry(id).or_default() += 1,
            Some(Target::Drop) => counts.dropped += 1,
            Some(Target::Id(to)) => {
                out.extend_from_slice(&line[..s]);
                if *to == id {
                    out.extend_from_slice(&line[s..e]);
                } else {
                    out.extend_from_slice(to.to_string().as_bytes());
                    counts.changed += 1;
                }
                out.extend_from_slice(&line[e..]);
                counts.kept += 1;
            }
        }
    }
    if !unmapped.is_empty() {
        return Err(Refusal::Unmapped(unmapped));
    }
    Ok((out, counts))
}

/// The class ids of a written file that are not among `allowed` (the verification).
pub fn ids_outside(bytes: &[u8], allowed: &BTreeSet<i64>) -> Result<(u64, Vec<i64>), String> {
    let mut n = 0;
    let mut bad = BTreeSet::new();
    for (k, line) in lines(bytes).enumerate() {
        let Some((s, e)) = first_column(line) else {
            continue;
        };
        let id = class_id(&line[s..e]).ok_or_else(|| format!("line {}: no class id", k + 1))?;
        n += 1;
        if !allowed.contains(&id) {
            bad.insert(id);
        }
    }
    Ok((n, bad.into_iter().collect()))
}

/// Whether a relative path is a YOLO label file: a `.txt` under a `labels` directory, not a
/// names list (`classes.txt`).
pub fn is_label_file(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    parts.len() >= 2
        && parts[..parts.len() - 1].contains(&"labels")
        && rel.ends_with(".txt")
        && !matches!(parts[parts.len() - 1], "classes.txt" | "classes_names.txt")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(s: &str) -> ClassTable {
        ClassTable::parse(s).unwrap()
    }

    #[test]
    fn tables_read_as_lines_or_json() {
        let t = table("# old new\n3 0\n5: 1\n7 -> drop\n\n9,2 # comment\n");
        assert_eq!(t.0[&3], Target::Id(0));
        assert_eq!(t.0[&5], Target::Id(1));
        assert_eq!(t.0[&7], Target::Drop);
        assert_eq!(t.0[&9], Target::Id(2));
        let j = table(r#"{"3": 0, "5": "1", "7": "drop", "9": 2}"#);
        assert_eq!(t, j);
        assert_eq!(j.targets(), [0, 1, 2].into());
        for bad in [
            "3",
            "3 x",
            "0 -1",
            "3 0\n3 1",
            "{\"a\": 1}",
            "{}",
            "",
            "{\"1\": [1]}",
        ] {
            assert!(ClassTable::parse(bad).is_err(), "{bad}");
        }
        // The same line twice is not a conflict.
        assert!(ClassTable::parse("3 0\n3 0").is_ok());
    }

    #[test]
    fn only_the_first_column_changes() {
        let t = table("3 0\n5 1\n7 drop");
        let input = b"3 0.5 0.5 0.25 0.125\n  5\t0.1 0.2 0.3 0.4\r\n\n7 0.9 0.9 0.1 0.1\n5 0.123456789 1e-3 0.5 0.5";
        let (out, c) = remap(input, &t).unwrap();
        assert_eq!(
            out,
            b"0 0.5 0.5 0.25 0.125\n  1\t0.1 0.2 0.3 0.4\r\n\n1 0.123456789 1e-3 0.5 0.5"
        );
        assert_eq!(
            c,
            LineCounts {
                kept: 3,
                dropped: 1,
                changed: 3
            }
        );
        // `3.0` is class 3 (ultralytics reads floats); an empty file stays empty.
        assert_eq!(remap(b"3.0 0 0 1 1\n", &t).unwrap().0, b"0 0 0 1 1\n");
        assert_eq!(remap(b"", &t).unwrap().0, b"");
    }

    #[test]
    fn unmapped_and_malformed_lines_refuse_the_file() {
        let t = table("3 0");
        assert_eq!(
            remap(b"3 0 0 1 1\n4 0 0 1 1\n4 0 0 1 1\n", &t).unwrap_err(),
            Refusal::Unmapped([(4, 2)].into())
        );
        assert!(matches!(
            remap(b"3 0 0 1 1\ncar 0 0 1 1\n", &t).unwrap_err(),
            Refusal::Malformed { line: 2, .. }
        ));
        assert!(matches!(
            remap(b"3.5 0 0 1 1\n", &t).unwrap_err(),
            Refusal::Malformed { line: 1, .. }
        ));
    }

    #[test]
    fn label_files_and_verification() {
        assert!(is_label_file("labels/train/a.txt"));
        assert!(is_label_file("x/labels/a.txt"));
        assert!(!is_label_file("labels/classes.txt"));
        assert!(!is_label_file("labels/train.cache"));
        assert!(!is_label_file("images/train/a.txt"));
        assert!(!is_label_file("labels.txt"));
        assert_eq!(
            ids_outside(b"0 1 1 1 1\n\n2 0 0 0 0\n5 0 0 0 0\n", &[0, 2].into()).unwrap(),
            (3, vec![5])
        );
    }
}
