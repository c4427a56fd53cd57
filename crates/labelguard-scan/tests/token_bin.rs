//! Formats the training scripts read that are no table or mask: nanoGPT's `train.bin`/`val.bin`
//! (with `meta.pkl`), Megatron indexed datasets (`.bin` + `.idx`), torchvision's raw MNIST and
//! CIFAR files. Each written here as its writer writes it, scanned end to end: the planted
//! defect found where it is, and its valid twin without an error.

mod common;

use common::{opts, scan};
use labelguard_core::Severity;
use labelguard_scan::config::Overrides;
use labelguard_scan::report::ScanReport;
use std::path::Path;

/// `pickle.dumps({'vocab_size': 65, 'itos': {0: '\n'}, 'stoi': {'\n': 0}})` (Python 3.11, the
/// protocol nanoGPT's `prepare.py` writes `meta.pkl` with).
const META_65: &[u8] = b"\x80\x04\x952\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\nvocab_size\x94KA\x8c\x04itos\x94}\x94K\x00\x8c\x01\n\x94s\x8c\x04stoi\x94}\x94h\x04K\x00su.";

fn u16s(ids: &[u16]) -> Vec<u8> {
    ids.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// (code, file name, first location) of every finding.
fn found(r: &ScanReport) -> Vec<(String, String, Vec<usize>)> {
    let mut out: Vec<(String, String, Vec<usize>)> = r
        .all_findings()
        .map(|f| {
            let file = f
                .path
                .as_deref()
                .and_then(|p| p.rsplit('/').next())
                .unwrap_or("")
                .to_string();
            let at = f
                .finding
                .locations
                .first()
                .map(|l| l.index.clone())
                .unwrap_or_default();
            (f.finding.code.to_string(), file, at)
        })
        .collect();
    out.sort();
    out
}

fn errors(r: &ScanReport) -> Vec<String> {
    r.all_findings()
        .filter(|f| f.finding.severity == Severity::Error)
        .map(|f| format!("{} {}", f.finding.code, f.finding.message))
        .collect()
}

fn model_dir(vocab: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("config.json"),
        format!(
            r#"{{"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": {vocab},
                "n_positions": 1024, "n_embd": 8, "n_layer": 1, "n_head": 2}}"#
        ),
    )
    .expect("config");
    dir
}

fn with_model(dir: &Path) -> Overrides {
    Overrides {
        model: Some(dir.to_path_buf()),
        ..Overrides::default()
    }
}

/// nanoGPT's `shakespeare_char`: ids below meta.pkl's 65, except 70 planted in train.bin.
fn nanogpt(dir: &Path, planted: bool, meta: bool) {
    let mut train: Vec<u16> = (0..5000).map(|i| (i * 7 % 65) as u16).collect();
    if planted {
        train[17] = 70;
        train[4321] = 65;
    }
    std::fs::write(dir.join("train.bin"), u16s(&train)).unwrap();
    std::fs::write(dir.join("val.bin"), u16s(&[1, 2, 3, 64])).unwrap();
    if meta {
        std::fs::write(dir.join("meta.pkl"), META_65).unwrap();
    }
    std::fs::write(
        dir.join("prepare.py"),
        "# writes train.bin, val.bin, meta.pkl\n",
    )
    .unwrap();
}

#[test]
fn nanogpt_ids_are_checked_against_meta_pkl() {
    let dir = tempfile::tempdir().unwrap();
    nanogpt(dir.path(), true, true);
    let r = scan(dir.path(), &opts(Overrides::default()));
    assert_eq!(
        found(&r),
        vec![("LG801".into(), "train.bin".into(), vec![17])]
    );
    let f = r.all_findings().next().unwrap();
    assert!(
        f.finding
            .message
            .contains("2 token ids of train.bin are outside [0, 65)")
            && f.finding.message.contains("meta.pkl")
            && f.finding.message.contains("positions 17, 4321"),
        "{}",
        f.finding.message
    );
    let twin = tempfile::tempdir().unwrap();
    nanogpt(twin.path(), false, true);
    assert_eq!(
        found(&scan(twin.path(), &opts(Overrides::default()))),
        vec![]
    );
}

