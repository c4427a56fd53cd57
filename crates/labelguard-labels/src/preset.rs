//! Presets: what each public dataset's labels mean, and the traps each one sets.
//!
//! Every table below is copied from the dataset's own published definition; the source is
//! cited above it. A preset fills in `num_classes`, `ignore_index`, `reduce_zero_label`, the
//! class names and the palette; explicit flags and the config file override each field. The
//! layout is recognised from the files, not taken from the preset, so that a preset also
//! describes the same labels exported as arrays or tables.

/// One dataset's label conventions.
#[derive(Debug)]
pub struct Preset {
    pub name: &'static str,
    pub num_classes: u32,
    /// The label value the loss must ignore (after `reduce_zero_label`, if set).
    pub ignore_index: i64,
    /// Whether the raw masks use 0 for "other" and 1..=C for the classes (ADE20K).
    pub reduce_zero_label: bool,
    pub classes: &'static [&'static str],
    /// Colour of each class id, for colour masks and the HTML report.
    pub palette: fn() -> Vec<[u8; 3]>,
    /// Colours that colour-coded masks of this dataset use for void: mapped to `ignore_index`.
    pub void_colours: &'static [[u8; 3]],
    /// The traps this dataset is known for, shown in `--help` and the text report.
    pub traps: &'static [&'static str],
}

/// All presets, by name.
pub const PRESETS: &[Preset] = &[CITYSCAPES, ADE20K, PASCAL_VOC];

/// The preset with this name (case-insensitive; `voc` and `pascal_voc` are accepted too).
pub fn by_name(name: &str) -> Option<&'static Preset> {
    let n = name.to_ascii_lowercase().replace('_', "-");
    let n = match n.as_str() {
        "voc" | "pascal" | "voc2012" => "pascal-voc",
        "ade" | "ade20k-150" | "ade-20k" => "ade20k",
        other => other,
    };
    PRESETS.iter().find(|p| p.name == n)
}

/// The error for a preset name that is none of [`PRESETS`]: the names it could be, and the
/// closest one when a typo is likely (`citiscapes`, `voc`).
pub fn unknown(name: &str, echo: &str) -> String {
    let known: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    let plain = |s: &str| s.to_ascii_lowercase().replace(['-', '_', ' '], "");
    let wanted = plain(name);
    let closest = PRESETS
        .iter()
        .map(|p| (edits(&wanted, &plain(p.name)), p.name))
        .filter(|&(d, n)| d <= 3 || (wanted.len() >= 3 && plain(n).contains(&wanted)))
        .min();
    let hint = closest.map_or(String::new(), |(_, n)| format!("; did you mean '{n}'?"));
    format!(
        "unknown preset '{echo}' (known: {}){hint}",
        known.join(", ")
    )
}

/// Levenshtein distance (insertions, deletions, substitutions) between two short names.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let here = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = here;
        }
    }
    row[b.len()]
}

// Cityscapes trainIds: the 19 evaluated classes of cityscapesScripts' label table,
// https://github.com/mcordts/cityscapesScripts/blob/master/cityscapesscripts/helpers/labels.py
// (`labels`: name, id, trainId, ..., color). trainId 255 (and -1) is void; the 34 labelIds
// 0..33 are what `*_gtFine_labelIds.png` hold.
const CITYSCAPES_CLASSES: &[&str] = &train_id_names();

/// The names of the 19 trainIds: each is the name of the one labelId that maps to it.
const fn train_id_names() -> [&'static str; 19] {
    let mut names = [""; 19];
    let mut id = 0;
    while id < CITYSCAPES_LABEL_TO_TRAIN.len() {
        let train = CITYSCAPES_LABEL_TO_TRAIN[id];
        if train != 255 {
            names[train as usize] = CITYSCAPES_LABEL_ID_NAMES[id];
        }
        id += 1;
    }
    names
}

