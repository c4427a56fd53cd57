//! The text report: what a person reads after `labelguard scan DATA`.

pub use super::plural::plural;
use super::{header, tokens};
use crate::{finding_text, look, thousands, visible, Style};
use labelguard_core::finding::ValueCount;
use labelguard_core::rule::Category;
use labelguard_core::rules::category_of;
use labelguard_core::Finding;
use labelguard_scan_model::FileKind;
use labelguard_scan_model::LayoutKind;
use labelguard_scan_model::{ClassRow, ScanReport};
use std::collections::BTreeMap;
use std::path::Path;

const BAR: usize = 32;

fn bar(fraction: f64) -> String {
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (fraction.clamp(0.0, 1.0) * (BAR * 8) as f64).round() as usize;
    let mut s = "█".repeat(eighths / 8);
    s.push_str(PARTS[eighths % 8]);
    if s.is_empty() && fraction > 0.0 {
        s.push('▏');
    }
    s
}

/// The text report detailing at most `max_files` files (`None`: every file, `--show all`);
/// the rest are counted (JSON has them all).
pub fn text(r: &ScanReport, style: Style, max_files: Option<usize>) -> String {
    if r.datasets.is_empty() {
        return render_one(r, style, max_files, true);
    }
    let mut out = format!(
        "{} {}: {} datasets, {}\n",
        style.paint(look::HEADING, "labelguard scan"),
        r.settings.roots.join(", "),
        r.datasets.len(),
        plural(r.summary.files_scanned, "file"),
    );
    for d in &r.datasets {
        out += &format!(
            "  {} ({} layout): {}\n",
            d.settings.roots.join(", "),
            layout_names(d),
            plural(d.summary.files_scanned, "file")
        );
    }
    for (i, d) in r.datasets.iter().enumerate() {
        out += &format!(
            "\n{}\n",
            style.paint(
                look::BANNER,
                &format!("── Dataset {} of {} ──", i + 1, r.datasets.len())
            )
        );
        out += &render_one(d, style, max_files, false);
    }
    out += &fix_command(r, style);
    out += &format!("\n{}", verdict_line(r, style));
    out
}

/// The `labelguard fix` command that repairs what the scan found, when fix can repair some of
/// it: the scanned directory, into a new one beside it, with the scan's class settings.
fn fix_command(r: &ScanReport, style: Style) -> String {
    let repairable = |r: &ScanReport| {
        r.files
            .iter()
            .flat_map(|f| &f.findings)
            .chain(&r.dataset)
            .any(|f| f.repair.is_some())
    };
    let [root] = r.settings.roots.as_slice() else {
        return String::new();
    };
    if !(repairable(r) || r.datasets.iter().any(repairable)) || !Path::new(root).is_dir() {
        return String::new();
    }
    let st = &r.settings;
    let dir = root.trim_end_matches('/');
    let mut cmd = format!(
        "labelguard fix {} --out {}",
        shell_word(dir),
        shell_word(&format!("{dir}-fixed"))
    );
    match (&st.preset, st.num_classes) {
        (Some(p), _) => cmd += &format!(" --preset {p}"),
        (None, Some(c)) => cmd += &format!(" --num-classes {c} --ignore-index {}", st.ignore_index),
        (None, None) => {}
    }
    format!(
        "\n{}\n  {}   (add --dry-run to see the plan first)\n",
        style.paint(look::HEADING, "Repair what fix can"),
        visible(&cmd)
    )
}

/// `s` as one word of a POSIX shell command line.
fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./,:=@%+".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn layout_names(r: &ScanReport) -> String {
    let layouts: Vec<&str> = r.settings.layouts.iter().map(|l| l.as_str()).collect();
    layouts.join("+")
}