#[test]
fn nanogpt_without_a_vocabulary_says_so_and_a_model_gives_one() {
    let dir = tempfile::tempdir().unwrap();
    nanogpt(dir.path(), true, false);
    let r = scan(dir.path(), &opts(Overrides::default()));
    assert_eq!(
        found(&r),
        vec![
            ("LG817".into(), "train.bin".into(), vec![]),
            ("LG817".into(), "val.bin".into(), vec![]),
        ]
    );
    assert!(errors(&r).is_empty());
    let m = r.all_findings().next().unwrap();
    assert!(
        m.finding.message.contains("largest 70"),
        "{}",
        m.finding.message
    );
    // The model's 50 rows are fewer than the ids: both files are named.
    let model = model_dir(50);
    let r = scan(dir.path(), &opts(with_model(model.path())));
    let codes: Vec<(String, String)> = found(&r).into_iter().map(|(c, f, _)| (c, f)).collect();
    assert_eq!(
        codes,
        vec![
            ("LG801".into(), "train.bin".into()),
            ("LG801".into(), "val.bin".into())
        ]
    );
}

fn vocab_size(n: u64) -> Overrides {
    Overrides {
        vocab_size: Some(n),
        ..Overrides::default()
    }
}

#[test]
fn vocab_size_overrides_meta_pkl_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    nanogpt(dir.path(), true, true);
    // meta.pkl says 65 (ids 65 and 70 are out); --vocab-size 66 leaves only 70.
    let r = scan(dir.path(), &opts(vocab_size(66)));
    assert_eq!(
        found(&r),
        vec![("LG801".into(), "train.bin".into(), vec![17])]
    );
    let m = &r.all_findings().next().unwrap().finding.message;
    assert!(
        m.contains("1 token id of train.bin is outside [0, 66)")
            && m.contains("--vocab-size 66, over meta.pkl's vocab_size 65")
            && m.contains("position 17"),
        "{m}"
    );
    // Large enough for every id: clean, whatever meta.pkl says.
    assert_eq!(found(&scan(dir.path(), &opts(vocab_size(71)))), vec![]);
    // Equal to meta.pkl's: nothing to override, only the flag is named.
    let r = scan(dir.path(), &opts(vocab_size(65)));
    let m = &r.all_findings().next().unwrap().finding.message;
    assert!(m.contains("(--vocab-size 65)"), "{m}");
}

#[test]
fn vocab_size_checks_a_file_without_meta_pkl_and_overrides_a_model() {
    let dir = tempfile::tempdir().unwrap();
    nanogpt(dir.path(), true, false);
    let r = scan(dir.path(), &opts(vocab_size(66)));
    assert_eq!(
        found(&r),
        vec![("LG801".into(), "train.bin".into(), vec![17])]
    );
    // The model's 50 rows would flag val.bin's 64 too; the flag wins and says so.
    let model = model_dir(50);
    let both = Overrides {
        vocab_size: Some(66),
        ..with_model(model.path())
    };
    let r = scan(dir.path(), &opts(both));
    assert_eq!(
        found(&r),
        vec![("LG801".into(), "train.bin".into(), vec![17])]
    );
    let m = &r.all_findings().next().unwrap().finding.message;
    assert!(m.contains("--vocab-size 66, over --model's"), "{m}");
}

#[test]
fn vocab_size_checks_tokenized_rows_without_a_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("train.jsonl"),
        "{\"input_ids\": [1, 5, 99]}\n{\"input_ids\": [7, 120, 3]}\n",
    )
    .unwrap();
    let r = scan(dir.path(), &opts(vocab_size(100)));
    let got = found(&r);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str()),
        ("LG801", "train.jsonl")
    );
    let m = &r.all_findings().next().unwrap().finding.message;
    assert!(m.contains("120") && m.contains("--vocab-size"), "{m}");
    assert_eq!(found(&scan(dir.path(), &opts(vocab_size(121)))), vec![]);
}