/// The `color` column of the same table, by trainId.
const CITYSCAPES_COLORS: [[u8; 3]; 19] = [
    [128, 64, 128],
    [244, 35, 232],
    [70, 70, 70],
    [102, 102, 156],
    [190, 153, 153],
    [153, 153, 153],
    [250, 170, 30],
    [220, 220, 0],
    [107, 142, 35],
    [152, 251, 152],
    [70, 130, 180],
    [220, 20, 60],
    [255, 0, 0],
    [0, 0, 142],
    [0, 0, 70],
    [0, 60, 100],
    [0, 80, 100],
    [0, 0, 230],
    [119, 11, 32],
];

/// The `name` column of the same table, by labelId 0..33 (what `*_gtFine_labelIds.png` hold),
/// for naming the values of a labelIds histogram.
pub const CITYSCAPES_LABEL_ID_NAMES: [&str; 34] = [
    "unlabeled",
    "ego vehicle",
    "rectification border",
    "out of roi",
    "static",
    "dynamic",
    "ground",
    "road",
    "sidewalk",
    "parking",
    "rail track",
    "building",
    "wall",
    "fence",
    "guard rail",
    "bridge",
    "tunnel",
    "pole",
    "polegroup",
    "traffic light",
    "traffic sign",
    "vegetation",
    "terrain",
    "sky",
    "person",
    "rider",
    "car",
    "truck",
    "bus",
    "caravan",
    "trailer",
    "train",
    "motorcycle",
    "bicycle",
];

/// labelId -> trainId from the same table (255 = void), for converting labelIds masks.
pub const CITYSCAPES_LABEL_TO_TRAIN: [u8; 34] = [
    255, 255, 255, 255, 255, 255, 255, 0, 1, 255, 255, 2, 3, 4, 255, 255, 255, 5, 255, 6, 7, 8, 9,
    10, 11, 12, 13, 14, 15, 255, 255, 16, 17, 18,
];

pub const CITYSCAPES: Preset = Preset {
    name: "cityscapes",
    num_classes: 19,
    ignore_index: 255,
    reduce_zero_label: false,
    classes: CITYSCAPES_CLASSES,
    palette: || CITYSCAPES_COLORS.to_vec(),
    // The colours of the labels whose trainId is 255 in the same table (`polegroup` shares
    // pole's colour and is left out).
    void_colours: &[
        [0, 0, 0],
        [111, 74, 0],
        [81, 0, 81],
        [250, 170, 160],
        [230, 150, 140],
        [180, 165, 180],
        [150, 100, 100],
        [150, 120, 90],
        [0, 0, 90],
        [0, 0, 110],
    ],
    traps: &[
        "*_gtFine_labelIds.png (ids 0..33) used instead of *_gtFine_labelTrainIds.png (0..18, 255 void): LG105",
        "255 is void: cross_entropy needs ignore_index=255: LG103",
        "*_gtFine_color.png are RGB colour masks: LG606",
    ],
};

