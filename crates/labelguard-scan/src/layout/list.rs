//! The layouts, in order of precedence ([`LAYOUTS`]): adding a layout is its own file (a
//! [`Layout`]), one line here, its `LayoutKind` variant and its names' line in
//! `labelguard-scan-model`'s `layout_kind.rs` (the names' one declaration, which reports are
//! read and rendered with, without the scan), its `mod` line, and its tests.
//! Everything that names the layouts comes from that declaration, in this list's order (a
//! test below holds the two together): the kinds' names ([`LayoutKind::as_str`], the
//! report's `layouts`), `--layout`'s parsing and its error, `scan --help`'s list
//! ([`layouts_help`]); the `layout` setting's help (and so README's table), the JSON schema's
//! enum, the list in `layout/mod.rs`'s doc and the user guide's aliases are held to it by the
//! tests below.

use super::declare::{At, Layout, Scope};
use super::{camvid, cityscapes, coco, custom, files, hf_dataset, image_folder, model, paired};
use super::{token_bin, torchvision_raw, voc, webdataset, yolo};
pub use crate::layout_kind::layout_names;
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

/// `scan --help`'s list of layouts: one line each, its name and the files that mark it.
pub fn layouts_help() -> String {
    LAYOUTS
        .iter()
        .map(|l| format!("  {:<12} {}\n", l.kind().as_str(), l.help()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SETTINGS;
    use labelguard_scan_model::layout_kind::NAMED;

    /// The layouts are the kinds named in `labelguard_scan_model::layout_kind::NAMED`, in its
    /// order (the names' one declaration, which the report and `--layout` read), each once; a
    /// kind detected as nothing in particular (`auto`) reads its files as loose files.
    #[test]
    fn the_layouts_are_the_named_kinds_in_order() {
        let listed: Vec<LayoutKind> = LAYOUTS.iter().map(|l| l.kind()).collect();
        let named: Vec<LayoutKind> = NAMED.iter().map(|n| n.kind).collect();
        assert_eq!(listed, named);
        assert_eq!(layout_of(LayoutKind::Auto).kind(), LayoutKind::Files);
        for l in LAYOUTS {
            assert!(!l.help().is_empty() && !l.help().contains('\n'));
        }
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
        for n in NAMED {
            for a in n.aliases {
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
