//! One target per parser: seeds (valid files generated in code) and the function that feeds
//! one input to the parser. A target passes an input when the parser returns, Ok or Err.

use labelguard_formats::fixtures as fx;
use labelguard_formats::read::table::{read_labels, TableFormat};
use labelguard_formats::read::tokens::{read_tokens, TokenFormat};
use std::io::Write;
use std::path::Path;

pub struct Target {
    pub name: &'static str,
    /// The file extension by which the command line recognises this target's inputs.
    pub ext: &'static str,
    pub seeds: fn() -> Vec<Vec<u8>>,
    /// Feeds one input; `file` is a scratch path the target may write the input to.
    pub run: fn(&[u8], &Path),
}

fn write(file: &Path, bytes: &[u8]) {
    let mut f = std::fs::File::create(file).expect("scratch file");
    f.write_all(bytes).expect("scratch write");
}

fn mask_seeds() -> Vec<Vec<u8>> {
    let ids: Vec<u8> = (0..32 * 16).map(|i| ((i % 32) / 7) as u8).collect();
    vec![
        fx::png_gray8(32, 16, &ids),
        fx::png_palette(32, 16, &ids, &[[1, 2, 3]; 6]),
        fx::png_gray16(8, 8, &[300; 64]),
        fx::png_rgb(4, 4, &[7; 48]),
        fx::png_bomb(64, 64),
    ]
}

fn tiff_seeds() -> Vec<Vec<u8>> {
    vec![
        fx::tiff_gray8(16, 8, &[3; 128]),
        fx::tiff_gray16(8, 8, &[9; 64]),
    ]
}

fn npy_seeds() -> Vec<Vec<u8>> {
    vec![
        fx::npy("|u1", &[4, 4], &[1; 16]),
        fx::npy("<i8", &[3], &[0; 24]),
        fx::npy("<f4", &[2, 2], &[0; 16]),
    ]
}

fn npz_seeds() -> Vec<Vec<u8>> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut out);
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.start_file("target.npy", o).expect("zip");
        z.write_all(&fx::npy("|u1", &[4, 4], &[1; 16]))
            .expect("zip");
        z.start_file("input.npy", o).expect("zip");
        z.write_all(&fx::npy("<f4", &[2], &[0; 8])).expect("zip");
        z.finish().expect("zip");
    }
    vec![out.into_inner()]
}

fn safetensors_seeds() -> Vec<Vec<u8>> {
    vec![
        fx::safetensors("target", "I64", &[2, 2], &[0; 32]),
        fx::safetensors("mask", "U8", &[3], &[1, 2, 3]),
    ]
}

fn tar_seeds() -> Vec<Vec<u8>> {
    let plain = fx::tar(&[
        ("000001.seg.png", &fx::png_gray8(2, 2, &[0, 1, 2, 3])),
        ("000001.cls", b"3"),
    ]);
    let mut long = fx::tar_member(
        "././@LongLink",
        b'L',
        format!("{}.png\0", "n".repeat(120)).as_bytes(),
    );
    long.extend(fx::tar_member(
        "PaxHeaders/1",
        b'x',
        b"20 path=pax/a.png\n11 size=2\n",
    ));
    long.extend(fx::tar_member("a.png", b'0', b"xy"));
    long.extend(fx::tar_member("dir/", b'5', b""));
    long.extend(fx::tar_member("GlobalHead", b'g', b"18 comment=hello\n"));
    long.extend(fx::tar(&[("../up.png", b"u"), ("/abs.png", b"a")]));
    let concatenated = [plain.clone(), vec![0; 512], fx::tar(&[("b.cls", b"1")])].concat();
    vec![plain, long, concatenated]
}

/// Indexes the input as a shard, from memory and from a file (the two must agree), and checks
/// that every member lies inside it.
fn tar(bytes: &[u8], file: &Path) {
    use labelguard_formats::read::tar::{index, index_file};
    let ix = index(bytes, bytes.len() as u64);
    for m in &ix.members {
        assert!(
            m.offset
                .checked_add(m.len)
                .is_some_and(|end| end <= bytes.len() as u64),
            "{m:?} outside {} bytes",
            bytes.len()
        );
    }
    write(file, bytes);
    assert_eq!(index_file(file).expect("scratch file"), ix);
}

