//! What a fix run did (or would do, with `--dry-run`): per-file moves, totals per mapping,
//! the files left alone and why, what the re-scan still finds. Rendered as text or JSON.

use crate::journal::{Action, Entry, LeftAlone};
use crate::mapping::Moved;
use crate::options::FixOptions;
use labelguard_labels::repair::{Repair, RepairKind};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

#[derive(Clone, Debug, Serialize)]
pub struct RepairedFile {
    pub path: String,
    /// The key of this file's repairs in `plans`.
    pub plan: String,
    pub repairs: Vec<String>,
    pub moved: Vec<Moved>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The output's path when it is not `path` (Cityscapes labelIds written as labelTrainIds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_as: Option<String>,
}

/// One mapping summed over the files.
#[derive(Clone, Debug, Serialize)]
pub struct Total {
    pub repairs: String,
    pub from: i64,
    pub to: i64,
    pub pixels: u64,
    pub files: u64,
}

/// An error finding of a repaired kind that the re-scan of the output still finds.
#[derive(Clone, Debug, Serialize)]
pub struct Remaining {
    pub path: String,
    pub code: String,
    pub message: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct FixReport {
    pub schema: &'static str,
    pub dry_run: bool,
    pub input: String,
    pub output: String,
    /// The repaired files (with `--dry-run`: the files that would be), with their moves.
    pub files: Vec<RepairedFile>,
    /// The repairs of the files, by fingerprint: with `files`, a plan `--plan` reads back.
    pub plans: BTreeMap<String, Vec<Repair>>,
    pub totals: Vec<Total>,
    /// Every pixel (element) the repairs changed, over all files: the sum of `totals`.
    pub changed_pixels: u64,
    pub copied: u64,
    /// Files a previous, interrupted run had finished and this one verified and kept.
    pub resumed: u64,
    pub left_alone: Vec<LeftAlone>,
    /// Rules whose findings the applied repairs address (checked by the re-scan).
    pub repaired_rules: Vec<String>,
    /// `null` with `--dry-run`.
    pub remaining: Option<Vec<Remaining>>,
    /// The other error findings of the re-scan: kinds fix does not repair (`null` with
    /// `--dry-run`).
    pub others: Option<Vec<Remaining>>,
    /// `--strict`: any error left in the output is exit code 1.
    pub strict: bool,
    pub manifest: Option<String>,
}

impl FixReport {
    pub fn new(opts: &FixOptions) -> FixReport {
        let rules: BTreeSet<String> = opts
            .plan
            .files
            .values()
            .flatten()
            .chain(&opts.plan.every_mask)
            .filter(|r| r.kind != RepairKind::ResizeArtefacts || opts.fill_artefacts)
            .filter_map(|r| r.rule.clone())
            .collect();
        FixReport {
            schema: "labelguard-fix-report",
            dry_run: opts.dry_run,
            input: opts.input.to_string_lossy().into_owned(),
            output: opts.out.to_string_lossy().into_owned(),
            files: Vec::new(),
            plans: BTreeMap::new(),
            totals: Vec::new(),
            changed_pixels: 0,
            copied: 0,
            resumed: 0,
            left_alone: Vec::new(),
            repaired_rules: rules.into_iter().collect(),
            remaining: None,
            others: None,
            strict: opts.strict,
            manifest: None,
        }
    }

    /// Adds the entries of the run (repaired and copied files).
    pub fn absorb(&mut self, entries: &[Entry]) {
        let mut totals: BTreeMap<(String, i64, i64), (u64, u64)> = BTreeMap::new();
        for e in entries {
            match e.action {
                Action::Copied => self.copied += 1,
                Action::Repaired => {
                    let repairs = e.repairs.join("+");
                    for m in &e.moved {
                        let t = totals.entry((repairs.clone(), m.from, m.to)).or_default();
                        t.0 += m.pixels;
                        t.1 += 1;
                    }
                    self.files.push(RepairedFile {
                        path: e.path.clone(),
                        plan: e.plan.clone(),
                        repairs: e.repairs.clone(),
                        moved: e.moved.clone(),
                        notes: e.notes.clone(),
                        written_as: e.written_as.clone(),
                    });
                }
            }
        }
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.changed_pixels = totals.values().map(|(pixels, _)| pixels).sum();
        self.totals = totals
            .into_iter()
            .map(|((repairs, from, to), (pixels, files))| Total {
                repairs,
                from,
                to,
                pixels,
                files,
            })
            .collect();
    }

    /// 0 when the re-scan finds no error of a repaired kind, and with `--strict` no error at
    /// all (always 0 for a dry run).
    pub fn exit_code(&self) -> u8 {
        let left = |r: &Option<Vec<Remaining>>| r.as_ref().is_some_and(|r| !r.is_empty());
        u8::from(left(&self.remaining) || (self.strict && left(&self.others)))
    }

    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("the report serialises");
        s.push('\n');
        s
    }

