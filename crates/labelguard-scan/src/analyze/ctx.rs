//! The settings of a scan as the analysis of every item reads them, derived once per scan.

use super::result::Vocabulary;
use crate::checks::lg801_token_id_out_of_range::SET_BY_FLAG;
use crate::colours::ColourMap;
use crate::config::ScanOptions;
use crate::framework::Framework;
use labelguard_core::model::ModelSpec;
use std::collections::HashMap;

/// Settings derived once per scan.
pub struct Ctx<'a> {
    pub opts: &'a ScanOptions,
    /// Class name -> id, from `--classes` or the discovered ImageFolder classes.
    pub class_map: HashMap<String, i64>,
    /// The classes the settings or the layout name (`--classes`, YOLO's `data.yaml`), as
    /// `(id, name)` sorted by id: built once, every detection file's declared classes.
    pub declared: Vec<(i64, String)>,
    pub palette: Option<ColourMap>,
    /// The file that lists the dataset's own class colours (CamVid's `class_dict.csv`), when
    /// the palette is that list: colour masks are then its labels (set by the pipeline).
    pub class_colours: Option<String>,
    /// The detection framework whose head reads the labels: `--framework`, else the layout's
    /// own (set by the pipeline).
    pub framework: Framework,
    /// The model the token data is checked against (`--model`).
    pub model: Option<&'a labelguard_core::model::ModelSpec>,
}

impl<'a> Ctx<'a> {
    pub fn new(opts: &'a ScanOptions, class_names: &[String]) -> Ctx<'a> {
        let palette = opts
            .palette
            .as_ref()
            .map(|p| ColourMap::new(p, &opts.void_colours, opts.ignore_index));
        Ctx {
            opts,
            class_map: class_names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i as i64))
                .collect(),
            declared: class_names
                .iter()
                .enumerate()
                .map(|(i, n)| (i as i64, n.clone()))
                .collect(),
            palette,
            class_colours: None,
            framework: opts.framework.unwrap_or(Framework::Torchvision),
            model: None,
        }
    }

    /// The vocabulary the settings give token ids: `--vocab-size N`, else the token table of
    /// `--model DIR`; what the report's header names.
    pub(crate) fn given_vocabulary(&self) -> Option<Vocabulary> {
        if let Some(n) = self.opts.vocab_size {
            return Some(Vocabulary {
                size: n,
                source: format!("--vocab-size {n}"),
            });
        }
        let size = self.model?.token_rows()?;
        let dir = self.opts.model.as_ref()?;
        Some(Vocabulary {
            size,
            source: format!("--model {}", dir.display()),
        })
    }

    pub(crate) fn max_file_bytes(&self) -> u64 {
        self.opts
            .max_pixels
            .saturating_mul(8)
            .saturating_add(1 << 20)
    }
}

/// The model token data is checked against under `--vocab-size n`: `model` (`--model`) with its
/// token table `n` rows long, or a model known only by that size. Every check of token ids
/// reads the table's rows ([`ModelSpec::token_rows`]), so this one value reaches them all; the
/// messages name the flag, and the model's own size it overrode.
pub(crate) fn with_vocab_size(model: Option<&ModelSpec>, n: u64) -> ModelSpec {
    let base = model.cloned().unwrap_or_else(|| ModelSpec {
        source: "--vocab-size".into(),
        ..ModelSpec::default()
    });
    let over = match model.and_then(ModelSpec::token_rows_described) {
        Some(d) if model.and_then(ModelSpec::token_rows) != Some(n) => format!(", over {d}"),
        _ => String::new(),
    };
    ModelSpec {
        embedding_rows: Some(n),
        embedding_source: Some(format!("{SET_BY_FLAG} {n}{over}")),
        ..base
    }
}
