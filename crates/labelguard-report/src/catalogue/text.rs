//! The rule list, one line per rule.

use crate::{look, Style};
use labelguard_core::Rule;

/// The rule list, one line per rule.
pub fn text(rules: &[Rule], style: Style) -> String {
    rules
        .iter()
        .map(|r| {
            format!(
                "{}  {:<34} {}\n",
                style.paint(look::HEADING, r.code),
                r.name,
                r.summary()
            )
        })
        .collect()
}
