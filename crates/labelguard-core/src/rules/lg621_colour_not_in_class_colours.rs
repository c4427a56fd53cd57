use crate::rule::declare_rule;

declare_rule! {
    /// A colour mask holds a colour that its dataset's own list of class colours does not list.
    ///
    /// ## What it checks
    /// Datasets whose labels are colour masks and whose class colours ship with them (CamVid's widely used copy:
    /// `train/` beside `train_labels/`, masks named `<stem>_L.png`, and `class_dict.csv` with the header
    /// `name,r,g,b`, one class a row). The colours of the file are the classes, each row's id its row (from 0,
    /// below the header), as the loaders that read it number them (`get_label_info`/`one_hot_it` of the
    /// Semantic-Segmentation-Suite's `utils/helpers.py`, which this copy comes from). Every pixel of every mask is
    /// looked up; the colours that are not listed are reported with their pixel counts and first pixels, file by
    /// file. A mask whose colours are all listed is a valid label: no finding. The same holds for the `labelmap.txt`
    /// (`name:r,g,b:parts:actions`, one class a line) that CVAT's and Datumaro's VOC and segmentation-mask exports
    /// write beside `SegmentationClass/`, and for a palette given with `--palette` on a CamVid tree (the finding
    /// then names that palette).
    ///
    /// ## Why it matters
    /// Those loaders compare each pixel with every listed colour: a pixel of another colour matches none, so its
    /// one-hot row is all zeros (no target at all) or, after `argmax`, class 0. Nothing raises; the model trains on
    /// wrong labels. Such colours come from masks resized or saved with interpolation or as JPEG (blended
    /// borders), or from another release's palette.
    ///
    /// ## Example
    /// A CamVid mask re-saved after a bilinear resize: thousands of pixels at the borders between classes hold
    /// colours between two class colours.
    ///
    /// ## Fix
    /// Resize masks with nearest-neighbour only and save them as PNG; restore the masks from the original
    /// release; or add the colour to `class_dict.csv` (or `labelmap.txt`, or the palette given) if it is a class.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg621_colour_not_in_class_colours.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg621_colour_not_in_class_colours` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG621", "colour-not-in-class-colours", Error
}