// ADE20K / SceneParsing (ADEChallengeData2016), 150 classes, as used by mmsegmentation's
// `ADE20KDataset` (mmseg/datasets/ade.py, https://github.com/open-mmlab/mmsegmentation), which
// follows the challenge's objectInfo150.csv
// (https://github.com/CSAILVision/sceneparsing/blob/master/objectInfo150.csv). In the masks 0
// means "other" and the classes are 1..=150; `reduce_zero_label=True` maps 0 to 255 and
// v to v-1.
const ADE20K_CLASSES: &[&str] = &[
    "wall",
    "building",
    "sky",
    "floor",
    "tree",
    "ceiling",
    "road",
    "bed",
    "windowpane",
    "grass",
    "cabinet",
    "sidewalk",
    "person",
    "earth",
    "door",
    "table",
    "mountain",
    "plant",
    "curtain",
    "chair",
    "car",
    "water",
    "painting",
    "sofa",
    "shelf",
    "house",
    "sea",
    "mirror",
    "rug",
    "field",
    "armchair",
    "seat",
    "fence",
    "desk",
    "rock",
    "wardrobe",
    "lamp",
    "bathtub",
    "railing",
    "cushion",
    "base",
    "box",
    "column",
    "signboard",
    "chest of drawers",
    "counter",
    "sand",
    "sink",
    "skyscraper",
    "fireplace",
    "refrigerator",
    "grandstand",
    "path",
    "stairs",
    "runway",
    "case",
    "pool table",
    "pillow",
    "screen door",
    "stairway",
    "river",
    "bridge",
    "bookcase",
    "blind",
    "coffee table",
    "toilet",
    "flower",
    "book",
    "hill",
    "bench",
    "countertop",
    "stove",
    "palm",
    "kitchen island",
    "computer",
    "swivel chair",
    "boat",
    "bar",
    "arcade machine",
    "hovel",
    "bus",
    "towel",
    "light",
    "truck",
    "tower",
    "chandelier",
    "awning",
    "streetlight",
    "booth",
    "television receiver",
    "airplane",
    "dirt track",
    "apparel",
    "pole",
    "land",
    "bannister",
    "escalator",
    "ottoman",
    "bottle",
    "buffet",
    "poster",
    "stage",
    "van",
    "ship",
    "fountain",
    "conveyer belt",
    "canopy",
    "washer",
    "plaything",
    "swimming pool",
    "stool",
    "barrel",
    "basket",
    "waterfall",
    "tent",
    "bag",
    "minibike",
    "cradle",
    "oven",
    "ball",
    "food",
    "step",
    "tank",
    "trade name",
    "microwave",
    "pot",
    "animal",
    "bicycle",
    "lake",
    "dishwasher",
    "screen",
    "blanket",
    "sculpture",
    "hood",
    "sconce",
    "vase",
    "traffic light",
    "tray",
    "ashcan",
    "fan",
    "pier",
    "crt screen",
    "plate",
    "monitor",
    "bulletin board",
    "shower",
    "radiator",
    "glass",
    "clock",
    "flag",
];

