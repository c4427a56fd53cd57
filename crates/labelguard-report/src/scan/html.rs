//! `--html FILE`: one self-contained page (no scripts, no external files): the summary, the
//! class histogram as an SVG chart, every finding, and for each file with bad pixels a picture
//! of the mask with those pixels marked (red: ids PyTorch rejects, yellow: resize artefacts).

use crate::thousands;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use labelguard_core::finding::shape_str;
use labelguard_core::Finding;
use labelguard_core::Severity;
use labelguard_scan::report::ScanReport;
use std::collections::HashMap;

/// XML-escapes text and attribute values; control characters XML 1.0 forbids are dropped.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&apos;",
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
.cards{display:flex;gap:1rem;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem}
.card b{display:block;font-size:1.4rem}.error{color:#c00}.warning{color:#b70}.info{color:#07a}.ok{color:#080}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #eee;vertical-align:top}
code{background:#f4f4f4;padding:0 .2rem}details{margin:.4rem 0}summary{cursor:pointer}
.finding{margin:.3rem 0 .6rem 1rem}.hint{color:#555}.fix{color:#060}.overlay{image-rendering:pixelated;border:1px solid #ccc;max-width:100%}";

fn sev_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// Escaped text with `backtick spans` shown as code.
fn rich(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return esc(text); // an unpaired backtick: leave the text as it is
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", esc(p))
            } else {
                esc(p)
            }
        })
        .collect()
}

/// At most this many files are detailed in the page (unreadable first, then the worst); the
/// rest are counted, so a 10,000-file dataset gives a page of bounded size.
const MAX_FILES: usize = 500;
/// Histograms longer than this are folded (ADE20K's 150 classes).
const FOLD_ROWS: usize = 40;
/// Small overlay pictures are shown at least this large (nearest-neighbour).
const MIN_PICTURE: u32 = 384;

/// The PNG's width and height from its IHDR chunk.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let w = u32::from_be_bytes(png.get(16..20)?.try_into().ok()?);
    let h = u32::from_be_bytes(png.get(20..24)?.try_into().ok()?);
    Some((w, h))
}

fn finding_html(f: &Finding) -> String {
    let mut s = format!(
        "<div class=\"finding\"><span class=\"{}\">{}</span> <b>{}</b> {} <small>({})</small><br>{}",
        sev_class(f.severity),
        f.severity.as_str(),
        esc(f.code),
        esc(f.rule),
        f.verdict,
        rich(&f.message)
    );
    if !f.locations.is_empty() {
        let at: Vec<String> = f
            .locations
            .iter()
            .map(|l| {
                format!(
                    "<code>{}{} = {}</code>",
                    esc(&l.tensor),
                    shape_str(&l.index),
                    esc(&l.value)
                )
            })
            .collect();
        s += &format!("<br>at: {}", at.join(", "));
    }
    if let Some(h) = &f.hint {
        s += &format!("<br><span class=\"hint\">hint: {}</span>", rich(h));
    }
    if !f.fix.is_empty() {
        s += &format!("<br><span class=\"fix\">fix: {}</span>", rich(&f.fix));
    }
    s + "</div>\n"
}

fn colour(id: i64, palette: Option<&[[u8; 3]]>) -> String {
    if let Some(c) = palette.and_then(|p| usize::try_from(id).ok().and_then(|i| p.get(i))) {
        return format!("rgb({},{},{})", c[0], c[1], c[2]);
    }
    format!("hsl({},55%,55%)", (id.rem_euclid(360) * 137) % 360)
}

