use crate::rule::declare_rule;

declare_rule! {
    /// labelguard itself failed on this file (an internal error while reading or analysing it).
    ///
    /// ## What it checks
    /// Every file of a scan is read and analysed in isolation. If the code that reads one file panics (a
    /// defect in labelguard or in a decoder it uses: `png`, `tiff`, `zip`, `csv`, `parquet`), that file gets
    /// this finding with the panic's message, and the scan goes on with every other file. The exit code
    /// counts it like any other error.
    ///
    /// ## Why it matters
    /// The file may be fine or broken; labelguard could not tell. One odd file among 100,000 must not cost the
    /// report of the other 99,999, and it must not pass as clean either.
    ///
    /// ## Example
    /// `internal error while reading: index out of bounds ... (please report)` on a malformed Parquet file.
    ///
    /// ## Fix
    /// Please report it with the file (or its first bytes) at the project's issue tracker; meanwhile check the
    /// file by hand (`python -c "from PIL import Image; Image.open(F).load()"`), or exclude it.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg620_internal_error.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg620_internal_error` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG620", "internal-error", Error
}
