//! `--html FILE`: one self-contained page (no scripts, no external files): the summary, the
//! class histogram as an SVG chart, every finding, and for each file with bad pixels a picture
//! of the mask with those pixels marked (red: ids PyTorch rejects, yellow: resize artefacts).
//!
//! The page is a `maud` template: every spliced value is escaped (`&`, `<`, `>`, `"`) unless it
//! is wrapped in `PreEscaped`, which only two values are: the embedded style sheet ([`CSS`]) and
//! the base64 of the overlay pictures in their `data:` URIs. The control characters XML 1.0
//! forbids, which escaping leaves alone, are dropped from the finished page ([`xml_chars`]).

use crate::thousands;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use labelguard_core::finding::shape_str;
use labelguard_core::Finding;
use labelguard_core::Severity;
use labelguard_scan_model::ScanReport;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use std::collections::HashMap;

const CSS: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
.cards{display:flex;gap:1rem;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem}
.card b{display:block;font-size:1.4rem}.error{color:#c00}.warning{color:#b70}.info{color:#07a}.ok{color:#080}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #eee;vertical-align:top}
code{background:#f4f4f4;padding:0 .2rem}details{margin:.4rem 0}summary{cursor:pointer}
.finding{margin:.3rem 0 .6rem 1rem}.hint{color:#555}.fix{color:#060}.overlay{image-rendering:pixelated;border:1px solid #ccc;max-width:100%}";

/// Whether XML 1.0 forbids `c` (C0 controls other than tab, newline and carriage return;
/// U+FFFE and U+FFFF). Escaping leaves these as they are; a page holding one is not
/// well-formed, so they are dropped.
fn forbidden_in_xml(c: char) -> bool {
    matches!(c, '\0'..='\x08' | '\x0b' | '\x0c' | '\x0e'..='\x1f' | '\u{fffe}' | '\u{ffff}')
}

/// The page without the characters XML 1.0 forbids (file names may hold any of them).
fn xml_chars(mut page: String) -> String {
    if page.contains(forbidden_in_xml) {
        page.retain(|c| !forbidden_in_xml(c));
    }
    page
}

fn sev_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// Text with `backtick spans` shown as code; with an unpaired backtick, the text as it is.
fn rich(text: &str) -> Markup {
    let parts: Vec<&str> = text.split('`').collect();
    html! {
        @if parts.len().is_multiple_of(2) {
            (text)
        } @else {
            @for (i, part) in parts.iter().enumerate() {
                @if i % 2 == 1 { code { (part) } } @else { (part) }
            }
        }
    }
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

fn finding_html(f: &Finding) -> Markup {
    html! {
        div class="finding" {
            span class=(sev_class(f.severity)) { (f.severity.as_str()) }
            " " b { (f.code) } " " (f.rule)
            @if let Some(v) = crate::finding::verdict_note(f) { " " small { "(" (v) ")" } }
            br; (rich(&f.message))
            @if !f.locations.is_empty() {
                br; "at: "
                @for (i, l) in f.locations.iter().enumerate() {
                    @if i > 0 { ", " }
                    code { (l.tensor) (shape_str(&l.index)) " = " (l.value) }
                }
            }
            @if let Some(hint) = &f.hint {
                br; span class="hint" { "hint: " (rich(hint)) }
            }
            @if !f.fix.is_empty() {
                br; span class="fix" { "fix: " (rich(&f.fix)) }
            }
        }
        "\n"
    }
}

fn colour(id: i64, palette: Option<&[[u8; 3]]>) -> String {
    if let Some(c) = palette.and_then(|p| usize::try_from(id).ok().and_then(|i| p.get(i))) {
        return format!("rgb({},{},{})", c[0], c[1], c[2]);
    }
    format!("hsl({},55%,55%)", (id.rem_euclid(360) * 137) % 360)
}

fn chart(r: &ScanReport, palette: Option<&[[u8; 3]]>) -> Markup {
    let rows: Vec<_> = r.histogram.classes.values().collect();
    if rows.is_empty() {
        return html! { p { "No class ids were counted." } };
    }
    let (bar_h, label_w, width) = (16usize, 220usize, 760usize);
    let max = rows
        .iter()
        .filter(|c| c.role != "ignore")
        .map(|c| c.fraction)
        .fold(0.0, f64::max)
        .max(1e-12);
    // The ignore row is not a share of the classes: its bar is its count against the largest
    // class's.
    let top = rows
        .iter()
        .filter(|x| x.role != "ignore")
        .map(|x| x.count)
        .max()
        .unwrap_or(0)
        .max(1);
    let height = rows.len() * (bar_h + 4) + 10;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(width) height=(height) role="img" aria-label="class histogram" {
            "\n"
            @for (i, c) in rows.iter().enumerate() {
                @let y = 5 + i * (bar_h + 4);
                @let share = if c.role == "ignore" {
                    (c.count as f64 / top as f64).min(1.0) * max
                } else {
                    c.fraction
                };
                @let w = ((share / max) * (width - label_w - 90) as f64).round() as usize;
                @let label = match (&c.name, c.role.as_str()) {
                    (_, "out_of_range") => format!("{} (out of range)", c.id),
                    (_, "ignore") => format!("{} (ignore)", c.id),
                    (Some(n), _) => format!("{} {}", c.id, n),
                    _ => c.id.to_string(),
                };
                @let fill = match c.role.as_str() {
                    "out_of_range" => "#d00".to_string(),
                    "ignore" => "#999".to_string(),
                    _ => colour(c.id, palette),
                };
                text x=(label_w - 6) y=(y + 12) font-size="12" text-anchor="end" { (label) }
                rect x=(label_w) y=(y) width=(w.max(usize::from(c.count > 0))) height=(bar_h) fill=(fill) {
                    title { (label) ": " (thousands(c.count)) " (" (format_args!("{:.3}", c.fraction * 100.0)) "%)" }
                }
                text x=(label_w + w + 6) y=(y + 12) font-size="11" fill="#555" {
                    @if c.count == 0 {
                        "never seen"
                    } @else if c.role == "ignore" {
                        (thousands(c.count)) " ignored"
                    } @else {
                        (format_args!("{:.2}", c.fraction * 100.0)) "%"
                    }
                }
                "\n"
            }
        }
        "\n"
    }
}

/// The whole page: one section per dataset when the scan found several.
pub fn html(r: &ScanReport, palette: Option<&[[u8; 3]]>) -> String {
    let roots = r.settings.roots.join(", ");
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "labelguard scan: " (roots) }
                // The style sheet is ours and holds no markup: it passes as it is.
                style { (PreEscaped(CSS)) }
            }
            body {
                "\n"
                h1 { "labelguard scan: " (roots) } "\n"
                @if r.datasets.is_empty() {
                    (body(r, palette))
                } @else {
                    (cards(r))
                    @for (i, d) in r.datasets.iter().enumerate() {
                        h2 { "Dataset " (i + 1) " of " (r.datasets.len()) ": " (d.settings.roots.join(", ")) } "\n"
                        (body(d, palette))
                    }
                }
                p { small { "labelguard " (r.tool.version) " · schema " (r.schema) " v" (r.schema_version) } } "\n"
            }
        }
        "\n"
    };
    xml_chars(page.into_string())
}

