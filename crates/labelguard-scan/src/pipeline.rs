//! The parallel pipeline: discover, shard, analyse every item on a rayon pool, fold.
//!
//! Each worker thread keeps one set of buffers (file bytes, pixels, scratch) and reuses it
//! for every file, so memory is `threads x largest file` plus the report, which holds only
//! files with findings; clean files leave nothing behind but their histogram counts.

use crate::analyze::result::{FileKind, FileResult};
use crate::analyze::{analyze_item_isolated, Buffers, Ctx};
use crate::config::{ConfigError, ScanOptions, Shard};
use crate::framework::Framework;
use crate::layout::{camvid, cityscapes, model, paired, voc, yolo};
use crate::layout::{discover_roots, DatasetInfo, Item, Root};
use crate::progress::Progress;
use crate::report::{absorb, add_result, finalize, settings_of, ScanReport, Settings};
use labelguard_core::model::ModelSpec;
use rayon::prelude::*;
use std::cell::RefCell;
use std::path::PathBuf;

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// FNV-1a (64-bit) of `bytes`: stable across runs, machines and Rust versions.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The part (1..=count) a shard key falls in, by [`fnv1a`].
pub fn shard_of(key: &[u8], count: u32) -> u32 {
    (fnv1a(key) % count as u64) as u32 + 1
}

/// Scans `roots` with `opts`. Errors are usage or I/O failures (exit code 2); everything
/// wrong with the data is a finding in the report.
pub fn scan(
    roots: &[PathBuf],
    opts: &ScanOptions,
    progress: &dyn Progress,
) -> Result<ScanReport, ConfigError> {
    let roots: Vec<Root> = roots.iter().cloned().map(Root::Path).collect();
    scan_roots(&roots, opts, progress)
}

/// [`scan`] of roots on disk or listed elsewhere (tar shards, a bucket).
pub fn scan_roots(
    given: &[Root],
    opts: &ScanOptions,
    progress: &dyn Progress,
) -> Result<ScanReport, ConfigError> {
    if given.is_empty() {
        return Err(ConfigError::Invalid("no path to scan".into()));
    }
    let roots: Vec<PathBuf> = given.iter().map(Root::shown).collect();
    for root in &roots {
        labelguard_io::fault::panic_in_phase_if_chosen("discover", &root.to_string_lossy());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.unwrap_or(0))
        .thread_name(|i| format!("labelguard-scan-{i}"))
        .build()
        .map_err(|e| ConfigError::Invalid(format!("cannot start worker threads: {e}")))?;
    // On the pool: the walk lists directories on its threads.
    let discovery = pool.install(|| discover_roots(given, opts))?;
    if discovery.items.is_empty() {
        return Err(ConfigError::Invalid(format!(
            "nothing to scan under {}: no {}, ImageFolder class folders, datasets save_to_disk folders or model directories (config.json beside tokenizer.json or model.safetensors; --layout model for another) were found{}",
            roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", "),
            labelguard_formats::formats::summary(),
            if opts.include.is_empty() { "" } else { " that match --include" }
        )));
    }
    // Datasets left without items by --include are not reported.
    let kept: Vec<usize> = (0..discovery.datasets.len())
        .filter(|i| discovery.items.iter().any(|it| it.dataset == *i))
        .collect();
    let mut items = discovery.items;
    if let Some(Shard { index, count }) = opts.shard {
        items.retain(|it| shard_of(it.shard_key.as_ref().unwrap_or(&it.key), count) == index);
    }
    progress.start(items.len() as u64);
    let single = kept.len() == 1;
    let mut parts = Vec::with_capacity(kept.len());
    // Each model directory read once; its own findings reported once, with the first dataset
    // checked against it.
    let mut models: Vec<(PathBuf, ModelSpec)> = Vec::new();
    // A model directory that is scanned as a dataset of its own (the `model` layout) reports its
    // findings there; `--model` naming it does not report them a second time.
    let scanned_models: Vec<PathBuf> = kept
        .iter()
        .map(|&i| &discovery.datasets[i])
        .filter(|d| d.layout == model::KIND)
        .filter_map(|d| d.path.canonicalize().ok())
        .collect();
    for &i in &kept {
        let info = &discovery.datasets[i];
        let mut o = info.options.clone().unwrap_or_else(|| opts.clone());
        if o.num_classes.is_none() {
            // The class count the files declare (YOLO's data.yaml) is the head's.
            o.num_classes = info.num_classes;
        }
        // The class colours the files declare (CamVid's class_dict.csv) map its colour masks,
        // which are then labels, not LG606's mistake; a palette given in the settings wins.
        let class_colours = match (&o.palette, &info.palette) {
            (None, Some(p)) => {
                o.palette = Some(p.colours.clone());
                o.void_colours.clear();
                Some(p.file.clone())
            }
            // A palette given for a dataset whose labels are colour masks (CamVid): its colours
            // are the labels too, and a colour it lacks is named as missing from it (LG621).
            (Some(_), _) if info.layout == camvid::KIND => Some(given_palette(&o)),
            _ => None,
        };
        let o = &o;
        let class_names = if o.class_names.is_empty() {
            info.class_names.clone().unwrap_or_default()
        } else {
            o.class_names.clone()
        };
        let mine: Vec<&Item> = items.iter().filter(|it| it.dataset == i).collect();
        let shown = if single {
            roots.to_vec()
        } else {
            vec![PathBuf::from(&info.name)]
        };
        let mut settings = settings_of(&shown, vec![info.layout], o, class_names.clone());
        // Suggested when the class count is unknown, or when the preset given is another
        // dataset's (one --preset for a parent folder of several datasets).
        let suggested = suggest_preset(info, &mine);
        let given = o.preset.map(|p| p.name);
        if o.num_classes.is_none() || (given.is_some() && given != suggested) {
            settings.suggested_preset = suggested.map(String::from);
        }
        let model_result = match &o.model {
            Some(dir) if !models.iter().any(|(d, _)| d == dir) => {
                let spec = labelguard_model::read_model_dir(dir)
                    .map_err(|e| ConfigError::Invalid(format!("--model: {e}")))?;
                let mut r = FileResult::named(
                    dir.to_string_lossy().into_owned(),
                    String::new(),
                    FileKind::Other,
                );
                r.findings = labelguard_core::model::check_model(&spec);
                models.push((dir.clone(), spec));
                let scanned = dir
                    .canonicalize()
                    .is_ok_and(|d| scanned_models.contains(&d));
                (!scanned).then_some(r)
            }
            _ => None,
        };
        let spec = o
            .model
            .as_ref()
            .and_then(|dir| models.iter().find(|(d, _)| d == dir))
            .map(|(_, s)| s);
        let given = o
            .vocab_size
            .map(|n| crate::analyze::ctx::with_vocab_size(spec, n));
        let mut ctx = Ctx::new(o, &class_names);
        ctx.model = given.as_ref().or(spec);
        ctx.class_colours = class_colours;
        ctx.framework = o.framework.unwrap_or(match info.layout {
            // The framework a format is trained with unless told otherwise.
            yolo::KIND => Framework::Ultralytics,
            _ => Framework::Torchvision,
        });
        let mut part = scan_items(&pool, &mine, &ctx, settings, opts.shard, progress);
        // In a sharded scan, shard 1 carries them (a merge adds the shards' findings up).
        if let Some(r) = model_result.filter(|_| opts.shard.is_none_or(|s| s.index == 1)) {
            add_result(&mut part, r);
        }
        parts.push(part);
    }
    progress.finish();
    let mut report = if single {
        parts.pop().expect("one dataset")
    } else {
        let mut top = ScanReport::empty(
            settings_of(&roots, discovery.layouts, opts, Vec::new()),
            opts.shard,
        );
        top.datasets = parts;
        top
    };
    finalize(&mut report);
    Ok(report)
}

