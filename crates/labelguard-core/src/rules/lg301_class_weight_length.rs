use crate::rule::declare_rule;

declare_rule! {
    /// The class-weight vector does not have one entry per class.
    ///
    /// ## What it checks
    /// `weight` of `cross_entropy` / `nll_loss` must be 1-D with exactly `C` entries (for 4-D and other
    /// spatial inputs PyTorch only checks that it has `C` elements).
    ///
    /// ## Why it fails
    /// PyTorch raises `weight tensor should be defined either for all 19 classes or no classes but got weight
    /// tensor of shape: [20]`. A weight vector computed over the label values (which include 255, or one
    /// extra background class) has the wrong length; indexing such a vector with the labels
    /// (`class_weight[label]`) is what produces the IndexKernel device assert in mmseg-style losses.
    ///
    /// ## Fix
    /// Compute the weights over the `C` classes only, leaving out the ignore value: `weight=torch.tensor(w[:C])`.
    ///
    /// ## Checked by
    /// - [`crate::ops::classification::cross_entropy`]
    /// - [`crate::ops::classification::weight_length`]
    /// - fixture: `lg301_weight_length` in `tests/rule_fixtures.rs`
    "LG301", "class-weight-length", Error, Metadata
}
