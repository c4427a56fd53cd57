use crate::rule::declare_rule;

declare_rule! {
    /// An error that labelguard's knowledge base does not explain.
    ///
    /// ## What it checks
    /// `labelguard diagnose` found an error that is not one of the misuses it knows: a CUDA error other than a
    /// device-side assert (`an illegal memory access was encountered`, `unspecified launch failure`, `out of
    /// memory`, `no kernel image is available`), or a Python exception it has no entry for.
    ///
    /// ## Why it matters
    /// It is reported so that an unknown failure is never mistaken for an explained one, and `diagnose` exits
    /// with code 1. Some of these errors can still come from bad labels or indices: kernels without a device
    /// assertion (`ctc_loss`, `nll_loss` on images with `reduction='none'`, `embedding_bag` before 2.6, custom
    /// CUDA extensions) read out of bounds instead of asserting, and fail with `an illegal memory access`.
    ///
    /// ## Fix
    /// Run the command again with `labelguard run --sync -- <command>`, which switches the guards on and makes
    /// CUDA errors synchronous, and read the first error it reports.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg903_unexplained_error.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG903", "unexplained-error", Error
}