/// mmsegmentation's ADE20K palette (same file), by reduced class id.
const ADE20K_PALETTE: [[u8; 3]; 150] = [
    [120, 120, 120],
    [180, 120, 120],
    [6, 230, 230],
    [80, 50, 50],
    [4, 200, 3],
    [120, 120, 80],
    [140, 140, 140],
    [204, 5, 255],
    [230, 230, 230],
    [4, 250, 7],
    [224, 5, 255],
    [235, 255, 7],
    [150, 5, 61],
    [120, 120, 70],
    [8, 255, 51],
    [255, 6, 82],
    [143, 255, 140],
    [204, 255, 4],
    [255, 51, 7],
    [204, 70, 3],
    [0, 102, 200],
    [61, 230, 250],
    [255, 6, 51],
    [11, 102, 255],
    [255, 7, 71],
    [255, 9, 224],
    [9, 7, 230],
    [220, 220, 220],
    [255, 9, 92],
    [112, 9, 255],
    [8, 255, 214],
    [7, 255, 224],
    [255, 184, 6],
    [10, 255, 71],
    [255, 41, 10],
    [7, 255, 255],
    [224, 255, 8],
    [102, 8, 255],
    [255, 61, 6],
    [255, 194, 7],
    [255, 122, 8],
    [0, 255, 20],
    [255, 8, 41],
    [255, 5, 153],
    [6, 51, 255],
    [235, 12, 255],
    [160, 150, 20],
    [0, 163, 255],
    [140, 140, 140],
    [250, 10, 15],
    [20, 255, 0],
    [31, 255, 0],
    [255, 31, 0],
    [255, 224, 0],
    [153, 255, 0],
    [0, 0, 255],
    [255, 71, 0],
    [0, 235, 255],
    [0, 173, 255],
    [31, 0, 255],
    [11, 200, 200],
    [255, 82, 0],
    [0, 255, 245],
    [0, 61, 255],
    [0, 255, 112],
    [0, 255, 133],
    [255, 0, 0],
    [255, 163, 0],
    [255, 102, 0],
    [194, 255, 0],
    [0, 143, 255],
    [51, 255, 0],
    [0, 82, 255],
    [0, 255, 41],
    [0, 255, 173],
    [10, 0, 255],
    [173, 255, 0],
    [0, 255, 153],
    [255, 92, 0],
    [255, 0, 255],
    [255, 0, 245],
    [255, 0, 102],
    [255, 173, 0],
    [255, 0, 20],
    [255, 184, 184],
    [0, 31, 255],
    [0, 255, 61],
    [0, 71, 255],
    [255, 0, 204],
    [0, 255, 194],
    [0, 255, 82],
    [0, 10, 255],
    [0, 112, 255],
    [51, 0, 255],
    [0, 194, 255],
    [0, 122, 255],
    [0, 255, 163],
    [255, 153, 0],
    [0, 255, 10],
    [255, 112, 0],
    [143, 255, 0],
    [82, 0, 255],
    [163, 255, 0],
    [255, 235, 0],
    [8, 184, 170],
    [133, 0, 255],
    [0, 255, 92],
    [184, 0, 255],
    [255, 0, 31],
    [0, 184, 255],
    [0, 214, 255],
    [255, 0, 112],
    [92, 255, 0],
    [0, 224, 255],
    [112, 224, 255],
    [70, 184, 160],
    [163, 0, 255],
    [153, 0, 255],
    [71, 255, 0],
    [255, 0, 163],
    [255, 204, 0],
    [255, 0, 143],
    [0, 255, 235],
    [133, 255, 0],
    [255, 0, 235],
    [245, 0, 255],
    [255, 0, 122],
    [255, 245, 0],
    [10, 190, 212],
    [214, 255, 0],
    [0, 204, 255],
    [20, 0, 255],
    [255, 255, 0],
    [0, 153, 255],
    [0, 41, 255],
    [0, 255, 204],
    [41, 0, 255],
    [41, 255, 0],
    [173, 0, 255],
    [0, 245, 255],
    [71, 0, 255],
    [122, 0, 255],
    [0, 255, 184],
    [0, 92, 255],
    [184, 255, 0],
    [0, 133, 255],
    [255, 214, 0],
    [25, 194, 194],
    [102, 255, 0],
    [92, 0, 255],
];

pub const ADE20K: Preset = Preset {
    name: "ade20k",
    num_classes: 150,
    ignore_index: 255,
    reduce_zero_label: true,
    classes: ADE20K_CLASSES,
    palette: || ADE20K_PALETTE.to_vec(),
    // Colour renderings draw the "other" label (0, void after reduce_zero_label) black.
    void_colours: &[[0, 0, 0]],
    traps: &[
        "0 means 'other', classes are 1..150: without reduce_zero_label id 150 is out of range: LG106",
        "after reduce_zero_label the 'other' pixels are 255: cross_entropy needs ignore_index=255",
    ],
};

// Pascal VOC 2012 segmentation: 20 object classes plus background, 255 marks object borders
// and difficult regions ("void"). Class list and colour map from the VOCdevkit
// (http://host.robots.ox.ac.uk/pascal/VOC/voc2012/, devkit_doc.pdf section 3 and
// VOCcode/VOClabelcolormap.m). The masks are palette PNGs whose index is the class id.
const VOC_CLASSES: &[&str] = &[
    "background",
    "aeroplane",
    "bicycle",
    "bird",
    "boat",
    "bottle",
    "bus",
    "car",
    "cat",
    "chair",
    "cow",
    "diningtable",
    "dog",
    "horse",
    "motorbike",
    "person",
    "pottedplant",
    "sheep",
    "sofa",
    "train",
    "tvmonitor",
];

