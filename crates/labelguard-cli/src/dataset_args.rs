//! The flags `scan` and `fix` share: what the labels mean, and which config file to read; and
//! the flags of the other scan settings. The settings' flags are built from their declaration
//! (labelguard-scan's `config/setting.rs`), so a new setting needs no code here.

use anyhow::Context;
use clap::parser::ValueSource;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use labelguard_scan::config::{ConfigFile, Group, Kind, Overrides, Setting, Source, SETTINGS};
use std::path::{Path, PathBuf};

/// The flags of the scan settings of one [`Group`], as their declaration (`SETTINGS`) says:
/// a struct holding the layer they give, for `#[command(flatten)]`.
macro_rules! setting_flags {
    ($($(#[$doc:meta])* $name:ident => $group:expr;)*) => {$(
        $(#[$doc])*
        pub struct $name(Overrides);

        impl $name {
            /// These flags as overrides of the config file (the other fields unset).
            pub fn overrides(&self) -> Overrides {
                self.0.clone()
            }
        }

        impl clap::Args for $name {
            fn augment_args(cmd: Command) -> Command {
                cmd.args(SETTINGS.iter().filter(|s| s.group == $group).map(flag))
            }
            fn augment_args_for_update(cmd: Command) -> Command {
                Self::augment_args(cmd)
            }
        }

        impl clap::FromArgMatches for $name {
            fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
                Ok($name(Overrides::read(&Given { matches, group: $group })))
            }
            fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
                self.0 = self.0.clone().then(&Self::from_arg_matches(matches)?.0);
                Ok(())
            }
        }
    )*};
}

setting_flags! {
    /// What the labels mean: a preset, or the class count, ignore index, palette and layout.
    LabelArgs => Group::Labels;
    /// The settings of how `scan` reads and judges the data.
    ScanSettingArgs => Group::Scan;
}

/// The flag of one setting: what clap's derive made of the same field.
fn flag(s: &Setting) -> Arg {
    // The derive's help was the doc comment without its final period.
    let help = s.help.strip_suffix('.').filter(|h| !h.ends_with('.'));
    let help = help.unwrap_or(s.help).to_string();
    // The layouts' names are their own files' (the settings, below the layouts, cannot list them).
    let help = match s.key {
        "layout" => format!(
            "Layout: {}",
            labelguard_scan::layout::layout_names().join(", ")
        ),
        _ => help,
    };
    let arg = Arg::new(s.key).long(s.flag()).help(help);
    if s.switch {
        return arg.action(ArgAction::SetTrue);
    }
    let arg = arg.value_name(s.value_name).action(ArgAction::Set);
    match s.kind {
        Kind::Text => arg.value_parser(value_parser!(String)),
        Kind::Path => arg.value_parser(value_parser!(PathBuf)),
        Kind::U32 => arg.value_parser(value_parser!(u32)),
        Kind::U64 => arg.value_parser(value_parser!(u64)),
        // `--ignore-index -1`: a negative number is the value, not a flag.
        Kind::I64 => arg
            .value_parser(value_parser!(i64))
            .allow_hyphen_values(true),
        Kind::F64 => arg.value_parser(value_parser!(f64)),
        // `--reduce-zero-label` alone means true; `--reduce-zero-label false` overrides a config.
        Kind::Bool => arg
            .value_parser(value_parser!(bool))
            .num_args(0..=1)
            .default_missing_value("true"),
        Kind::List => arg
            .value_parser(value_parser!(String))
            .action(ArgAction::Append),
    }
}

/// The settings of `group` that the command line gives.
struct Given<'a> {
    matches: &'a ArgMatches,
    group: Group,
}

impl Given<'_> {
    /// Only a flag given counts: a switch left off (clap's `false`) must not override the
    /// config file's `strict = true`, and the other group's flags are not this command's.
    fn given(&self, s: &Setting) -> bool {
        s.group == self.group && self.matches.value_source(s.key) == Some(ValueSource::CommandLine)
    }
}

impl Source for Given<'_> {
    fn one<T: Clone + Send + Sync + 'static>(&self, s: &Setting) -> Option<T> {
        self.given(s)
            .then(|| self.matches.get_one::<T>(s.key).cloned())
            .flatten()
    }
    fn list(&self, s: &Setting) -> Option<Vec<String>> {
        self.given(s)
            .then(|| self.matches.get_many::<String>(s.key))
            .flatten()
            .map(|v| v.cloned().collect())
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        labels: LabelArgs,
        #[command(flatten)]
        settings: ScanSettingArgs,
    }

    fn parse(args: &[&str]) -> Overrides {
        let f = Flags::try_parse_from(std::iter::once("labelguard").chain(args.iter().copied()))
            .unwrap();
        f.labels.overrides().then(&f.settings.overrides())
    }

    #[test]
    fn every_setting_has_its_flag() {
        let args = "--preset cityscapes --num-classes 3 --ignore-index -1 --palette p.txt \
                    --layout voc --reduce-zero-label --class-weights w.json --classes c.txt \
                    --label-column y --model m --vocab-size 9 --include a --include b --exclude c --mask-glob m \
                    --mask-suffix _l.png --image-template t --max-pixels 5 --max-rows 6 \
                    --imbalance-ratio 7.5 --strict --weights-method enet --framework mmdet";
        let text = |s: &str| Some(s.to_string());
        // No `..`: a new setting has to be added here too.
        let expected = Overrides {
            preset: text("cityscapes"),
            num_classes: Some(3),
            ignore_index: Some(-1),
            reduce_zero_label: Some(true),
            palette: Some("p.txt".into()),
            class_weights: Some("w.json".into()),
            classes: Some("c.txt".into()),
            label_column: text("y"),
            model: Some("m".into()),
            vocab_size: Some(9),
            layout: text("voc"),
            include: Some(vec!["a".into(), "b".into()]),
            exclude: Some(vec!["c".into()]),
            mask_glob: text("m"),
            mask_suffix: text("_l.png"),
            image_template: text("t"),
            max_pixels: Some(5),
            max_rows: Some(6),
            imbalance_ratio: Some(7.5),
            strict: Some(true),
            weights_method: text("enet"),
            framework: text("mmdet"),
        };
        assert_eq!(
            parse(&args.split_whitespace().collect::<Vec<_>>()),
            expected
        );
    }

    #[test]
    fn flags_left_off_leave_their_settings_to_the_config_file() {
        // `strict = true` in a config file survives a command line without --strict.
        assert_eq!(parse(&[]), Overrides::default());
        let off = parse(&["--reduce-zero-label", "false"]);
        assert_eq!(off.reduce_zero_label, Some(false));
    }
}
