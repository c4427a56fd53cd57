//! The **files** layout: every mask, array and label table found, each on its own.

use super::item::{RootScan, Task};
use super::paths::{ext_of, split_of, ARRAY_EXTS, MASK_EXTS};
use crate::read::table::TableFormat;
use std::path::Path;

pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let files = scan.files.clone();
    for e in files {
        let name = e.rel.rsplit('/').next().unwrap_or(&e.rel);
        let ext = ext_of(name);
        let task = if MASK_EXTS.contains(&ext.as_str()) {
            Task::Mask {
                image: None,
                missing_image: None,
            }
        } else if ARRAY_EXTS.contains(&ext.as_str()) {
            Task::Array
        } else if let Some(f) = TableFormat::from_path(Path::new(name)) {
            Task::Table(f)
        } else {
            continue;
        };
        let item = scan.item(e, split_of(&e.rel), task);
        scan.items.push(item);
    }
}
