//! Terminal styling: one [`Style`] switch, and the [`look`]s every text renderer uses (as
//! `anstyle` styles, so that no renderer writes escape codes by hand).

use labelguard_core::Severity;

/// Terminal styling, switched off for pipes, files, `NO_COLOR` and `--color never` (the CLI
/// decides; the renderers only obey).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// `text` in `look` when colours are on, else as it is.
    pub fn paint(&self, look: anstyle::Style, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", look.render(), look.render_reset())
        } else {
            text.to_string()
        }
    }
}

/// The looks of the reports, named after what they mark.
pub mod look {
    use super::Severity;
    use anstyle::{AnsiColor, Style};

    /// Headings, rule codes, the command's name.
    pub const HEADING: Style = Style::new().bold();
    /// Labels of secondary facts (`at:`, `values:`, `evidence:`).
    pub const LABEL: Style = Style::new().dimmed();
    pub const ERROR: Style = AnsiColor::Red.on_default().bold();
    pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
    /// Info findings, and hints.
    pub const INFO: Style = AnsiColor::Cyan.on_default().bold();
    /// `ok`, and fixes.
    pub const GOOD: Style = AnsiColor::Green.on_default().bold();
    /// A file's name above its findings.
    pub const FILE: Style = Style::new().bold().underline();
    /// The banner between the datasets of one scan.
    pub const BANNER: Style = Style::new().bold().invert();
    /// A class never seen in the histogram.
    pub const NEVER_SEEN: Style = AnsiColor::Yellow.on_default();
    /// Histogram bars.
    pub const BAR: Style = AnsiColor::Cyan.on_default();
    /// Histogram rows of ids PyTorch rejects.
    pub const OUT_OF_RANGE: Style = AnsiColor::Red.on_default();

    /// The look of a severity.
    pub fn severity(s: Severity) -> Style {
        match s {
            Severity::Error => ERROR,
            Severity::Warning => WARNING,
            Severity::Info => INFO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paints_only_when_colours_are_on() {
        let on = Style { color: true };
        let off = Style { color: false };
        assert_eq!(off.paint(look::ERROR, "error"), "error");
        assert_eq!(
            on.paint(look::ERROR, "error"),
            "\x1b[1m\x1b[31merror\x1b[0m"
        );
        assert_eq!(on.paint(look::LABEL, "at:"), "\x1b[2mat:\x1b[0m");
    }
}
