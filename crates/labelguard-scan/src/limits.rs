//! How far the scan goes in its optional passes, shared by the analysis and the checks.

/// Largest array (elements) that is copied to a wider type for an optional pass (float ids,
/// the artefact check of non-u8 masks): 2^24 elements, 128 MiB as i64.
pub(crate) const WIDEN_LIMIT: usize = 1 << 24;
