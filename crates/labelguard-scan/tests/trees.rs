//! Standard trees read as what they are: ImageFolder trees of PNG photos are classification
//! datasets (never colour masks), colour masks beside their images keep their LG606, and the
//! folders of models (a diffusers pipeline, weights beside a configuration) are never labels.
//! The same trees saved by the real libraries are in `python/tests/test_model_trees.py`.

mod common;

use common::{classes, opts, scan};
use labelguard_formats::fixtures::*;
use labelguard_scan::config::Overrides;
use labelguard_scan::report::ScanReport;
use std::path::Path;

/// (path below the scanned root, code) of every finding; dataset findings have the path "".
fn codes(r: &ScanReport, root: &Path) -> Vec<(String, String)> {
    let root = root.to_string_lossy().into_owned() + "/";
    r.all_findings()
        .map(|f| {
            let p = f.path.as_deref().unwrap_or_default();
            (
                p.strip_prefix(&root).unwrap_or(p).to_string(),
                f.finding.code.to_string(),
            )
        })
        .collect()
}

/// A photo's pixels: every pixel a colour of its own (a deterministic noise).
fn photo_rgb(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..w * h * 3)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

/// A grey photo (an MNIST-like digit): a smooth ramp of 200 shades.
fn photo_grey(w: u32, h: u32) -> Vec<u8> {
    (0..w * h).map(|i| (i * 200 / (w * h)) as u8).collect()
}

/// A colour mask: bands of three colours.
fn colour_mask(w: u32, h: u32) -> Vec<u8> {
    let colours = [[128u8, 64, 128], [70, 70, 70], [220, 20, 60]];
    (0..w * h)
        .flat_map(|i| colours[(i / w * 3 / h) as usize])
        .collect()
}

fn plain() -> labelguard_scan::config::ScanOptions {
    opts(Overrides::default())
}

#[test]
fn png_photos_in_class_folders_are_an_image_folder() {
    let d = tempfile::tempdir().unwrap();
    // timm's and torchvision's layout, scanned at the split: `train/<class>/<image>.png`.
    let train = d.path().join("train");
    for (i, rel) in ["cat/0.png", "cat/1.png", "dog/0.png", "fish/0.png"]
        .iter()
        .enumerate()
    {
        put(&train, rel, &png_rgb(24, 24, &photo_rgb(24, 24, i as u32)));
    }
    let r = scan(&train, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "imagefolder");
    assert!(codes(&r, &train).is_empty(), "{:?}", codes(&r, &train));
    let names: Vec<_> = r
        .histogram
        .classes
        .values()
        .map(|c| c.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["cat", "dog", "fish"]);
    // The dataset's root with its splits, and grey photos (MNIST saved as PNG folders).
    let root = d.path().join("mnist");
    for rel in [
        "train/0/a.png",
        "train/1/b.png",
        "test/0/c.png",
        "test/1/d.png",
    ] {
        put(&root, rel, &png_gray8(28, 28, &photo_grey(28, 28)));
    }
    let r = scan(&root, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "imagefolder");
    assert_eq!(r.summary.errors, 0, "{:?}", codes(&r, &root));
}

