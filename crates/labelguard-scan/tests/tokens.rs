//! Tokenized datasets (LG801-LG808): the files `datasets` 5.2.0 writes (`tests/data/tokens/`,
//! made by its `make.py`: a `save_to_disk` folder, Parquet, JSONL of the same six rows) scanned
//! against a model directory, and the readers on truncated, corrupted and ragged input.

mod common;

use common::{opts, scan};
use labelguard_formats::read::tokens::{read_tokens, TokenFormat};
use labelguard_scan::config::Overrides;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tokens")
        .join(rel)
}

/// A model directory: a Llama config of 50 ids and 3 positions (no tokenizer, no weights).
fn model_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("config.json"),
        r#"{"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 50,
            "max_position_embeddings": 3, "hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 2, "pad_token_id": 0}"#,
    )
    .expect("config");
    dir
}

/// `code -> rows` of the token findings of a scan, from the findings' locations.
fn rows_by_code(path: &Path, model: Option<&Path>) -> BTreeMap<String, BTreeSet<usize>> {
    let o = Overrides {
        model: model.map(Path::to_path_buf),
        ..Overrides::default()
    };
    let report = scan(path, &opts(o));
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for f in report.all_findings() {
        if f.finding.code.starts_with("LG80") {
            out.entry(f.finding.code.to_string())
                .or_default()
                .extend(f.finding.locations.iter().map(|l| l.index[0]));
        }
    }
    out
}

fn expected(with_model: bool) -> BTreeMap<String, BTreeSet<usize>> {
    let mut e: BTreeMap<String, BTreeSet<usize>> = [
        ("LG803", vec![2]),
        ("LG804", vec![3]),
        ("LG807", vec![4, 5]),
    ]
    .into_iter()
    .map(|(c, r)| (c.to_string(), r.into_iter().collect()))
    .collect();
    if with_model {
        e.insert("LG801".into(), [1].into());
        // Rows 1 and 3 hold 4 and 3 ids: row 1 is beyond the 3 positions.
        e.insert("LG805".into(), [1].into());
    }
    e
}

#[test]
fn the_three_formats_give_the_same_rows() {
    let m = model_dir();
    for path in ["disk", "tokens.parquet", "tokens.jsonl"] {
        assert_eq!(
            rows_by_code(&data(path), Some(m.path())),
            expected(true),
            "{path}"
        );
        assert_eq!(rows_by_code(&data(path), None), expected(false), "{path}");
    }
}

/// Every batch of a file, or the reader's error; a panic fails the test (no isolation here).
fn read_all(path: &Path, format: TokenFormat) -> Result<u64, String> {
    let mut tokens = 0;
    read_tokens(path, format, 0, &mut |b| {
        if let Some(c) = &b.cols[0] {
            tokens += c.values.view().numel() as u64;
        }
    })
    .map(|_| tokens)
    .map_err(|e| format!("{e:?}"))
}

#[test]
fn every_truncation_and_every_flipped_byte_of_an_arrow_file_is_read_or_refused() {
    let bytes = std::fs::read(data("disk/data-00000-of-00001.arrow")).expect("fixture");
    assert_eq!(
        read_all(&data("disk/data-00000-of-00001.arrow"), TokenFormat::Arrow),
        Ok(17)
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cut.arrow");
    for n in 0..bytes.len() {
        std::fs::write(&path, &bytes[..n]).expect("write");
        // Even a cut between two messages: the end-of-stream marker is missing.
        assert!(read_all(&path, TokenFormat::Arrow).is_err(), "cut at {n}");
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        std::fs::write(&path, &b).expect("write");
        let _ = read_all(&path, TokenFormat::Arrow);
    }
}

#[test]
fn a_corrupt_shard_is_a_finding_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    for f in [
        "state.json",
        "dataset_info.json",
        "data-00000-of-00001.arrow",
    ] {
        std::fs::copy(data(&format!("disk/{f}")), dir.path().join(f)).expect("copy");
    }
    let shard = dir.path().join("data-00000-of-00001.arrow");
    let bytes = std::fs::read(&shard).expect("read");
    std::fs::write(&shard, &bytes[..bytes.len() / 2]).expect("cut");
    let report = scan(dir.path(), &opts(Overrides::default()));
    let found: Vec<_> = report.all_findings().collect();
    let corrupt: Vec<_> = found.iter().filter(|f| f.finding.code == "LG602").collect();
    assert_eq!(corrupt.len(), 1, "{found:?}");
    assert!(corrupt[0]
        .finding
        .message
        .contains("data-00000-of-00001.arrow"));
    assert!(found.iter().all(|f| f.finding.code != "LG620"));
}

