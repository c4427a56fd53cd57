//! The diagnoses of logs (`labelguard diagnose`, `labelguard run`).

mod json;
mod text;

pub use json::json;
pub use text::text;
