//! Settings of a scan, layered: preset < config file < command line.
//!
//! The config file is `labelguard.toml` or the `[tool.labelguard]` table of `pyproject.toml`,
//! found in the current directory or the nearest parent. Its top level holds the dataset's
//! description (`preset`, `num_classes`, `ignore_index`, ...), which other labelguard
//! commands may share, so unknown top-level keys are left to them; a `[scan]` table
//! (`[tool.labelguard.scan]`) may hold the same keys for the scan only, and there a typo is an
//! error. Paths in the file are relative to the file. Each setting is declared once, in
//! `config/setting.rs`; this file stacks the layers and resolves them.

use crate::layout_kind::{LayoutKind, CUSTOM};
use crate::weights::Method;
use labelguard_formats::glob::Glob;
use labelguard_labels::preset::{self, Preset};
use std::path::{Path, PathBuf};

mod setting;
/// `--shard K/N` (declared with the report it is recorded in).
pub use labelguard_scan_model::Shard;
pub use setting::{markdown_table, Group, Kind, Overrides, Setting, Source, SETTINGS};

/// Why the settings could not be resolved: a usage error (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
}

fn invalid(m: impl Into<String>) -> ConfigError {
    ConfigError::Invalid(m.into())
}

/// A config file that was found and parsed.
#[derive(Clone, Debug)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub overrides: Overrides,
    /// `[[datasets]]` entries: settings for one dataset below the file (`path`, relative to
    /// the file), on top of everything else, for a folder that holds several datasets.
    pub datasets: Vec<(PathBuf, Overrides)>,
}