/// Analyses the items of one dataset on the pool and folds them into its (unfinalized) report.
fn scan_items(
    pool: &rayon::ThreadPool,
    items: &[&Item],
    ctx: &Ctx<'_>,
    settings: Settings,
    shard: Option<Shard>,
    progress: &dyn Progress,
) -> ScanReport {
    pool.install(|| {
        items
            .par_iter()
            .with_min_len(4)
            .map(|item| {
                let r = BUFFERS.with(|b| analyze_item_isolated(item, ctx, &mut b.borrow_mut()));
                progress.inc();
                r
            })
            .fold(
                || ScanReport::empty(settings.clone(), shard),
                |mut acc, r| {
                    add_result(&mut acc, r);
                    acc
                },
            )
            .reduce(
                || ScanReport::empty(settings.clone(), shard),
                |mut a, b| {
                    absorb(&mut a, b);
                    a
                },
            )
    })
}

/// The preset a detected layout suggests when no class count was given.
fn suggest_preset(info: &DatasetInfo, items: &[&Item]) -> Option<&'static str> {
    match info.layout {
        cityscapes::KIND => Some("cityscapes"),
        voc::KIND => Some("pascal-voc"),
        paired::KIND
            if info.name.to_ascii_lowercase().contains("ade")
                || items.iter().any(|i| {
                    i.display.contains("/annotations/training/")
                        || i.display.contains("/annotations/validation/")
                }) =>
        {
            Some("ade20k")
        }
        _ => None,
    }
}

/// The palette the settings give, as LG621 names it: `the palette FILE` (`--palette`, or the
/// config's `palette`), else `the palette of preset NAME`.
fn given_palette(o: &ScanOptions) -> String {
    match (&o.layers.palette, o.preset) {
        (Some(file), _) => format!("the palette {}", file.display()),
        (None, Some(p)) => format!("the palette of preset {}", p.name),
        (None, None) => "the palette".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_assignment_is_stable_and_covers_every_shard() {
        // Pinned values: changing the hash would reshuffle running array jobs.
        assert_eq!(shard_of(b"", 7), (0xcbf2_9ce4_8422_2325u64 % 7) as u32 + 1);
        let mut seen = [0usize; 4];
        for i in 0..1000 {
            seen[shard_of(format!("\0gtFine/train/x_{i}.png").as_bytes(), 4) as usize - 1] += 1;
        }
        assert!(seen.iter().all(|&n| n > 200), "{seen:?}");
    }
}
