//! LG603 empty-file: a label file of 0 bytes, or one that holds nothing to check (an image
//! without pixels, an array file without arrays, a table without rows, an ImageFolder class
//! folder without images). The readers, the layouts and the analysis find them; every LG603
//! finding is built here.
//! Documentation: `labelguard_core::rules::lg603_empty_file`.

use crate::problem::problem;
use labelguard_core::rules::LG603;
use labelguard_core::Finding;

/// The finding for a file of 0 bytes.
pub fn empty_file() -> Finding {
    problem(&LG603, "is empty (0 bytes)")
        .hint("an interrupted copy or download, or a placeholder created by a script")
        .fix("regenerate or re-download the file, or drop the sample")
}

/// An image whose `format` header says it is `width x height` (one of them 0) or has no frames.
pub fn image_without_pixels(format: &str, width: u64, height: u64) -> Finding {
    problem(
        &LG603,
        format!("the {format} header says {width}x{height}: the image has no pixels"),
    )
    .fix("regenerate the file")
}

/// An array file (`.npz`, `.safetensors`) that holds no arrays.
pub fn array_file_without_arrays() -> Finding {
    problem(&LG603, "holds no arrays").fix("regenerate the file")
}

/// The array `name` of `shape` without elements.
pub fn array_without_elements(name: &str, shape: &str) -> Finding {
    problem(&LG603, format!("{name} has shape {shape} and no elements")).fix("regenerate the file")
}

/// A table whose label `column` has no rows.
pub fn table_without_rows(column: &str) -> Finding {
    problem(&LG603, format!("column '{column}' has no rows")).fix("regenerate the table")
}

/// A `datasets` `save_to_disk` folder whose `state.json` lists no shard: a dataset of no rows.
pub fn dataset_without_rows() -> Finding {
    problem(&LG603, "state.json lists no data file: the dataset has no rows (datasets.load_from_disk fails on it)")
        .hint("a filter or a split that kept no row, saved as it was")
        .fix("check the filter or split that produced it, and save the dataset again")
}

/// A class-weight array file that holds no arrays.
pub fn weights_without_arrays() -> Finding {
    problem(&LG603, "holds no arrays")
}

/// A class-weight file without a number.
pub fn weights_without_values() -> Finding {
    problem(&LG603, "holds no weights")
}

/// An ImageFolder class folder without an image.
pub fn class_folder_without_images() -> Finding {
    problem(&LG603, "class folder without images")
        .hint("torchvision's ImageFolder raises FileNotFoundError: Found no valid file for the classes ...; with allow_empty=True the class gets an id but no samples")
        .fix("add images, or remove the folder (which renumbers the later classes)")
}