/// A path as the report shows it: relative to the working directory when inside it.
pub fn shown_path(p: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(|p| p.to_path_buf()))
        .unwrap_or_else(|| p.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

impl ConfigFile {
    /// Parses `labelguard.toml` (whole file) or `pyproject.toml` (`[tool.labelguard]`).
    /// `Ok(None)` for a pyproject.toml without that table.
    pub fn load(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
        // TOML's errors quote the offending line and value: each line bounded like every echo.
        let err = |message: String| ConfigError::File {
            path: path.to_path_buf(),
            message: message
                .lines()
                .map(labelguard_core::clip::echo)
                .collect::<Vec<_>>()
                .join("\n"),
        };
        let text = labelguard_formats::nonblock::read_setting_text(path, SETTING_FILE_BYTES)
            .map_err(err)?;
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| err(e.to_string()))?;
        let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
        let table = if is_pyproject {
            match table
                .get("tool")
                .and_then(|t| t.get("labelguard"))
                .and_then(|t| t.as_table())
            {
                Some(t) => t.clone(),
                None => return Ok(None),
            }
        } else {
            table
        };
        let mut top = table.clone();
        top.retain(|k, _| Setting::known(k));
        let base: Overrides = top
            .try_into()
            .map_err(|e: toml::de::Error| err(e.to_string()))?;
        let scan = match table.get("scan") {
            Some(toml::Value::Table(t)) => {
                if let Some(k) = t.keys().find(|k| !Setting::known(k)) {
                    let known: Vec<_> = SETTINGS.iter().map(|s| s.key).collect();
                    return Err(err(format!(
                        "unknown key '{k}' in the scan table (known: {})",
                        known.join(", ")
                    )));
                }
                t.clone()
                    .try_into()
                    .map_err(|e: toml::de::Error| err(e.to_string()))?
            }
            Some(_) => return Err(err("'scan' must be a table".into())),
            None => Overrides::default(),
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut datasets = Vec::new();
        match table.get("datasets") {
            Some(toml::Value::Array(entries)) => {
                for e in entries {
                    let Some(t) = e.as_table() else {
                        return Err(err("each [[datasets]] entry must be a table".into()));
                    };
                    let Some(p) = t.get("path").and_then(|p| p.as_str()) else {
                        return Err(err("a [[datasets]] entry needs a 'path'".into()));
                    };
                    let mut t = t.clone();
                    t.remove("path");
                    if let Some(k) = t.keys().find(|k| !Setting::known(k)) {
                        return Err(err(format!("unknown key '{k}' in a [[datasets]] entry")));
                    }
                    let o: Overrides = t
                        .try_into()
                        .map_err(|e: toml::de::Error| err(e.to_string()))?;
                    datasets.push((dir.join(p), o.relative_to(dir)));
                }
            }
            Some(_) => {
                return Err(err(
                    "'datasets' must be an array of tables ([[datasets]])".into()
                ))
            }
            None => {}
        }
        Ok(Some(ConfigFile {
            path: path.to_path_buf(),
            overrides: base.then(&scan).relative_to(dir),
            datasets,
        }))
    }

    /// The nearest `labelguard.toml`, or `pyproject.toml` with `[tool.labelguard]`, from `dir`
    /// upwards.
    pub fn discover(dir: &Path) -> Result<Option<ConfigFile>, ConfigError> {
        let mut current = Some(dir);
        while let Some(d) = current {
            let own = d.join("labelguard.toml");
            if own.is_file() {
                return ConfigFile::load(&own);
            }
            let py = d.join("pyproject.toml");
            if py.is_file() {
                if let Some(c) = ConfigFile::load(&py)? {
                    return Ok(Some(c));
                }
            }
            current = d.parent();
        }
        Ok(None)
    }
}

/// Fully resolved settings of one scan.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    pub preset: Option<&'static Preset>,
    /// `C`; without it class ids are histogrammed but not range-checked.
    pub num_classes: Option<u32>,
    /// The loss's `ignore_index` (PyTorch's default is -100).
    pub ignore_index: i64,
    pub reduce_zero_label: bool,
    /// The detection framework given (`--framework`); unset: the format's own.
    pub framework: Option<crate::framework::Framework>,
    pub class_names: Vec<String>,
    pub palette: Option<Vec<[u8; 3]>>,
    /// Colours that mean void in colour masks (from the preset), mapped to `ignore_index`.
    pub void_colours: Vec<[u8; 3]>,
    pub class_weights: Option<PathBuf>,
    pub label_column: Option<String>,
    /// The model directory token data is checked against (`--model`).
    pub model: Option<PathBuf>,
    /// The vocabulary token ids are checked against (`--vocab-size`), over `model`'s and a
    /// `meta.pkl`'s.
    pub vocab_size: Option<u64>,
    pub layout: LayoutKind,
    pub include: Vec<Glob>,
    pub exclude: Vec<Glob>,
    pub mask_glob: Option<Glob>,
    pub mask_suffix: Option<String>,
    pub image_template: Option<String>,
    /// Largest image (width x height x frames) decoded; larger headers are LG604.
    pub max_pixels: u64,
    /// Largest number of rows read from one label table.
    pub max_rows: u64,
    pub imbalance_ratio: f64,
    pub strict: bool,
    pub weights_method: Method,
    pub jobs: Option<usize>,
    pub shard: Option<Shard>,
    /// Render overlay pictures of bad pixels (for `--html`).
    pub overlays: bool,
    /// The config file the settings came from, for the report.
    pub config_file: Option<PathBuf>,
    /// The class-weight file was named by the config file, not on the command line: it
    /// belongs to the config's dataset and is not checked in a scan of single files.
    pub class_weights_from_config: bool,
    /// The stacked settings (config, then command line), for per-dataset entries.
    pub layers: Overrides,
    /// The config's `[[datasets]]` entries.
    pub dataset_overrides: Vec<(PathBuf, Overrides)>,
}

/// Default pixel limit: 2^28, as the issue asks (Pillow's own bomb error is at 2 x 89.5 MP).
pub const DEFAULT_MAX_PIXELS: u64 = 1 << 28;
pub const DEFAULT_MAX_ROWS: u64 = 1 << 25;
pub const DEFAULT_IMBALANCE_RATIO: f64 = 10_000.0;

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            preset: None,
            num_classes: None,
            ignore_index: -100,
            reduce_zero_label: false,
            framework: None,
            class_names: Vec::new(),
            palette: None,
            void_colours: Vec::new(),
            class_weights: None,
            label_column: None,
            model: None,
            vocab_size: None,
            layout: LayoutKind::AUTO,
            include: Vec::new(),
            exclude: Vec::new(),
            mask_glob: None,
            mask_suffix: None,
            image_template: None,
            max_pixels: DEFAULT_MAX_PIXELS,
            max_rows: DEFAULT_MAX_ROWS,
            imbalance_ratio: DEFAULT_IMBALANCE_RATIO,
            strict: false,
            weights_method: Method::MedianFrequency,
            jobs: None,
            shard: None,
            overlays: false,
            config_file: None,
            class_weights_from_config: false,
            layers: Overrides::default(),
            dataset_overrides: Vec::new(),
        }
    }
}