fn voc_xml_seeds() -> Vec<Vec<u8>> {
    let mut odd = fx::voc_obj("persn", [12, 30, 50, 80]);
    odd.difficult = true;
    odd.truncated = true;
    vec![
        fx::voc_annotation(
            "000001.jpg",
            Some((353, 500)),
            &[fx::voc_obj("dog", [48, 240, 195, 371]), odd],
        ),
        fx::voc_annotation("a.jpg", None, &[]),
        b"<?xml version=\"1.0\"?><!-- c --><annotation><object><name>a&amp;b&#33;<![CDATA[c]]></name><part><name>head</name><bndbox/></part></object></annotation>".to_vec(),
    ]
}

fn tensors(b: &[u8], file: &Path) {
    write(file, b);
    let _ = labelguard_io::read_tensors(file, &labelguard_io::Limits::default());
    let _ = labelguard_io::read_metadata(file);
}

fn mask(b: &[u8], _: &Path) {
    let (mut out, mut aux) = (Vec::new(), Vec::new());
    let _ = labelguard_formats::read::mask::decode_mask(b, 1 << 24, &mut out, &mut aux);
}

fn table(b: &[u8], file: &Path, format: TableFormat) {
    write(file, b);
    let source = labelguard_formats::source::Source::File(file.to_path_buf());
    let _ = read_labels(&source, format, None, None, -1, 1 << 20);
}

fn coco_seeds() -> Vec<Vec<u8>> {
    vec![
        br#"{"info": {"year": 2017}, "licenses": [], "images": [{"id": 1, "file_name": "a.jpg", "width": 64, "height": 48}, {"id": 2, "file_name": "b.jpg", "width": 64, "height": 48}], "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 2, 30.5, 40], "area": 1220, "iscrowd": 0, "segmentation": [[1, 2, 31, 2, 31, 42]]}, {"id": 2, "image_id": 2, "category_id": 90, "bbox": [60, 0, -1, 1e2], "iscrowd": 1, "segmentation": {"size": [48, 64], "counts": "a\"b"}}, {"id": 2, "image_id": 9, "bbox": [NaN, 0, 1]}], "categories": [{"id": 1, "name": "cat"}, {"id": 90, "name": "d\u00e9j\u00e0"}]}"#
            .to_vec(),
        br#"{"categories": [{"id": 3, "name": "x"}], "annotations": [{"id": 1, "image_id": 1, "category_id": 3, "bbox": [0, 0, 1, 1]}, {"id": 1, "image_id": 1, "category_id": 3, "bbox": [0, 0, 1, 1]}], "images": [{"id": 1, "file_name": "a.jpg", "width": "64"}]}"#
            .to_vec(),
    ]
}

fn coco(b: &[u8], _: &Path) {
    static OPTS: std::sync::OnceLock<labelguard_scan::ScanOptions> = std::sync::OnceLock::new();
    let opts = OPTS.get_or_init(|| {
        let o = labelguard_scan::config::Overrides {
            num_classes: Some(3),
            ..Default::default()
        };
        labelguard_scan::ScanOptions::resolve(None, &o).expect("valid settings")
    });
    let ctx = labelguard_scan::analyze::Ctx::new(opts, &[]);
    let _ = labelguard_scan::analyze::detection::coco::coco_bytes(b, "instances.json", &ctx);
}

/// Token data as `datasets` 5.2.0 writes it (`labelguard-scan/tests/data/tokens/make.py`).
macro_rules! token_seed {
    ($rel:literal) => {
        include_bytes!(concat!("../../labelguard-scan/tests/data/tokens/", $rel)).to_vec()
    };
}

