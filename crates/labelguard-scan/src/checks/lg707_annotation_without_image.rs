//! LG707 annotation-without-image: an annotation whose image is not there (a COCO `image_id`
//! without an `images` entry or an image file, a YOLO or VOC label file without its image).
//! Documentation: `labelguard_core::rules::lg707_annotation_without_image`.

use crate::problem::problem;
use labelguard_core::rules::LG707;
use labelguard_core::Finding;

/// A label file whose image (`expected`, as the report shows it) does not exist.
pub fn label_without_image(expected: &str) -> Finding {
    problem(
        &LG707,
        format!("label file without its image: {expected} does not exist"),
    )
    .hint("the loader lists the images and never reads this file, or lists the labels and raises FileNotFoundError for the image")
    .fix("restore the image, or remove the label file")
}