impl ScanOptions {
    /// Resolves the layers: the preset named on the command line (or else in the config file),
    /// then the config file, then the command line.
    pub fn resolve(
        config: Option<&ConfigFile>,
        cli: &Overrides,
    ) -> Result<ScanOptions, ConfigError> {
        let o = match config {
            Some(c) => c.overrides.clone().then(cli),
            None => cli.clone(),
        };
        let mut s = ScanOptions {
            config_file: config.map(|c| c.path.clone()),
            class_weights_from_config: cli.class_weights.is_none() && o.class_weights.is_some(),
            layers: o.clone(),
            dataset_overrides: config.map(|c| c.datasets.clone()).unwrap_or_default(),
            ..ScanOptions::default()
        };
        if let Some(name) = &o.preset {
            let p = preset::by_name(name).ok_or_else(|| {
                invalid(preset::unknown(name, &labelguard_core::clip::echo(name)))
            })?;
            s.preset = Some(p);
            s.num_classes = Some(p.num_classes);
            s.ignore_index = p.ignore_index;
            s.reduce_zero_label = p.reduce_zero_label;
            s.class_names = p.classes.iter().map(|c| c.to_string()).collect();
            s.palette = Some((p.palette)());
            s.void_colours = p.void_colours.to_vec();
        }
        if let Some(path) = &o.classes {
            s.class_names = read_class_names(path)?;
            if o.num_classes.is_none() {
                s.num_classes = Some(s.class_names.len() as u32);
            }
        }
        if let Some(c) = o.num_classes {
            if c == 0 {
                return Err(invalid("--num-classes must be at least 1"));
            }
            s.num_classes = Some(c);
        }
        if let Some(c) = s.num_classes {
            // Names from a preset for another class count would mislabel the histogram.
            if !s.class_names.is_empty() && s.class_names.len() != c as usize {
                if o.classes.is_some() {
                    return Err(invalid(format!(
                        "the classes file lists {} names but num_classes is {c}",
                        s.class_names.len()
                    )));
                }
                s.class_names.clear();
            }
        }
        if let Some(i) = o.ignore_index {
            s.ignore_index = i;
        }
        if let Some(r) = o.reduce_zero_label {
            s.reduce_zero_label = r;
        }
        if let Some(f) = &o.framework {
            s.framework = Some(f.parse().map_err(invalid)?);
        }
        if let Some(path) = &o.palette {
            s.palette = Some(read_palette(path)?);
            s.void_colours.clear();
        }
        s.class_weights = o.class_weights.clone();
        s.label_column = o.label_column.clone();
        s.model = o.model.clone();
        if let Some(n) = o.vocab_size {
            if n == 0 {
                return Err(invalid("--vocab-size must be at least 1"));
            }
            s.vocab_size = Some(n);
        }
        if let Some(l) = &o.layout {
            s.layout = LayoutKind::requested(l);
        }
        let globs = |v: &Option<Vec<String>>| -> Result<Vec<Glob>, ConfigError> {
            v.iter()
                .flatten()
                .map(|g| Glob::new(g).map_err(invalid))
                .collect()
        };
        s.include = globs(&o.include)?;
        s.exclude = globs(&o.exclude)?;
        if let Some(g) = &o.mask_glob {
            s.mask_glob = Some(Glob::new(g).map_err(invalid)?);
            if o.layout.is_none() {
                s.layout = CUSTOM;
            }
        }
        s.mask_suffix = o.mask_suffix.clone();
        s.image_template = o.image_template.clone();
        if s.layout == CUSTOM && s.mask_glob.is_none() {
            return Err(invalid("--layout custom needs --mask-glob"));
        }
        if let Some(m) = o.max_pixels {
            if m == 0 {
                return Err(invalid("--max-pixels must be at least 1"));
            }
            s.max_pixels = m;
        }
        if let Some(m) = o.max_rows {
            s.max_rows = m.max(1);
        }
        if let Some(r) = o.imbalance_ratio {
            if !(r.is_finite() && r >= 1.0) {
                return Err(invalid("--imbalance-ratio must be a number >= 1"));
            }
            s.imbalance_ratio = r;
        }
        s.strict = o.strict.unwrap_or(false);
        if let Some(m) = &o.weights_method {
            s.weights_method = m.parse().map_err(invalid)?;
        }
        Ok(s)
    }

