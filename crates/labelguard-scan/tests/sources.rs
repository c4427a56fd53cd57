//! One dataset, three places its bytes come from: files on disk, slices of one local file (as
//! the members of a tar shard are) and objects of a bucket (an in-memory store here; the real
//! S3 server is `labelguard-remote`'s test). The three scans give the same report, names aside.

mod common;

use common::{classes, opts};
use labelguard_formats::fixtures::{jpeg_stub, npy, png_gray8, put, tiff_gray8};
use labelguard_formats::source::{ObjectRead, Source};
use labelguard_formats::walk::Entry;
use labelguard_scan::layout::{ListedRoot, Root};
use labelguard_scan::progress::Silent;
use labelguard_scan::ScanOptions;
use std::path::Path;
use std::sync::Arc;

/// A paired dataset with a clean mask, masks with out-of-range ids and void 255, a TIFF, an
/// array, a mask whose image has another size, a truncated PNG and an empty file.
fn dataset(root: &Path) -> Vec<(String, Vec<u8>)> {
    let ok = png_gray8(4, 3, &[0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
    let bad = png_gray8(4, 3, &[0, 1, 7, 255, 1, 2, 0, 1, 2, 0, 9, 2]);
    let mut truncated = ok.clone();
    truncated.truncate(ok.len() - 20);
    let files = vec![
        ("images/a.jpg".to_string(), jpeg_stub(4, 3)),
        ("masks/a.png".to_string(), ok),
        ("images/b.jpg".to_string(), jpeg_stub(4, 3)),
        ("masks/b.png".to_string(), bad),
        ("images/c.jpg".to_string(), jpeg_stub(8, 6)),
        ("masks/c.tif".to_string(), tiff_gray8(4, 3, &[3; 12])),
        ("images/d.jpg".to_string(), jpeg_stub(4, 3)),
        ("masks/d.npy".to_string(), npy("|u1", &[3, 4], &[5; 12])),
        ("images/e.jpg".to_string(), jpeg_stub(4, 3)),
        ("masks/e.png".to_string(), truncated),
        ("images/f.jpg".to_string(), jpeg_stub(4, 3)),
        ("masks/f.png".to_string(), Vec::new()),
    ];
    for (rel, bytes) in &files {
        put(root, rel, bytes);
    }
    files
}

/// An in-memory bucket.
#[derive(Debug)]
struct Memory(Vec<(String, Vec<u8>)>);

impl ObjectRead for Memory {
    fn url(&self, key: &str) -> String {
        format!("mem://bucket/{key}")
    }
    fn read_range(
        &self,
        key: &str,
        range: std::ops::Range<u64>,
        buf: &mut Vec<u8>,
    ) -> Result<(), labelguard_core::Finding> {
        let (_, data) = self.0.iter().find(|(k, _)| k == key).expect("listed key");
        buf.clear();
        buf.extend_from_slice(&data[range.start as usize..range.end as usize]);
        Ok(())
    }
}

fn scan_roots(roots: &[Root], o: &ScanOptions) -> String {
    let report = labelguard_scan::scan_roots(roots, o, &Silent).expect("scan runs");
    serde_json::to_string_pretty(&report).unwrap()
}

#[test]
fn files_slices_and_objects_give_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("data");
    let files = dataset(&root);
    let o = opts(classes(4, 255));
    let on_disk = serde_json::to_string_pretty(&common::scan(&root, &o)).unwrap();
    let on_disk = on_disk.replace(&root.display().to_string(), "ROOT");
    assert!(on_disk.contains("LG101"), "{on_disk}");
    assert!(
        on_disk.contains("LG607"),
        "the image of another size: {on_disk}"
    );
    assert!(on_disk.contains("LG603"), "the empty mask: {on_disk}");

    // Every file at an offset of one local file, behind a header of junk, as a tar holds them.
    let shard = dir.path().join("one.shard");
    let mut blob = vec![0xAAu8; 512];
    let mut slices = Vec::new();
    for (rel, bytes) in &files {
        let offset = blob.len() as u64;
        blob.extend_from_slice(bytes);
        blob.extend_from_slice(&[0xBB; 37]);
        slices.push((rel.clone(), offset, bytes.len() as u64));
    }
    std::fs::write(&shard, &blob).unwrap();
    let shard = Arc::new(shard);
    let entries = slices
        .iter()
        .map(|(rel, offset, len)| {
            let source = Source::Slice {
                file: shard.clone(),
                name: format!("SLICES/{rel}").into(),
                offset: *offset,
                len: *len,
            };
            Entry::listed(
                source,
                rel.as_bytes().to_vec(),
                format!("SLICES/{rel}"),
                rel.as_bytes().to_vec(),
            )
        })
        .collect();
    let sliced = scan_roots(
        &[Root::Listed(ListedRoot {
            display: "SLICES".into(),
            entries,
        })],
        &o,
    );
    assert_eq!(sliced.replace("SLICES", "ROOT"), on_disk);

    let store = Arc::new(Memory(files.clone()));
    let entries = files
        .iter()
        .map(|(rel, bytes)| {
            let source = Source::Object {
                store: store.clone(),
                key: rel.clone(),
                len: bytes.len() as u64,
            };
            Entry::listed(
                source,
                rel.as_bytes().to_vec(),
                store.url(rel),
                rel.as_bytes().to_vec(),
            )
        })
        .collect();
    let objects = scan_roots(
        &[Root::Listed(ListedRoot {
            display: "mem://bucket".into(),
            entries,
        })],
        &o,
    );
    assert_eq!(objects.replace("mem://bucket", "ROOT"), on_disk);
}

#[test]
fn a_listed_shard_key_keeps_its_entries_in_one_part() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("data");
    let files = dataset(&root);
    let entries: Vec<Entry> = files
        .iter()
        .map(|(rel, _)| {
            Entry::listed(
                Source::File(root.join(rel)),
                rel.as_bytes().to_vec(),
                format!("L/{rel}"),
                b"the one shard".to_vec(),
            )
        })
        .collect();
    let listed = Root::Listed(ListedRoot {
        display: "L".into(),
        entries,
    });
    let mut parts = Vec::new();
    for index in 1..=3 {
        let mut o = opts(classes(4, 255));
        o.shard = Some(labelguard_scan::Shard { index, count: 3 });
        let r = labelguard_scan::scan_roots(std::slice::from_ref(&listed), &o, &Silent);
        // A part without items is an error of its own ("nothing to scan"): count the items.
        parts.push(r.map(|r| r.summary.files_scanned).unwrap_or(0));
    }
    parts.sort();
    assert_eq!(parts[..2], [0, 0], "every file in one part: {parts:?}");
    assert_eq!(parts[2] as usize, files.len() / 2, "the masks: {parts:?}");
}