#[test]
fn a_broken_nanogpt_file_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("train.bin"), [1u8, 0, 2]).unwrap();
    std::fs::write(dir.path().join("val.bin"), []).unwrap();
    std::fs::write(dir.path().join("meta.pkl"), b"\x80\x04garbage").unwrap();
    let r = scan(dir.path(), &opts(Overrides::default()));
    let got = found(&r);
    assert!(
        got.contains(&("LG602".into(), "train.bin".into(), vec![])),
        "{got:?}"
    );
    assert!(
        got.contains(&("LG603".into(), "val.bin".into(), vec![])),
        "{got:?}"
    );
}

/// A Megatron index as `_IndexWriter` writes it: `lengths` tokens of dtype `code` (`size`
/// bytes), one document per sequence.
fn megatron(dir: &Path, code: u8, size: usize, seqs: &[Vec<i64>], bin_cut: usize) {
    let mut idx = b"MMIDIDX\x00\x00".to_vec();
    idx.extend(1u64.to_le_bytes());
    idx.push(code);
    idx.extend((seqs.len() as u64).to_le_bytes());
    idx.extend((seqs.len() as u64 + 1).to_le_bytes());
    for s in seqs {
        idx.extend((s.len() as i32).to_le_bytes());
    }
    let mut p = 0i64;
    for s in seqs {
        idx.extend(p.to_le_bytes());
        p += (s.len() * size) as i64;
    }
    for d in 0..=seqs.len() as i64 {
        idx.extend(d.to_le_bytes());
    }
    let mut bin: Vec<u8> = seqs
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes()[..size].to_vec())
        .collect();
    bin.truncate(bin.len() - bin_cut);
    std::fs::write(dir.join("corpus_text_document.idx"), idx).unwrap();
    std::fs::write(dir.join("corpus_text_document.bin"), bin).unwrap();
}

#[test]
fn megatron_ids_are_placed_in_their_sequence() {
    let model = model_dir(50);
    let dir = tempfile::tempdir().unwrap();
    let seqs = vec![vec![1, 2, 3], vec![4, 49], vec![5, 60, 7, -1]];
    megatron(dir.path(), 4, 4, &seqs, 0);
    let r = scan(dir.path(), &opts(with_model(model.path())));
    assert_eq!(
        found(&r),
        vec![(
            "LG801".into(),
            "corpus_text_document.bin".into(),
            vec![2, 1]
        )]
    );
    let f = r.all_findings().next().unwrap();
    assert_eq!(f.finding.count, Some(2));
    assert!(
        f.finding.message.contains("sequence 2"),
        "{}",
        f.finding.message
    );
    // uint16, valid: nothing; without --model: LG817 only.
    let twin = tempfile::tempdir().unwrap();
    megatron(twin.path(), 8, 2, &[vec![1, 2], vec![49]], 0);
    assert_eq!(
        found(&scan(twin.path(), &opts(with_model(model.path())))),
        vec![]
    );
    let r = scan(twin.path(), &opts(Overrides::default()));
    assert_eq!(
        found(&r),
        vec![("LG817".into(), "corpus_text_document.bin".into(), vec![])]
    );
    // A .bin cut short: the index points past it.
    let cut = tempfile::tempdir().unwrap();
    megatron(cut.path(), 8, 2, &[vec![1, 2], vec![3]], 1);
    let r = scan(cut.path(), &opts(with_model(model.path())));
    let f = r.all_findings().next().unwrap();
    assert_eq!(f.finding.code, "LG602");
    assert!(
        f.finding.message.contains("ends past the end of the .bin"),
        "{}",
        f.finding.message
    );
}

fn idx_labels(labels: &[u8]) -> Vec<u8> {
    let mut b = 0x801u32.to_be_bytes().to_vec();
    b.extend((labels.len() as u32).to_be_bytes());
    b.extend_from_slice(labels);
    b
}

