//! The text report: what a person reads after `labelguard scan DATA`.

use crate::{finding_text, look, thousands, visible, Style};
use labelguard_scan::layout::LayoutKind;
use labelguard_scan::report::{ClassRow, ScanReport};

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

/// `1 file`, `2 files`, `1,024 files`, `1 class`, `2 classes`.
pub fn plural(n: u64, word: &str) -> String {
    let many = if word.ends_with('s') { "es" } else { "s" };
    format!("{} {word}{}", thousands(n), if n == 1 { "" } else { many })
}

/// The text report detailing at most `max_files` files (`None`: every file, `--show all`);
/// the rest are counted (JSON has them all).
pub fn text(r: &ScanReport, style: Style, max_files: Option<usize>) -> String {
    if r.datasets.is_empty() {
        return render_one(r, style, max_files);
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
        out += &render_one(d, style, max_files);
    }
    out += &format!("\n{}", verdict_line(r, style));
    out
}

fn layout_names(r: &ScanReport) -> String {
    let layouts: Vec<&str> = r.settings.layouts.iter().map(|l| l.as_str()).collect();
    layouts.join("+")
}

fn render_one(r: &ScanReport, style: Style, max_files: Option<usize>) -> String {
    let st = &r.settings;
    let mut out = String::new();
    let classes = match st.num_classes {
        Some(c) => plural(c as u64, "class"),
        None if st.layouts.iter().all(|l| *l == LayoutKind::ImageFolder) => format!(
            "{} from the class folders",
            plural(st.class_names.len() as u64, "class")
        ),
        None => "class count unknown (ids are counted, not range-checked)".into(),
    };
    let extra = format!(
        ", ignore_index {}{}{}{}",
        st.ignore_index,
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
    let worst = r.worst_files(max_files.unwrap_or(usize::MAX));
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
                about.push(format!("{} bad elements", thousands(f.bad_elements)));
            }
            out += &format!("\n{}", style.paint(look::FILE, &visible(&f.path)));
            if !about.is_empty() {
                out += &format!("  {}", about.join(", "));
            }
            out.push('\n');
            for finding in &f.findings {
                for line in finding_text(&finding.finding, style).lines() {
                    out += &format!("  {line}\n");
                }
            }
        }
        if r.files.len() > worst.len() {
            out += &format!(
                "\n  ... and {} with findings (--show all lists them; --format json too)\n",
                plural((r.files.len() - worst.len()) as u64, "more file")
            );
        }
    }
    if !r.dataset.is_empty() {
        out += &format!("\n{}\n", style.paint(look::HEADING, "Dataset"));
        for f in &r.dataset {
            for line in finding_text(&f.finding, style).lines() {
                out += &format!("  {line}\n");
            }
        }
    }
    out += &histogram(r, style);
    if let Some(w) = &r.weights {
        if let Some(s) = w.suggestions.iter().find(|s| s.method == w.selected) {
            out += &format!(
                "\n{} ({}, {}): {}\n",
                style.paint(look::HEADING, "Suggested class weights"),
                s.method.as_str(),
                if w.computed_on == "all" {
                    "all files".to_string()
                } else {
                    format!("{} split", w.computed_on)
                },
                s.formula
            );
            let values: Vec<String> = s.weights.iter().map(|v| format!("{v}")).collect();
            out += &format!("  [{}]\n", values.join(", "));
            out += "  other methods: --weights-method inverse|median|enet; write them with --write-weights FILE (.json or .py)\n";
        }
    }
    out += &format!("\n{}", verdict_line(r, style));
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
        "{verdict}: {}, {} in {} of {}{}{}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        thousands(r.files.len() as u64),
        plural(s.files_scanned, "file"),
        if r.datasets.is_empty() {
            String::new()
        } else {
            format!(" of {} datasets", r.datasets.len())
        },
        if s.bad_elements > 0 {
            format!(
                "; {} elements PyTorch would reject",
                thousands(s.bad_elements)
            )
        } else {
            String::new()
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
    let mut out = format!(
        "\n{} ({})\n",
        style.paint(look::HEADING, "Class histogram"),
        r.histogram.unit
    );
    let label = |c: &ClassRow| -> String {
        match (c.role.as_str(), &c.name) {
            ("ignore", _) => "(ignore)".to_string(),
            ("out_of_range", _) => "(out of range)".to_string(),
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
