//! An op's PyTorch surface: where PyTorch exposes the op, every parameter PyTorch gives it and
//! what a wrapped call does with each. `enable()` builds its wrappers from it, `labelguard ops`
//! lists it and `diagnose` reads its kernel names: one declaration, read by every face.

use serde::Serialize;

/// What a wrapped call does with one of PyTorch's arguments before the check sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Use {
    /// Passed to the check as given; a `None` is left out (the check's default applies).
    Read,
    /// Passed as given, `None` included (embedding's `padding_idx`: `None` means no padding row).
    ReadNone,
    /// A tensor whose shape and dtype the check reads, never its values: the indexed tensor of
    /// gather or index_select, a table. It costs a call two attribute reads, not a scan.
    Shape,
    /// A tensor whose values the check reads only for NaN and inf (a loss's logits): read by
    /// shape unless `enable(finite=True)`, since scanning logits costs more than the verdict is
    /// worth when it can never be a device-side assert.
    Finite,
    /// scatter's `src`: a tensor is read by shape; a Python number becomes the check's `value`.
    ScatterSrc,
    /// embedding's `weight`: a 2-d table passes its row count as the check's `num_embeddings`
    /// (its values never matter).
    Table,
    /// index_put's `indices`: a tuple of index tensors, passed as `index`, `index1`, ...
    Indices,
    /// A loss's legacy `size_average` / `reduce`: a call that gives one is left to PyTorch,
    /// which warns about it itself.
    Legacy,
    /// Never changes the verdict (`out=`, `generator=`, `sparse=`, `max_norm=`): left out.
    Dropped,
}

/// One of PyTorch's parameters of an op, in PyTorch's order.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PyParam {
    pub name: &'static str,
    /// The default as Python writes it (`"-100"`, `"'mean'"`, `"None"`); `None`: required.
    pub default: Option<&'static str>,
    /// Only by keyword (after PyTorch's `*`).
    pub keyword_only: bool,
    #[serde(rename = "use")]
    pub used: Use,
    /// The values of this tensor that never change the check's verdict, `[lo, hi]` with NaN
    /// left out: a tensor whose values all lie there is judged as any other of its shape and
    /// dtype whose values do (BCE's target in [0, 1]). A compiled step whose graph proves that
    /// of the tensor decides the check once, when it compiles (`_ranges.py`).
    /// `tests/python/test_within.py` holds the table to the checks.
    pub within: Option<[f64; 2]>,
}

/// A required positional parameter whose value the check reads.
pub(crate) const fn arg(name: &'static str) -> PyParam {
    PyParam {
        name,
        default: None,
        keyword_only: false,
        used: Use::Read,
        within: None,
    }
}

impl PyParam {
    /// Optional, with this Python default.
    pub(crate) const fn or(self, default: &'static str) -> PyParam {
        PyParam {
            default: Some(default),
            ..self
        }
    }
    /// Keyword-only.
    pub(crate) const fn kw(self) -> PyParam {
        PyParam {
            keyword_only: true,
            ..self
        }
    }
    pub(crate) const fn uses(self, used: Use) -> PyParam {
        PyParam { used, ..self }
    }
    /// Values in `[lo, hi]` never change the verdict ([`PyParam::within`]).
    pub(crate) const fn within(self, lo: f64, hi: f64) -> PyParam {
        PyParam {
            within: Some([lo, hi]),
            ..self
        }
    }
}

/// Where PyTorch exposes an op and what a wrapped call does with its arguments.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Surface {
    /// Every place PyTorch exposes the op, as `module.attribute` (`torch.Tensor.scatter_`).
    /// Tensor methods take the tensor as the first parameter; `torch.Tensor.__getitem__` and
    /// `__setitem__` (`x[key]`, `x[key] = v`) bind the indexing key, not [`Surface::params`].
    pub sites: &'static [&'static str],
    /// PyTorch's parameters of the op, in its order (those of the first site).
    pub params: &'static [PyParam],
    /// `torch.nn` modules whose forward is this one op: a bad call inside their forward is
    /// reported at the user's `criterion(x, y)` line.
    pub modules: &'static [&'static str],
    /// The op's ATen kernels as TorchInductor spells them in a fused kernel's name
    /// (`triton_poi_fused_embedding_0`), for `diagnose`.
    pub kernels: &'static [&'static str],
    /// Dynamo breaks the graph at this op (its output's shape depends on the data: ctc_loss):
    /// the call runs eagerly, and its wrapper checks it there.
    pub breaks_graph: bool,
    /// Some values of the tensors the check reads make PyTorch raise on the host or assert in a
    /// kernel (an index out of range, a probability outside [0, 1] for BCE). False where every
    /// value gives a result, wrong or not (BCE-with-logits' target, KL's distributions): a
    /// compiled step then checks the call after the kernels that read those tensors, not
    /// before them, and inductor fuses those kernels as it would without labelguard.
    /// `tests/python/test_differential.py` holds the table to what PyTorch does.
    pub raises_on_values: bool,
}

/// An op that PyTorch exposes nowhere on its own (reached through another op).
pub(crate) const INTERNAL: Surface = exposed(&[], &[]);

/// An op exposed at `sites` with these parameters (no module, no kernel name, no graph break).
pub(crate) const fn exposed(sites: &'static [&'static str], params: &'static [PyParam]) -> Surface {
    Surface {
        sites,
        params,
        modules: &[],
        kernels: &[],
        breaks_graph: false,
        raises_on_values: true,
    }
}

impl Surface {
    pub(crate) const fn modules(self, modules: &'static [&'static str]) -> Surface {
        Surface { modules, ..self }
    }
    pub(crate) const fn kernels(self, kernels: &'static [&'static str]) -> Surface {
        Surface { kernels, ..self }
    }
    pub(crate) const fn breaks_graph(self) -> Surface {
        Surface {
            breaks_graph: true,
            ..self
        }
    }
    pub(crate) const fn never_raises_on_values(self) -> Surface {
        Surface {
            raises_on_values: false,
            ..self
        }
    }

    /// The sites of the op's own parameters: all but `x[key]` and `x[key] = v`.
    pub fn called_sites(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.sites.iter().copied().filter(|s| !s.ends_with("__"))
    }

    /// The signature a user reads: the first called site, shortened (`F.`, `input.`), with the
    /// parameters a check can depend on.
    pub fn signature(&self) -> Option<String> {
        let site = self.called_sites().next()?;
        let short = if let Some(method) = site.strip_prefix("torch.Tensor.") {
            format!("input.{method}")
        } else if let Some(f) = site.strip_prefix("torch.nn.functional.") {
            format!("F.{f}")
        } else {
            site.to_string()
        };
        let method = site.starts_with("torch.Tensor.");
        let mut params: Vec<String> = Vec::new();
        let mut keyword_only = false;
        // Optional arguments that never matter are left out; a required one is always shown.
        let shown = self.params.iter().skip(usize::from(method)).filter(|p| {
            !matches!(
                (p.used, p.default),
                (Use::Legacy, _) | (Use::Dropped, Some(_))
            )
        });
        for p in shown {
            if p.keyword_only && !keyword_only {
                keyword_only = true;
                params.push("*".into());
            }
            params.push(match p.default {
                Some(d) => format!("{}={d}", p.name),
                None => p.name.to_string(),
            });
        }
        Some(format!("{short}({})", params.join(", ")))
    }
}
