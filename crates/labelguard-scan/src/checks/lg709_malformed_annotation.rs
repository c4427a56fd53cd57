//! LG709 malformed-annotation: an annotation that is not in its format's structure (a YOLO line's
//! columns, a COCO entry's fields, a VOC object's elements, `data.yaml`'s keys).
//! Documentation: `labelguard_core::rules::lg709_malformed_annotation`.

use labelguard_core::rules::LG709;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

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
    use labelguard_core::rules::LG709;
    use labelguard_core::Finding;
    use labelguard_formats::problem::problem;

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

// --- YOLO label files ---------------------------------------------------------------------

/// The malformed lines of one YOLO label file, by cause, with the first of them.
#[derive(Debug, Default)]
pub struct YoloMalformed {
    /// Lines whose column count is neither a box's nor a polygon's.
    pub wrong_columns: u64,
    /// Of those, lines of 6 columns (`class cx cy w h conf`).
    pub six_columns: u64,
    /// Lines with a token that is not a number.
    pub not_numbers: u64,
    /// Lines whose class column is a number but not an integer (`1.5`).
    pub class_not_integer: u64,
    /// The file's lines that hold something.
    pub lines: u64,
    pub first: Vec<labelguard_core::Location>,
}

impl YoloMalformed {
    pub fn total(&self) -> u64 {
        self.wrong_columns + self.not_numbers + self.class_not_integer
    }
}

/// Lines of a YOLO label file that are not objects. `None` when there are none.
pub fn yolo_lines(m: &YoloMalformed) -> Option<Finding> {
    use labelguard_core::finding::count;
    let n = m.total();
    if n == 0 {
        return None;
    }
    let mut causes = Vec::new();
    if m.wrong_columns > 0 {
        causes.push(format!(
            "{} with a column count that is neither a box's (5) nor a polygon's (1 + an even number >= 6)",
            count(m.wrong_columns, "line")
        ));
    }
    if m.not_numbers > 0 {
        causes.push(format!(
            "{} with a value that is not a number",
            count(m.not_numbers, "line")
        ));
    }
    if m.class_not_integer > 0 {
        causes.push(format!(
            "{} whose class id is not an integer",
            count(m.class_not_integer, "line")
        ));
    }
    let message = format!(
        "{n} of {} lines {} not YOLO objects: {}",
        m.lines,
        if n == 1 { "is" } else { "are" },
        causes.join("; ")
    );
    let hint = if m.six_columns > 0 {
        "6 columns look like predictions saved with a confidence column (save_conf=True); ultralytics refuses the file ('labels require 5 columns, 6 columns detected') and ignores the image and all its labels"
    } else if m.not_numbers > 0 && m.not_numbers * 2 >= m.lines {
        "most lines are not numbers: the file is probably not a YOLO label file (another format under labels/, a class name where the id belongs)"
    } else if m.class_not_integer > 0 {
        "a class id with a fraction: the columns are probably shifted (a missing class column makes a coordinate the id)"
    } else {
        "ultralytics refuses the whole file and ignores the image and all its labels ('ignoring corrupt image/label'); other loaders raise ValueError in np.loadtxt or shift the columns"
    };
    let mut f = problem(&LG709, message)
        .hint(hint)
        .fix("regenerate the file with the converter, or correct or drop the lines named (one object per line: 'class cx cy w h' or 'class x1 y1 x2 y2 ...')");
    // Ultralytics drops the image and trains on; a loader of its own raises (the hint).
    f.verdict = labelguard_core::Verdict::Silent;
    f.count = Some(n);
    f.locations = m.first.clone();
    Some(f)
}
