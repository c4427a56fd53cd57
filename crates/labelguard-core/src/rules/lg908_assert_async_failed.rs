use crate::rule::declare_rule;

declare_rule! {
    /// A `torch._assert_async` check failed on the GPU.
    ///
    /// ## What it checks
    /// The device assert comes from `_assert_async_cuda_kernel`: a check written in the program with
    /// `torch._assert_async(cond)` (often a cheap on-GPU label range check) found its condition false.
    ///
    /// ## Why it matters
    /// The check did its job: the data it guards is wrong. Like every device assert it is reported
    /// asynchronously and kills the CUDA context; on the CPU the same call raises `Expected Tensor with single
    /// nonzero value, but got zero`.
    ///
    /// ## Fix
    /// Find which `_assert_async` fired by running with `labelguard run --sync -- <command>`, then fix the data
    /// it checks.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg908_assert_async_failed.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG908", "assert-async-failed", Error
}