fn cards(r: &ScanReport) -> Markup {
    let s = &r.summary;
    let status = match s.status.as_str() {
        "errors" => "error",
        "warnings" | "unchecked" => "warning",
        _ => "ok",
    };
    html! {
        div class="cards" {
            div class="card" { "status" b class=(status) { (s.status) } }
            div class="card" { "files" b { (thousands(s.files_scanned)) } }
            div class="card" { "with findings" b { (thousands(r.files.len() as u64)) } }
            div class="card" { "errors" b class="error" { (thousands(s.errors)) } }
            div class="card" { "warnings" b class="warning" { (thousands(s.warnings)) } }
            div class="card" { "rejected elements" b { (thousands(s.bad_elements)) } }
        }
        "\n"
    }
}

/// One dataset: settings, counts, rules, files (unreadable first), dataset findings, the
/// histogram and the weights.
fn body(r: &ScanReport, palette: Option<&[[u8; 3]]>) -> Markup {
    let st = &r.settings;
    let layouts: Vec<&str> = st.layouts.iter().map(|l| l.as_str()).collect();
    html! {
        p {
            @if let Some(c) = st.num_classes {
                (c) " classes"
            } @else if super::tokens::token_data(r) {
                (super::tokens::vocabulary(r)) ", " (super::tokens::read(r))
            } @else if super::header::no_labels(r) {
                "no labels found: no class ids were read"
            } @else {
                "class count unknown: ids counted, " b { "not range-checked" }
            }
            " (" (layouts.join("+")) " layout)"
            @if let Some(w) = super::header::ignore_words(r) { ", " (w) }
            @if st.reduce_zero_label { ", reduce_zero_label" }
            @if let Some(p) = &st.preset { ", preset " (p) }
            @if let Some(p) = &st.suggested_preset {
                "; the layout suggests " code { "--preset " (p) }
            }
        }
        "\n"
        (cards(r))
        @if !r.rules.is_empty() {
            h2 { "Findings by rule" } "\n"
            table {
                tr { th { "rule" } th { "severity" } th { "findings" } th { "files" } th { "what" } } "\n"
                @for rc in &r.rules {
                    tr {
                        td { b { (rc.code) } " " (rc.name) }
                        td class=(sev_class(rc.severity)) { (rc.severity.as_str()) }
                        td { (thousands(rc.findings)) }
                        td { (thousands(rc.files)) }
                        td { (rich(&rc.summary)) }
                    }
                    "\n"
                }
            }
            "\n"
        }
        @if !r.dataset.is_empty() {
            h2 { "Dataset" } "\n"
            @for f in &r.dataset { (finding_html(&f.finding)) }
        }
        @if !r.files.is_empty() {
            (files(r))
        }
        (histogram(r, palette))
        @if let Some(w) = &r.weights {
            h2 {
                "Suggested class weights ("
                @if w.computed_on == "all" { "all files" } @else { (w.computed_on) " split" }
                ")"
            }
            "\n"
            table {
                tr { th { "method" } th { "formula" } th { "weights" } } "\n"
                @for sg in &w.suggestions {
                    @let weights: Vec<String> = sg.weights.iter().map(|x| x.to_string()).collect();
                    tr {
                        td { (sg.method.as_str()) @if sg.method == w.selected { " (selected)" } }
                        td { code { (sg.formula) } }
                        td { code { "[" (weights.join(", ")) "]" } }
                    }
                    "\n"
                }
            }
            "\n"
        }
    }
}

