//! LG613 label-column-missing: a label table without the label column (`--label-column`, or
//! none of the usual names). Documentation: `labelguard_core::rules::lg613_label_column_missing`.

use labelguard_core::rules::LG613;
use labelguard_core::{Finding, Severity, Verdict};
use labelguard_formats::problem::problem;
use labelguard_formats::read::table::DEFAULT_COLUMNS;

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

/// No column was named and none has a usual label name: a warning, not an error. The JSON
/// Lines, CSV or Parquet files of a text dataset (`{"text": ...}` for `run_clm.py` or
/// `run_mlm.py`) hold no labels, and a scan that fails on them cries wolf; the table is still
/// named as not checked, with the columns it has.
pub fn no_usual_column(available: &[String]) -> Finding {
    let mut f = finding(&DEFAULT_COLUMNS.join("', '"), available);
    f.message = format!(
        "no label column ('{}'), so its rows were not checked as class ids; the table has: {}",
        DEFAULT_COLUMNS.join("', '"),
        available.join(", ")
    );
    f.fix = format!(
        "nothing to do for a text dataset; if one of these columns holds class ids, pass --label-column with it: {}",
        available.join(", ")
    );
    f.verdict = Verdict::Ok;
    f.severity(Severity::Warning)
}
