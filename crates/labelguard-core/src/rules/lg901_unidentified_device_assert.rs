use crate::rule::declare_rule;

declare_rule! {
    /// A device-side assert was reported, but the log does not say which kernel failed.
    ///
    /// ## What it checks
    /// `labelguard diagnose` found PyTorch's generic text for a failed device assertion (`CUDA error:
    /// device-side assert triggered`, `cuda runtime error (59)`, `THCudaCheck FAIL ... error=710`, `copy_if
    /// failed to synchronize`, `torch.AcceleratorError`, `c10::CUDAError`) but no assertion line of a known
    /// kernel (`<file>.cu:<line>: <kernel>: block: [..], thread: [..] Assertion `...` failed.`), no
    /// `TORCH_USE_CUDA_DSA` report, and no synchronous traceback that names the failing operation.
    /// It is also the rule of a failed index check in a kernel that `torch.compile` generated
    /// (`index out of bounds: 0 <= tmp4 < 32000`: a Triton assertion, or inductor's C++ check on the
    /// CPU) when no traceback shows a fused kernel whose name holds one indexing op.
    ///
    /// ## Why it matters
    /// The kernel's assertion lines are printed by the CUDA runtime on stderr, apart from the Python exception:
    /// Jupyter and Colab hide them, and people often paste only the exception. Without them, or without a
    /// traceback taken with `CUDA_LAUNCH_BLOCKING=1`, nothing in the log says which operation failed, so
    /// labelguard reports the operation as `unknown` instead of guessing. Operations that appear in an
    /// asynchronous traceback are listed as suspects only.
    ///
    /// ## Example
    /// A notebook cell ends with `RuntimeError: CUDA error: device-side assert triggered` and the traceback
    /// points at `loss.item()`.
    ///
    /// ## Fix
    /// Run the command again as `labelguard run --sync -- python train.py` (it sets `CUDA_LAUNCH_BLOCKING=1`
    /// before `import torch` and switches the guards on), or look for the assertion lines in the process's
    /// stderr (the terminal that started Jupyter, the job's `.err` file) and pass them to `labelguard diagnose`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg901_unidentified_device_assert.rs` (same name, in the diagnose crate, which has its inputs)
    /// - `crates/labelguard-diagnose/src/compiled.rs` (torch.compile's kernels; snapshots in `crates/labelguard-diagnose/tests/compiled_logs.rs`)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG901", "unidentified-device-assert", Error
}
