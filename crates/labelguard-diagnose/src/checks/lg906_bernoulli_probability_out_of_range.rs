//! LG906 (bernoulli probability out of range): `bernoulli` got a probability outside [0, 1], or
//! NaN.
//!
//! A rule of the knowledge base: the decision is data, not code. The explanation
//! `[explain.bernoulli-p]` in `knowledge.toml` carries the code, op, cause and fix, and the
//! `[[assert]]` signatures that name `explain = "bernoulli-p"` recognise the kernel's assertion
//! lines; the finding is built by the path of every known kernel assertion, `asserted` in
//! [`crate::conclude`]. Rule documentation: [`labelguard_core::rules::LG906`]; fixture:
//! `tests/fixtures/logs/bernoulli_kernel.log`.

#[test]
fn decided_by_the_knowledge_base() {
    super::assert_knowledge_rule(
        "bernoulli-p",
        "LG906",
        "../aten/src/ATen/native/cuda/DistributionTemplates.h:590: operator(): block: [0,0,0], thread: [3,0,0] Assertion `0 <= p3 && p3 <= 1` failed.",
        "bernoulli",
    );
}