    /// The settings of the dataset at `path`: these, with the config's `[[datasets]]` entry
    /// for that path on top when there is one.
    pub fn for_dataset(&self, path: &Path) -> Result<Option<ScanOptions>, ConfigError> {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let here = canon(path);
        let Some((_, entry)) = self
            .dataset_overrides
            .iter()
            .find(|(p, _)| canon(p) == here)
        else {
            return Ok(None);
        };
        let mut base = self.layers.clone();
        if entry.preset.is_none() && entry.num_classes.is_some() {
            // A dataset with its own class count is not the preset's dataset.
            base.preset = None;
        }
        let mut s = ScanOptions::resolve(None, &base.then(entry))?;
        s.config_file = self.config_file.clone();
        s.class_weights_from_config = self.class_weights_from_config;
        s.jobs = self.jobs;
        s.shard = self.shard;
        s.overlays = self.overlays;
        Ok(Some(s))
    }

    /// The class name of an id, when known.
    pub fn class_name(&self, id: i64) -> Option<&str> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.class_names.get(i))
            .map(|s| s.as_str())
    }
}

/// Class names: a JSON list, or one name per line (blank lines and `#` comments skipped).
pub fn read_class_names(path: &Path) -> Result<Vec<String>, ConfigError> {
    let err = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message,
    };
    let text =
        labelguard_formats::nonblock::read_setting_text(path, SETTING_FILE_BYTES).map_err(err)?;
    let names: Vec<String> = if text.trim_start().starts_with('[') {
        serde_json::from_str(&text).map_err(|e| err(format!("not a JSON list of names: {e}")))?
    } else {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect()
    };
    if names.is_empty() {
        return Err(err("lists no class names".into()));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(d) = names.iter().find(|n| !seen.insert(n.as_str())) {
        return Err(err(format!("lists the class '{d}' twice")));
    }
    Ok(names)
}

/// The most bytes a file named by a setting (a config, a palette, a class list) may have.
const SETTING_FILE_BYTES: u64 = 16 << 20;

