//! What a layout declares about itself ([`Layout`]): its kind (its name) and aliases, its line
//! of `scan --help`, which files it claims and how it turns them into items. Every layout
//! implements it in its own file and has one line in `LAYOUTS` (`layout/mod.rs`), in order of
//! precedence; everything else that names layouts (`--layout`, its error and help, the
//! report's `layouts`, the JSON schema, README) comes from that list or is held to it by a test.

use super::item::{Item, RootScan};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::walk::Entry;

/// A tree a layout claims: its base folder (relative to the folder whose files were given,
/// `""` that folder) and what it owns below the base (folders and files, one component each
/// or a path).
pub(crate) type Tree = (String, Vec<String>);

/// Which files a layout claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Trees: the folders its marks name (`gtFine/`, `SegmentationClass/`, `data.yaml`, ...),
    /// claimed first, wherever they are in a scanned folder.
    Trees,
    /// Loose files: a group of files that no tree claimed, taken as a whole.
    Loose,
}

/// Where a claim is asked.
pub(crate) struct At<'a> {
    /// The settings that apply (the dataset's own, in detection).
    pub opts: &'a ScanOptions,
    /// The name of the folder the paths are relative to when one folder's layout is detected
    /// (`cifar-100-python`: its `train` is a CIFAR batch); `""` when a folder is partitioned.
    pub root_name: &'a str,
}

/// What a layout found besides its items.
#[derive(Clone, Debug, Default)]
pub(crate) struct Found {
    /// Class names the files declare (ImageFolder's folders, `data.yaml`, VOC's `<name>`s).
    pub class_names: Option<Vec<String>>,
    /// The class count the files declare, when no setting gives one.
    pub num_classes: Option<u32>,
    /// The class colours the files declare (CamVid's `class_dict.csv`): its colour masks are
    /// labels, mapped to ids with it, when no setting gives a palette.
    pub palette: Option<DeclaredPalette>,
}

/// A dataset's own class colours: the file that lists them (as the findings name it) and the
/// colours, index = class id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredPalette {
    pub file: String,
    pub colours: Vec<[u8; 3]>,
}

/// One dataset layout.
pub(crate) trait Layout: Sync {
    /// Its kind, by its name (`--layout NAME`, a config's `layout = "NAME"`, the report's
    /// `layouts`): the `KIND` its file declares, lower case, without `-` or `_`.
    fn kind(&self) -> LayoutKind;
    /// Other spellings `--layout` accepts (lower case, without `-` or `_`).
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// Its line of `scan --help`: the files that mark it.
    fn help(&self) -> &'static str;
    /// Whether it claims trees or loose files.
    fn scope(&self) -> Scope {
        Scope::Trees
    }
    /// What it claims among `files`: its trees, or for a [`Scope::Loose`] layout one tree at
    /// `""` (all of them) or none. The one test of both detection (the first layout that claims
    /// anything is a folder's layout) and partition (the trees of a folder that holds several
    /// datasets, each claimed by the first layout that claims it).
    fn claim(&self, files: &[&Entry], at: &At<'_>) -> Vec<Tree>;
    /// Whether [`Layout::collect`] looks files up by name (the set of present paths is built
    /// for it; 200,000 hashed names are saved for the layouts that do not).
    fn pairs_by_name(&self) -> bool {
        true
    }
    /// Turns the dataset's files into items (`scan.items`).
    fn collect(&self, scan: &mut RootScan<'_>, opts: &ScanOptions) -> Found;
    /// The datasets its items are reported as: one (the default), or several, each with what
    /// its name adds to the tree's and its class names (VOC's class masks and detection XML:
    /// pixels and objects are different units, each with its own histogram and weights).
    fn datasets(&self, items: Vec<Item>, class_names: Option<Vec<String>>) -> Vec<Part> {
        vec![Part {
            items,
            suffix: "",
            class_names,
        }]
    }
    /// Whether the loose files of several top-level folders are one dataset of this layout
    /// rather than a dataset per folder (ImageFolder's class folders, `root/cat/0.jpg` and
    /// `root/dog/0.jpg`); asked of the [`Scope::Loose`] layouts in order.
    fn spans_folders(&self, _loose: &[&Entry]) -> bool {
        false
    }
}

/// One dataset of a layout's items ([`Layout::datasets`]).
pub(crate) struct Part {
    pub items: Vec<Item>,
    /// What the dataset's name adds to its tree's (`" (detection)"`), `""` for the tree's own.
    pub suffix: &'static str,
    pub class_names: Option<Vec<String>>,
}

/// The claim of a [`Scope::Loose`] layout: all the files, or none.
pub(crate) fn whole(yes: bool) -> Vec<Tree> {
    if yes {
        vec![(String::new(), Vec::new())]
    } else {
        Vec::new()
    }
}
