use crate::rule::declare_rule;

declare_rule! {
    /// A class occurs in only one split (train, val or test).
    ///
    /// ## What it checks
    /// With two or more splits, each class seen in the scan must occur in more than one of them.
    ///
    /// ## Why it matters
    /// A class only in val is never trained; a class only in train is never evaluated. With torchvision's
    /// `ImageFolder`, a class folder missing from one split also shifts the ids of every later class in that split,
    /// because each split numbers its sorted folder names on its own: the labels are silently wrong.
    ///
    /// ## Fix
    /// Re-split so that every class is represented, and with `ImageFolder` pass one shared `class_to_idx`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/report/dataset_checks/lg610_class_in_one_split.rs` (same name, in the scan crate's report, which has the whole dataset's histogram)
    /// - `crates/labelguard-scan/src/checks/lg610_class_in_one_split.rs`: ImageFolder splits with different class
    ///   folders (in the scan crate, which lists the folders)
    /// - fixture: `lg610_class_in_one_split` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    /// - tests: `crates/labelguard-cli/tests/scan_truth.rs`, the cases in `crates/labelguard-cli/tests/cmd/scan/`
    "LG610", "class-in-one-split", Warning
}