/// Reads every batch of a token file of `format`.
fn tokens(bytes: &[u8], file: &Path, format: TokenFormat) {
    write(file, bytes);
    let _ = read_tokens(file, format, 0, &mut |b| {
        let _ = b
            .cols
            .iter()
            .flatten()
            .map(|c| c.values.view().numel())
            .sum::<usize>();
    });
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "npy",
        ext: "npy",
        seeds: npy_seeds,
        run: tensors,
    },
    Target {
        name: "npz",
        ext: "npz",
        seeds: npz_seeds,
        run: tensors,
    },
    Target {
        name: "safetensors",
        ext: "safetensors",
        seeds: safetensors_seeds,
        run: tensors,
    },
    Target {
        name: "tar",
        ext: "tar",
        seeds: tar_seeds,
        run: tar,
    },
    Target {
        name: "brace",
        ext: "txt",
        seeds: || {
            vec![
                b"train-{000000..000127}.tar".to_vec(),
                b"{a,b{1..3}}-{x..z..2}::c\\{".to_vec(),
            ]
        },
        run: |b, _| {
            let _ = labelguard_formats::brace::expand(&String::from_utf8_lossy(b));
        },
    },
    Target {
        name: "png_fast",
        ext: "png",
        seeds: mask_seeds,
        run: |b, _| {
            let _ = labelguard_formats::read::fastpng::decode_u8(
                b,
                1 << 24,
                &mut Vec::new(),
                &mut Vec::new(),
            );
        },
    },
    Target {
        name: "png",
        ext: "png",
        seeds: mask_seeds,
        run: mask,
    },
    Target {
        name: "tiff",
        ext: "tif",
        seeds: tiff_seeds,
        run: mask,
    },
    Target {
        name: "csv",
        ext: "csv",
        seeds: || vec![b"path,label\na.png,1\nb.png,\"2\"\nc.png,cat\n".to_vec()],
        run: |b, f| table(b, f, TableFormat::Csv),
    },
    Target {
        name: "tsv",
        ext: "tsv",
        seeds: || vec![b"label\tpath\n0\ta\n3\tb\n".to_vec()],
        run: |b, f| table(b, f, TableFormat::Tsv),
    },
    Target {
        name: "jsonl",
        ext: "jsonl",
        seeds: || {
            vec![b"{\"label\": 1, \"p\": \"a\"}\n{\"label\": \"dog\"}\n{\"label\": 2.0}\n".to_vec()]
        },
        run: |b, f| table(b, f, TableFormat::Jsonl),
    },
    Target {
        name: "parquet",
        ext: "parquet",
        seeds: || vec![fx::parquet_labels(&[Some(1), None, Some(7), Some(-3)])],
        run: |b, f| table(b, f, TableFormat::Parquet),
    },
    Target {
        name: "arrow_tokens",
        ext: "arrow",
        seeds: || vec![token_seed!("disk/data-00000-of-00001.arrow")],
        run: |b, f| tokens(b, f, TokenFormat::Arrow),
    },
    Target {
        name: "parquet_tokens",
        ext: "parquet",
        seeds: || vec![token_seed!("tokens.parquet")],
        run: |b, f| tokens(b, f, TokenFormat::Parquet),
    },
    Target {
        name: "jsonl_tokens",
        ext: "jsonl",
        seeds: || vec![token_seed!("tokens.jsonl")],
        run: |b, f| tokens(b, f, TokenFormat::Jsonl),
    },
    Target {
        name: "coco",
        ext: "json",
        seeds: coco_seeds,
        run: coco,
    },
    Target {
        name: "diagnose",
        ext: "log",
        seeds: || {
            vec![b"/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n    loss.item()\nRuntimeError: CUDA error: device-side assert triggered\n".to_vec()]
        },
        run: |b, _| {
            let _ = labelguard_diagnose::diagnose_bytes(b, "log", Default::default());
        },
    },
    Target {
        name: "voc_xml",
        ext: "xml",
        seeds: voc_xml_seeds,
        run: |b, _| {
            let _ = labelguard_formats::read::voc_xml::parse(b);
        },
    },
    Target {
        name: "config",
        ext: "toml",
        seeds: || {
            // Every key kind: strings, numbers, booleans, lists, a float, a [[datasets]] table.
            vec![
                b"preset = \"cityscapes\"\nignore_index = 255\nmax_pixels = 268435456\nstrict = false\ninclude = [\"**/*.png\"]\nimbalance_ratio = 100.0\n"
                    .to_vec(),
                b"num_classes = 19\nclass_weights = \"w.json\"\n\n[[datasets]]\npath = \"labels.csv\"\nnum_classes = 10\nlabel_column = \"label\"\n"
                    .to_vec(),
            ]
        },
        run: |b, f| {
            let file = f.with_file_name("labelguard.toml");
            write(&file, b);
            let _ = labelguard_scan::ConfigFile::load(&file);
        },
    },
    Target {
        name: "yolo",
        ext: "txt",
        seeds: || {
            vec![
                b"0 0.5 0.5 0.2 0.2\n1 0.25 0.25 0.1 0.1\n".to_vec(),
                b"2 0.1 0.1 0.5 0.1 0.5 0.5 0.1 0.5\r\n0 nan 0.5 1e-3 +0.2 0.9\n\n  \ncat 1.5\n"
                    .to_vec(),
            ]
        },
        run: |b, _| yolo_lines(b),
    },
    Target {
        name: "data_yaml",
        ext: "yaml",
        seeds: || {
            vec![
                b"path: .\ntrain: images/train\nval: images/val\nnc: 2\nnames: [cat, dog]\n"
                    .to_vec(),
                b"names:\n  0: person\n  2: 'traffic light'\n  1: bicycle\n".to_vec(),
            ]
        },
        run: |b, _| {
            if let Ok(text) = std::str::from_utf8(b) {
                if let Ok(d) = labelguard_formats::read::data_yaml::DataYaml::parse(text) {
                    let _ = (d.class_count(), d.problems());
                }
            }
        },
    },
    Target {
        name: "model_config",
        ext: "json",
        seeds: || model_file_seed("config.json"),
        run: |b, f| model_dir(b, f, "config.json"),
    },
    Target {
        name: "tokenizer_json",
        ext: "json",
        seeds: || model_file_seed("tokenizer.json"),
        run: |b, f| model_dir(b, f, "tokenizer.json"),
    },
    Target {
        name: "tokenizer_config",
        ext: "json",
        seeds: || model_file_seed("tokenizer_config.json"),
        run: |b, f| model_dir(b, f, "tokenizer_config.json"),
    },
];