/// One dataset's report; `top` when it is the whole report (then it ends with the fix command).
fn render_one(r: &ScanReport, style: Style, max_files: Option<usize>, top: bool) -> String {
    let st = &r.settings;
    let mut out = String::new();
    let classes = match st.num_classes {
        Some(c) => plural(c as u64, "class"),
        None if tokens::token_data(r) => tokens::vocabulary(r),
        None if st.layouts.iter().all(|l| *l == LayoutKind::IMAGE_FOLDER) => format!(
            "{} from the class folders",
            plural(st.class_names.len() as u64, "class")
        ),
        None if header::no_labels(r) => "no labels found (no class ids were read)".into(),
        None => "class count unknown (ids are counted, not range-checked)".into(),
    };
    let extra = format!(
        "{}{}{}{}",
        header::ignore_words(r)
            .map(|w| format!(", {w}"))
            .unwrap_or_default(),
        if st.reduce_zero_label {
            ", reduce_zero_label"
        } else {
            ""
        },
        match (st.preset.as_deref(), st.suggested_preset.as_deref()) {
            (Some(p), Some(s)) => format!(", preset {p} (but the layout looks like {s})"),
            (Some(p), None) => format!(", preset {p}"),
            _ => String::new(),
        },
        st.config
            .as_deref()
            .map(|c| format!(", config {c}"))
            .unwrap_or_default()
    );
    out += &format!(
        "{} {} ({} layout){}: {}, {classes}{extra}\n",
        style.paint(look::HEADING, "labelguard scan"),
        visible(&st.roots.join(", ")),
        layout_names(r),
        r.shard
            .map(|s| format!(", shard {}/{}", s.index, s.count))
            .unwrap_or_default(),
        plural(r.summary.files_scanned, "file"),
    );
    if !r.rules.is_empty() {
        out += &format!("\n{}\n", style.paint(look::HEADING, "Findings by rule"));
        for rc in &r.rules {
            let sev = format!("{:<7}", rc.severity.as_str());
            let sev = style.paint(look::severity(rc.severity), &sev);
            let files = if rc.files == 0 {
                "the dataset".to_string()
            } else {
                plural(rc.files, "file")
            };
            out += &format!(
                "  {sev}  {}  {:<28} {:>6} in {:<12} {}\n",
                style.paint(look::HEADING, &rc.code),
                rc.name,
                thousands(rc.findings),
                files,
                rc.summary
            );
        }
    }
    let grouped = systematic(r);
    // Files whose every finding is in a group are not listed one by one.
    let mut worst: Vec<_> = r
        .worst_files(usize::MAX)
        .into_iter()
        .filter(|f| {
            f.findings
                .iter()
                .any(|x| !grouped.contains_key(x.finding.code))
        })
        .collect();
    let listed = worst.len();
    worst.truncate(max_files.unwrap_or(usize::MAX));
    if !worst.is_empty() {
        let title = if max_files.is_none() {
            "Files (unreadable first, then the worst)"
        } else {
            "Worst files (unreadable first)"
        };
        out += &format!("\n{}\n", style.paint(look::HEADING, title));
        for f in &worst {
            // "all" is no split: only a named split is worth a word.
            let mut about: Vec<String> = Vec::new();
            if !f.split.is_empty() && f.split != "all" {
                about.push(visible(&f.split).into_owned());
            }
            if f.bad_elements > 0 {
                // Objects for detection annotations, token ids for token data, elements
                // (pixels, rows) otherwise.
                let unit = if f.kind == FileKind::Annotations {
                    "bad object"
                } else if tokens::token_data(r) {
                    "bad token id"
                } else {
                    "bad element"
                };
                about.push(plural(f.bad_elements, unit));
            }
            out += &format!("\n{}", style.paint(look::FILE, &visible(&f.path)));
            if !about.is_empty() {
                out += &format!("  {}", about.join(", "));
            }
            out.push('\n');
            for finding in &f.findings {
                if grouped.contains_key(finding.finding.code) {
                    continue;
                }
                for line in finding_text(&finding.finding, style).lines() {
                    out += &format!("  {line}\n");
                }
            }
        }
        if listed > worst.len() {
            out += &format!(
                "\n  ... and {} with findings (--show all lists them; --format json too)\n",
                plural((listed - worst.len()) as u64, "more file")
            );
        }
    }
    if !r.dataset.is_empty() || !grouped.is_empty() {
        out += &format!("\n{}\n", style.paint(look::HEADING, "Dataset"));
        // A convention the dataset finding states for every mask is shown once, by it, with the
        // files whose own ids show it.
        let stated = |code: &str| r.dataset.iter().any(|d| d.finding.code == code);
        for (code, files) in &grouped {
            if !stated(code) {
                for line in group_text(files, style).lines() {
                    out += &format!("  {line}\n");
                }
            }
        }
        for f in &r.dataset {
            for line in finding_text(&f.finding, style).lines() {
                out += &format!("  {line}\n");
            }
            if let Some(files) = grouped.get(f.finding.code) {
                out += &format!("    files: {}\n", files_line(files));
            }
        }
    }
    out += &histogram(r, style);
    if let Some(w) = &r.weights {
        if let Some(s) = w.suggestions.iter().find(|s| s.method == w.selected) {
            let on = if w.computed_on == "all" {
                "all files".to_string()
            } else {
                format!("{} split", w.computed_on)
            };
            let mapped = if r.histogram.id_space.is_some() {
                ", the labelIds mapped to trainIds"
            } else {
                ""
            };
            out += &format!(
                "\n{} ({}, {on}{mapped}): {}\n",
                style.paint(look::HEADING, "Suggested class weights"),
                s.method.as_str(),
                s.formula
            );
            let values: Vec<String> = s.weights.iter().map(|v| format!("{v}")).collect();
            out += &format!("  [{}]\n", values.join(", "));
            out += &odd_weights(&s.weights, &w.computed_on);
            out += "  other methods: --weights-method inverse|median|enet; write them with --write-weights FILE (.json or .py)\n";
        }
    }
    if top {
        out += &fix_command(r, style);
    }
    out += &format!("\n{}", verdict_line(r, style));
    out
}

