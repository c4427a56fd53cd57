//! LG613 label-column-missing: a label table without the label column (`--label-column`, or
//! none of the usual names). Documentation: `labelguard_core::rules::lg613_label_column_missing`.

use labelguard_core::rules::LG613;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// `wanted` is not a column; `available` are the table's columns.
pub fn finding(wanted: &str, available: &[String]) -> Finding {
    problem(
        &LG613,
        format!(
            "no column '{wanted}'; the table has: {}",
            available.join(", ")
        ),
    )
    .fix(format!(
        "pass --label-column with one of: {}",
        available.join(", ")
    ))
}