fn chart(r: &ScanReport, palette: Option<&[[u8; 3]]>) -> String {
    let rows: Vec<_> = r.histogram.classes.values().collect();
    if rows.is_empty() {
        return "<p>No class ids were counted.</p>".into();
    }
    let (bar_h, label_w, width) = (16usize, 220usize, 760usize);
    let max = rows
        .iter()
        .filter(|c| c.role != "ignore")
        .map(|c| c.fraction)
        .fold(0.0, f64::max)
        .max(1e-12);
    let height = rows.len() * (bar_h + 4) + 10;
    let mut svg = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"class histogram\">\n");
    for (i, c) in rows.iter().enumerate() {
        let y = 5 + i * (bar_h + 4);
        // The ignore row is not a share of the classes: its bar is its count against the
        // largest class's.
        let share = if c.role == "ignore" {
            let top = rows
                .iter()
                .filter(|x| x.role != "ignore")
                .map(|x| x.count)
                .max()
                .unwrap_or(0)
                .max(1);
            (c.count as f64 / top as f64).min(1.0) * max
        } else {
            c.fraction
        };
        let w = ((share / max) * (width - label_w - 90) as f64).round() as usize;
        let label = match (&c.name, c.role.as_str()) {
            (_, "out_of_range") => format!("{} (out of range)", c.id),
            (_, "ignore") => format!("{} (ignore)", c.id),
            (Some(n), _) => format!("{} {}", c.id, n),
            _ => c.id.to_string(),
        };
        let fill = if c.role == "out_of_range" {
            "#d00".to_string()
        } else if c.role == "ignore" {
            "#999".to_string()
        } else {
            colour(c.id, palette)
        };
        svg += &format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text><rect x=\"{label_w}\" y=\"{y}\" width=\"{}\" height=\"{bar_h}\" fill=\"{fill}\"><title>{}: {} ({:.3}%)</title></rect><text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#555\">{}</text>\n",
            label_w - 6,
            y + 12,
            esc(&label),
            w.max(if c.count > 0 { 1 } else { 0 }),
            esc(&label),
            thousands(c.count),
            c.fraction * 100.0,
            label_w + w + 6,
            y + 12,
            if c.count == 0 { "never seen".to_string() } else if c.role == "ignore" { format!("{} ignored", thousands(c.count)) } else { format!("{:.2}%", c.fraction * 100.0) }
        );
    }
    svg + "</svg>\n"
}

/// The whole page: one section per dataset when the scan found several.
pub fn html(r: &ScanReport, palette: Option<&[[u8; 3]]>) -> String {
    let st = &r.settings;
    let mut h = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>labelguard scan: {}</title><style>{CSS}</style></head><body>\n<h1>labelguard scan: {}</h1>\n",
        esc(&st.roots.join(", ")),
        esc(&st.roots.join(", "))
    );
    if r.datasets.is_empty() {
        h += &body(r, palette);
    } else {
        h += &cards(r);
        for (i, d) in r.datasets.iter().enumerate() {
            h += &format!(
                "<h2>Dataset {} of {}: {}</h2>\n",
                i + 1,
                r.datasets.len(),
                esc(&d.settings.roots.join(", "))
            );
            h += &body(d, palette);
        }
    }
    h += &format!(
        "<p><small>labelguard {} · schema {} v{}</small></p>\n</body></html>\n",
        esc(&r.tool.version),
        esc(&r.schema),
        r.schema_version
    );
    h
}

fn cards(r: &ScanReport) -> String {
    let s = &r.summary;
    format!(
        "<div class=\"cards\"><div class=\"card\">status<b class=\"{}\">{}</b></div><div class=\"card\">files<b>{}</b></div><div class=\"card\">with findings<b>{}</b></div><div class=\"card\">errors<b class=\"error\">{}</b></div><div class=\"card\">warnings<b class=\"warning\">{}</b></div><div class=\"card\">rejected elements<b>{}</b></div></div>\n",
        match s.status.as_str() { "errors" => "error", "warnings" | "unchecked" => "warning", _ => "ok" },
        esc(&s.status),
        thousands(s.files_scanned),
        thousands(r.files.len() as u64),
        thousands(s.errors),
        thousands(s.warnings),
        thousands(s.bad_elements)
    )
}

