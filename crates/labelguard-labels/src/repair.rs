//! The repairs labelguard knows, and their value tables: one place for `labelguard scan`
//! (which proposes them), `labelguard fix` (which applies them to files) and the Python package
//! (`labelguard.remap`, which applies them to arrays in a DataLoader).

use crate::preset::CITYSCAPES_LABEL_TO_TRAIN;
use serde::{Deserialize, Serialize};

/// What a repair does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairKind {
    /// Cityscapes labelIds -> trainIds (LG105).
    CityscapesTrainIds,
    /// 1-based ids -> 0-based (LG104).
    OneBased,
    /// A 0/255 binary mask -> 0/1 (LG615 for the dataset, LG101 with two classes).
    #[serde(rename = "binary_255")]
    Binary255,
    /// 0 -> ignore, v -> v - 1 (LG106; mmsegmentation's `reduce_zero_label`).
    ReduceZeroLabel,
    /// Void markers (255, -1) -> the chosen ignore index (LG103, LG107).
    VoidToIgnore,
    /// RGB colours -> class ids through the dataset's palette, exact colours only (LG606).
    ColourToIndex,
    /// A grey mask saved with equal RGB channels -> its first channel (LG606).
    FirstChannel,
    /// Bilinear-resize artefacts (LG605): reported; replaced by the majority of the labelled
    /// neighbours only on request, as an approximation.
    ResizeArtefacts,
    /// An explicit mapping table given by the user.
    Map,
}

impl RepairKind {
    pub const ALL: [RepairKind; 9] = [
        RepairKind::CityscapesTrainIds,
        RepairKind::OneBased,
        RepairKind::Binary255,
        RepairKind::ReduceZeroLabel,
        RepairKind::VoidToIgnore,
        RepairKind::ColourToIndex,
        RepairKind::FirstChannel,
        RepairKind::ResizeArtefacts,
        RepairKind::Map,
    ];

    /// The snake_case name used in JSON, plans and Python.
    pub fn name(self) -> &'static str {
        match self {
            RepairKind::CityscapesTrainIds => "cityscapes_train_ids",
            RepairKind::OneBased => "one_based",
            RepairKind::Binary255 => "binary_255",
            RepairKind::ReduceZeroLabel => "reduce_zero_label",
            RepairKind::VoidToIgnore => "void_to_ignore",
            RepairKind::ColourToIndex => "colour_to_index",
            RepairKind::FirstChannel => "first_channel",
            RepairKind::ResizeArtefacts => "resize_artefacts",
            RepairKind::Map => "map",
        }
    }

    pub fn by_name(name: &str) -> Option<RepairKind> {
        let n = name.to_ascii_lowercase().replace('-', "_");
        let n = match n.as_str() {
            "label_ids" | "cityscapes" | "train_ids" => "cityscapes_train_ids",
            "one_based_ids" | "1_based" => "one_based",
            "binary" | "0_255" => "binary_255",
            "void" | "void_to_ignore_index" => "void_to_ignore",
            "color_to_index" | "colour" | "color" | "palette" => "colour_to_index",
            other => other,
        };
        RepairKind::ALL.into_iter().find(|k| k.name() == n)
    }

    /// Whether the repair is a value table (as opposed to colours or neighbourhoods).
    pub fn is_value_map(self) -> bool {
        !matches!(
            self,
            RepairKind::ColourToIndex | RepairKind::FirstChannel | RepairKind::ResizeArtefacts
        )
    }
}

/// A proposed repair: what it does, and for value repairs the exact table (`[from, to]`
/// pairs; values not listed stay as they are).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Repair {
    pub kind: RepairKind,
    /// The rule whose finding proposes it (`null` for a user's table).
    pub rule: Option<String>,
    #[serde(default)]
    pub map: Vec<[i64; 2]>,
    /// For resize artefacts: the ids found in one-pixel bands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<i64>,
    /// `false` when `labelguard fix` only reports it (resize artefacts without the flag).
    pub automatic: bool,
    pub description: String,
}

/// Where the void pixels of a table go: the ignore index when a mask can hold it, else 255
/// (the void value of Cityscapes trainIds, VOC and mmsegmentation).
pub fn void_target(ignore_index: i64) -> i64 {
    if (0..=65535).contains(&ignore_index) {
        ignore_index
    } else {
        255
    }
}

/// The value table of a kind, for `num_classes` classes and the `void` target.
pub fn table(kind: RepairKind, num_classes: i64, void: i64, values: &[i64]) -> Vec<[i64; 2]> {
    match kind {
        // labelId -> trainId from cityscapesScripts' labels.py (see preset.rs); trainId 255
        // (void) goes to the chosen void value.
        RepairKind::CityscapesTrainIds => CITYSCAPES_LABEL_TO_TRAIN
            .iter()
            .enumerate()
            .map(|(id, &t)| [id as i64, if t == 255 { void } else { t as i64 }])
            .filter(|[a, b]| a != b)
            .collect(),
        RepairKind::OneBased => (1..=num_classes).map(|v| [v, v - 1]).collect(),
        RepairKind::Binary255 => vec![[255, 1]],
        // mmsegmentation's reduce_zero_label: gt[gt == 0] = 255; gt = gt - 1; gt[gt == 254] = 255.
        RepairKind::ReduceZeroLabel => std::iter::once([0, void])
            .chain((1..=num_classes).map(|v| [v, v - 1]))
            .collect(),
        RepairKind::VoidToIgnore => values
            .iter()
            .filter(|&&v| v != void)
            .map(|&v| [v, void])
            .collect(),
        _ => Vec::new(),
    }
}

fn describe(kind: RepairKind, void: i64) -> String {
    match kind {
        RepairKind::CityscapesTrainIds => format!("map Cityscapes labelIds to trainIds with cityscapesScripts' table (void labels -> {void})"),
        RepairKind::OneBased => "subtract one from every class id (1..C -> 0..C-1)".into(),
        RepairKind::Binary255 => "map the foreground 255 to 1 (0/255 -> 0/1)".into(),
        RepairKind::ReduceZeroLabel => format!("reduce the zero label: 0 -> {void}, v -> v-1"),
        RepairKind::VoidToIgnore => format!("map the void values to the ignore index {void}"),
        RepairKind::ColourToIndex => "map each colour to its class id through the palette (exact colours only; void colours -> the ignore index)".into(),
        RepairKind::FirstChannel => "keep the first of the equal channels: a single-channel index mask".into(),
        RepairKind::ResizeArtefacts => "not repaired: re-export the mask with nearest-neighbour resizing (or pass --fill-resize-artefacts to replace each band pixel by the majority of its labelled neighbours, an approximation)".into(),
        RepairKind::Map => "the user's mapping table".into(),
    }
}

impl Repair {
    /// A repair of `kind` with its table, for `num_classes` classes and the loss's
    /// `ignore_index`; `values` are the offending values (void markers, artefact ids).
    pub fn new(
        kind: RepairKind,
        rule: Option<&str>,
        num_classes: i64,
        ignore_index: i64,
        values: &[i64],
    ) -> Repair {
        let void = void_target(ignore_index);
        Repair {
            kind,
            rule: rule.map(String::from),
            map: table(kind, num_classes, void, values),
            values: if kind == RepairKind::ResizeArtefacts {
                values.to_vec()
            } else {
                Vec::new()
            },
            automatic: kind != RepairKind::ResizeArtefacts,
            description: describe(kind, void),
        }
    }
}