#[test]
fn colour_masks_beside_their_images_keep_lg606() {
    let d = tempfile::tempdir().unwrap();
    // CamVid-style: `images/` beside `labels/` of RGB colour masks.
    let root = d.path().join("camvid");
    for stem in ["a", "b"] {
        put(
            &root,
            &format!("images/{stem}.png"),
            &png_rgb(24, 24, &photo_rgb(24, 24, 7)),
        );
        put(
            &root,
            &format!("labels/{stem}.png"),
            &png_rgb(24, 24, &colour_mask(24, 24)),
        );
    }
    let r = scan(&root, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "paired");
    let found = codes(&r, &root);
    for stem in ["a", "b"] {
        assert!(
            found.contains(&(format!("labels/{stem}.png"), "LG606".into())),
            "{found:?}"
        );
    }
    // The masks' folder beside its images' folder (`train/` + `train_labels/`) is no
    // ImageFolder of two classes: the colour masks are still read as masks.
    let kaggle = d.path().join("kaggle");
    put(
        &kaggle,
        "train/a.png",
        &png_rgb(24, 24, &photo_rgb(24, 24, 3)),
    );
    put(
        &kaggle,
        "train_labels/a_L.png",
        &png_rgb(24, 24, &colour_mask(24, 24)),
    );
    let r = scan(&kaggle, &plain());
    assert_ne!(r.settings.layouts[0].as_str(), "imagefolder");
    assert!(codes(&r, &kaggle).contains(&("train_labels/a_L.png".into(), "LG606".into())));
    // Colour masks in class-like folders (one per city) are masks, not photos: few colours.
    let cities = d.path().join("cities");
    put(
        &cities,
        "aachen/a.png",
        &png_rgb(24, 24, &colour_mask(24, 24)),
    );
    put(
        &cities,
        "bonn/b.png",
        &png_rgb(24, 24, &colour_mask(24, 24)),
    );
    let r = scan(&cities, &plain());
    assert_ne!(r.settings.layouts[0].as_str(), "imagefolder");
    assert_eq!(
        codes(&r, &cities),
        [
            ("aachen/a.png".to_string(), "LG606".to_string()),
            ("bonn/b.png".to_string(), "LG606".to_string())
        ]
    );
}

#[test]
fn palette_and_grey_masks_in_class_like_folders_stay_masks() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("seg");
    let m = scene(24, 24, &[0, 1, 2], 9);
    put(
        &root,
        "aachen/a.png",
        &png_palette(24, 24, &m, &labelguard_scan::preset::voc_colormap(256)),
    );
    put(&root, "bonn/b.png", &png_gray8(24, 24, &m));
    let r = scan(&root, &opts(classes(5, 255)));
    assert_ne!(r.settings.layouts[0].as_str(), "imagefolder");
    // Read as masks: the id 9 beyond 5 classes is found in both.
    let found = codes(&r, &root);
    for f in ["aachen/a.png", "bonn/b.png"] {
        assert!(found.contains(&(f.into(), "LG101".into())), "{found:?}");
    }
}