fn idx_images(n: u32) -> Vec<u8> {
    let mut b = 0x803u32.to_be_bytes().to_vec();
    for d in [n, 2, 2] {
        b.extend(d.to_be_bytes());
    }
    b.extend(vec![0u8; n as usize * 4]);
    b
}

#[test]
fn mnist_labels_are_class_ids_of_ten_classes() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("MNIST/raw");
    std::fs::create_dir_all(&raw).unwrap();
    let mut labels: Vec<u8> = (0..40).map(|i| (i % 10) as u8).collect();
    std::fs::write(raw.join("t10k-labels-idx1-ubyte"), idx_labels(&labels)).unwrap();
    std::fs::write(raw.join("t10k-images-idx3-ubyte"), idx_images(40)).unwrap();
    let r = scan(dir.path(), &opts(Overrides::default()));
    assert!(errors(&r).is_empty(), "{:?}", errors(&r));
    assert_eq!(r.settings.num_classes, Some(10));
    labels[13] = 10;
    std::fs::write(raw.join("t10k-labels-idx1-ubyte"), idx_labels(&labels)).unwrap();
    std::fs::write(raw.join("t10k-images-idx3-ubyte"), idx_images(41)).unwrap();
    let r = scan(dir.path(), &opts(Overrides::default()));
    let got = found(&r);
    assert!(
        got.contains(&("LG101".into(), "t10k-labels-idx1-ubyte".into(), vec![13])),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|(c, f, _)| c == "LG602" && f == "t10k-labels-idx1-ubyte"),
        "{got:?}"
    );
    // --num-classes is the head's count: it overrides the dataset's own 10.
    let r = scan(dir.path(), &opts(common::classes(12, -100)));
    assert_eq!(r.settings.num_classes, Some(12));
    assert!(!found(&r).iter().any(|(c, _, _)| c == "LG101"));
}

/// A CIFAR-10 batch as Python 2's `cPickle.dump(d, f, 2)` wrote them: `SHORT_BINSTRING` keys,
/// the labels a list, `data` a NumPy array of `rows x 3072` (here `rows x 1`).
fn cifar_batch(labels: &[u8], rows: u8) -> Vec<u8> {
    let mut p =
        b"\x80\x02}q\x01(U\x0bbatch_labelq\x02U\x0etraining batchq\x03U\x06labelsq\x04]q\x05("
            .to_vec();
    for l in labels {
        p.extend([b'K', *l]);
    }
    p.extend_from_slice(b"eU\x04dataq\x06cnumpy.core.multiarray\n_reconstruct\nq\x07cnumpy\nndarray\nq\x08K\x00\x85U\x01b\x87Rq\t(K\x01");
    p.extend([b'K', rows, b'K', 1, 0x86]);
    p.extend_from_slice(b"cnumpy\ndtype\nU\x02u1K\x00K\x01\x87R\x89U");
    p.push(rows);
    p.extend(vec![0u8; rows as usize]);
    p.extend_from_slice(b"tbu.");
    p
}

#[test]
fn cifar_batches_are_read_without_running_the_pickle() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cifar-10-batches-py");
    std::fs::create_dir_all(&root).unwrap();
    let labels: Vec<u8> = (0..30).map(|i| (i % 10) as u8).collect();
    std::fs::write(root.join("data_batch_1"), cifar_batch(&labels, 30)).unwrap();
    let mut bad = labels.clone();
    bad[4] = 11;
    std::fs::write(root.join("test_batch"), cifar_batch(&bad, 29)).unwrap();
    let r = scan(dir.path(), &opts(Overrides::default()));
    let got = found(&r);
    assert!(
        got.contains(&("LG101".into(), "test_batch".into(), vec![4])),
        "{got:?}"
    );
    let mismatch = r
        .all_findings()
        .find(|f| f.finding.code == "LG602")
        .expect("rows against labels");
    assert!(
        mismatch
            .finding
            .message
            .contains("29 images but 'labels' 30"),
        "{}",
        mismatch.finding.message
    );
    assert!(!got.iter().any(|(_, f, _)| f == "data_batch_1"), "{got:?}");
}
