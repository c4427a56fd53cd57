//! The report of a dataset scan (`labelguard scan`, `labelguard merge`): text for people, JSON /
//! SARIF / JUnit / GitHub annotations for machines, and a self-contained HTML page.

mod github;
mod header;
mod html;
mod json;
mod junit;
mod plural;
mod sarif;
mod sentence;
mod text;
mod tokens;

pub use github::github;
pub use html::html;
pub use json::json;
pub use junit::junit;
pub use sarif::sarif;
pub use text::text;
