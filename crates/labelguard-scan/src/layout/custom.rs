//! The **custom** layout: `--mask-glob` selects the masks, `--image-template` names each
//! mask's image with `{stem}`, `{name}`, `{dir}`, `{subdir}` (the mask's directory below the
//! glob's literal prefix) and `{split}`.

use super::declare::{whole, At, Found, Layout, Scope, Tree};
use super::files;
use super::item::{RootScan, Task};
use super::pairing::pair;
use super::paths::{split_of, stem_of};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::walk::Entry;

/// Expands an image template for a mask.
pub fn expand_template(
    template: &str,
    mask_rel: &str,
    literal_prefix: &str,
    suffix: Option<&str>,
) -> String {
    let (dir, name) = mask_rel.rsplit_once('/').unwrap_or(("", mask_rel));
    let below = if literal_prefix.is_empty() {
        dir
    } else {
        dir.strip_prefix(literal_prefix)
            .map(|d| d.trim_start_matches('/'))
            .unwrap_or(dir)
    };
    let mut stem = stem_of(name);
    if let Some(s) = suffix {
        stem = name
            .strip_suffix(s)
            .or_else(|| stem.strip_suffix(s))
            .unwrap_or(stem);
    }
    let out = template
        .replace("{stem}", stem)
        .replace("{name}", name)
        .replace("{dir}", dir)
        .replace("{subdir}", below)
        .replace("{split}", &split_of(mask_rel));
    // `a//b` from an empty {subdir}: normalise.
    let parts: Vec<&str> = out
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    parts.join("/")
}

pub(crate) fn collect(scan: &mut RootScan<'_>, opts: &ScanOptions) {
    let Some(glob) = &opts.mask_glob else {
        files::collect(scan);
        return;
    };
    let prefix = glob.literal_prefix();
    let masks: Vec<(&Entry, String)> = scan
        .files
        .iter()
        .filter(|e| glob.matches(&e.rel))
        .map(|e| (*e, split_of(&e.rel)))
        .collect();
    match &opts.image_template {
        Some(t) => {
            let suffix = opts.mask_suffix.clone();
            let t = t.clone();
            pair(
                scan,
                masks,
                move |e: &Entry| vec![expand_template(&t, &e.rel, &prefix, suffix.as_deref())],
                None,
            )
        }
        None => {
            for (e, split) in masks {
                let item = scan.item(e, split, Task::unpaired_label(&e.rel));
                scan.items.push(item);
            }
        }
    }
}

/// The custom layout's kind: `--layout custom`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = crate::layout_kind::CUSTOM;

/// The custom layout (see the module's doc).
pub(crate) struct Custom;

impl Layout for Custom {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn help(&self) -> &'static str {
        "--mask-glob with --image-template 'images/{subdir}/{stem}.jpg'"
    }
    fn scope(&self) -> Scope {
        Scope::Loose
    }
    fn claim(&self, _: &[&Entry], at: &At<'_>) -> Vec<Tree> {
        whole(at.opts.mask_glob.is_some())
    }
    fn collect(&self, scan: &mut RootScan<'_>, opts: &ScanOptions) -> Found {
        collect(scan, opts);
        Found::default()
    }
}
