//! LG904 (secondary CUDA error): a cuBLAS, cuDNN or NCCL error, which follows from an earlier
//! CUDA failure (high confidence, a warning), or may be the only trace of one (low, an error).
//!
//! The library errors themselves are the knowledge base's `secondary` message lines
//! (`knowledge.toml`). Rule documentation: [`labelguard_core::rules::LG904`]; fixtures: the
//! `LG904` cases of `tests/fixtures/logs/expected.toml`.

use crate::context::Context;
use crate::model::Diagnosis;

pub(crate) fn secondary(c: &Context, after_failure: bool) -> Diagnosis {
    let text = &c.obs.secondary[0].text;
    let message = if after_failure {
        format!("{text} is a consequence of the CUDA failure above, not a separate problem")
    } else {
        format!("{text} may hide a device-side assert; the log shows no earlier CUDA failure")
    };
    c.consequence(&c.obs.secondary, after_failure, message)
}