/// A fake diffusers pipeline as `save_pretrained` lays it out: a text encoder of `rows` rows,
/// a tokenizer of `tokens` tokens, and float weights in `unet/` and `vae/`.
fn pipeline(root: &Path, rows: usize, tokens: usize) {
    put(
        root,
        "model_index.json",
        br#"{"_class_name": "StableDiffusionPipeline", "text_encoder": ["transformers", "CLIPTextModel"], "tokenizer": ["transformers", "CLIPTokenizer"], "unet": ["diffusers", "UNet2DConditionModel"]}"#,
    );
    let floats = vec![0u8; 4 * 8];
    for comp in ["unet", "vae"] {
        put(
            root,
            &format!("{comp}/config.json"),
            br#"{"_class_name": "X"}"#,
        );
        put(
            root,
            &format!("{comp}/diffusion_pytorch_model.safetensors"),
            &safetensors("conv.weight", "F32", &[2, 4], &floats),
        );
    }
    put(
        root,
        "scheduler/scheduler_config.json",
        br#"{"_class_name": "PNDMScheduler"}"#,
    );
    put(
        root,
        "text_encoder/config.json",
        format!(r#"{{"architectures": ["CLIPTextModel"], "model_type": "clip_text_model", "vocab_size": {rows}, "max_position_embeddings": 8}}"#).as_bytes(),
    );
    put(
        root,
        "text_encoder/model.safetensors",
        &safetensors(
            "text_model.embeddings.token_embedding.weight",
            "F32",
            &[rows, 1],
            &vec![0u8; rows * 4],
        ),
    );
    let vocab: Vec<String> = (0..tokens).map(|i| format!("\"t{i}\": {i}")).collect();
    put(
        root,
        "tokenizer/vocab.json",
        format!("{{{}}}", vocab.join(", ")).as_bytes(),
    );
    put(root, "tokenizer/merges.txt", b"#version: 0.2\n");
    put(
        root,
        "tokenizer/tokenizer_config.json",
        br#"{"pad_token": "t0", "model_max_length": 8}"#,
    );
}

#[test]
fn a_diffusers_pipeline_is_read_as_models_not_labels() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("sd");
    pipeline(&root, 40, 40);
    let r = scan(&root, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "model");
    assert!(codes(&r, &root).is_empty(), "{:?}", codes(&r, &root));
    assert_eq!(r.summary.files_scanned, 1, "the text encoder, once");
    // The text encoder is checked against the pipeline's tokenizer.
    let grown = d.path().join("grown");
    pipeline(&grown, 40, 44);
    let r = scan(&grown, &plain());
    assert_eq!(
        codes(&r, &grown),
        [("text_encoder/config.json".to_string(), "LG809".to_string())]
    );
    // Inside a folder of data, the pipeline is a dataset of its own and its weights are no
    // label arrays.
    let mixed = d.path().join("mixed");
    pipeline(&mixed.join("sd"), 40, 40);
    put(
        &mixed,
        "data/labels.npy",
        &npy(
            "<i8",
            &[2],
            &[1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0],
        ),
    );
    let r = scan(&mixed, &plain());
    assert!(
        codes(&r, &mixed).iter().all(|(_, c)| c != "LG201"),
        "{:?}",
        codes(&r, &mixed)
    );
    assert!(r.settings.layouts.iter().any(|l| l.as_str() == "model"));
}

#[test]
fn weights_beside_a_configuration_are_never_labels() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("run");
    put(
        &root,
        "masks/a.png",
        &png_gray8(8, 8, &scene(8, 8, &[0, 1], 1)),
    );
    // A UNet saved on its own, a PEFT adapter, a Lightning checkpoint.
    let floats = safetensors("w", "F32", &[2], &[0u8; 8]);
    put(
        &root,
        "unet/config.json",
        br#"{"_class_name": "UNet2DModel"}"#,
    );
    put(&root, "unet/diffusion_pytorch_model.safetensors", &floats);
    put(
        &root,
        "adapter/adapter_config.json",
        br#"{"peft_type": "LORA", "r": 8}"#,
    );
    put(&root, "adapter/adapter_model.safetensors", &floats);
    // A dataset's own config.json beside its label arrays in safetensors: no model's.
    put(&root, "arrays/config.json", br#"{"num_classes": 3}"#);
    put(
        &root,
        "arrays/labels.safetensors",
        &safetensors("labels", "F32", &[2], &[0u8; 8]),
    );
    let r = scan(&root, &plain());
    let found = codes(&r, &root);
    assert_eq!(
        found,
        [("arrays/labels.safetensors".to_string(), "LG201".to_string())],
        "only the dataset's float labels"
    );
}

