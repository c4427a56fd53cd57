//! The checks of the log rules (LG901–LG909), one file per rule, each opening with the rule it
//! implements. LG901–LG904 and LG909 decide from what the log shows and build their finding in their file;
//! LG905–LG908 are explanations of the knowledge base (`knowledge.toml`), whose files say where
//! the decision lives and test it. [`crate::conclude`] calls them in its order of precedence.
//! Findings of the contract rules that a log reveals (a known kernel's assertion, a host error, a
//! guard's exception) are built in [`crate::conclude`] from the knowledge base.

mod lg901_unidentified_device_assert;
mod lg902_asynchronous_report;
mod lg903_unexplained_error;
mod lg904_secondary_cuda_error;
mod lg905_kernel_index_overflow;
mod lg906_bernoulli_probability_out_of_range;
mod lg907_embedding_bag_offsets;
mod lg908_assert_async_failed;
mod lg909_peer_rank_failure;

pub(crate) use lg901_unidentified_device_assert::unidentified;
pub(crate) use lg902_asynchronous_report::asynchronous;
pub(crate) use lg903_unexplained_error::unexplained;
pub(crate) use lg904_secondary_cuda_error::secondary;
pub use lg909_peer_rank_failure::explained_by_other_logs;
pub(crate) use lg909_peer_rank_failure::peer_failure;

/// Test of a rule of the knowledge base: its explanation `key` has the rule's `code` and
/// assertion signatures, and a log of one of its assertion lines is diagnosed as `code` in `op`.
#[cfg(test)]
fn assert_knowledge_rule(key: &str, code: &str, line: &str, op: &str) {
    use crate::{diagnose_bytes, kb::Kb, Confidence, Options};
    let kb = Kb::get();
    let e = kb.explains.iter().find(|e| e.key == key).unwrap();
    assert_eq!(e.code, code);
    assert!(kb
        .asserts
        .iter()
        .any(|a| kb.explain(a.explain_id).key == key));
    let log = format!("{line}\nRuntimeError: CUDA error: device-side assert triggered\n");
    let r = diagnose_bytes(log.as_bytes(), "train.log", Options::default());
    let d = &r.findings[0];
    assert_eq!(d.finding.code, code, "{r:#?}");
    assert_eq!(d.op, op);
    assert!(d.confidence >= Confidence::Medium);
}
