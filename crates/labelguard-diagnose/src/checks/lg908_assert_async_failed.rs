//! LG908 (assert_async failed): a `torch._assert_async` check found its condition false on the GPU.
//!
//! A rule of the knowledge base: the decision is data, not code. The explanation
//! `[explain.assert-async]` in `knowledge.toml` carries the code, op, cause and fix, and the
//! `[[assert]]` signatures that name `explain = "assert-async"` recognise the kernel's assertion
//! lines; the finding is built by the path of every known kernel assertion, `asserted` in
//! [`crate::conclude`]. Rule documentation: [`labelguard_core::rules::LG908`]; fixture:
//! `tests/fixtures/logs/assert_async_label_check.log`.

#[test]
fn decided_by_the_knowledge_base() {
    super::assert_knowledge_rule(
        "assert-async",
        "LG908",
        "../aten/src/ATen/native/cuda/TensorCompare.cu:106: _assert_async_cuda_kernel: block: [0,0,0], thread: [0,0,0] Assertion `input[0] != 0` failed.",
        "unknown",
    );
}
