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
    "LG208", "invalid-argument", Error
}
