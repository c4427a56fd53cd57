//! The **files** layout: every mask, array and label table found, each on its own; the images
//! of a folder of photos (`photos`) are samples without labels, not masks.

use super::item::{RootScan, Task};
use super::paths::split_of;
use crate::formats::{holds, Holds};
use crate::read::table::TableFormat;

pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let files = scan.files.clone();
    let photos = super::photos::photo_folders(&files);
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
        } else {
            continue;
        };
        let item = scan.item(e, split_of(&e.rel), task);
        scan.items.push(item);
    }
}