#[test]
fn ragged_and_float_jsonl_columns_are_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "ragged.jsonl",
            "{\"input_ids\": [1, 2]}\n{\"input_ids\": [[1], [2]]}\n",
            "LG602",
        ),
        ("floats.jsonl", "{\"input_ids\": [1.5, 2]}\n", "LG205"),
        (
            "flabels.jsonl",
            "{\"input_ids\": [1], \"labels\": [0.5]}\n",
            "LG201",
        ),
        ("text.jsonl", "{\"input_ids\": \"1 2 3\"}\n", "LG602"),
    ];
    for (name, text, code) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let report = scan(&path, &opts(Overrides::default()));
        let codes: Vec<_> = report.all_findings().map(|f| f.finding.code).collect();
        assert_eq!(codes, [code], "{name}");
        let f = report.all_findings().next().expect("one");
        assert!(f.finding.message.contains(name), "{}", f.finding.message);
    }
}

#[test]
fn corrupt_parquet_and_jsonl_are_refused_without_a_panic() {
    for (name, format) in [
        ("tokens.parquet", TokenFormat::Parquet),
        ("tokens.jsonl", TokenFormat::Jsonl),
    ] {
        let bytes = std::fs::read(data(name)).expect("fixture");
        assert_eq!(read_all(&data(name), format), Ok(17), "{name}");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(name);
        for n in (0..bytes.len()).step_by(7) {
            std::fs::write(&path, &bytes[..n]).expect("write");
            let _ = read_all(&path, format);
        }
    }
}

#[test]
fn the_ignore_index_setting_decides_what_label_padding_is() {
    // With --ignore-index -1, row 2's -1 is ignored and row 3's -100s are negative labels.
    let report = scan(&data("disk"), &opts(common::classes(2, -1)));
    let mut found: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for f in report.all_findings() {
        found
            .entry(f.finding.code)
            .or_default()
            .extend(f.finding.locations.iter().map(|l| l.index[0]));
    }
    assert_eq!(found.get("LG803"), Some(&BTreeSet::from([3])));
    assert_eq!(found.get("LG804"), None);
}

#[test]
fn sequence_classification_labels_are_checked_against_num_labels_once() {
    // One label per row: LG802 against num_labels (2), not against the vocabulary; -1 (an
    // unlabeled test row) is a class outside the head too, not label padding.
    let dir = model_dir();
    std::fs::write(
        dir.path().join("config.json"),
        r#"{"model_type": "bert", "architectures": ["BertForSequenceClassification"],
            "vocab_size": 50, "max_position_embeddings": 8, "type_vocab_size": 2,
            "id2label": {"0": "neg", "1": "pos"}, "hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 2, "pad_token_id": 0}"#,
    )
    .expect("config");
    let data = dir.path().join("cls.jsonl");
    std::fs::write(
        &data,
        "{\"input_ids\": [1, 2], \"label\": 1}\n{\"input_ids\": [3], \"label\": 2}\n\
         {\"input_ids\": [4, 5], \"label\": 0}\n{\"input_ids\": [6], \"label\": -1}\n",
    )
    .expect("data");
    let found = rows_by_code(&data, Some(dir.path()));
    assert_eq!(
        found,
        BTreeMap::from([("LG802".to_string(), BTreeSet::from([1, 3]))])
    );
}

