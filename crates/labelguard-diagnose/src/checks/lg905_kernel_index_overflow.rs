//! LG905 (kernel index overflow): a loss kernel's 32-bit offset overflowed: the tensor is too
//! large, the labels are fine.
//!
//! A rule of the knowledge base: the decision is data, not code. The explanation
//! `[explain.index-overflow]` in `knowledge.toml` carries the code, op, cause and fix, and the
//! `[[assert]]` signatures that name `explain = "index-overflow"` recognise the kernel's assertion
//! lines; the finding is built by the path of every known kernel assertion, `asserted` in
//! [`crate::conclude`]. Rule documentation: [`labelguard_core::rules::LG905`]; fixture:
//! `tests/fixtures/logs/overflow_guard_nll2d.log`.

#[test]
fn decided_by_the_knowledge_base() {
    super::assert_knowledge_rule(
        "index-overflow",
        "LG905",
        "../aten/src/ATen/native/cuda/NLLLoss2d.cu:107: nll_loss2d_forward_kernel: block: [65535,0,0], thread: [0,0,0] Assertion `input_index >= 0` failed.",
        "nll_loss",
    );
}
