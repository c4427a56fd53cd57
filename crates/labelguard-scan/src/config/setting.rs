//! The scan settings, each declared once: its config key, flag, help, default and whether the
//! JSON report records it.
//!
//! A setting used to be written in eight places in four files. Now the `settings!` list below
//! generates what is mechanical ([`Overrides`], its layering, the typo check of the `[scan]`
//! table, the flags of `scan` and `fix` through [`Overrides::read`] and [`SETTINGS`], the
//! settings reference, docs/reference/settings.md, through [`markdown_table`]), and tests hold the
//! rest to it: the defaults of [`ScanOptions`](super::ScanOptions) and that page (below), and the report's
//! [`Settings`](crate::report::Settings), a schema whose field order is fixed (in its module).

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Which commands take a setting's flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// What the labels mean: `scan` and `fix` both take these flags.
    Labels,
    /// How `scan` reads and judges the data: only `scan` takes these.
    Scan,
}

/// The type of a setting's value, which picks the command line's parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Path,
    U32,
    U64,
    I64,
    F64,
    Bool,
    /// Repeatable on the command line, a list in the config file.
    List,
}

/// One setting's declaration.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The config key; in kebab-case, the flag (`num_classes`, `--num-classes`).
    pub key: &'static str,
    /// The flag's help and the README's description, one sentence.
    pub help: &'static str,
    pub kind: Kind,
    pub group: Group,
    /// The placeholder of the flag's value in the help (`FILE`); empty for a switch.
    pub value_name: &'static str,
    /// A flag without a value that sets `true`. A `Bool` that is not a switch takes an optional
    /// value (`--reduce-zero-label [false]`).
    pub switch: bool,
    /// The value the scan uses when no layer sets it, as a TOML value (`-100`, `"auto"`);
    /// `None` when an unset setting is simply absent.
    pub default: Option<&'static str>,
    /// Whether the JSON report's `settings` record it (reports merge only when those agree);
    /// a test there holds [`Settings`](crate::report::Settings) to it.
    pub in_report: bool,
}

impl Setting {
    /// What an entry does not name: a scan-only flag, no default, not in the report.
    const BASE: Setting = Setting {
        key: "",
        help: "",
        kind: Kind::Text,
        group: Group::Scan,
        value_name: "",
        switch: false,
        default: None,
        in_report: false,
    };

    /// The flag, without its dashes.
    pub fn flag(&self) -> String {
        self.key.replace('_', "-")
    }

    /// Whether `key` is a setting: unknown keys of the `[scan]` table are typos.
    pub fn known(key: &str) -> bool {
        SETTINGS.iter().any(|s| s.key == key)
    }

    fn named(key: &str) -> &'static Setting {
        SETTINGS
            .iter()
            .find(|s| s.key == key)
            .expect("generated from SETTINGS")
    }
}

/// A layer of settings that has its own typed values, read setting by setting: the command line.
pub trait Source {
    /// The value of `s`, when this layer sets it.
    fn one<T: Clone + Send + Sync + 'static>(&self, s: &Setting) -> Option<T>;
    /// The values of the repeatable `s`, when this layer sets it.
    fn list(&self, s: &Setting) -> Option<Vec<String>>;
}

/// A type a setting can have.
pub trait Value: Sized {
    const KIND: Kind;
    fn read(src: &impl Source, s: &Setting) -> Option<Self>;
    /// Makes a path of a config file relative to the file's folder `dir` (other values stay).
    fn rebase(&mut self, _dir: &Path) {}
}

macro_rules! scalars {
    ($($t:ty => $kind:ident),*) => {$(
        impl Value for $t {
            const KIND: Kind = Kind::$kind;
            fn read(src: &impl Source, s: &Setting) -> Option<Self> {
                src.one(s)
            }
        }
    )*};
}
scalars!(String => Text, u32 => U32, u64 => U64, i64 => I64, f64 => F64, bool => Bool);

impl Value for PathBuf {
    const KIND: Kind = Kind::Path;
    fn read(src: &impl Source, s: &Setting) -> Option<Self> {
        src.one(s)
    }
    fn rebase(&mut self, dir: &Path) {
        if self.is_relative() {
            *self = dir.join(&*self);
        }
    }
}