#[test]
fn a_folder_of_colour_photos_is_no_folder_of_colour_masks() {
    let d = tempfile::tempdir().unwrap();
    // DreamBooth's instance images: photos without labels.
    let root = d.path().join("dog");
    for i in 0..3 {
        put(
            &root,
            &format!("{i}.png"),
            &png_rgb(24, 24, &photo_rgb(24, 24, i)),
        );
    }
    let r = scan(&root, &plain());
    assert!(codes(&r, &root).is_empty(), "{:?}", codes(&r, &root));
    assert_eq!(r.summary.files_scanned, 3);
    assert!(
        r.histogram.classes.is_empty(),
        "photos are no class's samples"
    );
    // JPEG photos and nothing else (DCGAN's celeba folder): photos, not "nothing to scan".
    let celeba = d.path().join("celeba");
    put(&celeba, "img_align_celeba/000001.jpg", &jpeg_stub(8, 8));
    put(
        &celeba,
        "img_align_celeba/000002.jpg",
        &jpeg_stub(8, 8)[..30],
    );
    let r = scan(&celeba, &plain());
    assert_eq!(
        codes(&r, &celeba),
        [(
            "img_align_celeba/000002.jpg".to_string(),
            "LG602".to_string()
        )],
        "a truncated photo is still found"
    );
    // Colour masks resized with interpolation: hundreds of blended colours at the borders,
    // but the class colours cover most pixels. Still colour masks.
    let masks = d.path().join("resized");
    let (w, h) = (64u32, 64u32);
    let mut rgb = colour_mask(w, h);
    for y in 0..h {
        // A blended border band two rows high, between every pair of bands.
        if y % 21 < 2 {
            for x in 0..w {
                let i = ((y * w + x) * 3) as usize;
                rgb[i] = (x * 4) as u8;
                rgb[i + 1] = (y * 4 + x) as u8;
                rgb[i + 2] = 255 - (x * 3) as u8;
            }
        }
    }
    put(&masks, "a.png", &png_rgb(w, h, &rgb));
    let r = scan(&masks, &plain());
    assert_eq!(
        codes(&r, &masks),
        [("a.png".to_string(), "LG606".to_string())]
    );
    // A folder named as masks holds masks, whatever its pixels.
    let named = d.path().join("named");
    put(
        &named,
        "masks/a.png",
        &png_rgb(24, 24, &photo_rgb(24, 24, 1)),
    );
    let r = scan(&named, &plain());
    assert_eq!(
        codes(&r, &named),
        [("masks/a.png".to_string(), "LG606".to_string())]
    );
}

#[test]
fn a_captioned_image_folder_is_photos_and_captions() {
    // diffusers' text-to-image fine-tuning data: `datasets`' image folder with captions.
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("pokemon");
    let mut meta = String::new();
    for i in 0..3 {
        put(
            &root,
            &format!("train/{i}.png"),
            &png_rgb(24, 24, &photo_rgb(24, 24, i)),
        );
        meta += &format!(
            "{{\"file_name\": \"{i}.png\", \"text\": \"a drawing of a green pokemon\"}}\n"
        );
    }
    put(&root, "train/metadata.jsonl", meta.as_bytes());
    let r = scan(&root, &plain());
    assert!(codes(&r, &root).is_empty(), "{:?}", codes(&r, &root));
    // A label column it holds is checked.
    put(
        &root,
        "train/metadata.jsonl",
        b"{\"file_name\": \"0.png\", \"label\": 7}\n",
    );
    let r = scan(
        &root,
        &opts(Overrides {
            num_classes: Some(5),
            ..Overrides::default()
        }),
    );
    assert!(codes(&r, &root).contains(&("train/metadata.jsonl".to_string(), "LG101".to_string())));
}

/// CamVid's 32 classes as the Kaggle copy's `class_dict.csv` lists them (the first rows and
/// the grey ones; the rest follow the same pattern), with the header the loaders read.
const CAMVID: &[(&str, [u8; 3])] = &[
    ("Animal", [64, 128, 64]),
    ("Archway", [192, 0, 128]),
    ("Bicyclist", [0, 128, 192]),
    ("Bridge", [0, 128, 64]),
    ("Building", [128, 0, 0]),
    ("Car", [64, 0, 128]),
    ("CartLuggagePram", [64, 0, 192]),
    ("Child", [192, 128, 64]),
    ("Column_Pole", [192, 192, 128]),
    ("Fence", [64, 64, 128]),
    ("LaneMkgsDriv", [128, 0, 192]),
    ("LaneMkgsNonDriv", [192, 0, 64]),
    ("Misc_Text", [128, 128, 64]),
    ("MotorcycleScooter", [192, 0, 192]),
    ("OtherMoving", [128, 64, 64]),
    ("ParkingBlock", [64, 192, 128]),
    ("Pedestrian", [64, 64, 0]),
    ("Road", [128, 64, 128]),
    ("RoadShoulder", [128, 128, 192]),
    ("Sidewalk", [0, 0, 192]),
    ("SignSymbol", [192, 128, 128]),
    ("Sky", [128, 128, 128]),
    ("SUVPickupTruck", [64, 128, 192]),
    ("TrafficCone", [0, 0, 64]),
    ("TrafficLight", [0, 64, 64]),
    ("Train", [192, 64, 128]),
    ("Tree", [128, 128, 0]),
    ("Truck_Bus", [192, 128, 192]),
    ("Tunnel", [64, 0, 64]),
    ("VegetationMisc", [192, 192, 0]),
    ("Void", [0, 0, 0]),
    ("Wall", [64, 192, 0]),
];

