//! The flags `scan` and `fix` share: what the labels mean, and which config file to read.

use anyhow::Context;
use labelguard_scan::config::{ConfigFile, Overrides};
use std::path::{Path, PathBuf};

/// What the labels mean: a preset, or the class count, ignore index, palette and layout.
#[derive(clap::Args)]
pub struct LabelArgs {
    /// Dataset preset: cityscapes, ade20k, pascal-voc.
    #[arg(long)]
    preset: Option<String>,
    /// Number of classes C: valid ids are 0..C-1.
    #[arg(long)]
    num_classes: Option<u32>,
    /// The loss's ignore_index (PyTorch's default is -100); `fix` maps void values to it.
    #[arg(long, allow_hyphen_values = true)]
    ignore_index: Option<i64>,
    /// Palette for colour masks: JSON [[r,g,b], ...] or lines 'r g b [name]'; index = class id.
    #[arg(long, value_name = "FILE")]
    palette: Option<PathBuf>,
    /// Layout: auto, cityscapes, voc, paired, imagefolder, files, custom.
    #[arg(long)]
    layout: Option<String>,
}

impl LabelArgs {
    /// These flags as overrides of the config file (the other fields unset).
    pub fn overrides(&self) -> Overrides {
        Overrides {
            preset: self.preset.clone(),
            num_classes: self.num_classes,
            ignore_index: self.ignore_index,
            palette: self.palette.clone(),
            layout: self.layout.clone(),
            ..Overrides::default()
        }
    }
}

/// Which config file to read.
#[derive(clap::Args)]
pub struct ConfigArgs {
    /// Read settings from this file instead of the nearest labelguard.toml / pyproject.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Ignore config files.
    #[arg(long, conflicts_with = "config")]
    no_config: bool,
}

impl ConfigArgs {
    /// The config file of a command on `first`: `--config FILE`, none with `--no-config`, else
    /// the nearest one above the data (one in the working directory does not describe data elsewhere).
    pub fn load(&self, first: &Path) -> anyhow::Result<Option<ConfigFile>> {
        let (explicit, no_config) = (self.config.as_deref(), self.no_config);
        Ok(if no_config {
            None
        } else if let Some(path) = explicit {
            Some(
                ConfigFile::load(path)?.with_context(|| {
                    format!("{}: has no [tool.labelguard] table", path.display())
                })?,
            )
        } else {
            let near = if first.is_dir() {
                first.to_path_buf()
            } else {
                first.parent().map(|p| p.to_path_buf()).unwrap_or_default()
            };
            let near = if near.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                near
            };
            let near = std::fs::canonicalize(&near).unwrap_or(near);
            // Only the config of the scanned tree: one in the working directory does not describe
            // data elsewhere.
            ConfigFile::discover(&near)?
        })
    }
}
