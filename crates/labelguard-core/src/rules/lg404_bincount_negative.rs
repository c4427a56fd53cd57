use crate::rule::declare_rule;

declare_rule! {
    /// `bincount` got negative values.
    ///
    /// ## What it checks
    /// `torch.bincount` counts non-negative integers only.
    ///
    /// ## Why it fails
    /// PyTorch raises `bincount only supports 1-d non-negative integral inputs.` (on CUDA too: the check
    /// runs on the host, after a synchronisation).
    ///
    /// ## Fix
    /// Leave the ignore value out first: `torch.bincount(t[t >= 0], minlength=C)`.
    ///
    /// ## Checked by
    /// - [`crate::ops::bincount::bincount`]
    /// - fixture: `lg404_bincount` in `tests/rule_fixtures.rs`
    "LG404", "bincount-negative", Error
}
