//! Terminal styling: one [`Style`] switch and the looks every text renderer uses.

/// Terminal styling, switched off for pipes, files, `NO_COLOR` and `--color never` (the CLI
/// decides; the renderers only obey).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// `text` in `code`'s SGR look (`"1;31"`: bold red) when colours are on.
    pub fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}
