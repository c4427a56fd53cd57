//! The head a detection dataset's objects are judged against: the framework's convention
//! ([`Framework`]), the class count and the declared classes. Every format's analysis counts
//! its objects into a [`ClassTally`] and hands it to [`Head::judge`], so that the histogram is
//! in the ids the model sees and LG701/LG703/LG704 are decided in one place.

use crate::analyze::{Ctx, FileResult, Unit};
use crate::checks::lg701_detection_class_out_of_range as lg701;
use crate::checks::lg703_non_contiguous_category_ids as lg703;
use crate::checks::lg704_head_class_count_mismatch as lg704;
use crate::framework::Framework;
use labelguard_core::Location;
use std::collections::BTreeMap;

/// The objects of one annotation file, counted by the class id they store, with the first
/// place each id occurs (for the findings' locations).
#[derive(Clone, Debug, Default)]
pub struct ClassTally {
    pub counts: BTreeMap<i64, u64>,
    pub first: BTreeMap<i64, Location>,
}

impl ClassTally {
    /// Counts one object of stored class `id`, found at `at` (built only for an id's first
    /// object).
    pub fn add(&mut self, id: i64, at: impl FnOnce() -> Location) {
        *self.counts.entry(id).or_insert(0) += 1;
        self.first.entry(id).or_insert_with(at);
    }
}

/// What a file's objects are judged against: the framework, the head's class count and the
/// classes the dataset declares (stored ids, sorted and distinct, with their names).
pub struct Head<'a> {
    pub framework: Framework,
    pub num_classes: Option<u32>,
    pub declared: &'a [(i64, String)],
    /// How the report calls the stored id (`category_id`, `class id`).
    pub id_name: &'a str,
    /// Whether the user said what the head is (`--framework` or a class count): only then is
    /// a convention of the ids that one framework tolerates and another does not (LG703)
    /// worth a warning.
    pub head_known: bool,
}

impl<'a> Head<'a> {
    /// The head of the scan's settings: `ctx`'s framework and class count.
    pub fn of(ctx: &Ctx<'_>, declared: &'a [(i64, String)], id_name: &'a str) -> Head<'a> {
        Head {
            framework: ctx.framework,
            num_classes: ctx.opts.num_classes,
            declared,
            id_name,
            head_known: ctx.opts.framework.is_some() || ctx.opts.num_classes.is_some(),
        }
    }

    fn declared_ids(&self) -> Vec<i64> {
        self.declared.iter().map(|(i, _)| *i).collect()
    }

    /// The id the head sees for stored id `id`; `None` for an undeclared id of a framework
    /// that maps the declared categories (its loader refuses the object: LG702).
    pub fn model_id(&self, id: i64) -> Option<i64> {
        if self.framework.remaps() {
            self.declared
                .binary_search_by_key(&id, |(i, _)| *i)
                .ok()
                .map(|rank| rank as i64)
        } else {
            Some(id)
        }
    }

    /// Counts `tally`'s objects into `r` in the ids the head sees (histogram, elements, bad
    /// objects, declared classes) and adds the findings about the head: LG701 for ids outside
    /// `[0, num_classes-1]`, LG703 for ids used as stored that are not contiguous, LG704 for a
    /// head larger than the classes need.
    pub fn judge(&self, tally: &ClassTally, r: &mut FileResult) {
        r.unit = Unit::Objects;
        let ids = self.declared_ids();
        r.declared = self
            .declared
            .iter()
            .filter_map(|(i, n)| Some((self.model_id(*i)?, n.clone())))
            .collect();
        let mut beyond: Vec<(i64, i64, u64)> = Vec::new();
        for (&stored, &count) in &tally.counts {
            let Some(model) = self.model_id(stored) else {
                continue;
            };
            r.elements += count;
            r.histogram.push((model, count));
            if model < 0 || self.num_classes.is_some_and(|c| model >= c as i64) {
                r.bad += count;
                beyond.push((stored, model, count));
            }
        }
        let needed = self.framework.classes_needed(&ids);
        if let Some(c) = self.num_classes {
            if !beyond.is_empty() {
                let first = beyond
                    .iter()
                    .filter_map(|(s, _, _)| tally.first.get(s).cloned())
                    .collect();
                r.findings.push(lg701::finding(&lg701::Beyond {
                    framework: self.framework,
                    id_name: self.id_name,
                    num_classes: c,
                    needed,
                    ids: &ids,
                    beyond: &beyond,
                    first,
                }));
            } else if !ids.is_empty() && u64::from(c) > needed {
                r.findings.push(lg704::head_larger_than_needed(
                    self.framework,
                    c,
                    needed,
                    ids.len(),
                ));
            }
        }
        if self.head_known && !self.framework.remaps() && !ids.is_empty() {
            r.findings
                .extend(lg703::check(self.framework, &ids, self.id_name));
        }
    }
}
