use crate::rule::declare_rule;

declare_rule! {
    /// The input tensor has a dtype the operation does not implement.
    ///
    /// ## What it checks
    /// Losses need floating-point inputs (logits, probabilities, log-probabilities); `multinomial` needs
    /// floating-point probabilities; `ctc_loss` on the CPU needs float32 or float64 log-probabilities.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `"log_softmax_lastdim_kernel_impl" not implemented for 'Long'`,
    /// `"binary_cross_entropy" not implemented for 'Int'`, `"ctc_loss_cpu" not implemented for 'Half'`.
    ///
    /// ## Fix
    /// Feed the model's floating-point output, or cast: `input.float()`.
    ///
    /// ## Checked by
    /// - [`crate::ops::ctc::ctc_loss`]
    /// - [`crate::ops::dtypes::require_float`]
    /// - [`crate::ops::multinomial::multinomial`]
    /// - fixture: `lg206_integer_logits` in `tests/rule_fixtures.rs`
    "LG206", "input-dtype", Error, Metadata
}
