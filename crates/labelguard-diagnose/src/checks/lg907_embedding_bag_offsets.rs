//! LG907 (embedding_bag offsets): the offsets of `embedding_bag` decrease: a bag ends before it
//! begins.
//!
//! A rule of the knowledge base: the decision is data, not code. The explanation
//! `[explain.embedding-bag-offsets]` in `knowledge.toml` carries the code, op, cause and fix, and
//! the `[[assert]]` signatures that name `explain = "embedding-bag-offsets"` recognise the kernel's
//! assertion lines; the finding is built by the path of every known kernel assertion, `asserted` in
//! [`crate::conclude`]. Rule documentation: [`labelguard_core::rules::LG907`]; fixture:
//! `tests/fixtures/logs/embedding_bag_offsets.log`.

#[test]
fn decided_by_the_knowledge_base() {
    super::assert_knowledge_rule(
        "embedding-bag-offsets",
        "LG907",
        "/pytorch/aten/src/ATen/native/cuda/EmbeddingBag.cu:57: EmbeddingBag_updateOutputKernel: block: [3,0,0], thread: [0,0,0] Assertion `end >= begin` failed.",
        "embedding_bag",
    );
}
