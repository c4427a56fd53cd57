//! LG708 annotation-size-mismatch: the size an annotation records (a COCO RLE's `size`, VOC's
//! `<size>`, a COCO image's `width`/`height`) against the image.
//! Documentation: `labelguard_core::rules::lg708_annotation_size_mismatch`.

// ---- Pascal VOC XML ----

use labelguard_core::rules::LG708;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// A VOC `<size>` of `recorded` (width, height) that is not the `actual` size the image
/// `image`'s header says.
pub fn voc_size(image: &str, recorded: (u64, u64), actual: (u64, u64)) -> Finding {
    // The file name: after the last folder, or after the shard of a tar member.
    let name = image.rsplit(['/', ':']).next().unwrap_or(image);
    let swapped = recorded == (actual.1, actual.0);
    problem(
        &LG708,
        format!(
            "<size> says {}x{} but {name} is {}x{}",
            recorded.0, recorded.1, actual.0, actual.1
        ),
    )
    .hint(if swapped {
        "width and height swapped: an EXIF-rotated photo, or a converter that wrote height first".to_string()
    } else {
        "the image was resized or replaced after labelling: the boxes were drawn on the image the <size> describes".to_string()
    })
    .fix("relabel on the current image, or scale the boxes to it and correct <size>")
}

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::checks::lg709_malformed_annotation::coco::examples;
    use labelguard_core::finding::count;
    use labelguard_core::rules::LG708;
    use labelguard_core::{Finding, Location};
    use labelguard_formats::problem::problem;

    /// Whether an RLE's `size` (`[height, width]`) disagrees with the image's height and width.
    pub fn rle_mismatch(size: [f64; 2], height: f64, width: f64) -> bool {
        size[0] != height || size[1] != width
    }

    /// `n` COCO annotations whose RLE `size` disagrees with their image's height and width.
    pub fn rle_size(n: u64, first: &[Location]) -> Finding {
        problem(
            &LG708,
            format!(
                "{} {} an RLE segmentation whose size [height, width] is not the image's: {}",
                count(n, "annotation"),
                if n == 1 { "has" } else { "have" },
                examples(first)
            ),
        )
        .hint("the masks were encoded from a resized copy of the image, or with width and height swapped; pycocotools decodes a mask of the RLE's size, not the image's")
        .fix("re-encode the masks from images of the recorded size, or correct the images' width and height")
        .evidence(first.to_vec(), n, Vec::new())
    }
}
