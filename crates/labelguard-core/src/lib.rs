//! labelguard's contract engine: given a PyTorch op and its arguments' shapes, dtypes and
//! values, decide exactly what PyTorch would do (accept, raise on the host, assert on the
//! device, or silently compute garbage), and say why, where, and how to fix it.
//!
//! No I/O happens here: readers hand in [`TensorView`]s over borrowed bytes.

// A contract that stops early returns its finding as the error: that is the normal outcome,
// not an exceptional one, so it is not boxed.
#![allow(clippy::result_large_err)]
// Each contract rule's `## Checked by` section links to the op functions that emit it, which are
// crate-private: `cargo doc --document-private-items` renders them as links.
#![allow(rustdoc::private_intra_doc_links)]

pub mod call;
pub mod clip;
pub mod dtype;
pub mod finding;
mod finding_de;
pub mod kernels;
pub mod model;
pub mod ops;
pub mod rule;
pub mod rules;
pub mod severity;
pub mod tensor;

pub use call::{Call, CallError, Value};
pub use dtype::DType;
pub use finding::{Finding, Location, Report};
pub use ops::class_ids::class_ids;
pub use ops::{lookup, spec, OpSpec, PyParam, Surface, Use, OPS};
pub use rule::{DecidedBy, Rule};
pub use severity::{Severity, Verdict};
pub use tensor::{Tensor, TensorView};
