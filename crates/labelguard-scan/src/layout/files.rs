//! The **files** layout: every mask, array and label table found, each on its own.

use super::item::{RootScan, Task};
use super::paths::split_of;
use crate::formats::{holds, Holds};
use crate::read::table::TableFormat;

pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let files = scan.files.clone();
    for e in files {
        let name = e.rel.rsplit('/').next().unwrap_or(&e.rel);
        let task = if holds(name, Holds::Mask) {
            Task::Mask {
                image: None,
                missing_image: None,
            }
        } else if holds(name, Holds::Array) {
            Task::Array
        } else if let Some(f) = TableFormat::of(name) {
            Task::Table(f)
        } else {
            continue;
        };
        let item = scan.item(e, split_of(&e.rel), task);
        scan.items.push(item);
    }
}
