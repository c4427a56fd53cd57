//! COCO category ids remapped to a contiguous range, byte for byte.
//!
//! A COCO instances file can be half a gigabyte (`instances_train2017.json`: 448 MB, 860k
//! annotations), so it is not loaded into a JSON tree. The formats crate's COCO reader walks
//! the bytes once ([`scan`], strict: it validates the JSON as it goes) and records only the
//! byte spans of `categories[*].id` and `annotations[*].category_id` (and each annotation's
//! own span, for `--drop-undeclared`). The writer then copies the input and replaces those
//! numbers: everything else (formatting, key order, float spellings, unicode escapes) stays
//! byte-identical.
//!
//! New ids are `start..start+K`, given to the declared categories sorted by their old id
//! (torchvision and COCO number from 1, background 0; mmdet, detectron2 and ultralytics
//! number from 0).

pub use labelguard_formats::read::coco::spans::{scan, Annotation, Category, CocoError, Found};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// The remap of one file: old id -> new id, the names, and what is dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remap {
    pub start: i64,
    pub old_to_new: BTreeMap<i64, i64>,
    /// Names by new id (the category's `name`, empty when it has none).
    pub names: BTreeMap<i64, String>,
    /// Annotations whose `category_id` is not declared (or missing), by old id (`None`:
    /// missing), with their count: refused, or dropped with `drop_undeclared`.
    pub undeclared: BTreeMap<Option<i64>, u64>,
    pub drop_undeclared: bool,
}

impl Remap {
    /// The annotations left out of the output.
    pub fn dropped(&self) -> u64 {
        if self.drop_undeclared {
            self.undeclared.values().sum()
        } else {
            0
        }
    }

    /// Whether the remap changes any byte.
    pub fn changes(&self) -> bool {
        self.old_to_new.iter().any(|(o, n)| o != n) || self.dropped() > 0
    }

    /// The mapping file's JSON: `old_to_new`, `new_to_old`, `names` by new id.
    pub fn mapping_json(&self) -> String {
        let s = |m: &BTreeMap<i64, i64>| -> serde_json::Map<String, serde_json::Value> {
            m.iter()
                .map(|(k, v)| (k.to_string(), (*v).into()))
                .collect()
        };
        let new_to_old: BTreeMap<i64, i64> =
            self.old_to_new.iter().map(|(o, n)| (*n, *o)).collect();
        let names: serde_json::Map<String, serde_json::Value> = self
            .names
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone().into()))
            .collect();
        let v = serde_json::json!({
            "schema": "labelguard-category-map",
            "start": self.start,
            "old_to_new": s(&self.old_to_new),
            "new_to_old": s(&new_to_old),
            "names": names,
            "dropped_annotations": self.dropped(),
        });
        let mut text = serde_json::to_string_pretty(&v).expect("the mapping serialises");
        text.push('\n');
        text
    }
}

/// The remap of what was found: declared ids sorted, numbered from `start`. Refuses
/// duplicate category ids, and annotations of undeclared categories unless `drop_undeclared`.
pub fn plan(found: &Found, start: i64, drop_undeclared: bool) -> Result<Remap, CocoError> {
    if !found.has_categories {
        return Err(CocoError::Invalid(
            "not a COCO instances file: no top-level \"categories\" array".into(),
        ));
    }
    let mut by_id: BTreeMap<i64, &Category> = BTreeMap::new();
    let mut dups = BTreeSet::new();
    for c in &found.categories {
        if by_id.insert(c.id, c).is_some() {
            dups.insert(c.id);
        }
    }
    if !dups.is_empty() {
        return Err(CocoError::Invalid(format!(
            "categories declare the id{} {} more than once: which name the annotations mean is ambiguous; fix categories first",
            if dups.len() == 1 { "" } else { "s" },
            join(dups.iter())
        )));
    }
    let mut old_to_new = BTreeMap::new();
    let mut names = BTreeMap::new();
    for (rank, (id, c)) in by_id.iter().enumerate() {
        let new = start + rank as i64;
        old_to_new.insert(*id, new);
        names.insert(new, c.name.clone().unwrap_or_default());
    }
    let mut undeclared: BTreeMap<Option<i64>, u64> = BTreeMap::new();
    for a in &found.annotations {
        let id = a.category.map(|c| c.0);
        if id.is_none_or(|id| !old_to_new.contains_key(&id)) {
            *undeclared.entry(id).or_default() += 1;
        }
    }
    if !undeclared.is_empty() && !drop_undeclared {
        let list: Vec<String> = undeclared
            .iter()
            .take(20)
            .map(|(id, n)| {
                let what = id.map_or("no category_id".to_string(), |i| i.to_string());
                format!("{what} ({n} annotation{})", if *n == 1 { "" } else { "s" })
            })
            .collect();
        return Err(CocoError::Invalid(format!(
            "annotations reference category ids that \"categories\" does not declare: {}{}; \
             fix will not guess what they are: declare them in categories, or rerun with \
             --drop-undeclared to leave those annotations out of the output",
            list.join(", "),
            if undeclared.len() > 20 { ", ..." } else { "" }
        )));
    }
    Ok(Remap {
        start,
        old_to_new,
        names,
        undeclared,
        drop_undeclared,
    })
}

