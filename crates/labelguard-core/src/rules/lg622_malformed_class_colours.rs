use crate::rule::declare_rule;

declare_rule! {
    /// A dataset's list of class colours (CamVid's `class_dict.csv`, a CVAT export's `labelmap.txt`) cannot be read as its loaders read it.
    ///
    /// ## What it checks
    /// The header must name the columns `name`, `r`, `g` and `b`; every row's colour must be three numbers
    /// 0..255; the file must list a class; no colour may be listed twice. A CVAT or Datumaro `labelmap.txt`
    /// (`# label:color_rgb:parts:actions`, then `name:r,g,b::` a line) is read as Datumaro's VOC reader reads it
    /// (`parse_label_map`): blank and `#` lines skipped, each line split at `:`; a name given twice is refused
    /// there, and a class without a colour (`name:::`) cannot map a colour mask, so it is reported too.
    ///
    /// ## Why it matters
    /// The loaders (`get_label_info` of the Semantic-Segmentation-Suite's `utils/helpers.py`, `pd.read_csv` in
    /// the Kaggle notebooks) fail on a row they cannot convert, or read a wrong column as a colour. A colour
    /// listed twice gives every pixel of it the later row's id: the earlier class never has a pixel, and the
    /// model's head has a class that is never trained.
    ///
    /// ## Example
    /// `class_dict.csv` re-saved by a spreadsheet with the header `class,red,green,blue`, or a copied row left
    /// with its old name.
    ///
    /// ## Fix
    /// Restore the header `name,r,g,b`; give each class its own colour.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg622_malformed_class_colours.rs` (same name, in the scan crate, which has its inputs); the reader `crates/labelguard-formats/src/read/class_colours.rs` finds the problems (`ClassColoursProblem`)
    /// - fixture: `lg622_malformed_class_colours` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG622", "malformed-class-colours", Error
}
