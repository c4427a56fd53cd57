//! A dataset's own list of class colours, as the layouts that have one read it: CamVid's
//! `class_dict.csv`, and the `labelmap.txt` of a CVAT or Datumaro VOC export. The list gives
//! the class count, names and the palette its colour masks are mapped with
//! ([`DeclaredPalette`]); a list its readers cannot read is LG622, on the file.

use super::declare::{DeclaredPalette, Found};
use super::item::RootScan;
use crate::checks::lg622_malformed_class_colours as lg622;
use labelguard_formats::read::class_colours::{
    parse_class_dict, parse_labelmap, ClassColour, ClassColoursProblem,
};

/// A kind of class-colour file: its name, its reader, and the form of one of its rows.
pub(super) struct ColourList {
    pub file: &'static str,
    parse: fn(&str) -> Result<Vec<ClassColour>, ClassColoursProblem>,
    row: &'static str,
}

/// CamVid's `class_dict.csv`.
pub(super) const CLASS_DICT: ColourList = ColourList {
    file: "class_dict.csv",
    parse: parse_class_dict,
    row: "name,r,g,b",
};

/// CVAT's and Datumaro's `labelmap.txt`.
pub(super) const LABELMAP: ColourList = ColourList {
    file: "labelmap.txt",
    parse: parse_labelmap,
    row: "name:r,g,b::",
};

/// The largest list read (a real one is under a few KB).
const MAX_BYTES: u64 = 1 << 20;

/// The classes of `list` in the scanned root, or its problem as a finding of the dataset.
pub(super) fn read_classes(scan: &mut RootScan<'_>, list: &ColourList) -> Option<Vec<ClassColour>> {
    let mut buf = Vec::new();
    let problem = match scan.source_of(list.file).read_all(MAX_BYTES, &mut buf) {
        Err(f) => f,
        Ok(()) => match (list.parse)(&String::from_utf8_lossy(&buf)) {
            Ok(classes) => return Some(classes),
            Err(p) => lg622::finding(&p, list.row),
        },
    };
    let item = scan.synthetic(list.file, "all".into(), problem);
    scan.items.push(item);
    None
}

/// What `classes`, read from `list`, tell of the dataset: its class count, names and palette.
pub(super) fn found(list: &ColourList, classes: Vec<ClassColour>) -> Found {
    Found {
        num_classes: Some(classes.len() as u32),
        palette: Some(DeclaredPalette {
            file: list.file.to_string(),
            colours: classes.iter().map(|(_, c)| *c).collect(),
        }),
        class_names: Some(classes.into_iter().map(|(n, _)| n).collect()),
    }
}
