//! Op contracts: for each PyTorch op, exactly what PyTorch 2.x does with a call.
//!
//! Each contract follows the order of PyTorch's own checks (Python wrapper, then host checks in
//! ATen, then the kernel), so that the verdict is the one PyTorch would reach. Findings for host
//! errors stop the contract where PyTorch would stop, except where a later value check still
//! helps the user (say, int32 targets that also hold 255).

pub(crate) mod advanced_index;
pub(crate) mod bce;
pub(crate) mod bincount;
pub(crate) mod class_id_words;
pub mod class_ids;
pub(crate) mod classification;
pub(crate) mod ctc;
pub(crate) mod dtypes;
pub(crate) mod embedding;
pub(crate) mod embedding_bag;
mod evidence;
pub(crate) mod id_weight;
pub(crate) mod index_along_dim;
mod index_range;
pub(crate) mod indexing;
pub(crate) mod kl_div;
pub mod label_target;
pub(crate) mod masked_scatter;
pub(crate) mod multinomial;
pub(crate) mod nll_loss2d;
pub(crate) mod one_hot;
mod positions;
pub(crate) mod reduction;
pub(crate) mod shapes;
pub(crate) mod take_put;
pub mod values;

mod listing;
pub(crate) mod multi_margin;
mod surface;
mod table;

pub use listing::{listing, Listing};
pub use surface::{PyParam, Surface, Use};
pub use table::OPS;

use crate::call::{Call, CallError, Param, TensorParam, Value};
use crate::finding::{Finding, Report};
use crate::rule::Rule;
use crate::tensor::TensorView;

/// An op: its contract (the check's inputs and the function that decides) and its PyTorch
/// surface. The rows are in [`table`].
pub struct OpSpec {
    pub name: &'static str,
    /// Text after the generated signature (`(or value=V instead of src)`), or the whole usage of
    /// an op without a called site (`input[index, ...]`).
    note: &'static str,
    /// The check's inputs: the tensors and the other arguments it takes, by name.
    pub tensors: &'static [TensorParam],
    pub params: &'static [Param],
    check: fn(&Call<'_>) -> Vec<Finding>,
    /// The rules the check can raise (the differential test holds every finding to it).
    pub rules: &'static [Rule],
    pub surface: Surface,
}

/// The op with this name: its own, a PyTorch site's (`torch.Tensor.index_put_`, `put_`,
/// `__getitem__` or `getitem`) or a module's (`CrossEntropyLoss`, `nn.CTCLoss`).
pub fn spec(name: &str) -> Option<&'static OpSpec> {
    let name = name.trim();
    let short = |s: &str| {
        s.rsplit('.')
            .next()
            .unwrap_or(s)
            .trim_matches('_')
            .to_string()
    };
    let wanted = short(name);
    OPS.iter().find(|op| op.name == wanted).or_else(|| {
        OPS.iter().find(|op| {
            op.surface.sites.iter().any(|s| short(s) == wanted)
                || op.surface.modules.contains(&wanted.as_str())
        })
    })
}

/// Looks an op up, with the list of known ops in the error.
pub fn lookup(name: &str) -> Result<&'static OpSpec, CallError> {
    spec(name).ok_or_else(|| CallError::UnknownOp {
        name: name.to_string(),
        known: OPS.iter().map(|o| o.name).collect::<Vec<_>>().join(", "),
    })
}

impl OpSpec {
    /// How PyTorch spells the call, for help texts: PyTorch's parameters that a check can depend
    /// on, and the note.
    pub fn signature(&self) -> String {
        match self.surface.signature() {
            Some(s) if self.note.is_empty() => s,
            Some(s) => format!("{s}  {}", self.note),
            None => self.note.to_string(),
        }
    }

    /// Decides what PyTorch does with this call.
    pub fn check<'a, T: AsRef<str>, A: AsRef<str>>(
        &self,
        tensors: Vec<(T, TensorView<'a>)>,
        args: Vec<(A, Value)>,
    ) -> Result<Report, CallError> {
        let call = Call::new(self.name, self.tensors, self.params, tensors, args)?;
        Ok(Report::new(self.name, (self.check)(&call)))
    }

    /// Like `check`, with arguments as `NAME=TEXT` strings (the CLI's `--arg`).
    pub fn check_text<'a>(
        &self,
        tensors: Vec<(String, TensorView<'a>)>,
        args: &[(String, String)],
    ) -> Result<Report, CallError> {
        let args = Call::parse_args(self.params, args)?;
        self.check(tensors, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_op_is_found_by_its_name_its_sites_and_its_modules() {
        let name = |n: &str| spec(n).map(|s| s.name);
        assert_eq!(name("cross_entropy"), Some("cross_entropy"));
        assert_eq!(name("F.cross_entropy"), Some("cross_entropy"));
        assert_eq!(name("torch.nn.functional.ctc_loss"), Some("ctc_loss"));
        assert_eq!(name("CrossEntropyLoss"), Some("cross_entropy"));
        assert_eq!(name("nn.MultiMarginLoss"), Some("multi_margin_loss"));
        assert_eq!(name("torch.Tensor.index_put_"), Some("index_put"));
        assert_eq!(name("put_"), Some("put"));
        assert_eq!(name("scatter_reduce_"), Some("scatter_reduce"));
        assert_eq!(name("__getitem__"), Some("index"));
        assert_eq!(name("setitem"), Some("index_put"));
        assert_eq!(name("no_such_op"), None);
    }

    /// Every argument a row's surface passes to the check is one the check takes: a typo in a
    /// row, or a check input renamed, fails here rather than as an unjudged call.
    #[test]
    fn every_surface_parameter_reaches_a_check_input() {
        for op in OPS {
            let takes = |name: &str| {
                op.tensors.iter().any(|t| t.name == name)
                    || op.params.iter().any(|p| p.name == name)
            };
            for p in op.surface.params {
                let reaches = match p.used {
                    Use::Legacy | Use::Dropped => true,
                    Use::Table => takes("num_embeddings") && takes(p.name),
                    Use::ScatterSrc => takes("value") && takes(p.name),
                    Use::Indices => takes("index") && takes("index7"),
                    Use::Read | Use::ReadNone | Use::Shape | Use::Finite => takes(p.name),
                };
                assert!(reaches, "{}: {} ({:?})", op.name, p.name, p.used);
            }
            let names: Vec<_> = op.surface.params.iter().map(|p| p.name).collect();
            let unique: std::collections::BTreeSet<_> = names.iter().collect();
            assert_eq!(unique.len(), names.len(), "{}", op.name);
            let codes: std::collections::BTreeSet<_> = op.rules.iter().map(|r| r.code).collect();
            assert_eq!(
                codes.len(),
                op.rules.len(),
                "{}: a rule listed twice",
                op.name
            );
        }
    }
}
