use crate::rule::declare_rule;

declare_rule! {
    /// An object's category is not among the categories the dataset declares.
    ///
    /// ## What it checks
    /// COCO annotations whose `category_id` is not the `id` of an entry of `categories`, and Pascal VOC objects whose
    /// `<name>` is not in the class list (with the nearest name when it looks like a typo: the same but for case, or
    /// one or two edits away). The class list is `--classes` or the preset; without one, the scan infers it from the
    /// names every annotation uses: the 20 VOC classes when each name is one of them or a typo of one, else the sorted
    /// names found (a dataset of its own classes, where every name is a class).
    ///
    /// ## Why it matters
    /// A loader that maps categories through the declared list fails on the object: detectron2 raises `KeyError`
    /// (`Encountered category_id=... but this id does not exist in 'categories'`), mmdet's `cat2label[...]` raises
    /// `KeyError`; one that passes the id through feeds an id the head was not sized for.
    ///
    /// ## Fix
    /// Add the category to the declared list, fix the object's name or id, or drop the object.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg702_unknown_category.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg702_unknown_category` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG702", "unknown-category", Error
}
