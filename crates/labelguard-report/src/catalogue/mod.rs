//! The rule catalogue (`labelguard rules`): a list for people, JSON for tools, and the
//! docs/rules.md page.

mod json;
mod markdown;
mod text;

pub use json::json;
pub use markdown::markdown;
pub use text::text;
