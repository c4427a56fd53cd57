//! The HTML scan report: the whole page of a small Cityscapes-like dataset pinned by a snapshot
//! (tests/snapshots/), and every input-derived string escaped. The scanned root is shown as
//! `<root>` and the version as `<version>`.

use labelguard_formats::fixtures::{cityscapes, png_gray8, put};
use labelguard_scan::config::{Overrides, ScanOptions};
use labelguard_scan::progress::Silent;
use std::path::Path;

/// Scans `root` with the Cityscapes preset (its palette colours the chart) and overlay pictures
/// on, as `labelguard scan ROOT --preset cityscapes --html FILE` does, and returns the page.
fn page(root: &Path) -> String {
    let mut opts = ScanOptions::resolve(
        None,
        &Overrides {
            preset: Some("cityscapes".into()),
            ..Overrides::default()
        },
    )
    .expect("valid settings");
    opts.overlays = true;
    let report = labelguard_scan::scan(&[root.to_path_buf()], &opts, &Silent).expect("scan runs");
    labelguard_report::scan::html(&report, opts.palette.as_deref())
        .replace(&root.to_string_lossy().into_owned(), "<root>")
        .replace(env!("CARGO_PKG_VERSION"), "<version>")
}

/// Two clean frames per split, one mask with ids the preset rejects (an overlay picture), one
/// file that is not a PNG, and a mask whose path is markup.
fn dataset() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let masks = cityscapes(dir.path(), 2);
    let mut ids = vec![0u8; 64 * 32];
    ids[..64 * 4].fill(40);
    put(dir.path(), &masks[0], &png_gray8(64, 32, &ids));
    put(dir.path(), &masks[1], b"<!doctype html><html>403</html>");
    put(
        dir.path(),
        "gtFine/val/lindau/<script>alert(1)</script>_gtFine_labelTrainIds.png",
        &png_gray8(64, 32, &ids),
    );
    dir
}

#[test]
fn html_page_snapshot() {
    let dir = dataset();
    insta::assert_snapshot!(page(dir.path()));
}

#[test]
fn file_names_are_escaped_everywhere() {
    let dir = dataset();
    for name in ["q\"uote'&amp;", "ctl\x01\x1b[31m\x7f\u{fffe}"] {
        let rel = format!("gtFine/train/odd/{name}_gtFine_labelTrainIds.png");
        put(dir.path(), &rel, &png_gray8(4, 4, &[40; 16]));
    }
    let html = page(dir.path());
    // No markup from a file name: the `<script>` mask of the dataset is text.
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("</script>"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;_gtFine"),
        "{html}"
    );
    // In text and in the overlay's alt attribute, quotes and ampersands are escaped.
    let quoted = "<root>/gtFine/train/odd/q&quot;uote'&amp;amp;_gtFine_labelTrainIds.png";
    assert!(
        html.contains(&format!("</span> {quoted} <small>")),
        "{html}"
    );
    assert!(
        html.contains(&format!("alt=\"bad pixels of {quoted}\"")),
        "{html}"
    );
    // Control characters XML forbids are dropped; DEL and the printable rest stay as text.
    assert!(html.contains("odd/ctl[31m\x7f_gtFine"), "{html}");
    let forbidden = |c: char| {
        (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}')
    };
    assert!(!html.chars().any(forbidden), "{html}");
}

/// A text dataset (`{"text": ...}` records, run_clm.py's `--train_file`): no label column, so no
/// class id. The page says that no labels were found, shows no ignore_index, and gives LG613's
/// warning no "(ok)" verdict.
#[test]
fn a_dataset_without_labels_says_so_and_its_warning_has_no_verdict() {
    let dir = tempfile::tempdir().expect("tempdir");
    put(
        dir.path(),
        "train.jsonl",
        b"{\"text\": \"a b c\"}\n{\"text\": \"d e\"}\n",
    );
    let opts = ScanOptions::resolve(None, &Overrides::default()).expect("valid settings");
    let report =
        labelguard_scan::scan(&[dir.path().to_path_buf()], &opts, &Silent).expect("scan runs");
    let page = labelguard_report::scan::html(&report, None);
    assert!(page.contains("no labels found"), "{page}");
    assert!(!page.contains("ignore_index"), "{page}");
    assert!(page.contains("LG613") && !page.contains("(ok)"), "{page}");
}
