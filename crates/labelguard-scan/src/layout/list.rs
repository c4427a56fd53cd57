//! The layouts, in order of precedence ([`LAYOUTS`]): adding a layout is its own file (a
//! [`Layout`]), one line here, its `LayoutKind` variant and `mod` line, and its tests.
//! Everything that names the layouts comes from this list: the kinds' names
//! ([`LayoutKind::as_str`], the report's `layouts`), `--layout`'s parsing and its error,
//! `scan --help`'s list ([`layouts_help`]); the `layout` setting's help (and so README's table),
//! the JSON schema's enum, the list in `layout/mod.rs`'s doc and the user guide's aliases are
//! held to it by the tests below.

use super::declare::{At, Layout, Scope};
use super::{camvid, cityscapes, coco, custom, files, hf_dataset, image_folder, model, paired};
use super::{token_bin, torchvision_raw, voc, webdataset, yolo};
use crate::layout_kind::LayoutKind;
use labelguard_formats::walk::Entry;

/// Every layout, in order of precedence: in a folder that holds several datasets each tree
/// goes to the first layout that claims it (a Cityscapes or VOC tree before the models, the
/// models before the token data, the detection trees before a mask folder beside an image
/// folder, which `annotations/` and `labels/` beside `images/` would look like); the loose
/// files left over are keyed samples, an ImageFolder tree or files, in that order. A folder
/// that holds one dataset is the first layout that claims anything in it.
pub(crate) const LAYOUTS: &[&dyn Layout] = &[
    &custom::Custom,
    &cityscapes::Cityscapes,
    &voc::Voc,
    &camvid::Camvid,
    &model::Model,
    &hf_dataset::HfDataset,
    &token_bin::TokenBin,
    &torchvision_raw::Torchvision,
    &coco::Coco,
    &yolo::Yolo,
    &paired::Paired,
    &webdataset::WebDataset,
    &image_folder::ImageFolder,
    &files::Files,
];

/// The name `--layout` takes for detection.
const AUTO: &str = "auto";

/// The layout of a kind; `auto` (a dataset whose layout was not detected) reads its files as
/// loose files.
pub(crate) fn layout_of(kind: LayoutKind) -> &'static dyn Layout {
    LAYOUTS
        .iter()
        .copied()
        .find(|l| l.kind() == kind)
        .unwrap_or(&files::Files)
}

/// The first layout of `scope` (any, when `None`) that claims anything among `files`.
pub(crate) fn first_claim(files: &[&Entry], at: &At<'_>, scope: Option<Scope>) -> LayoutKind {
    LAYOUTS
        .iter()
        .filter(|l| scope.is_none_or(|s| l.scope() == s))
        .find(|l| !l.claim(files, at).is_empty())
        .map_or(LayoutKind::Files, |l| l.kind())
}

/// The names `--layout` takes: `auto`, then every layout's, in order of precedence.
pub fn layout_names() -> Vec<&'static str> {
    std::iter::once(AUTO)
        .chain(LAYOUTS.iter().map(|l| l.name()))
        .collect()
}

/// `scan --help`'s list of layouts: one line each, its name and the files that mark it.
pub fn layouts_help() -> String {
    LAYOUTS
        .iter()
        .map(|l| format!("  {:<12} {}\n", l.name(), l.help()))
        .collect()
}

impl LayoutKind {
    /// The kind's name (`--layout`, the report's `layouts`).
    pub fn as_str(self) -> &'static str {
        match self {
            LayoutKind::Auto => AUTO,
            kind => layout_of(kind).name(),
        }
    }
}

impl std::str::FromStr for LayoutKind {
    type Err = String;
    /// A name or alias, in any case, with or without `-` and `_`.
    fn from_str(s: &str) -> Result<Self, String> {
        let key = s.to_ascii_lowercase().replace(['-', '_'], "");
        if key == AUTO {
            return Ok(LayoutKind::Auto);
        }
        LAYOUTS
            .iter()
            .find(|l| l.name() == key || l.aliases().contains(&key.as_str()))
            .map(|l| l.kind())
            .ok_or_else(|| {
                format!(
                    "unknown layout '{s}' (known: {})",
                    layout_names().join(", ")
                )
            })
    }
}