/// A CamVid mask: class `(x + y * w + seed) % 32` at each pixel, in its colour.
fn camvid_mask(w: u32, h: u32, seed: u32) -> Vec<u8> {
    (0..w * h)
        .flat_map(|i| CAMVID[((i + seed) % 32) as usize].1)
        .collect()
}

/// The Kaggle copy of CamVid: `class_dict.csv`, and for each split two photos in `<split>/`
/// with their colour masks `<split>_labels/<stem>_L.png`.
fn kaggle_camvid(root: &Path) {
    let mut csv = String::from("name,r,g,b\n");
    for (name, [r, g, b]) in CAMVID {
        csv += &format!("{name},{r},{g},{b}\n");
    }
    put(root, "class_dict.csv", csv.as_bytes());
    for (s, split) in ["train", "val", "test"].iter().enumerate() {
        for i in 0..2u32 {
            let stem = format!("0001TP_00{s}{i}");
            let seed = s as u32 * 2 + i;
            let photo = png_rgb(32, 24, &photo_rgb(32, 24, seed));
            put(root, &format!("{split}/{stem}.png"), &photo);
            let mask = png_rgb(32, 24, &camvid_mask(32, 24, seed));
            put(root, &format!("{split}_labels/{stem}_L.png"), &mask);
        }
    }
}

#[test]
fn kaggle_camvid_masks_are_mapped_with_its_class_dict() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("CamVid");
    kaggle_camvid(&root);
    // A mask of grey class colours only (Sky and Void): still a colour mask of the dataset,
    // not a grey mask saved as RGB.
    let grey: Vec<u8> = (0..32 * 24)
        .flat_map(|i| if i % 2 == 0 { [128u8; 3] } else { [0u8; 3] })
        .collect();
    put(
        &root,
        "val_labels/0001TP_0011_L.png",
        &png_rgb(32, 24, &grey),
    );
    let r = scan(&root, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "camvid");
    assert!(codes(&r, &root).is_empty(), "{:?}", codes(&r, &root));
    assert_eq!(r.summary.errors, 0);
    // The class count and names are the file's rows, in order.
    assert_eq!(r.settings.num_classes, Some(32));
    let names: Vec<String> = CAMVID.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(r.settings.class_names, names);
    // Every pixel mapped to its row's id: 6 masks of 768 pixels, Sky = 21 and Void = 30.
    let count = |id: i64| r.histogram.classes.get(&id).map_or(0, |c| c.count);
    let total: u64 = r.histogram.classes.values().map(|c| c.count).sum();
    assert_eq!(total, 6 * 32 * 24);
    assert!(count(21) >= 384 && count(30) >= 384, "{:?}", r.histogram);
    // In a parent folder beside other data, the tree is still CamVid.
    put(d.path(), "notes/readme.md", b"CamVid");
    let r = scan(d.path(), &plain());
    assert!(r.settings.layouts.iter().any(|l| l.as_str() == "camvid"));
    assert_eq!(r.summary.errors, 0, "{:?}", codes(&r, d.path()));
}

