//! The webdataset layout on the three places a dataset's bytes come from: extracted files, the
//! members of tar shards (slices of local files) and objects. The same samples give the same
//! report, names aside; a sample split between two shards is LG616, as WebDataset yields it twice.

mod common;

use common::{classes, opts};
use labelguard_formats::fixtures::{jpeg_stub, png_gray8, put};
use labelguard_formats::source::Source;
use labelguard_formats::walk::Entry;
use labelguard_scan::layout::{ListedRoot, Root};
use labelguard_scan::progress::Silent;
use labelguard_scan::report::ScanReport;
use std::path::Path;
use std::sync::Arc;

/// Samples with each kind of finding: a mask of another size than its image, an id past the
/// class count in a mask, in a `.cls` and in a `.json`, a sample without its image.
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let ok: Vec<u8> = (0..64).map(|i| (i % 3) as u8).collect();
    let mut bad = ok.clone();
    bad[5] = 9;
    vec![
        ("000001.cls", b"1".to_vec()),
        ("000001.jpg", jpeg_stub(8, 8)),
        ("000001.seg.png", png_gray8(8, 8, &ok)),
        ("000002.jpg", jpeg_stub(8, 4)),
        ("000002.seg.png", png_gray8(8, 8, &ok)),
        ("000003.cls", b"6".to_vec()),
        ("000003.jpg", jpeg_stub(8, 8)),
        ("000003.seg.png", png_gray8(8, 8, &bad)),
        ("000004.jpg", jpeg_stub(8, 8)),
        ("000004.json", br#"{"label": 3}"#.to_vec()),
        ("000005.cls", b"0".to_vec()),
        ("000005.seg.png", png_gray8(8, 8, &ok)),
    ]
}

/// The files as members of `shards` shard files (each a run of the list, at offsets behind
/// a header, as a tar holds them), listed in order under the root `SHARDS`.
fn sharded(dir: &Path, files: &[(&str, Vec<u8>)], cuts: &[usize]) -> Root {
    let mut entries = Vec::new();
    let mut start = 0;
    for (n, &end) in cuts.iter().chain([files.len()].iter()).enumerate() {
        let path = Arc::new(dir.join(format!("train-{n:06}.tar")));
        let mut blob = vec![0u8; 512];
        for (rel, bytes) in &files[start..end] {
            let offset = blob.len() as u64;
            blob.extend_from_slice(bytes);
            blob.resize(blob.len().div_ceil(512) * 512 + 512, 0);
            let shown = format!("{}:{rel}", path.display());
            let source = Source::Slice {
                file: path.clone(),
                name: shown.as_str().into(),
                offset,
                len: bytes.len() as u64,
            };
            entries.push(Entry::listed(
                source,
                rel.as_bytes().to_vec(),
                shown,
                path.display().to_string().into_bytes(),
            ));
        }
        std::fs::write(path.as_path(), &blob).unwrap();
        start = end;
    }
    Root::Listed(ListedRoot {
        display: "SHARDS".into(),
        entries,
    })
}

/// (file name, code) of every finding, sorted.
fn codes(r: &ScanReport) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = r
        .all_findings()
        .map(|f| {
            let p = f.path.as_deref().unwrap_or("");
            let name = p.rsplit(['/', ':']).next().unwrap_or(p).to_string();
            (name, f.finding.code.to_string())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn extracted_and_sharded_samples_give_the_same_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("extracted");
    let files = samples();
    for (rel, bytes) in &files {
        put(&root, rel, bytes);
    }
    let o = opts(classes(3, 255));
    let extracted = common::scan(&root, &o);
    assert_eq!(extracted.settings.layouts[0].as_str(), "webdataset");
    let want: Vec<(String, String)> = [
        ("000002.seg.png", "LG607"),
        ("000003.cls", "LG101"),
        ("000003.seg.png", "LG101"),
        ("000004.json", "LG101"),
        ("000005.cls", "LG616"),
    ]
    .iter()
    .map(|(f, c)| (f.to_string(), c.to_string()))
    .collect();
    assert_eq!(codes(&extracted), want);

    // Two shards, each sample whole in one of them.
    let shards = sharded(dir.path(), &files, &[5]);
    let r = labelguard_scan::scan_roots(&[shards], &o, &Silent).expect("scan runs");
    assert_eq!(r.settings.layouts[0].as_str(), "webdataset");
    assert_eq!(codes(&r), want);
    // Findings name the member as its entry shows it: `shard.tar:member`.
    let shard1 = dir.path().join("train-000001.tar");
    assert!(
        r.all_findings()
            .any(|f| f.path.as_deref() == Some(&format!("{}:000005.cls", shard1.display()))),
        "{:?}",
        r.all_findings().map(|f| f.path.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn a_sample_split_between_two_shards_is_yielded_twice() {
    let dir = tempfile::tempdir().unwrap();
    let files = samples();
    // The cut falls inside sample 000001: its .cls in the first shard, the rest in the second.
    let shards = sharded(dir.path(), &files, &[1]);
    let r =
        labelguard_scan::scan_roots(&[shards], &opts(classes(3, 255)), &Silent).expect("scan runs");
    let found = codes(&r);
    assert!(
        found.contains(&("000001.cls".into(), "LG616".into())),
        "the first half has a label and no image: {found:?}"
    );
    assert!(
        found.contains(&("000001.jpg".into(), "LG616".into())),
        "the second half starts the key again: {found:?}"
    );
    let again = r
        .all_findings()
        .find(|f| {
            f.finding.code == "LG616" && f.path.as_deref().unwrap_or("").ends_with("000001.jpg")
        })
        .unwrap();
    assert!(
        again.finding.message.contains("in another shard"),
        "{}",
        again.finding.message
    );
}
