//! The layout kinds a dataset can have (`--layout`, a config's `layout =`, the report's
//! `layouts`) and their names, declared once here: [`NAMED`] gives each kind its name and the
//! other spellings `--layout` accepts, in the order of the scan's list of layouts
//! (`labelguard-scan`'s `layout/list.rs`, its order of precedence, which a test there holds
//! to this table). Each layout's behaviour (what it claims, its line of `scan --help`) is the
//! scan's, in the layout's own file; the names live here so that a report can be read and
//! rendered without the scan.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutKind {
    /// Detected: the first layout that claims the files.
    Auto,
    Cityscapes,
    Voc,
    Paired,
    ImageFolder,
    Files,
    Custom,
    Coco,
    Yolo,
    Model,
    HfDataset,
    WebDataset,
    TokenBin,
    Torchvision,
    Camvid,
}

/// A layout's names.
#[derive(Debug)]
pub struct Named {
    pub kind: LayoutKind,
    /// `--layout NAME`, a config's `layout = "NAME"`, the report's `layouts`.
    pub name: &'static str,
    /// Other spellings `--layout` accepts (lower case, without `-` or `_`).
    pub aliases: &'static [&'static str],
}

const fn named(kind: LayoutKind, name: &'static str, aliases: &'static [&'static str]) -> Named {
    Named {
        kind,
        name,
        aliases,
    }
}

/// Every layout's names, in the order of precedence of the scan's layouts (a new layout adds
/// its kind above and its line here, where its layout stands in the scan's list).
pub const NAMED: &[Named] = &[
    named(LayoutKind::Custom, "custom", &[]),
    named(LayoutKind::Cityscapes, "cityscapes", &[]),
    named(LayoutKind::Voc, "voc", &["pascalvoc"]),
    named(LayoutKind::Camvid, "camvid", &[]),
    named(LayoutKind::Model, "model", &["huggingface", "transformers"]),
    named(
        LayoutKind::HfDataset,
        "hfdataset",
        &["hf", "datasets", "arrow"],
    ),
    named(LayoutKind::TokenBin, "tokenbin", &["nanogpt", "megatron"]),
    named(LayoutKind::Torchvision, "torchvision", &["mnist", "cifar"]),
    named(LayoutKind::Coco, "coco", &[]),
    named(LayoutKind::Yolo, "yolo", &["ultralytics"]),
    named(LayoutKind::Paired, "paired", &["ade20k", "imagesmasks"]),
    named(LayoutKind::WebDataset, "webdataset", &["wds"]),
    named(LayoutKind::ImageFolder, "imagefolder", &[]),
    named(LayoutKind::Files, "files", &[]),
];

/// The name `--layout` takes for detection.
pub const AUTO: &str = "auto";

/// The names `--layout` takes: `auto`, then every layout's, in order of precedence.
pub fn layout_names() -> Vec<&'static str> {
    std::iter::once(AUTO)
        .chain(NAMED.iter().map(|n| n.name))
        .collect()
}

impl LayoutKind {
    /// The kind's names (`None` for `auto`).
    pub fn named(self) -> Option<&'static Named> {
        NAMED.iter().find(|n| n.kind == self)
    }

    /// The kind's name (`--layout`, the report's `layouts`).
    pub fn as_str(self) -> &'static str {
        self.named().map_or(AUTO, |n| n.name)
    }

    /// The other spellings `--layout` accepts for the kind.
    pub fn aliases(self) -> &'static [&'static str] {
        self.named().map_or(&[], |n| n.aliases)
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
        NAMED
            .iter()
            .find(|n| n.name == key || n.aliases.contains(&key.as_str()))
            .map(|n| n.kind)
            .ok_or_else(|| {
                format!(
                    "unknown layout '{s}' (known: {})",
                    layout_names().join(", ")
                )
            })
    }
}

impl Serialize for LayoutKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for LayoutKind {
    /// A name as a report writes it (no alias: a report holds names only).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
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

    /// Every kind but `auto` has its names, once (a new kind without a line in [`NAMED`]
    /// fails here; a new kind not handled here does not compile).
    #[test]
    fn every_kind_is_named_once() {
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
        let listed: Vec<LayoutKind> = NAMED.iter().map(|n| n.kind).collect();
        for (i, k) in listed.iter().enumerate() {
            assert_eq!(kinds(*k), 1);
            assert!(!listed[..i].contains(k), "{k:?} is named twice");
        }
        assert_eq!(
            listed.len(),
            14,
            "a kind without its names, or one too many"
        );
        assert_eq!(LayoutKind::Auto.named().map(|n| n.name), None);
        assert_eq!(LayoutKind::Auto.as_str(), AUTO);
    }

    /// Names and aliases are told apart: each spelling parses to one layout, names round-trip,
    /// and an unknown one lists them all.
    #[test]
    fn names_and_aliases_parse_to_their_layout() {
        let mut seen: Vec<&str> = vec![AUTO];
        for n in NAMED {
            for s in std::iter::once(n.name).chain(n.aliases.iter().copied()) {
                assert!(!seen.contains(&s), "'{s}' names two layouts");
                seen.push(s);
                assert_eq!(s, s.to_ascii_lowercase().replace(['-', '_'], ""));
                assert_eq!(s.parse::<LayoutKind>(), Ok(n.kind));
                assert_eq!(s.to_uppercase().parse::<LayoutKind>(), Ok(n.kind));
            }
            assert_eq!(n.kind.as_str(), n.name);
            assert_eq!(n.kind.aliases(), n.aliases);
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
}
