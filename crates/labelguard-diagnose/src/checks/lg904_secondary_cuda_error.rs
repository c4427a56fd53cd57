//! LG904 (secondary CUDA error): a cuBLAS, cuDNN or NCCL error, which follows from an earlier
//! CUDA failure (high confidence, a warning), or may be the only trace of one (low, an error).
//!
//! The library errors themselves are the knowledge base's `secondary` message lines
//! (`knowledge.toml`). Rule documentation: [`labelguard_core::rules::LG904`]; fixtures: the
//! `LG904` cases of `tests/fixtures/logs/expected.toml`.

use crate::context::{Context, Refined};
use crate::model::{Confidence, Diagnosis};
use labelguard_core::{Severity, Verdict};

pub(crate) fn secondary(c: &Context, after_failure: bool) -> Diagnosis {
    let groups = &c.obs.secondary;
    let r = Refined::unknown(groups[0].explain);
    let count = groups.iter().map(|g| g.seen.ev.count).sum();
    let evidence = groups.iter().take(3).map(|g| g.seen.ev.clone()).collect();
    let (message, confidence) = if after_failure {
        (
            format!(
                "{} is a consequence of the CUDA failure above, not a separate problem",
                groups[0].text
            ),
            Confidence::High,
        )
    } else {
        (
            format!(
                "{} may hide a device-side assert; the log shows no earlier CUDA failure",
                groups[0].text
            ),
            Confidence::Low,
        )
    };
    let mut d = c.diagnosis(
        &r,
        Verdict::Error,
        message,
        confidence,
        count,
        evidence,
        None,
        false,
    );
    if !after_failure {
        d.finding.severity = Severity::Error;
    }
    d
}
