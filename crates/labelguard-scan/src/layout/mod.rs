//! Layouts: which files are labels, which image each mask belongs to, and which split each
//! file is in.
//!
//! Each layout is one file (`custom.rs`, `voc.rs`, ...: a `declare::Layout`, with its name,
//! aliases, `scan --help` line and documentation) and one line of [`LAYOUTS`] below, the
//! order of precedence: with `--layout auto`, the default, each tree of a folder goes to the
//! first layout that claims it. `scan --help` lists them in that order.
//!
//! Splits are named by the first path component that is a split name (`train`/`training`,
//! `val`/`valid`/`validation`, `test`/`testing`), or `all`.
//!
//! `list` asks the layouts in order, `discover` runs them over every scanned path, `datasets`
//! splits a scanned folder into the datasets it holds, `item` holds what discovery produces
//! (items, tasks), `pairing` the mask-to-image pairing the paired layouts share, `paths` the
//! path helpers (splits, extensions), `root` what a scan is given, `shards` the tar shards
//! (WebDataset) that stand for their members, and the brace patterns of shard names given as
//! arguments.

mod class_colours;
mod datasets;
mod declare;
mod discover;
pub mod item;
mod list;
mod multiple_choice;
mod pairing;
pub mod paths;
mod photos;
mod pipeline;
mod root;
pub mod shards;
mod single_file;

/// Declares each layout's module and lists the layouts in order ([`LAYOUTS`]).
macro_rules! layouts {
    ($($module:ident::$layout:ident),* $(,)?) => {
        $(pub(crate) mod $module;)*
        /// Every layout, in order of precedence: in a folder that holds several datasets each
        /// tree goes to the first layout that claims it (a Cityscapes or VOC tree before the
        /// models, the models before the token data, the detection trees before a mask folder
        /// beside an image folder, which `annotations/` and `labels/` beside `images/` would look
        /// like); the loose files left over are keyed samples, an ImageFolder tree or files, in
        /// that order. A folder that holds one dataset is the first layout that claims anything
        /// in it. A new layout is its file and its line here.
        pub(crate) const LAYOUTS: &[&dyn declare::Layout] = &[$(&$module::$layout),*];
    };
}

layouts! {
    custom::Custom,
    cityscapes::Cityscapes,
    voc::Voc,
    camvid::Camvid,
    model::Model,
    hf_dataset::HfDataset,
    token_bin::TokenBin,
    torchvision_raw::Torchvision,
    coco::Coco,
    yolo::Yolo,
    paired::Paired,
    webdataset::WebDataset,
    image_folder::ImageFolder,
    files::Files,
}

pub use crate::layout_kind::LayoutKind;
pub use custom::expand_template;
pub use declare::DeclaredPalette;
pub use discover::{discover, discover_roots, DatasetInfo, Discovery};
pub use item::{Item, Part, Task};
pub use list::{layout_names, layouts_help, requested};
pub use paths::split_of;
pub use root::{ListedRoot, Root};

#[cfg(test)]
mod tests;
