//! What is guarded, as data: one entry per op of the table, the same for `labelguard ops
//! --format json`, `labelguard.guarded_ops()` and the wrappers `enable()` builds.

use super::surface::PyParam;
use super::{OpSpec, OPS};
use crate::call::Kind;
use serde::Serialize;

/// One op as the listing shows it.
#[derive(Debug, Serialize)]
pub struct Listing {
    pub name: &'static str,
    /// How PyTorch spells the call (`labelguard check --help` prints the same).
    pub signature: String,
    /// Where PyTorch exposes it (`torch.Tensor.scatter_`); empty for an op reached only
    /// through another (nll_loss2d).
    pub sites: &'static [&'static str],
    /// `torch.nn` modules whose forward is this one op.
    pub modules: &'static [&'static str],
    /// The codes of the rules its check can raise.
    pub rules: Vec<&'static str>,
    /// PyTorch's parameters in its order, each with what a wrapped call does with it.
    pub params: &'static [PyParam],
    /// The check's own inputs (`labelguard check OP`'s tensors and arguments).
    pub check: CheckInputs,
    /// ATen kernel names as TorchInductor writes them in fused kernels (for `diagnose`).
    pub kernels: &'static [&'static str],
    /// Dynamo breaks the graph at the op; its call is checked eagerly.
    pub breaks_graph: bool,
    /// Some values of the tensors its check reads make PyTorch raise or a kernel assert.
    pub raises_on_values: bool,
}

/// The inputs of an op's check.
#[derive(Debug, Serialize)]
pub struct CheckInputs {
    pub tensors: Vec<&'static str>,
    pub arguments: Vec<(&'static str, Kind)>,
}

impl OpSpec {
    pub fn listing(&self) -> Listing {
        Listing {
            name: self.name,
            signature: self.signature(),
            sites: self.surface.sites,
            modules: self.surface.modules,
            rules: self.rules.iter().map(|r| r.code).collect(),
            params: self.surface.params,
            check: CheckInputs {
                tensors: self.tensors.iter().map(|t| t.name).collect(),
                arguments: self.params.iter().map(|p| (p.name, p.kind)).collect(),
            },
            kernels: self.surface.kernels,
            breaks_graph: self.surface.breaks_graph,
            raises_on_values: self.surface.raises_on_values,
        }
    }
}

/// Every op of the table, in its order.
pub fn listing() -> Vec<Listing> {
    OPS.iter().map(OpSpec::listing).collect()
}
