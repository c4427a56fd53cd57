//! LG612 unknown-label: labels in a table that are neither class ids nor (with `--classes`)
//! class names. The table reader counts them ([`labelguard_formats::read::table`]) and the analysis hands
//! the counts over; the finding is built here.
//! Documentation: `labelguard_core::rules::lg612_unknown_label`.

use labelguard_core::finding::ValueCount;
use labelguard_core::rules::LG612;
use labelguard_core::{Finding, Verdict};
use labelguard_formats::bad_cell::BadCell;

/// The finding when column `name` (of `rows` rows) has `unknown` labels (the first few `cells`
/// with their rows, the most frequent `values` counted); `have_classes` says whether a classes
/// file was given (names are then looked up in it).
pub fn finding(
    name: &str,
    rows: usize,
    unknown: u64,
    cells: &[BadCell],
    values: &[(String, u64)],
    have_classes: bool,
) -> Option<Finding> {
    if unknown == 0 {
        return None;
    }
    let first = &cells[0];
    let shown = |t: &str| {
        if t.is_empty() {
            "(empty)".to_string()
        } else {
            format!("'{t}'")
        }
    };
    let mut f = Finding::new(
        &LG612,
        Verdict::Error,
        format!(
            "{} of {} labels in '{name}' are not class ids{}; first: {name}[{}] = {}",
            unknown,
            rows,
            if have_classes { " or class names from the classes file" } else { "" },
            first.row,
            shown(&first.text)
        ),
    )
    .hint(if have_classes {
        "names missing from the classes file (a typo, a new class, different capitalisation) or empty cells"
    } else {
        "text labels need a name -> id table: pass --classes FILE (one class name per line)"
    })
    .fix("correct or drop these rows, or add the names to the classes file and the model head");
    f.locations = BadCell::locations(cells, name, shown);
    f.count = Some(unknown);
    f.values = values
        .iter()
        .map(|(v, n)| ValueCount {
            value: shown(v),
            count: *n,
        })
        .collect();
    Some(f)
}