/// The files with findings, the worst first, each with its findings and its picture.
fn files(r: &ScanReport) -> Markup {
    let overlays: HashMap<&str, &Vec<u8>> = r
        .overlays
        .iter()
        .map(|(p, png)| (p.as_str(), png))
        .collect();
    let shown = r.worst_files(MAX_FILES);
    html! {
        h2 { "Files with findings (" (thousands(r.files.len() as u64)) ")" } "\n"
        @if !overlays.is_empty() {
            p {
                "Pictures: the mask in its class colours (dimmed), "
                span style="color:#d00" { "red" }
                " where ids PyTorch rejects are, "
                span style="color:#b90" { "yellow" }
                " where resize artefacts are. Each picture pixel covers a block of the mask."
            }
            "\n"
        }
        @if r.files.len() > shown.len() {
            p {
                "The " (shown.len()) " files listed first: unreadable files, then those with the most errors and rejected elements; "
                (thousands((r.files.len() - shown.len()) as u64))
                " more files have findings (" code { "--format json" } " lists every one)."
            }
            "\n"
        }
        @for f in shown {
            @let worst = f.worst().unwrap_or(Severity::Info);
            details open[worst == Severity::Error] {
                summary {
                    span class=(sev_class(worst)) { (worst.as_str()) }
                    " " (f.path) " "
                    small { (f.split) " · " (f.shape.as_ref().map(|s| shape_str(s)).unwrap_or_default()) }
                }
                "\n"
                @for x in &f.findings { (finding_html(&x.finding)) }
                @if let Some(png) = overlays.get(f.path.as_str()) {
                    @let (w, h) = png_size(png).unwrap_or((MIN_PICTURE, MIN_PICTURE));
                    @let k = (MIN_PICTURE / w.max(h).max(1)).max(1);
                    // base64 (A-Z, a-z, 0-9, +, /, =) holds nothing to escape: it passes as it is.
                    img class="overlay" width=(w * k) height=(h * k) alt={ "bad pixels of " (f.path) }
                        src={ "data:image/png;base64," (PreEscaped(BASE64.encode(png))) };
                    "\n"
                }
            }
            "\n"
        }
    }
}

/// The class histogram's heading and chart, folded when it is long.
fn histogram(r: &ScanReport, palette: Option<&[[u8; 3]]>) -> Markup {
    let rows = r.histogram.classes.len();
    html! {
        h2 { "Class histogram (" (r.histogram.unit) ")" } "\n"
        @if rows > FOLD_ROWS {
            details { summary { (rows) " rows" } "\n" (chart(r, palette)) }
            "\n"
        } @else {
            (chart(r, palette))
        }
    }
}
