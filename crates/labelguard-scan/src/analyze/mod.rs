//! One file in, findings and a class histogram out.
//!
//! The fast path for a clean mask is: read, decode, histogram. Only when the histogram shows
//! an id outside `[0, C-1]` (and not `ignore_index`) does the file get the detailed pass, and
//! that pass is `labelguard_core::class_ids`, the same analysis the `check` command and the
//! Python guards use, so a scan names the same causes (LG101..LG107) with the same fixes and
//! the first offending pixel as `mask[y, x]`.
//!
//! One file per job: [`item`] dispatches an item by its task (and isolates its panics);
//! [`result`], [`ctx`] and [`buffers`] hold the types every kind shares ([`FileResult`],
//! [`Ctx`], [`Buffers`]); one file per kind does the work: [`mask`] (grey and palette masks),
//! [`colour`] (colour masks), [`channel`] (one channel of a multi-channel mask),
//! [`class_ids`] (the class-id check every kind ends in), [`array`](mod@array)
//! (`.npy`/`.npz`/`.safetensors`), [`table`] (label tables), [`image`] (ImageFolder samples),
//! [`sample_label`] (WebDataset class labels), [`token_bin`] (flat token files), [`raw_labels`] (torchvision raw label files), [`class_weights`] (the `--class-weights` file), [`model`] (a model directory) and [`overlay`] (the picture of a mask's bad
//! pixels). The per-file rules' findings are built by their checks in [`crate::checks`].

pub mod array;
pub mod buffers;
pub mod channel;
pub mod chat;
pub mod class_ids;
pub mod class_weights;
pub mod colour;
pub mod ctx;
pub mod detection;
pub mod image;
pub mod item;
pub mod mask;
pub mod model;
pub mod overlay;
pub mod raw_labels;
pub mod result;
pub mod sample_label;
pub mod table;
#[cfg(test)]
mod tests;
pub mod token_bin;
pub mod tokens;

pub use buffers::Buffers;
pub use ctx::Ctx;
pub use item::{analyze_item, analyze_item_isolated};
pub use result::{FileKind, FileResult, ObjectStats, TokenStats, Unit, Vocabulary};