/// The findings of rules of a dataset convention ([`Category::DatasetConvention`]: Cityscapes
/// labelIds, 1-based ids, 0 meaning ignore) that occur in two files or more, by rule: one
/// problem of the whole dataset, which the text report shows once, with the files counted.
/// JSON keeps one finding per file (each file's repair, for `labelguard fix --plan`).
fn systematic(r: &ScanReport) -> BTreeMap<&'static str, Vec<(&str, &Finding)>> {
    let mut by_rule: BTreeMap<&'static str, Vec<(&str, &Finding)>> = BTreeMap::new();
    for f in &r.files {
        for x in &f.findings {
            if category_of(x.finding.code) == Category::DatasetConvention {
                by_rule
                    .entry(x.finding.code)
                    .or_default()
                    .push((f.path.as_str(), &x.finding));
            }
        }
    }
    by_rule.retain(|_, v| v.len() > 1);
    by_rule
}

/// One rule's findings in several files as one finding: the files and targets counted, the
/// values summed, the first file's message as the example.
fn group_text(files: &[(&str, &Finding)], style: Style) -> String {
    let (path, first) = files[0];
    let mut f = (*first).clone();
    let mut values: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, x) in files {
        for v in &x.values {
            *values.entry(v.value.as_str()).or_default() += v.count;
        }
    }
    let mut values: Vec<ValueCount> = values
        .into_iter()
        .map(|(value, count)| ValueCount {
            value: value.to_string(),
            count,
        })
        .collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.count));
    let targets: u64 = files.iter().filter_map(|(_, x)| x.count).sum();
    f.message = format!(
        "in {} ({} targets); in the first, {}: {}",
        plural(files.len() as u64, "file"),
        thousands(targets),
        visible(path),
        first.message
    );
    f.count = Some(targets);
    f.values = values;
    f.locations.clear();
    format!(
        "{}  files: {}\n",
        finding_text(&f, style),
        files_line(files)
    )
}

/// The first files of a group, and how many more.
fn files_line(files: &[(&str, &Finding)]) -> String {
    let mut names: Vec<String> = files
        .iter()
        .take(3)
        .map(|(p, _)| visible(p).into_owned())
        .collect();
    if files.len() > 3 {
        names.push(format!(
            "and {} more (--format json lists each)",
            files.len() - 3
        ));
    }
    names.join(", ")
}

/// Words for the weights that are not a weight to train with: 0 (a class never seen has no
/// targets to weigh) and infinite or NaN ones.
fn odd_weights(weights: &[f64], computed_on: &str) -> String {
    let seen_in = if computed_on == "all" {
        "in any file".to_string()
    } else {
        format!("in the {computed_on} split")
    };
    let ids = |keep: &dyn Fn(f64) -> bool| -> Vec<String> {
        (0..weights.len())
            .filter(|&i| keep(weights[i]))
            .map(|i| i.to_string())
            .collect()
    };
    let mut out = String::new();
    let zero = ids(&|v| v == 0.0);
    if !zero.is_empty() {
        out += &format!(
            "  0 for {} ({}): never seen {seen_in}, so there are no targets to weigh; a loss with these weights ignores such a class if it appears later (check the id mapping, or drop the class from the head)\n",
            plural(zero.len() as u64, "class"),
            zero.join(", ")
        );
    }
    let odd = ids(&|v| !v.is_finite());
    if !odd.is_empty() {
        out += &format!(
            "  not finite for {} ({}): a count too small to divide by; replace them before passing the weights to a loss (weight=...), which would give NaN losses\n",
            plural(odd.len() as u64, "class"),
            odd.join(", ")
        );
    }
    out
}

