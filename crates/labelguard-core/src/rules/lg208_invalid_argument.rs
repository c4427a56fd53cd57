use crate::rule::declare_rule;

declare_rule! {
    /// A scalar argument has a value PyTorch rejects.
    ///
    /// ## What it checks
    /// `reduction` must be `mean`, `sum` or `none`; `label_smoothing` at most 1.0; `ignore_index` negative
    /// for probability targets; `padding_idx` within the table; `num_classes` of `one_hot` -1 or positive;
    /// `num_samples` of `multinomial` positive and, without replacement, at most the number of categories;
    /// `blank` of `ctc_loss` a valid class; `minlength` of `bincount` non-negative.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host with a message that names the argument.
    ///
    /// ## Fix
    /// Use a value in the documented range; the finding says which.
    ///
    /// ## Checked by
    /// - [`crate::ops::advanced_index::invalid`]
    /// - [`crate::ops::bincount::bincount`]
    /// - [`crate::ops::classification::smoothing_finding`]
    /// - [`crate::ops::classification::probability_targets`]
    /// - [`crate::ops::ctc::lengths`]
    /// - [`crate::ops::ctc::ctc_loss`]
    /// - [`crate::ops::embedding::table_rows`]
    /// - [`crate::ops::embedding::embedding`]
    /// - [`crate::ops::embedding_bag::embedding_bag`]
    /// - [`crate::ops::indexing::scatter`]
    /// - [`crate::ops::indexing::scatter_reduce`]
    /// - [`crate::ops::multinomial::multinomial`]
    /// - [`crate::ops::one_hot::one_hot`]
    /// - [`crate::ops::reduction::reduction`]
    /// - fixture: `lg208_label_smoothing` in `tests/rule_fixtures.rs`
    "LG208", "invalid-argument", Error, Metadata
}
