//! The layout kinds (`--layout`, a config's `layout =`, the report's `layouts`): a leaf that
//! both the configuration and the layouts import, so neither imports the other for it. A kind
//! is the name its layout declares in its own file (`layout/<name>.rs`, listed once in
//! `layout/mod.rs`); the type is the report model's (`labelguard_scan_model::layout_kind`), so a
//! report is read and rendered without the scan. The settings know one layout by name: `custom`,
//! which `--mask-glob` selects and which needs it.

pub use labelguard_scan_model::layout_kind::LayoutKind;

/// The custom layout's kind (`layout/custom.rs`): `--mask-glob` selects its masks.
pub const CUSTOM: LayoutKind = LayoutKind::declared("custom");