/// A seq2seq dataset (T5, BART): `labels` are the decoder's targets, of their own length. Against
/// an encoder-decoder model that is no LG807; against a decoder-only one it still is.
#[test]
fn an_encoder_decoders_labels_may_differ_in_length_from_input_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("seq2seq.jsonl");
    std::fs::write(
        &data,
        "{\"input_ids\": [5, 6, 7, 1], \"attention_mask\": [1, 1, 1, 1], \"labels\": [8, 1]}\n\
         {\"input_ids\": [5, 1], \"attention_mask\": [1, 1], \"labels\": [9, 9, 9, 1]}\n",
    )
    .expect("write");
    let t5 = dir.path().join("t5");
    std::fs::create_dir(&t5).expect("mkdir");
    std::fs::write(
        t5.join("config.json"),
        r#"{"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "vocab_size": 50,
            "is_encoder_decoder": true, "pad_token_id": 0, "eos_token_id": 1}"#,
    )
    .expect("config");
    assert_eq!(rows_by_code(&data, Some(&t5)), BTreeMap::new());
    let llama = model_dir();
    let found = rows_by_code(&data, Some(llama.path()));
    assert_eq!(found.get("LG807"), Some(&[0, 1].into()), "{found:?}");
}

/// `save_to_disk` of a dataset without rows writes a `state.json` with no shard, which
/// `load_from_disk` cannot load: LG603 (empty), not a corrupt file.
#[test]
fn a_saved_dataset_without_rows_is_lg603() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("state.json"),
        r#"{"_data_files": [], "_fingerprint": "15232f189d3517a1", "_format_columns": null,
            "_format_kwargs": {}, "_format_type": null, "_output_all_columns": false, "_split": null}"#,
    )
    .expect("state");
    std::fs::copy(
        data("disk/dataset_info.json"),
        dir.path().join("dataset_info.json"),
    )
    .expect("info");
    let report = scan(dir.path(), &opts(Overrides::default()));
    let codes: Vec<_> = report.all_findings().map(|f| f.finding.code).collect();
    assert_eq!(codes, ["LG603"]);
    let f = report.all_findings().next().expect("one");
    assert!(
        f.finding.message.contains("no rows"),
        "{}",
        f.finding.message
    );
}

/// A folder holding token data and the model it is checked against: the model directory is a
/// dataset of its own (the `model` layout) and `--model` names it; the model's findings are
/// reported once, not once by each.
#[test]
fn a_model_scanned_beside_its_data_reports_its_findings_once() {
    let root = tempfile::tempdir().expect("tempdir");
    let model = root.path().join("model");
    std::fs::create_dir(&model).expect("mkdir");
    std::fs::write(
        model.join("config.json"),
        r#"{"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 10,
            "max_position_embeddings": 64, "pad_token_id": 0}"#,
    )
    .expect("config");
    let vocab: Vec<String> = (0..12).map(|i| format!("\"t{i}\": {i}")).collect();
    std::fs::write(
        model.join("tokenizer.json"),
        format!(
            r#"{{"version": "1.0", "added_tokens": [], "model": {{"type": "BPE", "vocab": {{{}}}, "merges": []}}}}"#,
            vocab.join(", ")
        ),
    )
    .expect("tokenizer");
    std::fs::write(
        root.path().join("data.jsonl"),
        "{\"input_ids\": [1, 2, 11], \"labels\": [-100, 2, 3]}\n",
    )
    .expect("data");
    let o = Overrides {
        model: Some(model.clone()),
        ..Overrides::default()
    };
    let report = scan(root.path(), &opts(o));
    let codes: Vec<&str> = report.all_findings().map(|f| f.finding.code).collect();
    assert_eq!(
        codes.iter().filter(|c| **c == "LG809").count(),
        1,
        "{codes:?}"
    );
    assert_eq!(
        codes.iter().filter(|c| **c == "LG801").count(),
        1,
        "{codes:?}"
    );
}
