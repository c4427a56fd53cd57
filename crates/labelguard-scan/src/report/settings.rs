//! The settings a report records ([`Settings`], declared with the report's model), taken from
//! a scan's resolved options.

use crate::config::{shown_path, ScanOptions};
use crate::layout_kind::LayoutKind;
use labelguard_scan_model::Settings;

/// The settings of a scan of `roots` whose datasets have `layouts` and declare `class_names`.
pub fn settings_of(
    roots: &[std::path::PathBuf],
    layouts: Vec<LayoutKind>,
    opts: &ScanOptions,
    class_names: Vec<String>,
) -> Settings {
    Settings {
        roots: roots
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
        layouts,
        preset: opts.preset.map(|p| p.name.to_string()),
        num_classes: opts.num_classes,
        ignore_index: opts.ignore_index,
        reduce_zero_label: opts.reduce_zero_label,
        framework: opts.framework.map(|f| f.as_str().to_string()),
        class_names,
        label_column: opts.label_column.clone(),
        class_weights: opts
            .class_weights
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        model: opts
            .model
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        vocab_size: opts.vocab_size,
        max_pixels: opts.max_pixels,
        imbalance_ratio: opts.imbalance_ratio,
        strict: opts.strict,
        weights_method: opts.weights_method,
        config: opts.config_file.as_ref().map(|p| shown_path(p)),
        suggested_preset: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SETTINGS;

    /// The settings' declaration says which of them the report records, under their key
    /// (`vocab_size` only when given, so it is given here).
    #[test]
    fn the_report_records_the_settings_declared_in_it() {
        let opts = ScanOptions {
            vocab_size: Some(1),
            ..ScanOptions::default()
        };
        let settings = settings_of(&[], Vec::new(), &opts, Vec::new());
        let json = serde_json::to_value(settings).unwrap();
        for s in SETTINGS {
            assert_eq!(json.get(s.key).is_some(), s.in_report, "{}", s.key);
        }
    }
}
