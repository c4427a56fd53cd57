use crate::rule::declare_rule;

declare_rule! {
    /// A cuBLAS, cuDNN or NCCL error that follows from (or hides) a device-side assert.
    ///
    /// ## What it checks
    /// The log contains a library error such as `CUBLAS_STATUS_EXECUTION_FAILED`, `CUBLAS_STATUS_ALLOC_FAILED
    /// when calling cublasCreate(handle)`, `cublas runtime error : resource allocation failed`,
    /// `CUDNN_STATUS_EXECUTION_FAILED` or `NCCL error ... unhandled cuda error`.
    ///
    /// ## Why it matters
    /// After a device-side assert the CUDA context is unusable, and the next library call fails with its own,
    /// misleading error. When the log also shows the assert, this finding only says that the library error is a
    /// consequence. When it does not, the library error may be the only visible trace of an assert (old
    /// PyTorch builds reported out-of-range embedding ids this way), so the cause is unknown.
    ///
    /// ## Fix
    /// Fix the first error in the log, not the library error. If there is none, run the command again with
    /// `labelguard run --sync -- <command>` to make the first failing kernel report itself.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg904_secondary_cuda_error.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG904", "secondary-cuda-error", Warning;
    category = Consequence
}
