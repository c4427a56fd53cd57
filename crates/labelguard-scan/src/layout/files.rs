//! The **files** layout: every mask, array and label table found, each on its own; the images
//! of a folder of photos (`photos`) are samples without labels, not masks, and so are the
//! images of a dataset that holds nothing else.

use super::coco::is_coco_json;
use super::declare::{whole, At, Found, Layout, Scope, Tree};
use super::item::{RootScan, Task};
use super::paths::has_ext;
use super::paths::split_of;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::read::table::{is_json_lines, TableFormat};
use labelguard_formats::walk::{Entry, Sniff};

/// Collects the files' items; returns the class count that multiple-choice tables declare by
/// their ending columns ([`super::multiple_choice`]).
pub(crate) fn collect(scan: &mut RootScan<'_>) -> Option<u32> {
    let files = scan.files.clone();
    let photos = super::photos::photo_folders(&files);
    let mut tables = Vec::new();
    for e in files {
        let (dir, name) = e.rel.rsplit_once('/').unwrap_or(("", &e.rel));
        let task = if holds(name, Holds::Mask) && photos.contains(dir) {
            Task::photo()
        } else if holds(name, Holds::Mask) {
            Task::Mask {
                image: None,
                missing_image: None,
            }
        } else if holds(name, Holds::Array) {
            Task::Array
        } else if let Some(f) = TableFormat::of(name) {
            Task::Table(f)
        } else if json_lines(e) {
            Task::Table(TableFormat::Jsonl)
        } else {
            continue;
        };
        if let Task::Table(f) = task {
            tables.push((&e.source, f));
        }
        let item = scan.item(e, split_of(&e.rel), task);
        scan.items.push(item);
    }
    // Nothing but photos (a folder of JPEG files: DreamBooth's instance images, DCGAN's
    // celeba folder): samples without labels, each read for its header, rather than nothing
    // to scan. Beside labels, the photos are left alone (a million JPEG files beside their
    // label table are not opened for nothing).
    if scan.items.is_empty() {
        let files = scan.files.clone();
        for e in files.into_iter().filter(|e| holds(&e.rel, Holds::Image)) {
            let item = scan.item(e, split_of(&e.rel), Task::photo());
            scan.items.push(item);
        }
    }
    super::multiple_choice::class_count(tables)
}

/// Whether `e` is a `.json` file of JSON Lines records, not COCO (the `--train_file train.json`
/// of transformers' example scripts): a label table like a `.jsonl` file.
pub(crate) fn json_lines(e: &Entry) -> bool {
    has_ext(&e.rel, &["json"])
        && !e.sniffed(Sniff::CocoJson, is_coco_json)
        && e.sniffed(Sniff::JsonLines, is_json_lines)
}

/// The files layout's kind: `--layout files`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("files");

/// The files layout (see the module's doc).
pub(crate) struct Files;

impl Layout for Files {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn help(&self) -> &'static str {
        "every mask, array and table found"
    }
    fn scope(&self) -> Scope {
        Scope::Loose
    }
    fn pairs_by_name(&self) -> bool {
        false
    }
    fn claim(&self, _: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        whole(true)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        Found {
            num_classes: collect(scan),
            ..Found::default()
        }
    }
}
