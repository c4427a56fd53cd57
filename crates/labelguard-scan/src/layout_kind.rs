//! The layout kinds a dataset can have (`--layout`, a config's `layout =`, the report's
//! `layouts`): a leaf that both the configuration and the layouts import, so neither imports
//! the other for it. The kinds and their names are declared with the report's model
//! (`labelguard_scan_model::layout_kind`, so a report is read and rendered without the scan);
//! each kind's layout is declared in its own file (`layout/<name>.rs`: its help, what it
//! claims) and listed once in `layout/list.rs`, in the names' order.

pub use labelguard_scan_model::layout_kind::{layout_names, LayoutKind, AUTO};