/// One dataset: settings, counts, rules, files (unreadable first), dataset findings, the
/// histogram and the weights.
fn body(r: &ScanReport, palette: Option<&[[u8; 3]]>) -> String {
    let st = &r.settings;
    let mut h = format!(
        "<p>{} ({} layout), ignore_index {}{}{}{}</p>\n",
        st.num_classes
            .map(|c| format!("{c} classes"))
            .unwrap_or_else(|| "class count unknown: ids counted, <b>not range-checked</b>".into()),
        st.layouts
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("+"),
        st.ignore_index,
        if st.reduce_zero_label {
            ", reduce_zero_label"
        } else {
            ""
        },
        st.preset
            .as_deref()
            .map(|p| format!(", preset {}", esc(p)))
            .unwrap_or_default(),
        st.suggested_preset
            .as_deref()
            .map(|p| format!("; the layout suggests <code>--preset {}</code>", esc(p)))
            .unwrap_or_default(),
    );
    h += &cards(r);
    if !r.rules.is_empty() {
        h += "<h2>Findings by rule</h2>\n<table><tr><th>rule</th><th>severity</th><th>findings</th><th>files</th><th>what</th></tr>\n";
        for rc in &r.rules {
            h += &format!(
                "<tr><td><b>{}</b> {}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&rc.code),
                esc(&rc.name),
                sev_class(rc.severity),
                rc.severity.as_str(),
                thousands(rc.findings),
                thousands(rc.files),
                rich(&rc.summary)
            );
        }
        h += "</table>\n";
    }
    if !r.dataset.is_empty() {
        h += "<h2>Dataset</h2>\n";
        for f in &r.dataset {
            h += &finding_html(&f.finding);
        }
    }
    let overlays: HashMap<&str, &Vec<u8>> = r
        .overlays
        .iter()
        .map(|(p, png)| (p.as_str(), png))
        .collect();
    if !r.files.is_empty() {
        h += &format!(
            "<h2>Files with findings ({})</h2>\n",
            thousands(r.files.len() as u64)
        );
        if !overlays.is_empty() {
            h += "<p>Pictures: the mask in its class colours (dimmed), <span style=\"color:#d00\">red</span> where ids PyTorch rejects are, <span style=\"color:#b90\">yellow</span> where resize artefacts are. Each picture pixel covers a block of the mask.</p>\n";
        }
        let shown = r.worst_files(MAX_FILES);
        if r.files.len() > shown.len() {
            h += &format!("<p>The {} files listed first: unreadable files, then those with the most errors and rejected elements; {} more files have findings (<code>--format json</code> lists every one).</p>\n", shown.len(), thousands((r.files.len() - shown.len()) as u64));
        }
        for f in shown {
            let worst = f.worst().unwrap_or(Severity::Info);
            h += &format!(
                "<details{}><summary><span class=\"{}\">{}</span> {} <small>{} · {}</small></summary>\n",
                if worst == Severity::Error { " open" } else { "" },
                sev_class(worst),
                worst.as_str(),
                esc(&f.path),
                esc(&f.split),
                f.shape.as_ref().map(|s| shape_str(s)).unwrap_or_default()
            );
            for x in &f.findings {
                h += &finding_html(&x.finding);
            }
            if let Some(png) = overlays.get(f.path.as_str()) {
                let (w, ht) = png_size(png).unwrap_or((MIN_PICTURE, MIN_PICTURE));
                let k = (MIN_PICTURE / w.max(ht).max(1)).max(1);
                h += &format!("<img class=\"overlay\" width=\"{}\" height=\"{}\" alt=\"bad pixels of {}\" src=\"data:image/png;base64,{}\">\n", w * k, ht * k, esc(&f.path), BASE64.encode(png));
            }
            h += "</details>\n";
        }
    }
    let rows = r.histogram.classes.len();
    if rows > FOLD_ROWS {
        h += &format!("<h2>Class histogram ({})</h2>\n<details><summary>{rows} rows</summary>\n{}</details>\n", esc(&r.histogram.unit), chart(r, palette));
    } else {
        h += &format!("<h2>Class histogram ({})</h2>\n", esc(&r.histogram.unit));
        h += &chart(r, palette);
    }
    if let Some(w) = &r.weights {
        h += &format!("<h2>Suggested class weights ({})</h2>\n<table><tr><th>method</th><th>formula</th><th>weights</th></tr>\n", if w.computed_on == "all" { "all files".to_string() } else { format!("{} split", esc(&w.computed_on)) });
        for sg in &w.suggestions {
            let v: Vec<String> = sg.weights.iter().map(|x| x.to_string()).collect();
            h += &format!(
                "<tr><td>{}{}</td><td><code>{}</code></td><td><code>[{}]</code></td></tr>\n",
                sg.method.as_str(),
                if sg.method == w.selected {
                    " (selected)"
                } else {
                    ""
                },
                esc(&sg.formula),
                v.join(", ")
            );
        }
        h += "</table>\n";
    }
    h
}
