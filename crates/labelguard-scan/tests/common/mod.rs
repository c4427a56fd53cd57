//! Helpers of the scan crate's integration tests: settings and a scan through the library API.

use labelguard_scan::config::{Overrides, ScanOptions};
use labelguard_scan::progress::Silent;
use labelguard_scan::report::ScanReport;
use std::path::Path;

pub fn opts(o: Overrides) -> ScanOptions {
    ScanOptions::resolve(None, &o).expect("valid settings")
}

pub fn classes(c: u32, ignore: i64) -> Overrides {
    Overrides {
        num_classes: Some(c),
        ignore_index: Some(ignore),
        ..Overrides::default()
    }
}

pub fn scan(root: &Path, o: &ScanOptions) -> ScanReport {
    labelguard_scan::scan(&[root.to_path_buf()], o, &Silent).expect("scan runs")
}
