//! A table cell that is not a class id, as the table reader records it (its row and text)
//! and as a finding points at it: plain data between the reader, the analysis and the checks.

use labelguard_core::Location;

/// A cell that is not a class id, with its row.
#[derive(Clone, Debug, PartialEq)]
pub struct BadCell {
    pub row: usize,
    pub text: String,
}

impl BadCell {
    /// The findings' locations of `cells` in column `name`, each value shown by `show`.
    pub fn locations(
        cells: &[BadCell],
        name: &str,
        show: impl Fn(&str) -> String,
    ) -> Vec<Location> {
        cells
            .iter()
            .map(|b| Location {
                tensor: name.to_string(),
                index: vec![b.row],
                value: show(&b.text),
            })
            .collect()
    }
}
