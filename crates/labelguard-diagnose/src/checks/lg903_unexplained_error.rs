//! LG903 (unexplained error): a CUDA error that is not an assert, or an exception the knowledge
//! base does not explain, reported as it is at low confidence with the traceback's ops as
//! suspects.
//!
//! Which message lines count (`cuda_error` and unknown exceptions) and their explanations
//! (`illegal-address`, `cuda-oom`, `cuda-other`, `unknown-exception`) are the knowledge base's
//! (`knowledge.toml`). Rule documentation: [`labelguard_core::rules::LG903`]; fixtures: the
//! `LG903` cases of `tests/fixtures/logs/expected.toml`.

use crate::context::{Context, Refined};
use crate::model::{Confidence, Diagnosis};
use crate::observed::{MessageGroup, Traceback};
use labelguard_core::Verdict;

/// A CUDA error that is not an assert, or an exception the knowledge base does not know.
pub(crate) fn unexplained(
    c: &Context,
    g: &MessageGroup,
    tb: Option<&Traceback>,
    trusted: bool,
) -> Diagnosis {
    let r = Refined::unknown(g.explain);
    let mut d = c.diagnosis(
        &r,
        Verdict::Error,
        g.text.clone(),
        Confidence::Low,
        g.seen.ev.count,
        vec![g.seen.ev.clone()],
        tb,
        trusted,
    );
    d.suspects = c.suspects(tb);
    d
}
