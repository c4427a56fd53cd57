//! LG709 malformed-annotation: an annotation that is not in its format's structure (a YOLO line's
//! columns, a COCO entry's fields, a VOC object's elements, `data.yaml`'s keys).
//! Documentation: `labelguard_core::rules::lg709_malformed_annotation`.

use crate::problem::problem;
use labelguard_core::rules::LG709;
use labelguard_core::Finding;

/// A `data.yaml` that is YAML but not a dataset description ultralytics reads.
pub fn data_yaml(detail: &str) -> Finding {
    problem(&LG709, format!("data.yaml: {detail}"))
        .hint("ultralytics' check_det_dataset refuses the file before training starts")
        .fix("write names as a list (names: [cat, dog]) or a map from 0..N-1 to names")
}

// ---- Pascal VOC XML ----

use labelguard_core::finding::count;
use labelguard_core::Location;

/// VOC `<object>`s a loader cannot read: without `<name>`, without `<bndbox>`, or whose
/// `<bndbox>` lacks a corner (`what`: `1 without <name>`, ...).
pub fn voc_objects(n: u64, what: &[String], first: Vec<Location>) -> Finding {
    let mut f = problem(
        &LG709,
        format!(
            "{} a loader cannot read: {}",
            count(n, "object"),
            what.join(", ")
        ),
    )
    .hint("torchvision's VOCDetection returns the object without the element and the training code's obj['name'] or obj['bndbox']['xmin'] raises KeyError; mmdet's XMLDataset raises AttributeError on find('name').text")
    .fix("add the missing elements (every <object> has <name> and <bndbox> with xmin, ymin, xmax, ymax), or drop the objects");
    f.count = Some(n);
    f.locations = first;
    f
}

/// A VOC file whose `<size>` is missing or unusable (`detail`: what it says).
pub fn voc_size(detail: &str) -> Finding {
    problem(&LG709, format!("<size> {detail}"))
        .hint("an export that did not record the image's size (0x0 is common in broken exports): loaders that read <size> (mmdet's XMLDataset, for filtering and aspect-ratio grouping) get no image size")
        .fix("write the image's width, height and depth into <size>")
}
