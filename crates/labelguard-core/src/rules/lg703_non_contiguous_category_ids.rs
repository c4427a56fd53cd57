use crate::rule::declare_rule;

declare_rule! {
    /// Category ids used as stored do not run contiguously from the framework's first class id.
    ///
    /// ## What it checks
    /// The declared category ids when the framework uses them as stored (torchvision, plain PyTorch code): ids with
    /// gaps (COCO's 1..90 for 80 categories), or a category with id 0, which torchvision's heads reserve for
    /// background.
    ///
    /// ## Why it matters
    /// The head needs `largest id + 1` outputs: the outputs of the missing ids are never trained and still compete in
    /// the softmax, and a head sized by the number of categories (80 for COCO) asserts on the ids above it. A
    /// category with id 0 is trained as background.
    ///
    /// ## Fix
    /// Size the head by the largest id + 1, or remap the ids to `1..K` (torchvision) with `labelguard fix`, which
    /// writes a new annotation file and the mapping.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg703_non_contiguous_category_ids.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg703_non_contiguous_category_ids` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG703", "non-contiguous-category-ids", Warning
}