#[test]
fn a_colour_outside_class_dict_is_named_with_its_pixels_and_file() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("CamVid");
    kaggle_camvid(&root);
    // Six pixels of a colour class_dict.csv does not list (a blended border).
    let mut mask = camvid_mask(32, 24, 1);
    for px in [0usize, 1, 2, 32, 33, 34] {
        mask[px * 3..px * 3 + 3].copy_from_slice(&[10, 20, 30]);
    }
    put(
        &root,
        "train_labels/0001TP_0001_L.png",
        &png_rgb(32, 24, &mask),
    );
    // A mask without its image, and an image without its mask.
    put(
        &root,
        "val_labels/lost_L.png",
        &png_rgb(32, 24, &camvid_mask(32, 24, 0)),
    );
    put(
        &root,
        "test/alone.png",
        &png_rgb(32, 24, &photo_rgb(32, 24, 9)),
    );
    let r = scan(&root, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "camvid");
    let mut found = codes(&r, &root);
    found.sort();
    assert_eq!(
        found,
        [
            ("test/alone.png".to_string(), "LG608".to_string()),
            ("train_labels/0001TP_0001_L.png".into(), "LG621".into()),
            ("val_labels/lost_L.png".into(), "LG608".into()),
        ]
    );
    let f = r
        .all_findings()
        .find(|f| f.finding.code == "LG621")
        .unwrap();
    assert_eq!(f.finding.count, Some(6));
    assert!(
        f.finding.message.starts_with(
            "6 of 768 pixels have colours that class_dict.csv does not list: (10, 20, 30) (6 px)"
        ),
        "{}",
        f.finding.message
    );
    assert_eq!(f.finding.locations[0].index, [0, 0]);
    assert_eq!(f.finding.locations[3].index, [1, 0]);
}

#[test]
fn a_class_dict_its_loaders_cannot_read_is_lg622() {
    let d = tempfile::tempdir().unwrap();
    for (csv, words) in [
        (
            "class,red,green,blue\nSky,128,128,128\n",
            "does not name the columns",
        ),
        ("name,r,g,b\nSky,128,300,128\n", "line 2: 'Sky,128,300,128'"),
        (
            "name,r,g,b\nSky,128,128,128\nCloud,128,128,128\n",
            "the colour (128, 128, 128) is listed twice, for 'Sky' (line 2) and 'Cloud' (line 3)",
        ),
    ] {
        let root = tempfile::tempdir_in(d.path()).unwrap();
        let root = root.path();
        kaggle_camvid(root);
        put(root, "class_dict.csv", csv.as_bytes());
        let r = scan(root, &plain());
        assert_eq!(r.settings.layouts[0].as_str(), "camvid");
        let f = r
            .all_findings()
            .find(|f| f.finding.code == "LG622")
            .unwrap_or_else(|| panic!("{:?}", codes(&r, root)));
        assert!(f.finding.message.contains(words), "{}", f.finding.message);
        assert!(f.path.as_deref().unwrap().ends_with("class_dict.csv"));
        // Without its colours, the masks are colour masks of unknown classes (LG606).
        assert!(codes(&r, root).iter().any(|(_, c)| c == "LG606"));
    }
}

