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