    pub fn text(&self, max_files: usize) -> String {
        let mut s = String::new();
        let verb = if self.dry_run {
            "would repair"
        } else {
            "repaired"
        };
        let _ = writeln!(
            s,
            "labelguard fix: {} -> {}{}",
            self.input,
            self.output,
            if self.dry_run {
                " (dry run: nothing is written)"
            } else {
                ""
            }
        );
        if !self.totals.is_empty() {
            let _ = writeln!(s, "\nmappings (pixels per mapping):");
            for t in &self.totals {
                let _ = writeln!(
                    s,
                    "  {:<24} {:>6} -> {:<6} {:>12} pixels in {} file{}",
                    t.repairs,
                    t.from,
                    t.to,
                    t.pixels,
                    t.files,
                    if t.files == 1 { "" } else { "s" }
                );
            }
        }
        if !self.files.is_empty() {
            let _ = writeln!(
                s,
                "\nfiles that {}:",
                if self.dry_run { "change" } else { "changed" }
            );
            for f in self.files.iter().take(max_files) {
                let moves: Vec<String> = f
                    .moved
                    .iter()
                    .map(|m| format!("{}->{} ({})", m.from, m.to, m.pixels))
                    .collect();
                let renamed = f
                    .written_as
                    .as_deref()
                    .map(|w| format!(" -> {w}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "  {}{renamed}  [{}] {}",
                    f.path,
                    f.repairs.join(", "),
                    moves.join(", ")
                );
                for n in &f.notes {
                    let _ = writeln!(s, "      {n}");
                }
            }
            if self.files.len() > max_files {
                let _ = writeln!(
                    s,
                    "  ... and {} more (--format json lists all)",
                    self.files.len() - max_files
                );
            }
        }
        if !self.left_alone.is_empty() {
            let _ = writeln!(s, "\nleft alone:");
            for l in self.left_alone.iter().take(max_files) {
                let how = if l.copied {
                    "copied unchanged"
                } else {
                    "not copied"
                };
                let _ = writeln!(s, "  {} ({how}): {}", l.path, l.reason);
            }
            if self.left_alone.len() > max_files {
                let _ = writeln!(s, "  ... and {} more", self.left_alone.len() - max_files);
            }
        }
        let _ = writeln!(
            s,
            "\n{verb} {} file{} ({} pixel{} changed), copied {} unchanged{}, left {} alone",
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" },
            self.changed_pixels,
            if self.changed_pixels == 1 { "" } else { "s" },
            self.copied,
            if self.resumed > 0 {
                format!(" ({} finished by an earlier run, verified)", self.resumed)
            } else {
                String::new()
            },
            self.left_alone.len()
        );
        if let Some(r) = &self.remaining {
            if r.is_empty() {
                let _ = writeln!(
                    s,
                    "re-scan of the output: no error findings of {} remain",
                    if self.repaired_rules.is_empty() {
                        "the repaired kinds".to_string()
                    } else {
                        self.repaired_rules.join(", ")
                    }
                );
            } else {
                let _ = writeln!(
                    s,
                    "re-scan of the output: {} error findings of the repaired kinds remain:",
                    r.len()
                );
                for f in r.iter().take(max_files) {
                    let _ = writeln!(s, "  {} {}: {}", f.code, f.path, f.message);
                }
            }
        }
        if let Some(o) = &self.others {
            self.others_text(&mut s, o, max_files);
        }
        if let Some(m) = &self.manifest {
            let _ = writeln!(s, "manifest: {m}");
        }
        s
    }

    /// What remains in the output that fix does not repair, counted by rule, and whether the
    /// output is clean.
    fn others_text(&self, s: &mut String, others: &[Remaining], max_files: usize) {
        let repaired_left = self.remaining.as_ref().map_or(0, Vec::len);
        if others.is_empty() {
            if repaired_left == 0 {
                let _ = writeln!(
                    s,
                    "the output is clean: its re-scan finds no error, and no pixel changed beyond the planned mappings above"
                );
            }
            return;
        }
        let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
        for o in others {
            *by_rule.entry(o.code.as_str()).or_default() += 1;
        }
        let counts: Vec<String> = by_rule.iter().map(|(c, n)| format!("{c} x{n}")).collect();
        let _ = writeln!(
            s,
            "{} error finding{} remain{} in the output that fix does not repair ({}): fix their source",
            others.len(),
            if others.len() == 1 { "" } else { "s" },
            if others.len() == 1 { "s" } else { "" },
            counts.join(", ")
        );
        for o in others.iter().take(max_files) {
            let at = if o.path.is_empty() {
                "the dataset"
            } else {
                &o.path
            };
            let _ = writeln!(s, "  {} {at}: {}", o.code, o.message);
        }
        if others.len() > max_files {
            let _ = writeln!(
                s,
                "  ... and {} more (--format json lists all)",
                others.len() - max_files
            );
        }
        if !self.strict {
            let _ = writeln!(
                s,
                "(exit code {}: only errors of the repaired kinds count; --strict makes any error left exit 1)",
                self.exit_code()
            );
        }
    }
}