#[test]
fn segnet_camvid_pairs_each_split_with_its_annot_folder() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("CamVid");
    // The SegNet tutorial's copy: grey index masks 0..11 (11: unlabelled) named as their images.
    for split in ["train", "val", "test"] {
        for i in 0..2u8 {
            let ids: Vec<u8> = (0..32 * 24).map(|p| ((p + i as u32) % 12) as u8).collect();
            let photo = png_rgb(32, 24, &photo_rgb(32, 24, i as u32));
            put(&root, &format!("{split}/0001TP_00{i}.png"), &photo);
            put(
                &root,
                &format!("{split}annot/0001TP_00{i}.png"),
                &png_gray8(32, 24, &ids),
            );
        }
    }
    put(
        &root,
        "train.txt",
        b"/SegNet/CamVid/train/0001TP_000.png /SegNet/CamVid/trainannot/0001TP_000.png\n",
    );
    let r = scan(&root, &opts(classes(11, 11)));
    assert_eq!(
        r.settings.layouts,
        [labelguard_scan::layout_kind::LayoutKind::declared("camvid")]
    );
    assert!(codes(&r, &root).is_empty(), "{:?}", codes(&r, &root));
    // Each mask in its split, every id counted: 6 masks of 768 pixels, 64 or 65 per id.
    let road = &r.histogram.classes[&3];
    let splits: Vec<&str> = road.splits.keys().map(String::as_str).collect();
    assert_eq!(splits, ["test", "train", "val"]);
    let total: u64 = r.histogram.classes.values().map(|c| c.count).sum();
    assert_eq!(total, 6 * 32 * 24);
    // A mask without its image is named; a stray id beyond the 11 classes and the void 11 too.
    put(
        &root,
        "valannot/lost.png",
        &png_gray8(32, 24, &[12; 32 * 24]),
    );
    let r = scan(&root, &opts(classes(11, 11)));
    let mut found = codes(&r, &root);
    found.sort();
    assert_eq!(
        found,
        [
            ("valannot/lost.png".to_string(), "LG101".to_string()),
            ("valannot/lost.png".into(), "LG608".into()),
        ]
    );
}

#[test]
fn nested_class_folders_are_an_image_folder() {
    let d = tempfile::tempdir().unwrap();
    // torchvision walks each class folder (`os.walk`): images at any depth below it count.
    let root = d.path().join("train");
    for (i, rel) in [
        "cat/a/0.png",
        "cat/a/b/c/1.png",
        "cat/2.png",
        "dog/x/0.png",
        "owl/y/z/0.png",
    ]
    .iter()
    .enumerate()
    {
        put(&root, rel, &png_rgb(24, 24, &photo_rgb(24, 24, i as u32)));
    }
    put(&root, "owl/y/notes.txt", b"owls");
    let r = scan(&root, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "imagefolder");
    assert!(codes(&r, &root).is_empty(), "{:?}", codes(&r, &root));
    let rows: Vec<(String, u64)> = r
        .histogram
        .classes
        .values()
        .map(|c| (c.name.clone().unwrap(), c.count))
        .collect();
    assert_eq!(
        rows,
        [("cat".to_string(), 3), ("dog".into(), 1), ("owl".into(), 1)]
    );
    // An image directly in the root belongs to no class: not an ImageFolder tree.
    put(&root, "stray.png", &png_rgb(24, 24, &photo_rgb(24, 24, 9)));
    assert_ne!(
        scan(&root, &plain()).settings.layouts[0].as_str(),
        "imagefolder"
    );
}

#[test]
fn a_palette_given_on_a_camvid_tree_is_named_as_its_class_colours() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("CamVid");
    kaggle_camvid(&root);
    let mut mask = camvid_mask(32, 24, 1);
    mask[..3].copy_from_slice(&[10, 20, 30]);
    put(
        &root,
        "train_labels/0001TP_0001_L.png",
        &png_rgb(32, 24, &mask),
    );
    // The user's palette: the same 32 colours, one `r g b` a line.
    let mut text = String::new();
    for (_, [r, g, b]) in CAMVID {
        text += &format!("{r} {g} {b}\n");
    }
    put(d.path(), "camvid.pal", text.as_bytes());
    let pal = d.path().join("camvid.pal");
    let r = scan(
        &root,
        &opts(Overrides {
            palette: Some(pal.clone()),
            ..Overrides::default()
        }),
    );
    assert_eq!(r.settings.layouts[0].as_str(), "camvid");
    // The masks are the dataset's labels, mapped with the palette given: the one blended pixel
    // is LG621 naming that palette, never LG606's "where a class-index mask is expected".
    assert_eq!(
        codes(&r, &root),
        [(
            "train_labels/0001TP_0001_L.png".to_string(),
            "LG621".to_string()
        )]
    );
    let f = r.all_findings().next().unwrap();
    let expected = format!(
        "1 of 768 pixels have colours that the palette {} does not list: (10, 20, 30) (1 px)",
        pal.display()
    );
    assert!(
        f.finding.message.starts_with(&expected),
        "{}",
        f.finding.message
    );
}

