//! LG707 annotation-without-image: an annotation whose image is not there (a COCO `image_id`
//! without an `images` entry or an image file, a YOLO or VOC label file without its image).
//! Documentation: `labelguard_core::rules::lg707_annotation_without_image`.

use labelguard_core::rules::LG707;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// A label file whose image (`expected`, as the report shows it) does not exist.
pub fn label_without_image(expected: &str) -> Finding {
    problem(
        &LG707,
        format!("label file without its image: {expected} does not exist"),
    )
    .hint("the loader lists the images and never reads this file, or lists the labels and raises FileNotFoundError for the image")
    .fix("restore the image, or remove the label file")
}

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use labelguard_core::rules::LG707;
    use labelguard_core::Finding;
    use labelguard_formats::problem::problem;

    use crate::checks::lg709_malformed_annotation::coco::examples;
    use labelguard_core::finding::count;
    use labelguard_core::Location;

    /// `n` COCO annotations whose `image_id` is not the id of an `images` entry.
    pub fn unknown_image(n: u64, first: &[Location]) -> Finding {
        problem(
            &LG707,
            format!(
                "{} {} an image_id that no `images` entry has: {}",
                count(n, "annotation"),
                if n == 1 { "has" } else { "have" },
                examples(first)
            ),
        )
        .hint("images removed from `images` (a filtered or split export) without their annotations; pycocotools' loadImgs raises KeyError on them")
        .fix("drop the annotations of removed images, or restore their `images` entries")
        .evidence(first.to_vec(), n, Vec::new())
    }

    /// `n` `images` entries whose `file_name` is not a file in `folder`; `names` the first few.
    pub fn missing_files(n: u64, names: &[String], folder: &str, first: &[Location]) -> Finding {
        let more = if (names.len() as u64) < n {
            ", ..."
        } else {
            ""
        };
        problem(
            &LG707,
            format!(
                "{} listed in `images` {} not in {folder}: {}{more}",
                count(n, "image"),
                if n == 1 { "is" } else { "are" },
                names.join(", ")
            ),
        )
        .hint("an incomplete download or copy of the image folder, or file_names relative to another folder; the DataLoader raises FileNotFoundError when it reaches them")
        .fix("restore the images, or drop their `images` entries and annotations")
        .evidence(first.to_vec(), n, Vec::new())
    }
}
