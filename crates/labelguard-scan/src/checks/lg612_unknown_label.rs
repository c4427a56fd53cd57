//! LG612 unknown-label: labels in a table that are neither class ids nor (with `--classes`)
//! class names. The table reader counts them ([`crate::read::table`]); the finding is built here.
//! Documentation: `labelguard_core::rules::lg612_unknown_label`.

use crate::read::table::{BadCell, LabelColumn};
use labelguard_core::finding::ValueCount;
use labelguard_core::rules::LG612;
use labelguard_core::{Finding, Verdict};

/// The finding when the column has unknown labels; `have_classes` says whether a classes file
/// was given (names are then looked up in it).
pub fn finding(col: &LabelColumn, have_classes: bool) -> Option<Finding> {
    if col.unknown == 0 {
        return None;
    }
    let name = col.column.as_str();
    let first = &col.unknown_first[0];
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
            col.unknown,
            col.ids.len(),
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
    f.locations = BadCell::locations(&col.unknown_first, name, shown);
    f.count = Some(col.unknown);
    f.values = col
        .unknown_values
        .iter()
        .map(|(v, n)| ValueCount {
            value: shown(v),
            count: *n,
        })
        .collect();
    Some(f)
}
