//! The inputs of `tests/cmd/fix/label_ids_*`: a Cityscapes tree whose masks hold labelIds
//! (the scan names them once and prints the repair; `fix` writes labelTrainIds), and the same
//! tree with a mask cut off in the middle, which no repair can mend. Both cases run in a
//! sandbox (an `.out` folder with only `.keep`): `fix` writes its output beside `data`.

use crate::scan_common::{png_gray8, png_rgb, put, scene};
use std::path::Path;

/// Writes the `label_ids_*.in` and `.out` folders under `fix`.
pub fn write(fix: &Path) {
    for case in ["label_ids_tree", "label_ids_unrepairable"] {
        label_ids_tree(&fix.join(format!("{case}.in/data")));
        put(&fix.join(format!("{case}.out")), ".keep", b"");
    }
    let data = fix.join("label_ids_unrepairable.in/data");
    let whole = png_gray8(64, 32, &scene(64, 32, &[7, 26], 24));
    put(
        &data,
        "gtFine/train/aachen/aachen_000009_000019_gtFine_labelTrainIds.png",
        &whole[..whole.len() / 2],
    );
    put(
        &data,
        "leftImg8bit/train/aachen/aachen_000009_000019_leftImg8bit.png",
        &png_rgb(64, 32, &vec![90; 64 * 32 * 3]),
    );
}

/// Three masks of labelIds (road 7, building 11, car 26, unlabelled 0) in each of two splits,
/// with their images.
fn label_ids_tree(root: &Path) {
    for (split, city) in [("train", "aachen"), ("val", "lindau")] {
        for i in 0..3 {
            let stem = format!("{city}_{i:06}_000019");
            let m = scene(64, 32, &[7, 26, 11, 0], 24);
            put(
                root,
                &format!("gtFine/{split}/{city}/{stem}_gtFine_labelIds.png"),
                &png_gray8(64, 32, &m),
            );
            put(
                root,
                &format!("leftImg8bit/{split}/{city}/{stem}_leftImg8bit.png"),
                &png_rgb(64, 32, &vec![90; 64 * 32 * 3]),
            );
        }
    }
}
