//! Index ranges: every element of an index tensor inside `[0, size-1]` (or `[-size, size-1]`
//! where negative indices wrap), with the first offenders and a hint at the likely cause; and
//! a finding restated with the rule of the cause its evidence shows.

use super::evidence::WithLocated;
use crate::finding::{is_are, shape_str, Finding, Verdict, MAX_LOCATIONS};
use crate::kernels::{locate, scan_int, IntRange, IntStats};
use crate::rule::Rule;
use crate::tensor::TensorView;

/// A finding restated with the rule, hint and fix of the cause that the evidence shows.
pub fn with_cause(f: Finding, rule: &Rule, hint: String, fix: String) -> Finding {
    let mut f = f;
    f.code = rule.code;
    f.rule = rule.name;
    f.hint = Some(hint);
    f.fix = fix;
    f
}

/// Checks every element of an integer tensor against `[0, size-1]` (negative values are out
/// of range: none of these ops wraps them) and builds `rule`'s finding with locations.
pub fn index_range(
    t: &TensorView<'_>,
    name: &str,
    size: usize,
    rule: &Rule,
    verdict: Verdict,
    what: &str,
    fix: String,
) -> Option<Finding> {
    bounded_index(t, name, Bounds::below(size), rule, verdict, what, fix)
}

/// The valid values of an index into a dimension of `size` entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub size: usize,
    /// Whether negative indices count from the end (`[-size, size-1]`), as in advanced indexing.
    pub wraps: bool,
}

impl Bounds {
    pub fn below(size: usize) -> Bounds {
        Bounds { size, wraps: false }
    }
    pub fn wrapping(size: usize) -> Bounds {
        Bounds { size, wraps: true }
    }
    fn range(self) -> IntRange {
        IntRange {
            lo: if self.wraps { -(self.size as i64) } else { 0 },
            hi: self.size as i64 - 1,
            ignore: None,
        }
    }
}

/// `index_range` for any `Bounds`: every element must lie in `[lo, size-1]`.
pub fn bounded_index(
    t: &TensorView<'_>,
    name: &str,
    bounds: Bounds,
    rule: &Rule,
    verdict: Verdict,
    what: &str,
    fix: String,
) -> Option<Finding> {
    let range = bounds.range();
    let size = bounds.size;
    let stats = scan_int(t, range);
    if stats.bad == 0 {
        return None;
    }
    let located = locate(t, MAX_LOCATIONS, |t, o| range.is_bad(t.read_i64(o)));
    let (index, value) = &located.first[0];
    let finding = Finding::new(
        rule,
        verdict,
        format!(
            "{} of {} values of {name} {} outside [{}, {}] ({what} has size {size}); first: {name}{} = {value}",
            stats.bad,
            stats.count,
            is_are(stats.bad),
            range.lo,
            range.hi,
            shape_str(index),
        ),
    )
    .fix(fix)
    .located(name, &located);
    let hint = index_hint(&stats, range.lo, size as i64);
    Some(finding.maybe_hint(hint))
}

fn index_hint(stats: &IntStats, lo: i64, size: i64) -> Option<String> {
    let (min, max) = (stats.min?, stats.max?);
    if (min == -100 || min == -1) && min < lo {
        Some(format!(
            "{min} is a padding or ignore marker: mask it out before using the tensor as an index"
        ))
    } else if max == size {
        Some(format!(
            "the largest value equals the size ({size}): an off-by-one, or a table one entry too short"
        ))
    } else if max >= 255 && max <= 255 + size && size <= 255 {
        Some("255 is the usual void label: mask it out before indexing".into())
    } else {
        None
    }
}
