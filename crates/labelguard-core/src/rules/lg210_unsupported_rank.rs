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
    ///
    /// ## Checked by
    /// - [`crate::ops::label_target::LabelTarget::shape`] (the scan's label arrays and the Python data guards)
    /// - [`crate::ops::bincount::bincount`]
    /// - [`crate::ops::classification::cross_entropy`]
    /// - [`crate::ops::classification::probability_targets`]
    /// - [`crate::ops::classification::nll_loss_nd`]
    /// - [`crate::ops::ctc::ctc_loss`]
    /// - [`crate::ops::embedding::weight_rank`]
    /// - [`crate::ops::embedding::embedding`]
    /// - [`crate::ops::embedding_bag::embedding_bag`]
    /// - [`crate::ops::index_along_dim::vector_index`]
    /// - [`crate::ops::indexing::index_select`]
    /// - [`crate::ops::multinomial::multinomial`]
    /// - [`crate::ops::nll_loss2d::nll_loss2d`]
    /// - fixture: `lg210_multinomial_rank` in `tests/rule_fixtures.rs`
    "LG210", "unsupported-rank", Error, Metadata
}