/// The last line: the status, the counts, and what was not checked.
fn verdict_line(r: &ScanReport, style: Style) -> String {
    let s = &r.summary;
    let verdict = match s.status.as_str() {
        "errors" => style.paint(look::ERROR, "errors"),
        "warnings" => style.paint(look::WARNING, "warnings"),
        "unchecked" => style.paint(look::WARNING, "unchecked"),
        _ => style.paint(look::GOOD, "ok"),
    };
    let mut line = format!(
        "{verdict}: {}, {} in {} of {}{}{}{}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        thousands(r.files.len() as u64),
        plural(s.files_scanned, "file"),
        if r.datasets.is_empty() {
            String::new()
        } else {
            format!(" of {} datasets", r.datasets.len())
        },
        if tokens::token_data(r) {
            format!("; {} read", tokens::read(r))
        } else {
            String::new()
        },
        match s.bad_elements {
            0 => String::new(),
            n if tokens::token_data(r) =>
                format!("; {} PyTorch would reject", plural(n, "token id")),
            n => format!("; {} PyTorch would reject", plural(n, "element")),
        }
    );
    if r.datasets.is_empty() && r.unchecked() {
        line += &unchecked_note(r);
    }
    line + "\n"
}

/// Why the class range was not checked, what the ids are, and how to check it.
fn unchecked_note(r: &ScanReport) -> String {
    let ids: Vec<i64> = r
        .histogram
        .classes
        .values()
        .filter(|c| c.count > 0 && c.role != "ignore")
        .map(|c| c.id)
        .collect();
    let seen = match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a != b => format!("ids {a}..{b} were counted"),
        (Some(a), _) => format!("id {a} was counted"),
        _ => "ids were counted".into(),
    };
    let how = match r.settings.suggested_preset.as_deref() {
        Some(p) => format!("the layout suggests --preset {p}; or pass --num-classes N"),
        None => "pass --num-classes N or a --preset".into(),
    };
    format!("; class range NOT checked: the number of classes is unknown, {seen} ({how})")
}

fn histogram(r: &ScanReport, style: Style) -> String {
    let rows: Vec<_> = r.histogram.classes.values().collect();
    if rows.is_empty() || r.histogram.unit == "none" {
        return String::new();
    }
    let space = match r.histogram.id_space.as_deref() {
        Some("label_ids") => format!(
            "; Cityscapes labelIds, named by labelId: the masks are not trainIds, and ids {} and up are outside the classes",
            r.settings.num_classes.unwrap_or(19)
        ),
        _ => String::new(),
    };
    let mut out = format!(
        "\n{} ({}{space})\n",
        style.paint(look::HEADING, "Class histogram"),
        r.histogram.unit
    );
    let label = |c: &ClassRow| -> String {
        match (c.role.as_str(), &c.name) {
            ("ignore", _) => "(ignore)".to_string(),
            ("out_of_range", None) => "(out of range)".to_string(),
            (_, Some(n)) => visible(n).chars().take(24).collect(),
            _ => String::new(),
        }
    };
    let name_w = rows
        .iter()
        .map(|c| label(c).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(8, 24);
    let max = rows
        .iter()
        .filter(|c| c.role == "class" || c.role == "foreground")
        .map(|c| c.fraction)
        .fold(0.0, f64::max)
        .max(1e-12);
    // Very long class lists (ADE20K's 150): all rows, since every one can matter.
    for c in rows {
        let name = label(c);
        let count = thousands(c.count);
        let line = match c.role.as_str() {
            "class" | "foreground" => format!(
                "  {:>5} {:<name_w$} {:>14} {:>6.2}% {}",
                c.id,
                name,
                count,
                c.fraction * 100.0,
                if c.count == 0 {
                    style.paint(look::NEVER_SEEN, "never seen")
                } else {
                    style.paint(look::BAR, &bar(c.fraction / max))
                }
            ),
            "ignore" => format!("  {:>5} {:<name_w$} {:>14}", c.id, name, count),
            _ => style.paint(
                look::OUT_OF_RANGE,
                &format!(
                    "  {:>5} {:<name_w$} {:>14} {:>6.2}%",
                    c.id,
                    name,
                    count,
                    c.fraction * 100.0
                ),
            ),
        };
        out += &line;
        out.push('\n');
    }
    if r.histogram.untallied > 0 {
        out += &format!(
            "  ({} elements in files with too many distinct ids were not tallied)\n",
            thousands(r.histogram.untallied)
        );
    }
    out
}
