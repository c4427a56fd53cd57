//! Chat datasets in tables: the files `datasets` writes (`tests/data/chat/`, made by its
//! `make.py`: a `save_to_disk` folder, Parquet and JSONL of the same five rows, a `messages`
//! column of `list<struct<role, content>>` beside `id` and `prompt`) read by the one
//! conversation source, and the Arrow and Parquet readers on truncated and corrupted input.
//! `tests/python/test_chat_tables.py` scans such datasets against transformers' token counts.

#[allow(dead_code)]
mod common;

use labelguard_formats::read::chat::{chat_key, ChatFormat, ChatKey, Conversations};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/chat")
        .join(rel)
}

const ARROW: &str = "disk/data-00000-of-00001.arrow";

/// Every row's messages (or why it has none), and the rows counted or the reading error.
type Read = (Vec<(u64, Result<Value, String>)>, Result<u64, String>);

fn read(files: &[PathBuf], format: ChatFormat) -> Read {
    let mut c = Conversations::open(files, format, ChatKey::Messages);
    let rows: Vec<_> = c.by_ref().collect();
    (rows, c.finish())
}

#[test]
fn the_three_formats_give_the_same_conversations() {
    let jsonl = read(&[data("chat.jsonl")], ChatFormat::Jsonl);
    assert_eq!(jsonl.1, Ok(5));
    let rows = &jsonl.0;
    assert_eq!(
        rows[1].1,
        Ok(
            json!([{"role": "system", "content": "blue"}, {"role": "user", "content": "sky"},
                  {"role": "assistant", "content": "blue sky"}])
        )
    );
    // A message without content is a null, as datasets hands it to Python.
    assert_eq!(
        rows[2].1,
        Ok(json!([{"role": "user", "content": "there"}, {"role": "assistant", "content": null}]))
    );
    assert_eq!(rows[3].1, Err("an empty 'messages' list".to_string()));
    assert_eq!(
        rows[4].1,
        Ok(json!([{"role": "user", "content": "é \"quoted\"\n"}]))
    );
    assert_eq!(read(&[data("chat.parquet")], ChatFormat::Parquet), jsonl);
    assert_eq!(read(&[data(ARROW)], ChatFormat::Arrow), jsonl);
    // Two shards of one split: rows numbered on.
    let (two, n) = read(&[data(ARROW), data(ARROW)], ChatFormat::Arrow);
    assert_eq!(n, Ok(10));
    assert_eq!(two[7], (7, jsonl.0[2].1.clone()));
}

#[test]
fn chat_columns_are_told_from_token_and_label_tables() {
    assert_eq!(
        chat_key(&data("chat.parquet"), ChatFormat::Parquet),
        Some(ChatKey::Messages)
    );
    assert_eq!(
        chat_key(&data(ARROW), ChatFormat::Arrow),
        Some(ChatKey::Messages)
    );
    let tokens = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokens");
    assert_eq!(
        chat_key(&tokens.join("tokens.parquet"), ChatFormat::Parquet),
        None
    );
    assert_eq!(
        chat_key(
            &tokens.join("disk/data-00000-of-00001.arrow"),
            ChatFormat::Arrow
        ),
        None
    );
}

#[test]
fn every_truncation_and_flipped_byte_is_read_or_refused_without_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, format) in [
        (ARROW, ChatFormat::Arrow),
        ("chat.parquet", ChatFormat::Parquet),
    ] {
        let bytes = std::fs::read(data(name)).expect("fixture");
        let path = dir.path().join("cut");
        for n in 0..bytes.len() {
            std::fs::write(&path, &bytes[..n]).expect("write");
            assert!(
                read(std::slice::from_ref(&path), format).1.is_err(),
                "{name} cut at {n}"
            );
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            std::fs::write(&path, &b).expect("write");
            let _ = read(std::slice::from_ref(&path), format);
        }
    }
}

#[test]
fn a_clean_chat_table_without_a_model_is_a_warning_not_a_label_table() {
    for path in ["chat.parquet", "disk"] {
        let o = labelguard_scan::config::Overrides::default();
        let report = common::scan(&data(path), &common::opts(o));
        let mut codes: Vec<String> = report
            .all_findings()
            .map(|f| f.finding.code.to_string())
            .collect();
        codes.sort();
        // Row 3 (an empty list) is named as such; nothing is read as a label column.
        assert_eq!(codes, ["LG602", "LG815"], "{path}");
    }
}
