use crate::rule::declare_rule;

declare_rule! {
    /// A tensor has a number of dimensions the operation does not accept.
    ///
    /// ## What it checks
    /// `nll_loss` / `cross_entropy` inputs need at least one dimension; `embedding` weights must be 2-D;
    /// `multinomial` takes 1-D or 2-D probabilities; `index_select` takes a 1-D (or 0-d) index; `ctc_loss`
    /// takes 2-D or 3-D log-probabilities and 1-D or 2-D targets; `bincount` takes a 1-D input.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host (`prob_dist must be 1 or 2 dim`, `'weight' must be 2-D`, `Expected 3-dimensional tensor`).
    ///
    /// ## Fix
    /// Reshape to the documented form: `flatten()`, `unsqueeze(0)`, or `view(-1, C)`.
    "LG210", "unsupported-rank", Error
}
