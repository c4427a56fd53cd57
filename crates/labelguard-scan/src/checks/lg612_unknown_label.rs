//! LG612 unknown-label: labels in a table that are neither class ids nor (with `--classes`)
//! class names. The table reader counts them ([`labelguard_formats::read::table`]) and the analysis hands
//! the counts over; the finding is built here.
//! Documentation: `labelguard_core::rules::lg612_unknown_label`.

use labelguard_core::finding::ValueCount;
use labelguard_core::rules::LG612;
use labelguard_core::{Finding, Severity, Verdict};
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
    if !have_classes && unknown == rows as u64 && values.iter().all(|(v, _)| !v.is_empty()) {
        return Some(names_only(f, name, rows, values));
    }
    Some(f)
}

/// Every label is a name and no classes file was given (`positive`/`negative` in the
/// `--train_file` of transformers' `run_glue.py` or `run_classification.py`, which map the
/// sorted distinct names to ids themselves): a warning that the names were not checked, not an
/// error on every row of valid data.
fn names_only(mut f: Finding, name: &str, rows: usize, values: &[(String, u64)]) -> Finding {
    let mut names: Vec<&str> = values.iter().map(|(v, _)| v.as_str()).collect();
    names.sort_unstable();
    // The reader counts at most 64 distinct values.
    let distinct = match names.len() {
        n if n >= 64 => format!("{n} or more distinct"),
        n => format!("{n} distinct"),
    };
    let listed = match names.len() {
        n if n > 8 => format!("{}, ... ({distinct})", names[..8].join(", ")),
        _ => format!("{} ({distinct})", names.join(", ")),
    };
    f.message = format!("the {rows} labels in '{name}' are names, not class ids, so they were not range-checked: {listed}");
    f.hint = Some("a script that numbers the names itself makes no id out of range: transformers' run_glue.py and run_classification.py map the sorted distinct names to 0..K-1".into());
    f.fix = "nothing to do for such a script; to check the names against the model's classes, pass --classes FILE (one class name per line)".into();
    f.verdict = Verdict::Ok;
    f.severity(Severity::Warning)
}
