//! The kernels' detailed pass as a finding's evidence. The kernels report where the bad
//! elements are in their own type ([`Located`]); the ops convert it here into the finding's
//! ([`Location`], [`ValueCount`]), so that findings know nothing of the kernels.

use crate::finding::{Finding, Location, ValueCount};
use crate::kernels::Located;

/// Attaches a kernel's [`Located`] to a finding under construction.
pub(crate) trait WithLocated {
    /// The first offending elements of `tensor`, how many offend, and how often each value does.
    fn located(self, tensor: &str, located: &Located) -> Finding;
}

impl WithLocated for Finding {
    fn located(self, tensor: &str, located: &Located) -> Finding {
        let locations = located.first.iter().map(|(index, value)| Location {
            tensor: tensor.to_string(),
            index: index.clone(),
            value: value.clone(),
        });
        let values = located
            .values
            .iter()
            .map(|(value, &count)| ValueCount {
                value: value.to_string(),
                count,
            })
            .collect();
        self.evidence(locations, located.total, values)
    }
}
