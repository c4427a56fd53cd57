//! One finding as a block of text: the shape `check`, `scan` and `diagnose` all print.

use crate::{visible, Style};
use labelguard_core::finding::{shape_str, values_str};
use labelguard_core::{Finding, Severity};

fn severity(style: Style, s: Severity) -> String {
    match s {
        Severity::Error => style.paint("1;31", "error"),
        Severity::Warning => style.paint("1;33", "warning"),
        Severity::Info => style.paint("1;36", "info"),
    }
}

/// One finding as a block of text.
pub fn finding_text(f: &Finding, style: Style) -> String {
    let mut out = format!(
        "{}[{}] {} ({})\n  {}\n",
        severity(style, f.severity),
        style.paint("1", f.code),
        f.rule,
        f.verdict,
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
        out += &format!("  {} {}\n", style.paint("2", "at:"), at.join(", "));
    }
    if f.values.len() > 1 {
        out += &format!(
            "  {} {}\n",
            style.paint("2", "values:"),
            visible(&values_str(&f.values, 8))
        );
    }
    if let Some(h) = &f.hint {
        out += &format!("  {} {}\n", style.paint("1;36", "hint:"), visible(h));
    }
    if !f.fix.is_empty() {
        out += &format!("  {} {}\n", style.paint("1;32", "fix:"), visible(&f.fix));
    }
    out
}