impl Value for Vec<String> {
    const KIND: Kind = Kind::List;
    fn read(src: &impl Source, s: &Setting) -> Option<Self> {
        src.list(s)
    }
}

/// Generates [`Overrides`] and [`SETTINGS`] from one list: per setting its help (a doc
/// comment), key, type and the [`Setting`] fields that differ from [`Setting::BASE`].
macro_rules! settings {
    ($(#[doc = $help:literal] $key:ident: $ty:ty { $($field:ident: $value:expr),* $(,)? })*) => {
        /// Every setting, each optional so that layers can be stacked. The command line fills
        /// one, the config file another.
        #[derive(Clone, Debug, Default, Deserialize, PartialEq)]
        pub struct Overrides {
            $(#[doc = $help] pub $key: Option<$ty>,)*
        }

        /// Every setting, in the order of `scan --help` within each [`Group`].
        pub const SETTINGS: &[Setting] = &[$(Setting {
            key: stringify!($key),
            help: $help.trim_ascii(),
            kind: <$ty as Value>::KIND,
            $($field: $value,)*
            ..Setting::BASE
        }),*];

        impl Overrides {
            /// `self` with every field that `over` sets replaced.
            pub fn then(self, over: &Overrides) -> Overrides {
                Overrides { $($key: over.$key.clone().or(self.$key)),* }
            }

            /// The layer that `src` holds.
            pub fn read(src: &impl Source) -> Overrides {
                Overrides { $($key: Value::read(src, Setting::named(stringify!($key)))),* }
            }

            /// Paths of a config file are relative to the file: to its folder `dir`.
            pub(crate) fn relative_to(mut self, dir: &Path) -> Overrides {
                $(if let Some(v) = &mut self.$key { v.rebase(dir) })*
                self
            }
        }
    };
}

settings! {
    /// Dataset preset: cityscapes, ade20k, pascal-voc.
    preset: String { group: Group::Labels, value_name: "PRESET", in_report: true }
    /// Number of classes C: valid ids are 0..C-1.
    num_classes: u32 { group: Group::Labels, value_name: "NUM_CLASSES", in_report: true }
    /// Detection datasets: the framework whose head reads the labels (torchvision counts background, mmdet, detectron2, ultralytics); default: ultralytics for YOLO, torchvision otherwise.
    framework: String { group: Group::Labels, value_name: "FRAMEWORK", in_report: true }
    /// The loss's ignore_index (PyTorch's default is -100); `fix` maps void values to it.
    ignore_index: i64 {
        group: Group::Labels,
        value_name: "IGNORE_INDEX",
        default: Some("-100"),
        in_report: true,
    }
    /// Masks use 0 for "other" and 1..C for classes (mmseg's reduce_zero_label): map 0 to 255, v to v-1.
    reduce_zero_label: bool { value_name: "BOOL", default: Some("false"), in_report: true }
    /// Palette for colour masks: JSON [[r,g,b], ...] or lines 'r g b [name]'; index = class id.
    palette: PathBuf { group: Group::Labels, value_name: "FILE" }
    /// A class-weight file to check (JSON/Python list, text, .npy): length C, finite, non-negative.
    class_weights: PathBuf { value_name: "FILE", in_report: true }
    /// Class names, one per line (or a JSON list): maps string labels of tables to ids.
    classes: PathBuf { value_name: "FILE" }
    /// The label column of CSV/TSV/JSONL/Parquet tables (default: label, labels, class, target, y).
    label_column: String { value_name: "NAME", in_report: true }
    /// Token datasets: the model directory (config.json, tokenizer) that ids, labels, lengths and image placeholders are checked against.
    model: PathBuf { value_name: "MODEL_DIR", in_report: true }
    /// Token data: the rows of the model's token embedding (ids are checked against 0..N-1); overrides nanoGPT's meta.pkl and --model's.
    vocab_size: u64 { value_name: "N", in_report: true }
    /// Layout: auto (detected), or a layout's name or alias (README and `scan --help` list them).
    layout: String { group: Group::Labels, value_name: "LAYOUT", default: Some(r#""auto""#) }
    /// Scan only label files whose path (relative to PATH) matches; repeatable.
    include: Vec<String> { value_name: "GLOB" }
    /// Skip paths that match; repeatable.
    exclude: Vec<String> { value_name: "GLOB" }
    /// Custom layout: the masks, e.g. 'gt/**/*_label.png'.
    mask_glob: String { value_name: "GLOB" }
    /// Suffix removed from a mask's name to get its stem, e.g. '_label.png'.
    mask_suffix: String { value_name: "SUFFIX" }
    /// Custom layout: each mask's image, with {stem}, {name}, {dir}, {subdir}, {split}.
    image_template: String { value_name: "TEMPLATE" }
    /// Refuse images whose header claims more pixels, or mask images that decode to more bytes (decompression bombs). Default 268435456 (2^28).
    max_pixels: u64 { value_name: "N", default: Some("268435456"), in_report: true }
    /// Read at most N rows of one label table. Default 33554432 (2^25).
    max_rows: u64 { value_name: "N", default: Some("33554432") }
    /// Flag class imbalance above this ratio of the largest to the smallest class. Default 10000.
    imbalance_ratio: f64 { value_name: "RATIO", default: Some("10000.0"), in_report: true }
    /// Treat warnings as errors (exit code 1).
    strict: bool { switch: true, default: Some("false"), in_report: true }
    /// Weights written by --write-weights: median (default), inverse, enet.
    weights_method: String { value_name: "METHOD", default: Some(r#""median""#), in_report: true }
}

/// The table of the settings, the body of docs/reference/settings.md.
pub fn markdown_table() -> String {
    let mut t = String::from(
        "| Key | Flag | Commands | Default | In the report | Meaning |\n|---|---|---|---|---|---|\n",
    );
    for s in SETTINGS {
        let flag = match (s.value_name, s.kind) {
            ("", _) => format!("--{}", s.flag()),
            (v, Kind::Bool) => format!("--{} [{v}]", s.flag()),
            (v, _) => format!("--{} {v}", s.flag()),
        };
        let commands = match s.group {
            Group::Labels => "scan, fix",
            Group::Scan => "scan",
        };
        let default = s.default.map_or("unset".into(), |d| format!("`{d}`"));
        let in_report = if s.in_report { "yes" } else { "no" };
        let help = s.help.replace('|', "\\|");
        t += &format!(
            "| `{}` | `{flag}` | {commands} | {default} | {in_report} | {help} |\n",
            s.key
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ScanOptions;

    /// The declared defaults are what a scan uses: a config file that spells out every one of
    /// them changes nothing.
    #[test]
    fn the_declared_defaults_are_the_defaults() {
        let toml: String = SETTINGS
            .iter()
            .filter_map(|s| Some(format!("{} = {}\n", s.key, s.default?)))
            .collect();
        let spelled: Overrides = toml::from_str(&toml).unwrap();
        let shown = |mut s: ScanOptions| {
            s.layers = Overrides::default();
            format!("{s:?}")
        };
        assert_eq!(
            shown(ScanOptions::resolve(None, &spelled).unwrap()),
            shown(ScanOptions::default())
        );
    }

    /// docs/reference/settings.md is [`markdown_table`] under its heading; `make docs` (which
    /// runs this test with `UPDATE_DOCS=1`) rewrites it.
    #[test]
    fn the_settings_reference_documents_every_setting() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference/settings.md");
        let expected = format!(
            "# Settings reference\n\n\
             <!-- generated from crates/labelguard-scan/src/config/setting.rs by `make docs`: do not edit -->\n\n\
             Every key of `labelguard.toml` (or `[tool.labelguard]` of `pyproject.toml`) is also a flag;\n\
             a preset's values come first, then the file's, then the flags'\n\
             ([Configuration](../guide/configuration.md)).\n\n{}",
            markdown_table()
        );
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &expected).unwrap();
        }
        let page = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            page == expected,
            "docs/reference/settings.md is stale: run `make docs`"
        );
    }
}