/// A model directory of valid files with `file` replaced by the input, read and checked (the
/// directory is the scratch path's sibling `model/`, rewritten for every input).
fn model_dir(b: &[u8], scratch: &Path, file: &str) {
    let dir = scratch.with_file_name("model");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    for (name, seed) in model_seeds() {
        write(&dir.join(name), if name == file { b } else { &seed });
    }
    if let Ok(spec) = labelguard_model::read_model_dir(&dir) {
        let _ = labelguard_core::model::check_model(&spec);
    }
}

/// The files of a small model directory: a VLM config (nested `text_config`, image tokens), a
/// WordPiece `tokenizer.json` with added tokens, a v4 `tokenizer_config.json`.
fn model_seeds() -> [(&'static str, Vec<u8>); 3] {
    [
        ("config.json", br#"{"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"], "image_token_index": 9, "image_seq_length": 4, "text_config": {"model_type": "llama", "vocab_size": 10, "max_position_embeddings": 64, "rope_theta": 10000.0, "eos_token_id": [2, 3], "pad_token_id": null}, "id2label": {"0": "a", "1": "b"}}"#.to_vec()),
        ("tokenizer.json", br#"{"version": "1.0", "added_tokens": [{"id": 0, "content": "[PAD]", "special": true}, {"id": 9, "content": "<image>", "special": true}, {"id": 10, "content": "new", "special": false}], "padding": {"pad_id": 0, "pad_token": "[PAD]"}, "model": {"type": "WordPiece", "vocab": {"[PAD]": 0, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8}}}"#.to_vec()),
        ("tokenizer_config.json", br#"{"added_tokens_decoder": {"11": {"content": "<x>", "special": true}}, "pad_token": {"content": "[PAD]"}, "extra_special_tokens": {"image_token": "<image>"}, "model_max_length": 1e30}"#.to_vec()),
    ]
}

fn model_file_seed(file: &str) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = model_seeds()
        .into_iter()
        .filter(|(name, _)| *name == file)
        .map(|(_, s)| s)
        .collect();
    // A Unigram vocabulary and an old GPT-2 style config, for the other shapes of each file.
    seeds.push(match file {
        "config.json" => br#"{"model_type": "roberta", "n_positions": 20, "n_vocab": 12, "pad_token_id": 1, "eos_token_id": 2, "type_vocab_size": 1}"#.to_vec(),
        "tokenizer.json" => br#"{"model": {"type": "Unigram", "vocab": [["<pad>", 0.0], ["a", -1.0], ["a", -2.0]]}, "added_tokens": []}"#.to_vec(),
        _ => br#"{"pad_token": "<pad>", "additional_special_tokens": ["<y>", {"content": "<z>"}]}"#.to_vec(),
    });
    seeds
}

/// Every step the YOLO analysis takes on a line: the parse, its shape, the class id and the
/// duplicate hash.
fn yolo_lines(b: &[u8]) {
    use labelguard_formats::read::yolo as y;
    let _ = y::looks_binary(b);
    let mut values = Vec::new();
    for (_, line) in y::lines(b) {
        if y::parse_line(line, &mut values) == y::Line::Numbers {
            let _ = y::shape(values.len());
            let _ = y::class_id(values[0]);
            let _ = y::row_hash(&values);
        }
    }
}
