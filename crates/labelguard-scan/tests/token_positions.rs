//! `position_ids` of tokenized data (LG805): packed rows whose positions run on across documents
//! past the position table, negative positions, and packed rows longer than the table whose
//! positions restart per document (fine: no finding).

#[allow(dead_code)]
mod common;

use common::{opts, scan};
use labelguard_core::Severity;
use labelguard_scan::config::Overrides;
use std::path::Path;

/// A model directory holding only `config.json`.
fn model(dir: &Path, name: &str, config: &str) -> std::path::PathBuf {
    let m = dir.join(name);
    std::fs::create_dir(&m).expect("mkdir");
    std::fs::write(m.join("config.json"), config).expect("config");
    m
}

/// GPT-2: a learned table of 4 positions (`n_positions`), 50 ids.
const GPT2: &str = r#"{"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 50,
    "n_positions": 4, "n_embd": 8, "n_layer": 1, "n_head": 2}"#;
/// Llama: rotary positions, 4 of them trained.
const LLAMA: &str = r#"{"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 50,
    "max_position_embeddings": 4, "rope_theta": 10000.0, "hidden_size": 8, "num_hidden_layers": 1,
    "num_attention_heads": 2}"#;

/// Rows: 0 packed, positions restarting (6 tokens against 4 positions: fine); 1 positions that
/// run on across the two documents (4, 5 past the table); 2 a negative position; 3 clean.
const ROWS: &str = "\
{\"input_ids\": [1, 2, 3, 4, 5, 6], \"position_ids\": [0, 1, 2, 0, 1, 2]}
{\"input_ids\": [1, 2, 3, 4, 5, 6], \"position_ids\": [0, 1, 2, 3, 4, 5]}
{\"input_ids\": [1, 2, 3], \"position_ids\": [-1, 0, 1]}
{\"input_ids\": [7, 8], \"position_ids\": [0, 1]}
";

/// The LG805 findings of `scan data --model model`.
fn lg805(data: &Path, model: Option<&Path>) -> Vec<labelguard_core::Finding> {
    let o = Overrides {
        model: model.map(Path::to_path_buf),
        ..Overrides::default()
    };
    scan(data, &opts(o))
        .all_findings()
        .filter(|f| f.finding.code == "LG805")
        .map(|f| f.finding.clone())
        .collect()
}

#[test]
fn positions_past_the_table_and_negative_ones_are_named_by_row_and_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("packed.jsonl");
    std::fs::write(&data, ROWS).expect("write");
    let gpt2 = model(dir.path(), "gpt2", GPT2);
    let found = lg805(&data, Some(&gpt2));
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!(f.severity, Severity::Error);
    let at: Vec<(Vec<usize>, String)> = f
        .locations
        .iter()
        .map(|l| (l.index.clone(), l.value.clone()))
        .collect();
    assert_eq!(
        at,
        [
            (vec![1, 4], "4".to_string()),
            (vec![1, 5], "5".to_string()),
            (vec![2, 0], "-1".to_string()),
        ]
    );
    assert!(f.locations.iter().all(|l| l.tensor == "position_ids"));
    assert!(f.message.contains("outside [0, 4)"), "{}", f.message);
    assert!(f.message.contains("rows 1, 2"), "{}", f.message);
    assert!(f.message.contains("lowest -1, largest 5"), "{}", f.message);
}

#[test]
fn without_a_model_only_negative_positions_are_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("packed.jsonl");
    std::fs::write(&data, ROWS).expect("write");
    let found = lg805(&data, None);
    assert_eq!(found.len(), 1, "{found:?}");
    let rows: Vec<usize> = found[0].locations.iter().map(|l| l.index[0]).collect();
    assert_eq!(rows, [2]);
    assert!(
        found[0].message.contains("negative"),
        "{}",
        found[0].message
    );
}

#[test]
fn rotary_positions_past_the_trained_context_are_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("packed.jsonl");
    std::fs::write(&data, ROWS).expect("write");
    let llama = model(dir.path(), "llama", LLAMA);
    let found = lg805(&data, Some(&llama));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].severity, Severity::Warning);
}

#[test]
fn clean_packed_rows_longer_than_the_table_give_no_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("packed.jsonl");
    std::fs::write(
        &data,
        "{\"input_ids\": [1, 2, 3, 4, 5, 6], \"position_ids\": [0, 1, 2, 3, 0, 1]}\n\
         {\"input_ids\": [1, 2], \"position_ids\": [0, 1]}\n",
    )
    .expect("write");
    let gpt2 = model(dir.path(), "gpt2", GPT2);
    let found = lg805(&data, Some(&gpt2));
    assert!(found.is_empty(), "{found:?}");
    // Without position_ids the 6-token row is beyond the table (the row length is checked).
    std::fs::write(&data, "{\"input_ids\": [1, 2, 3, 4, 5, 6]}\n").expect("write");
    let found = lg805(&data, Some(&gpt2));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].locations[0].index, [0]);
}

#[test]
fn position_ids_of_another_length_than_input_ids_are_lg807() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("ragged.jsonl");
    std::fs::write(
        &data,
        "{\"input_ids\": [1, 2, 3], \"position_ids\": [0, 1]}\n\
         {\"input_ids\": [1, 2], \"position_ids\": [0, 1]}\n",
    )
    .expect("write");
    let report = scan(&data, &opts(Overrides::default()));
    let lg807: Vec<_> = report
        .all_findings()
        .filter(|f| f.finding.code == "LG807")
        .collect();
    assert_eq!(lg807.len(), 1);
    assert!(lg807[0].finding.message.contains("position_ids"));
    assert_eq!(lg807[0].finding.locations[0].index, [0]);
}
