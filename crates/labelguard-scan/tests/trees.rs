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
