//! A dataset's layout kind, by its name (`--layout NAME`, a config's `layout = "NAME"`, the
//! report's `layouts`). The names are declared by the layouts themselves, each in its own file
//! of the scan (`labelguard-scan`'s `layout/`), so a kind here is only a name: adding a layout
//! adds nothing here, and a report is read and rendered without the scan. The two kinds this
//! crate has to tell apart are declared here: [`LayoutKind::AUTO`] (no layout asked for) and
//! [`LayoutKind::IMAGE_FOLDER`] (whose ids are its own numbering of class folders, which the
//! report words differently).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// A layout kind: a name, lower case, without `-` or `_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LayoutKind(&'static str);

impl LayoutKind {
    /// Detected: the first layout that claims the files.
    pub const AUTO: LayoutKind = LayoutKind("auto");
    /// torchvision's `root/class/image.jpg` (declared by the scan's `image_folder` layout).
    pub const IMAGE_FOLDER: LayoutKind = LayoutKind("imagefolder");

    /// A layout's kind, from the name its file declares.
    pub const fn declared(name: &'static str) -> LayoutKind {
        LayoutKind(name)
    }

    /// The kind a user asked for (`--layout`, a config's `layout =`, a report's `layouts`), in
    /// any case, with or without `-` and `_` (`Pascal-VOC` is `pascalvoc`). Whether a layout has
    /// that name or alias is the scan's to say (`labelguard_scan::layout`).
    pub fn requested(spelled: &str) -> LayoutKind {
        LayoutKind(intern(spelled.to_ascii_lowercase().replace(['-', '_'], "")))
    }

    /// The kind's name.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for LayoutKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// Each distinct requested name, kept once for the life of the process (a handful: the names
/// a command line, a config file and the reports it reads spell), so that kinds stay `Copy`.
fn intern(name: String) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    match names.get(name.as_str()) {
        Some(kept) => kept,
        None => {
            let kept: &'static str = Box::leak(name.into_boxed_str());
            names.insert(kept);
            kept
        }
    }
}

impl Serialize for LayoutKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for LayoutKind {
    /// A name as a report writes it; the scan's merge checks it names a layout.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Ok(LayoutKind::requested(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A requested name is compared as the layouts declare theirs: any case, with or without
    /// `-` and `_`; the same name is kept once.
    #[test]
    fn requested_names_are_normalised_and_kept_once() {
        assert_eq!(LayoutKind::requested("AUTO"), LayoutKind::AUTO);
        assert_eq!(
            LayoutKind::requested("Image_Folder"),
            LayoutKind::IMAGE_FOLDER
        );
        assert_eq!(LayoutKind::requested("Pascal-VOC").as_str(), "pascalvoc");
        let (a, b) = (
            LayoutKind::requested("web-dataset"),
            LayoutKind::requested("WebDataset"),
        );
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
    }

    /// A report holds each kind by its name, and reads it back.
    #[test]
    fn reports_write_and_read_the_names() {
        for kind in [LayoutKind::AUTO, LayoutKind::declared("voc")] {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(serde_json::from_str::<LayoutKind>(&json).unwrap(), kind);
        }
    }
}
