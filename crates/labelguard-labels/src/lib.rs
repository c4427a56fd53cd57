//! Label conventions, as data: what each public dataset's ids mean ([`preset`]) and the
//! repairs that map one convention to another ([`repair`]).
//!
//! No I/O and no scanning: `labelguard-scan` uses these to judge and propose, `labelguard-fix`
//! to rewrite files, and the Python extension to remap arrays, each without linking the others.

pub mod preset;
pub mod repair;

pub use preset::{Preset, PRESETS};