/// A palette: JSON `[[r,g,b], ...]`, or one `r g b` (or `r,g,b`, or `#rrggbb`) per line,
/// optionally followed by a name. Index = class id.
pub fn read_palette(path: &Path) -> Result<Vec<[u8; 3]>, ConfigError> {
    let err = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message,
    };
    let text =
        labelguard_formats::nonblock::read_setting_text(path, SETTING_FILE_BYTES).map_err(err)?;
    let palette: Vec<[u8; 3]> = if text.trim_start().starts_with('[') {
        serde_json::from_str(&text)
            .map_err(|e| err(format!("not a JSON list of [r, g, b]: {e}")))?
    } else {
        let mut out = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with("//") || line.starts_with(';') {
                continue;
            }
            let colour = if let Some(hex) = line.strip_prefix('#') {
                let h = hex.get(..6).unwrap_or("");
                let byte = |i: usize| u8::from_str_radix(h.get(i..i + 2).unwrap_or("x"), 16);
                match (byte(0), byte(2), byte(4)) {
                    (Ok(r), Ok(g), Ok(b)) => Some([r, g, b]),
                    _ => None,
                }
            } else {
                let parts: Vec<&str> = line
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .take(3)
                    .collect();
                match parts[..] {
                    [r, g, b] => match (r.parse(), g.parse(), b.parse()) {
                        (Ok(r), Ok(g), Ok(b)) => Some([r, g, b]),
                        _ => None,
                    },
                    _ => None,
                }
            };
            out.push(colour.ok_or_else(|| {
                err(format!(
                    "line {}: '{line}' is not 'r g b' or '#rrggbb'",
                    n + 1
                ))
            })?);
        }
        out
    };
    if palette.is_empty() {
        return Err(err("holds no colours".into()));
    }
    Ok(palette)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_override_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("labelguard.toml");
        std::fs::write(
            &cfg,
            "preset = \"cityscapes\"\nignore_index = 254\nother_tool_key = 1\n[scan]\nimbalance_ratio = 50.0\n",
        )
        .unwrap();
        let file = ConfigFile::load(&cfg).unwrap().unwrap();
        let cli = Overrides {
            ignore_index: Some(255),
            ..Overrides::default()
        };
        let s = ScanOptions::resolve(Some(&file), &cli).unwrap();
        assert_eq!(s.num_classes, Some(19));
        assert_eq!(s.ignore_index, 255);
        assert_eq!(s.imbalance_ratio, 50.0);
        assert_eq!(s.class_names.len(), 19);
        let s = ScanOptions::resolve(Some(&file), &Overrides::default()).unwrap();
        assert_eq!(s.ignore_index, 254);
    }

    #[test]
    fn values_of_the_config_file_are_echoed_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("labelguard.toml");
        let long = "p".repeat(1 << 20);
        // A value of the wrong type (TOML quotes it), a broken line, an unknown preset.
        for text in [
            format!("num_classes = \"{long}\"\n"),
            format!("num_classes = {long}\n"),
        ] {
            std::fs::write(&cfg, text).unwrap();
            let e = ConfigFile::load(&cfg).unwrap_err().to_string();
            assert!(e.contains("ppp") && e.len() < 2000, "{} bytes", e.len());
        }
        std::fs::write(&cfg, format!("preset = \"{long}\"\n")).unwrap();
        let file = ConfigFile::load(&cfg).unwrap().unwrap();
        let e = ScanOptions::resolve(Some(&file), &Overrides::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("unknown preset 'ppp") && e.len() < 1000,
            "{} bytes",
            e.len()
        );
    }

    #[test]
    fn typos_in_the_scan_table_are_errors_and_pyproject_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("labelguard.toml");
        std::fs::write(&cfg, "[scan]\nnum_clases = 3\n").unwrap();
        let e = ConfigFile::load(&cfg).unwrap_err().to_string();
        assert!(e.contains("num_clases"), "{e}");
        let py = dir.path().join("pyproject.toml");
        std::fs::write(&py, "[project]\nname='x'\n").unwrap();
        assert!(ConfigFile::load(&py).unwrap().is_none());
        std::fs::write(
            &py,
            "[tool.labelguard]\nnum_classes = 7\nclasses = 'c.txt'\n",
        )
        .unwrap();
        let c = ConfigFile::load(&py).unwrap().unwrap();
        assert_eq!(c.overrides.num_classes, Some(7));
        assert_eq!(c.overrides.classes.unwrap(), dir.path().join("c.txt"));
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::remove_file(&cfg).unwrap();
        let found = ConfigFile::discover(&sub).unwrap().unwrap();
        assert_eq!(found.path, py);
    }

    #[test]
    fn vocab_size_is_a_config_key_and_a_flag_overrides_it() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("labelguard.toml");
        std::fs::write(&cfg, "[scan]\nvocab_size = 50304\n").unwrap();
        let file = ConfigFile::load(&cfg).unwrap().unwrap();
        let s = ScanOptions::resolve(Some(&file), &Overrides::default()).unwrap();
        assert_eq!(s.vocab_size, Some(50304));
        let flag = Overrides {
            vocab_size: Some(65),
            ..Overrides::default()
        };
        let s = ScanOptions::resolve(Some(&file), &flag).unwrap();
        assert_eq!(s.vocab_size, Some(65));
        std::fs::write(&cfg, "vocab_size = 0\n").unwrap();
        let file = ConfigFile::load(&cfg).unwrap().unwrap();
        let e = ScanOptions::resolve(Some(&file), &Overrides::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--vocab-size must be at least 1"), "{e}");
        std::fs::write(&cfg, "vocab_size = \"50k\"\n").unwrap();
        assert!(ConfigFile::load(&cfg).is_err());
    }

    #[test]
    fn shards_parse_one_based() {
        assert_eq!(
            "2/8".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 8 }
        );
        assert!("0/8".parse::<Shard>().is_err());
        assert!("9/8".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn palettes_and_class_files_parse() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.txt");
        std::fs::write(&p, "0 0 0 background\n#ff8000 orange\n1,2,3\n").unwrap();
        assert_eq!(
            read_palette(&p).unwrap(),
            vec![[0, 0, 0], [255, 128, 0], [1, 2, 3]]
        );
        std::fs::write(&p, "[[1,2,3],[4,5,6]]").unwrap();
        assert_eq!(read_palette(&p).unwrap().len(), 2);
        std::fs::write(&p, "1 2\n").unwrap();
        assert!(read_palette(&p).is_err());
        let c = dir.path().join("c.txt");
        std::fs::write(&c, "cat\ndog\n# comment\n\nbird\n").unwrap();
        assert_eq!(read_class_names(&c).unwrap(), vec!["cat", "dog", "bird"]);
        std::fs::write(&c, "cat\ncat\n").unwrap();
        assert!(read_class_names(&c).is_err());
    }
}
