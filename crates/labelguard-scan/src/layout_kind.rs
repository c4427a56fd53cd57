//! The layout kinds a dataset can have (`--layout`, a config's `layout =`, the report's
//! `layouts`): a leaf that both the configuration and the layouts import, so neither imports
//! the other for it. Each kind is declared by its layout, in its own file
//! (`layout/<name>.rs`: its name, aliases, help, what it claims), and listed once in
//! `layout/list.rs`, which implements the kinds' names, parsing and serialisation from that
//! list.

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
