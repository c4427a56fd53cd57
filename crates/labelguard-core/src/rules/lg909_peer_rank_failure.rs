use crate::rule::declare_rule;

declare_rule! {
    /// An error of one rank of a multi-process job that follows from another rank's failure.
    ///
    /// ## What it checks
    /// The log holds an error that a rank reports when a peer is gone, not when its own data is
    /// bad: gloo's `Connection closed by peer` / `Connection reset by peer`, a collective that
    /// timed out (`Timed out waiting ... for recv operation`, NCCL's `Watchdog caught collective
    /// operation timeout`), an aborted communicator or process group, or the launcher ending the
    /// remaining ranks (`Sending process N closing signal SIGTERM`).
    ///
    /// ## Why it matters
    /// When one rank dies (a device-side assert, a guard's TargetError, any exception), the others
    /// wait for it in their next collective and fail there, or are killed by the launcher. Their
    /// errors come later and often fill the log, but they only say that a peer is gone. When the
    /// log also shows the first failing rank's own error, this finding only marks the others as
    /// consequences (a warning). When it does not, the real error is in another rank's output
    /// (an error).
    ///
    /// ## Fix
    /// Fix the error of the rank that failed first (`labelguard diagnose` names it). If it is not in
    /// the log, collect every rank's output: `torchrun --tee 3` (or `--redirects 3` with `--log-dir`),
    /// or run the job under `labelguard run -- torchrun ...`, which reads all of it.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg909_peer_rank_failure.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG909", "peer-rank-failure", Warning;
    category = Consequence
}
