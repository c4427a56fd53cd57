use crate::rule::declare_rule;

declare_rule! {
    /// The traceback of a CUDA error points at the wrong line: the error was reported asynchronously.
    ///
    /// ## What it checks
    /// A device-side assert (or another kernel error) was reported without `CUDA_LAUNCH_BLOCKING=1`: the
    /// exception carries `CUDA kernel errors might be asynchronously reported at some other API call`, or comes
    /// from a PyTorch version that does not say whether it was.
    ///
    /// ## Why it matters
    /// CUDA kernels run asynchronously. The failing kernel only reports at the next call that synchronizes
    /// (`loss.item()`, `optimizer.step()`, `.cpu()`, `print(tensor)`), so the innermost frame of your code in
    /// the traceback is where the error was *noticed*, often many lines after the operation that failed. Every
    /// later CUDA call fails too, because the CUDA context is dead.
    ///
    /// ## Example
    /// The traceback ends in `accuracy.py: correct = correct[:, target != ignore_index]`, but the kernel that
    /// asserted was the loss computed before it.
    ///
    /// ## Fix
    /// Localise the failure with `labelguard run --sync -- <command>` (or `--rerun-sync`, which reruns only
    /// when needed): it sets `CUDA_LAUNCH_BLOCKING=1` before the child starts, so before `import torch`, where
    /// setting it in the script is too late. Expect it to run several times slower.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg902_asynchronous_report.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG902", "asynchronous-report", Warning;
    category = Consequence
}