/// VOClabelcolormap.m: the bits of the class id, interleaved into the high bits of R, G, B.
pub fn voc_colormap(n: usize) -> Vec<[u8; 3]> {
    (0..n)
        .map(|i| {
            let (mut r, mut g, mut b) = (0u8, 0u8, 0u8);
            let mut c = i;
            for j in 0..8 {
                r |= ((c & 1) as u8) << (7 - j);
                g |= (((c >> 1) & 1) as u8) << (7 - j);
                b |= (((c >> 2) & 1) as u8) << (7 - j);
                c >>= 3;
            }
            [r, g, b]
        })
        .collect()
}

pub const PASCAL_VOC: Preset = Preset {
    name: "pascal-voc",
    num_classes: 21,
    ignore_index: 255,
    reduce_zero_label: false,
    classes: VOC_CLASSES,
    palette: || voc_colormap(21),
    // Index 255 of the VOC colour map: the cream-coloured object borders.
    void_colours: &[[224, 224, 192]],
    traps: &[
        "object borders are 255: cross_entropy needs ignore_index=255: LG103",
        "the masks are palette PNGs: cv2.imread or .convert('RGB') turns them into colour masks: LG606",
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_one_entry_per_class() {
        for p in PRESETS {
            assert_eq!(p.classes.len(), p.num_classes as usize, "{}", p.name);
            assert_eq!((p.palette)().len(), p.num_classes as usize, "{}", p.name);
        }
        assert_eq!(by_name("VOC").unwrap().name, "pascal-voc");
        assert_eq!(by_name("Cityscapes").unwrap().num_classes, 19);
        assert!(by_name("coco").is_none());
    }

    #[test]
    fn voc_colormap_matches_the_devkit() {
        let cmap = voc_colormap(256);
        assert_eq!(cmap[0], [0, 0, 0]);
        assert_eq!(cmap[1], [128, 0, 0]);
        assert_eq!(cmap[15], [192, 128, 128]); // person
        assert_eq!(cmap[255], [224, 224, 192]); // void border colour
    }

    #[test]
    fn an_unknown_preset_gets_the_closest_name() {
        assert_eq!(edits("kitten", "sitting"), 3);
        let m = unknown("citiscapes", "citiscapes");
        assert!(m.ends_with("did you mean 'cityscapes'?"), "{m}");
        assert!(unknown("pascal-vok", "pascal-vok").ends_with("did you mean 'pascal-voc'?"));
        assert!(unknown("ADE-20k", "ADE-20k").ends_with("did you mean 'ade20k'?"));
        let m = unknown("coco", "coco");
        assert_eq!(
            m,
            "unknown preset 'coco' (known: cityscapes, ade20k, pascal-voc)"
        );
    }

    #[test]
    fn cityscapes_label_to_train_ids_cover_the_19_classes() {
        let mut seen: Vec<u8> = CITYSCAPES_LABEL_TO_TRAIN
            .iter()
            .copied()
            .filter(|&t| t != 255)
            .collect();
        seen.sort();
        assert_eq!(seen, (0..19).collect::<Vec<u8>>());
        assert_eq!(CITYSCAPES_LABEL_TO_TRAIN[7], 0); // road
        assert_eq!(CITYSCAPES_LABEL_TO_TRAIN[26], 13); // car
                                                       // The trainIds' names come from the labelIds' (cityscapesScripts' labels.py).
        assert_eq!(CITYSCAPES_CLASSES[0], "road");
        assert_eq!(CITYSCAPES_CLASSES[7], "traffic sign");
        assert_eq!(CITYSCAPES_CLASSES[13], "car");
        assert_eq!(CITYSCAPES_CLASSES[18], "bicycle");
        assert!(CITYSCAPES_CLASSES.iter().all(|n| !n.is_empty()));
    }
}
