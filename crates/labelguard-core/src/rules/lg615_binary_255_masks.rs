use crate::rule::{declare_rule, RuleRepair, RepairKind};

declare_rule! {
    /// Every mask of the dataset is 0/255: a binary foreground stored as 255.
    ///
    /// ## What it checks
    /// The class histogram of a whole scanned dataset: every labelled pixel is 0 or 255 (apart from a few blur
    /// artefacts), in masks that hold both values. Reported once for the dataset instead of once per file.
    ///
    /// ## Why it matters
    /// Image editors and many binary-segmentation datasets save the foreground as 255. With two classes 255 is out
    /// of range (a device-side assert on CUDA); with `ignore_index=255` every foreground pixel is silently ignored,
    /// and the model learns to predict background everywhere. Class statistics and weights computed on the raw ids
    /// describe a class 255 that does not exist.
    ///
    /// ## Fix
    /// Map the masks to 0/1 where they are loaded (`target = (mask > 127).long()`), give the model 2 outputs (or
    /// one with `binary_cross_entropy_with_logits`), and keep 255 out of `ignore_index`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/report/dataset_checks/lg615_binary_255_masks.rs` (same name, in the scan crate's report, which has the whole dataset's histogram)
    /// - fixture: `lg615_binary_255_masks` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG615", "binary-255-masks", Error;
    repair = RuleRepair::Always(RepairKind::Binary255)
}
