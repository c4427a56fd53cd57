//! LG608 missing-pair: a mask without its image, an image without its mask, or a stem listed
//! in a split file without its mask. The layouts pair the files ([`crate::layout`]); the
//! findings are built here.
//! Documentation: `labelguard_core::rules::lg608_missing_pair`.

use labelguard_core::rules::LG608;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// A mask whose image (`expected`, as the report shows it) does not exist.
pub fn mask_without_image(expected: &str) -> Finding {
    problem(
        &LG608,
        format!("mask without its image: {expected} does not exist"),
    )
    .hint("a Dataset that lists the masks raises FileNotFoundError for the image")
    .fix("restore the image, or remove the mask")
}

/// An image in the image tree that no mask claimed.
pub fn image_without_mask() -> Finding {
    problem(&LG608, "image without a mask")
        .hint("a Dataset that lists the images raises FileNotFoundError for the mask; one that zips two sorted lists pairs every later image with the wrong mask")
        .fix("restore the mask or remove the image")
}

/// A stem listed in Pascal VOC's `ImageSets/Segmentation/<split>.txt` without its mask.
pub fn listed_without_mask(split: &str) -> Finding {
    problem(
        &LG608,
        format!("listed in ImageSets/Segmentation/{split}.txt but the mask does not exist"),
    )
    .hint("the VOC loader opens every listed stem and raises FileNotFoundError")
    .fix("restore the mask or remove the stem from the list")
}
