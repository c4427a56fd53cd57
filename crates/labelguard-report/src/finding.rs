//! One finding as a block of text: the shape `check`, `scan` and `diagnose` all print.

use crate::{look, visible, Style};
use labelguard_core::finding::{shape_str, values_str};
use labelguard_core::{Finding, Severity, Verdict};

/// What a finding's header says of PyTorch, in parentheses: its verdict. An error that follows
/// from one already explained (LG904, LG909) is a warning: its header must not also say
/// "(error)". A finding of something PyTorch accepts (LG613's text table whose rows were not
/// checked, LG815's chat file) says nothing: "(ok)" beside a warning would read as its verdict.
pub(crate) fn verdict_note(f: &Finding) -> Option<&'static str> {
    match (f.severity, f.verdict) {
        (Severity::Warning, Verdict::Error | Verdict::DeviceAssert) => {
            Some("follows an earlier error")
        }
        (_, Verdict::Ok) => None,
        (_, v) => Some(v.as_str()),
    }
}

/// One finding as a block of text.
pub fn finding_text(f: &Finding, style: Style) -> String {
    let verdict = verdict_note(f)
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    let mut out = format!(
        "{}[{}] {}{verdict}\n  {}\n",
        style.paint(look::severity(f.severity), f.severity.as_str()),
        style.paint(look::HEADING, f.code),
        f.rule,
        visible(&f.message)
    );
    if !f.locations.is_empty() {
        let at: Vec<String> = f
            .locations
            .iter()
            .map(|l| {
                format!(
                    "{}{} = {}",
                    visible(&l.tensor),
                    if l.index.is_empty() {
                        String::new()
                    } else {
                        shape_str(&l.index)
                    },
                    visible(&l.value)
                )
            })
            .collect();
        out += &format!("  {} {}\n", style.paint(look::LABEL, "at:"), at.join(", "));
    }
    if f.values.len() > 1 {
        out += &format!(
            "  {} {}\n",
            style.paint(look::LABEL, "values:"),
            visible(&values_str(&f.values, 8))
        );
    }
    if let Some(h) = &f.hint {
        out += &format!("  {} {}\n", style.paint(look::INFO, "hint:"), visible(h));
    }
    if !f.fix.is_empty() {
        out += &format!(
            "  {} {}\n",
            style.paint(look::GOOD, "fix:"),
            visible(&f.fix)
        );
    }
    out
}
