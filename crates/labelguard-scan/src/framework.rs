//! The detection frameworks (`--framework`), by what their heads expect of a dataset's classes:
//! which id the model sees for each declared category and how many classes the head must have.
//! A leaf: the settings, the checks and the analysis all read it.
//!
//! Sources (read for the facts, in each project's code):
//! - torchvision: `torchvision/models/detection/faster_rcnn.py` documents `num_classes`
//!   "(including the background)"; its detection reference (`references/detection/coco_utils.py`)
//!   passes COCO's `category_id` through unchanged and trains with `num_classes=91`.
//! - mmdet 3.x: `mmdet/datasets/coco.py` builds `cat2label = {cat_id: i for i, cat_id in
//!   enumerate(cat_ids)}` and the heads' `num_classes` excludes background.
//! - detectron2: `detectron2/data/datasets/coco.py` maps the sorted category ids to
//!   `0..K-1` (`thing_dataset_id_to_contiguous_id`); `MODEL.ROI_HEADS.NUM_CLASSES` excludes
//!   background.
//! - ultralytics: `ultralytics/data/utils.py` (`verify_image_label`) rejects a class id at or
//!   beyond `nc = len(names)` of `data.yaml`; there is no background class.

/// A detection framework, by the convention of its head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Framework {
    /// torchvision's detection models, and plain PyTorch code that feeds the stored ids:
    /// ids as stored, background is class 0, `num_classes` counts it.
    Torchvision,
    /// MMDetection: declared categories mapped to `0..K-1`, `num_classes = K`.
    Mmdet,
    /// detectron2: declared categories mapped to `0..K-1`, `NUM_CLASSES = K`.
    Detectron2,
    /// Ultralytics YOLO: ids as stored, `nc = len(names)`, no background.
    Ultralytics,
}

/// Every framework, in the order help texts list them.
pub const FRAMEWORKS: &[Framework] = &[
    Framework::Torchvision,
    Framework::Mmdet,
    Framework::Detectron2,
    Framework::Ultralytics,
];

impl Framework {
    pub fn as_str(self) -> &'static str {
        match self {
            Framework::Torchvision => "torchvision",
            Framework::Mmdet => "mmdet",
            Framework::Detectron2 => "detectron2",
            Framework::Ultralytics => "ultralytics",
        }
    }

    /// Whether the head's class count includes a background class 0.
    pub fn counts_background(self) -> bool {
        self == Framework::Torchvision
    }

    /// Whether the framework maps the declared categories to `0..K-1` itself.
    pub fn remaps(self) -> bool {
        matches!(self, Framework::Mmdet | Framework::Detectron2)
    }

    /// Where the class count is set, in the framework's own words.
    pub fn head_setting(self) -> &'static str {
        match self {
            Framework::Torchvision => "num_classes of the model (fasterrcnn_resnet50_fpn(num_classes=N), FastRCNNPredictor(in_features, N))",
            Framework::Mmdet => "num_classes of the model's heads (model.roi_head.bbox_head.num_classes, and mask_head's)",
            Framework::Detectron2 => "cfg.MODEL.ROI_HEADS.NUM_CLASSES",
            Framework::Ultralytics => "nc (len(names)) in data.yaml",
        }
    }

    /// The id the head sees for the category stored as `id`, which is the `rank`-th (0-based)
    /// of the declared categories sorted by id.
    pub fn model_id(self, id: i64, rank: usize) -> i64 {
        if self.remaps() {
            rank as i64
        } else {
            id
        }
    }

    /// The class count the head needs for categories declared with these ids (sorted,
    /// distinct): the largest id plus one where ids are used as stored (torchvision's
    /// background is then id 0, so 1-based ids need `max + 1` too), the number of categories
    /// where the framework remaps them.
    pub fn classes_needed(self, declared: &[i64]) -> u64 {
        if self.remaps() {
            declared.len() as u64
        } else {
            declared
                .iter()
                .copied()
                .max()
                .map_or(0, |m| m.max(-1) as u64 + 1)
        }
    }

    /// The frameworks besides this one, each with the class count it needs for `declared`:
    /// `mmdet: 80, detectron2: 80, ultralytics: 91`. For messages that say what would fit.
    pub fn others_needing(self, declared: &[i64]) -> String {
        FRAMEWORKS
            .iter()
            .filter(|f| **f != self)
            .map(|f| format!("{}: {}", f.as_str(), f.classes_needed(declared)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::str::FromStr for Framework {
    type Err = String;
    fn from_str(s: &str) -> Result<Framework, String> {
        Ok(
            match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
                "torchvision" | "torch" | "pytorch" => Framework::Torchvision,
                "mmdet" | "mmdetection" => Framework::Mmdet,
                "detectron2" | "detectron" => Framework::Detectron2,
                "ultralytics" | "yolo" | "yolov5" | "yolov8" => Framework::Ultralytics,
                _ => {
                    return Err(format!(
                    "unknown framework '{}' (known: torchvision, mmdet, detectron2, ultralytics)",
                    labelguard_core::clip::echo(s)
                ))
                }
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// COCO 2017: 80 categories with ids 1..90.
    fn coco_ids() -> Vec<i64> {
        (1..=90)
            .filter(|i| ![12, 26, 29, 30, 45, 66, 68, 69, 71, 83].contains(i))
            .collect()
    }

    #[test]
    fn coco_needs_91_as_stored_and_80_remapped() {
        let ids = coco_ids();
        assert_eq!(ids.len(), 80);
        assert_eq!(Framework::Torchvision.classes_needed(&ids), 91);
        assert_eq!(Framework::Mmdet.classes_needed(&ids), 80);
        assert_eq!(Framework::Detectron2.classes_needed(&ids), 80);
        assert_eq!(Framework::Detectron2.model_id(90, 79), 79);
        assert_eq!(Framework::Torchvision.model_id(90, 79), 90);
        assert_eq!(
            Framework::Torchvision.others_needing(&ids),
            "mmdet: 80, detectron2: 80, ultralytics: 91"
        );
    }

    #[test]
    fn names_parse_and_echo_bounded() {
        assert_eq!("MMDetection".parse(), Ok(Framework::Mmdet));
        assert_eq!("yolov8".parse(), Ok(Framework::Ultralytics));
        let e = "x".repeat(100_000).parse::<Framework>().unwrap_err();
        assert!(e.len() < 1000);
        for f in FRAMEWORKS {
            assert_eq!(f.as_str().parse(), Ok(*f));
        }
    }
}