impl serde::Serialize for LayoutKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for LayoutKind {
    /// A name as a report writes it (no alias: a report holds names only).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        match name.parse::<LayoutKind>() {
            Ok(kind) if kind.as_str() == name => Ok(kind),
            _ => Err(serde::de::Error::custom(format!(
                "unknown layout `{name}`, expected one of {}",
                layout_names().join(", ")
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SETTINGS;

    /// Every kind but `auto` has its layout, once (a new kind without a line in
    /// [`LAYOUTS`] fails here; a new kind not handled here does not compile).
    #[test]
    fn every_kind_is_one_layout_of_the_list() {
        let kinds = |k: LayoutKind| match k {
            LayoutKind::Auto => 0,
            LayoutKind::Cityscapes
            | LayoutKind::Voc
            | LayoutKind::Paired
            | LayoutKind::ImageFolder
            | LayoutKind::Files
            | LayoutKind::Custom
            | LayoutKind::Coco
            | LayoutKind::Yolo
            | LayoutKind::Model
            | LayoutKind::HfDataset
            | LayoutKind::WebDataset
            | LayoutKind::TokenBin
            | LayoutKind::Torchvision
            | LayoutKind::Camvid => 1,
        };
        let listed: Vec<LayoutKind> = LAYOUTS.iter().map(|l| l.kind()).collect();
        for (i, k) in listed.iter().enumerate() {
            assert_eq!(kinds(*k), 1);
            assert!(!listed[..i].contains(k), "{k:?} is listed twice");
        }
        assert_eq!(
            listed.len(),
            14,
            "a kind without its layout, or one too many"
        );
        assert_eq!(layout_of(LayoutKind::Auto).kind(), LayoutKind::Files);
    }

    /// Names and aliases are told apart: each spelling parses to one layout, names round-trip,
    /// and an unknown one lists them all.
    #[test]
    fn names_and_aliases_parse_to_their_layout() {
        let mut seen: Vec<&str> = vec![AUTO];
        for l in LAYOUTS {
            for s in std::iter::once(l.name()).chain(l.aliases().iter().copied()) {
                assert!(!seen.contains(&s), "'{s}' names two layouts");
                seen.push(s);
                assert_eq!(s, s.to_ascii_lowercase().replace(['-', '_'], ""));
                assert_eq!(s.parse::<LayoutKind>(), Ok(l.kind()));
                assert_eq!(s.to_uppercase().parse::<LayoutKind>(), Ok(l.kind()));
            }
            assert_eq!(l.kind().as_str(), l.name());
            assert!(!l.help().is_empty() && !l.help().contains('\n'));
        }
        assert_eq!("Image_Folder".parse(), Ok(LayoutKind::ImageFolder));
        assert_eq!("pascal-voc".parse(), Ok(LayoutKind::Voc));
        assert_eq!("AUTO".parse(), Ok(LayoutKind::Auto));
        assert_eq!(
            "darknet".parse::<LayoutKind>(),
            Err(
                "unknown layout 'darknet' (known: auto, custom, cityscapes, voc, camvid, \
                 model, hfdataset, tokenbin, torchvision, coco, yolo, paired, webdataset, imagefolder, \
                 files)"
                    .to_string()
            )
        );
    }

    /// A report holds each kind by its name, and reads back names only.
    #[test]
    fn reports_write_and_read_the_names() {
        for name in layout_names() {
            let kind: LayoutKind = name.parse().unwrap();
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<LayoutKind>(&json).unwrap(), kind);
        }
        let err = serde_json::from_str::<LayoutKind>("\"wds\"").unwrap_err();
        assert!(err.to_string().contains("unknown layout `wds`"), "{err}");
    }

    /// The lists of layouts written out elsewhere are this one: the settings' help (and so the
    /// settings reference, which a test holds to the settings), the JSON schema's enum, the list
    /// in the layouts' module doc, `scan --help`'s, README's.
    #[test]
    fn the_other_lists_of_layouts_are_this_one() {
        let names = layout_names();
        let setting = SETTINGS.iter().find(|s| s.key == "layout").unwrap();
        assert_eq!(setting.help, format!("Layout: {}.", names.join(", ")));

        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schema/scan-report.schema.json")).unwrap();
        let mut found = Vec::new();
        enums_of_layouts(&schema, &mut found);
        assert_eq!(found.len(), 1, "the schema's layouts: {found:?}");
        assert_eq!(found[0], names);

        let doc: Vec<&str> = include_str!("mod.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! * **"))
            .filter_map(|l| l.split_once("**").map(|(n, _)| n))
            .collect();
        assert_eq!(doc, names[1..]);

        let help = layouts_help();
        let first_words: Vec<&str> = help
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(first_words, names[1..]);

        // README's list, in the same order.
        let readme = include_str!("../../../../README.md");
        let listed = readme
            .lines()
            .skip_while(|l| !l.starts_with("Layouts, recognised by default"))
            .find_map(|l| l.strip_prefix("- "))
            .expect("README lists the layouts under 'Layouts, recognised by default'");
        assert_eq!(listed.split(", ").collect::<Vec<_>>(), names[1..]);

        // The user guide names every alias.
        let guide = include_str!("../../../../docs/guide/layout-detection.md");
        for l in LAYOUTS {
            for a in l.aliases() {
                assert!(
                    guide.contains(&format!("`{a}`")),
                    "the guide does not name '{a}'"
                );
            }
        }
    }

    fn enums_of_layouts(v: &serde_json::Value, out: &mut Vec<Vec<String>>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    if k == "layouts" {
                        if let Some(e) = v.pointer("/items/enum").and_then(|e| e.as_array()) {
                            out.push(e.iter().map(|x| x.as_str().unwrap().to_string()).collect());
                        }
                    }
                    enums_of_layouts(v, out);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| enums_of_layouts(x, out)),
            _ => {}
        }
    }
}
