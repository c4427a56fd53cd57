//! The report of one checked call (`labelguard check`, `labelguard replay`, the Python guards).

mod json;
mod text;

pub use json::json;
pub use text::{text, verdict_meaning};
