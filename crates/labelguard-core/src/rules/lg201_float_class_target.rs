use crate::rule::declare_rule;

declare_rule! {
    /// Floating-point target where class indices are expected.
    ///
    /// ## What it checks
    /// `cross_entropy` / `nll_loss` with a float target whose shape differs from `input` (so it is read as
    /// class indices, not as class probabilities).
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `expected target dtype to be Long or Byte, but got Float`. Masks loaded
    /// with `ToTensor()` or PIL-to-float conversions end up here, often scaled to [0, 1] (ids divided by 255).
    ///
    /// ## Fix
    /// `target.long()` when the values are whole class ids. When they are scaled by 1/255, rebuild them from
    /// the file without `ToTensor()` (`torch.from_numpy(np.array(mask)).long()`).
    ///
    /// ## Checked by
    /// - [`crate::ops::label_target::LabelTarget::dtype`] (the scan's label arrays and the Python data guards)
    /// - [`crate::ops::classification::nll_loss_nd`]
    /// - fixture: `lg201_float_target` in `tests/rule_fixtures.rs`
    "LG201", "float-class-target", Error, Metadata
}
