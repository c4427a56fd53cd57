use crate::rule::declare_rule;

declare_rule! {
    /// Two tensors that must share a dtype do not.
    ///
    /// ## What it checks
    /// `weight` of `cross_entropy` / `nll_loss` (class-index targets) must have the dtype of `input`; the
    /// target of `binary_cross_entropy` must have the dtype of `input`; `src` of `scatter` must have the dtype
    /// of `input`; `binary_cross_entropy_with_logits` needs a floating-point target.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `expected scalar type Float but found Double`, `Found dtype Double but
    /// expected Float`, `scatter(): Expected self.dtype to be equal to src.dtype`.
    ///
    /// ## Fix
    /// Cast to the input's dtype: `weight.to(input.dtype)`, `target.to(input.dtype)`.
    ///
    /// ## Checked by
    /// - [`crate::ops::bce::binary_cross_entropy`]
    /// - [`crate::ops::bce::binary_cross_entropy_with_logits`]
    /// - [`crate::ops::bce::arithmetic_dtype`]
    /// - [`crate::ops::classification::nll_loss_nd`]
    /// - [`crate::ops::dtypes::dtype_differs`]
    /// - [`crate::ops::indexing::scatter_common`]
    /// - fixture: `lg209_weight_dtype` in `tests/rule_fixtures.rs`
    "LG209", "dtype-mismatch", Error, Metadata
}
