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

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::problem::problem;
    use labelguard_core::rules::LG709;
    use labelguard_core::Finding;

    use labelguard_core::Location;

    /// The first locations as a message shows them: `annotations[123] (id 456, image_id 789):
    /// category_id 91; ...` (a location's value is `id 456, image_id 789: category_id 91`).
    pub fn examples(first: &[Location]) -> String {
        first
            .iter()
            .take(3)
            .map(|l| {
                let idx: Vec<String> = l.index.iter().map(|i| i.to_string()).collect();
                match l.value.split_once(": ") {
                    Some((who, what)) => {
                        format!("{}[{}] ({who}): {what}", l.tensor, idx.join(", "))
                    }
                    None => format!("{}[{}] ({})", l.tensor, idx.join(", "), l.value),
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// `n` COCO entries with the same problem, `what` (`annotations without image_id`,
    /// `images with a duplicate id`); `first` the first of them.
    pub fn malformed(what: &str, n: u64, first: &[Location]) -> Finding {
        let examples = examples(first);
        let sep = if examples.is_empty() { "" } else { ": " };
        problem(
            &LG709,
            format!(
                "{what} ({n} {}){sep}{examples}",
                if n == 1 { "entry" } else { "entries" }
            ),
        )
        .hint("pycocotools and the frameworks' COCO loaders index these fields without checks: a missing field raises KeyError, a duplicate id silently replaces the first entry")
        .fix("regenerate the file with the converter, or correct or drop the entries named")
        .evidence(first.to_vec(), n, Vec::new())
    }

    /// A COCO file whose top-level `key` (`images`, `annotations`, `categories`) is missing or not
    /// a list.
    pub fn section(key: &str, missing: bool) -> Finding {
        let message = if missing {
            format!("the file has no `{key}` list")
        } else {
            format!("`{key}` is not a list")
        };
        problem(&LG709, message)
            .hint("pycocotools' COCO() reads images, annotations and categories from the top-level lists; a file without them is not an instances file")
            .fix(format!("write `{key}` as a list of objects (an empty list when there are none)"))
    }
}