fn join<T: std::fmt::Display>(it: impl Iterator<Item = T>) -> String {
    it.map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// One change to the input: bytes `start..end` replaced by a number, or deleted.
struct Edit {
    start: usize,
    end: usize,
    to: Option<i64>,
}

/// The edits of a remap, in file order.
fn edits(found: &Found, remap: &Remap) -> Vec<Edit> {
    let mut v = Vec::with_capacity(found.categories.len() + found.annotations.len());
    for c in &found.categories {
        let to = remap.old_to_new[&c.id];
        if to != c.id {
            v.push(Edit {
                start: c.span.0,
                end: c.span.1,
                to: Some(to),
            });
        }
    }
    let anns = &found.annotations;
    let drop = |a: &Annotation| {
        remap.drop_undeclared
            && a.category
                .is_none_or(|(id, _)| !remap.old_to_new.contains_key(&id))
    };
    let mut i = 0;
    while i < anns.len() {
        if drop(&anns[i]) {
            // A run of dropped elements a..=b: delete it with one separator.
            let a = i;
            while i < anns.len() && drop(&anns[i]) {
                i += 1;
            }
            let b = i - 1;
            let (start, end) = if a > 0 {
                (anns[a - 1].span.1, anns[b].span.1)
            } else if b + 1 < anns.len() {
                (anns[a].span.0, anns[b + 1].span.0)
            } else {
                (anns[a].span.0, anns[b].span.1)
            };
            v.push(Edit {
                start,
                end,
                to: None,
            });
            continue;
        }
        if let Some((id, (s, e))) = anns[i].category {
            let to = remap.old_to_new[&id];
            if to != id {
                v.push(Edit {
                    start: s,
                    end: e,
                    to: Some(to),
                });
            }
        }
        i += 1;
    }
    v.sort_unstable_by_key(|e| e.start);
    v
}

/// Writes the input with the remap applied.
pub fn write(
    bytes: &[u8],
    found: &Found,
    remap: &Remap,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut at = 0;
    let mut num = itoa_buf();
    for e in edits(found, remap) {
        out.write_all(&bytes[at..e.start])?;
        if let Some(to) = e.to {
            num.clear();
            write!(num, "{to}")?;
            out.write_all(&num)?;
        }
        at = e.end;
    }
    out.write_all(&bytes[at..])
}

fn itoa_buf() -> Vec<u8> {
    Vec::with_capacity(24)
}

/// The remapped file in memory (tests and small files).
pub fn rewrite(bytes: &[u8], start: i64, drop_undeclared: bool) -> Result<Vec<u8>, CocoError> {
    let found = scan(bytes)?;
    let remap = plan(&found, start, drop_undeclared)?;
    let mut out = Vec::with_capacity(bytes.len());
    write(bytes, &found, &remap, &mut out).expect("writing to memory");
    Ok(out)
}

/// What the verification of an output counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Verified {
    pub categories: usize,
    pub annotations: usize,
    /// What is wrong with the output (empty: the output is what was meant).
    pub problems: Vec<String>,
}

/// Checks a written output on its own: it parses as JSON (serde_json, not the scanner that
/// wrote it), its category ids are exactly `start..start+K` in the order of the input's old
/// ids, the names are kept, every annotation's category is declared, and the annotation count
/// is the input's less the dropped ones.
pub fn verify(out: &[u8], remap: &Remap, expected_annotations: usize) -> Verified {
    let mut v = Verified::default();
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(out) {
        v.problems
            .push(format!("the output does not parse as JSON: {e}"));
        return v;
    }
    let found = match scan(out) {
        Ok(f) => f,
        Err(e) => {
            v.problems
                .push(format!("the output cannot be read back: {e}"));
            return v;
        }
    };
    v.categories = found.categories.len();
    v.annotations = found.annotations.len();
    let ids: Vec<i64> = found.categories.iter().map(|c| c.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    let want: Vec<i64> = (0..ids.len() as i64).map(|k| remap.start + k).collect();
    if sorted != want {
        v.problems.push(format!(
            "category ids are not the contiguous range {}..={}",
            remap.start,
            remap.start + ids.len() as i64 - 1
        ));
    }
    for c in &found.categories {
        let name = c.name.clone().unwrap_or_default();
        if remap.names.get(&c.id) != Some(&name) {
            v.problems.push(format!(
                "category {} is named '{name}', not as mapped",
                c.id
            ));
        }
    }
    let declared: BTreeSet<i64> = ids.into_iter().collect();
    let bad = found
        .annotations
        .iter()
        .filter(|a| a.category.is_none_or(|(id, _)| !declared.contains(&id)))
        .count();
    if bad > 0 {
        v.problems.push(format!(
            "{bad} annotations have a category_id that categories does not declare"
        ));
    }
    if found.annotations.len() != expected_annotations {
        v.problems.push(format!(
            "{} annotations written, {expected_annotations} expected",
            found.annotations.len()
        ));
    }
    v
}

#[cfg(test)]
mod tests;
