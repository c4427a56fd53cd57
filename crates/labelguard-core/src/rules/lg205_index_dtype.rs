use crate::rule::declare_rule;

declare_rule! {
    /// An index or class-id tensor has a dtype the operation does not accept.
    ///
    /// ## What it checks
    /// Targets of `cross_entropy` / `nll_loss` must be int64 (uint8 only for 1-D/2-D input); indices of
    /// `gather`, `scatter`, `index_select` and `embedding` must be int64 or int32; `one_hot` takes int64 only;
    /// `bincount` takes integers but not bool or uint16; the mask of `masked_scatter` must be bool.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host, e.g. `expected target dtype to be Long or Byte, but got Int`,
    /// `gather(): Expected dtype int32/int64 for index`, `one_hot is only applicable to index tensor of type
    /// LongTensor.`
    ///
    /// ## Fix
    /// Cast once where the tensor is made: `target.long()` / `index.long()`.
    ///
    /// ## Checked by
    /// - [`crate::ops::label_target::LabelTarget::dtype`] (bool class ids, in the scan and the Python data guards)
    /// - [`crate::ops::ctc::lengths`]
    /// - [`crate::ops::dtypes::index_dtype`]
    /// - [`crate::ops::masked_scatter::masked_scatter`] (a mask that is not bool)
    /// - fixture: `lg205_int32_target` in `tests/rule_fixtures.rs`
    "LG205", "index-dtype", Error, Metadata
}
