//! One finding as a block of text: the shape `check`, `scan` and `diagnose` all print.

use crate::{look, visible, Style};
use labelguard_core::finding::{shape_str, values_str};
use labelguard_core::{Finding, Severity, Verdict};

/// One finding as a block of text.
pub fn finding_text(f: &Finding, style: Style) -> String {
    // An error that follows from one already explained (LG904, LG909) is a warning: its header
    // must not also say "(error)".
    let verdict = match (f.severity, f.verdict) {
        (Severity::Warning, Verdict::Error | Verdict::DeviceAssert) => "follows an earlier error",
        (_, v) => v.as_str(),
    };
    let mut out = format!(
        "{}[{}] {} ({})\n  {}\n",
        style.paint(look::severity(f.severity), f.severity.as_str()),
        style.paint(look::HEADING, f.code),
        f.rule,
        verdict,
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