/// A CVAT "Segmentation mask 1.1" export: `labelmap.txt`, RGB colour masks in
/// `SegmentationClass/`, images in `JPEGImages/` and the list `ImageSets/Segmentation/`.
fn cvat_export(root: &Path, labelmap: &str) {
    put(root, "labelmap.txt", labelmap.as_bytes());
    let mut list = String::new();
    for i in 0..2u32 {
        let stem = format!("frame_{i:06}");
        put(
            root,
            &format!("JPEGImages/{stem}.png"),
            &png_rgb(16, 8, &photo_rgb(16, 8, i)),
        );
        let mask: Vec<u8> = (0..16 * 8u32)
            .flat_map(|p| [[0u8, 0, 0], [250, 50, 83], [51, 221, 255]][((p + i) % 3) as usize])
            .collect();
        put(
            root,
            &format!("SegmentationClass/{stem}.png"),
            &png_rgb(16, 8, &mask),
        );
        list += &format!("{stem}\n");
    }
    put(root, "ImageSets/Segmentation/default.txt", list.as_bytes());
}

const CVAT_LABELMAP: &str =
    "# label:color_rgb:parts:actions\nbackground:0,0,0::\ncar:250,50,83::\nperson:51,221,255::\n";

#[test]
fn a_cvat_labelmap_is_the_class_colours_of_its_masks() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("cvat");
    cvat_export(&root, CVAT_LABELMAP);
    let r = scan(&root, &plain());
    assert_eq!(r.settings.layouts[0].as_str(), "voc");
    assert!(codes(&r, &root).is_empty(), "{:?}", codes(&r, &root));
    assert_eq!(r.settings.num_classes, Some(3));
    assert_eq!(r.settings.class_names, ["background", "car", "person"]);
    let total: u64 = r.histogram.classes.values().map(|c| c.count).sum();
    assert_eq!(total, 2 * 16 * 8);
    // A colour the labelmap lacks is LG621 naming it; a labelmap its reader refuses is LG622.
    let mut mask = vec![0u8; 16 * 8 * 3];
    mask[3..6].copy_from_slice(&[250, 50, 84]);
    put(
        &root,
        "SegmentationClass/frame_000000.png",
        &png_rgb(16, 8, &mask),
    );
    let r = scan(&root, &plain());
    let f = r.all_findings().next().unwrap();
    assert_eq!(f.finding.code, "LG621", "{:?}", codes(&r, &root));
    assert!(
        f.finding
            .message
            .starts_with("1 of 128 pixels have colours that labelmap.txt does not list"),
        "{}",
        f.finding.message
    );
    for (text, words) in [
        (
            "background:0,0,0::\ncar:250,50::\n",
            "line 2: 'car:250,50::'",
        ),
        (
            "car:1,2,3::\ncar:4,5,6::\n",
            "the class 'car' is listed twice (lines 1 and 2)",
        ),
        ("# label:color_rgb:parts:actions\n", "it lists no class"),
    ] {
        let root = tempfile::tempdir_in(d.path()).unwrap();
        let root = root.path();
        cvat_export(root, text);
        let r = scan(root, &plain());
        let f = r
            .all_findings()
            .find(|f| f.finding.code == "LG622")
            .unwrap_or_else(|| panic!("{:?}", codes(&r, root)));
        assert!(f.finding.message.contains(words), "{}", f.finding.message);
        assert!(f.path.as_deref().unwrap().ends_with("labelmap.txt"));
    }
}
