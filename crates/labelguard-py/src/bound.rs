//! `Binding` and `valid_call`: the first thing a wrapped call of `enable()` runs.
//!
//! A `Binding` is one wrapped op's parameters, fixed when `enable()` wraps it: their names
//! (the positional ones first, in order), how many are required, and what each becomes in the
//! check (the op table's `Use`). `valid_call(binding, args, kwargs)` binds the call's own positional tuple
//! and keyword dict to those parameters in Rust (no argument dict is built), reads its tensors
//! in place (see `hot.rs`) and runs the op's contract. It answers True only for a call that is
//! checked and has no finding; False for everything else: a finding, a call PyTorch would
//! refuse by its signature, a tensor the hot path does not read (CUDA, subclasses, numpy), an
//! argument the check rejects. On False the Python wrapper takes its general path, which
//! decides exactly as it did before this existed, so this path only has to be right when it
//! says True.

use crate::hot::{describe, is_scalar, op_spec, usizes, Described, ZEROS};
use crate::value;
use labelguard_core::{DType, OpSpec, Use, Value};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// One parameter: its Python name (compared by identity first: keyword names are interned),
/// the same as Rust text, and what the check does with it (the op table's [`Use`], with
/// `Finite` already resolved to `Read` or `Shape` by the binding's `finite`).
struct Slot {
    name: Py<PyString>,
    text: &'static str,
    used: Use,
}

/// A wrapped op's parameters and what the hot path needs to read its tensors.
#[pyclass(frozen, module = "labelguard._native")]
pub struct Binding {
    pub(crate) spec: &'static OpSpec,
    slots: Vec<Slot>,
    /// How many of `slots` may be given by position, and how many of those are required.
    pub(crate) positional: usize,
    pub(crate) required: usize,
    /// The exact tensor types read in place (torch.Tensor, nn.Parameter, ...), held alive here,
    /// and their addresses (a type test per argument without touching reference counts).
    _plain: Py<PyTuple>,
    plain_types: Vec<usize>,
    pub(crate) strided: Py<PyAny>,
}

#[pymethods]
impl Binding {
    /// `Binding(op, finite, plain_types, torch.strided)`: the op's parameters as its row of the op
    /// table declares them; `finite`: `enable(finite=...)`, whether logits are read.
    #[new]
    fn new(
        py: Python<'_>,
        op: &str,
        finite: bool,
        plain: Bound<'_, PyTuple>,
        strided: Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let spec = op_spec(op)?;
        let params = spec.surface.params;
        let slots = params
            .iter()
            .map(|p| Slot {
                name: PyString::intern(py, p.name).unbind(),
                text: p.name,
                used: match p.used {
                    Use::Finite if finite => Use::Read,
                    Use::Finite => Use::Shape,
                    used => used,
                },
            })
            .collect();
        let positional = params.iter().filter(|p| !p.keyword_only).count();
        let required = params.iter().take_while(|p| p.default.is_none()).count();
        Ok(Binding {
            spec,
            slots,
            positional,
            required: required.min(positional),
            plain_types: plain.iter().map(|t| t.as_ptr() as usize).collect(),
            _plain: plain.unbind(),
            strided: strided.unbind(),
        })
    }
}

/// One argument of a call as the hot path reads it: the call's own Python object, or a tensor
/// of these sizes and this dtype whose values are never read (a compiled check gets such a
/// tensor's sizes, not the tensor: `_compiled._Plan`'s "s" slots, which Python rebuilds as a
/// view of zeros).
pub(crate) enum Arg<'py> {
    Object(Bound<'py, PyAny>),
    Sizes(Vec<usize>, DType),
    /// A list of index tensors given item by item (a compiled check's "tl" slot): each the
    /// call's tensor, or the sizes of an index the graph proved in range, read as zeros.
    Items(Vec<Arg<'py>>),
}

/// A tensor of these sizes and dtype, every element zero (stride 0 over `ZEROS`).
fn zeros(shape: &[usize], dtype: DType) -> Described {
    (
        ZEROS.as_ptr() as usize,
        shape.to_vec(),
        vec![0; shape.len()],
        dtype,
    )
}

/// The items of an exact tuple or list, as arguments; None for anything else.
fn listed<'py>(v: &Bound<'py, PyAny>) -> PyResult<Option<Vec<Arg<'py>>>> {
    let items: Vec<Bound<'py, PyAny>> = if v.is_exact_instance_of::<PyTuple>() {
        v.cast::<PyTuple>()?.iter().collect()
    } else if v.is_exact_instance_of::<PyList>() {
        v.cast::<PyList>()?.iter().collect()
    } else {
        return Ok(None);
    };
    Ok(Some(items.into_iter().map(Arg::Object).collect()))
}

/// The check's arguments of one call: its tensors, described, and its scalar values, named
/// by the binding's parameters (no copy of a name per call).
#[derive(Default)]
pub(crate) struct Checked<'b> {
    tensors: Vec<(&'b str, Described)>,
    values: Vec<(&'b str, Value)>,
}

impl<'b> Checked<'b> {
    /// Adds a value; false when the name is already there (scatter's src given as a number
    /// and `value=` too: left to the general path).
    fn value(&mut self, name: &'b str, v: Value) -> bool {
        if self.values.iter().any(|(n, _)| *n == name) {
            return false;
        }
        self.values.push((name, v));
        true
    }

    /// Runs the contract; true when the report has no finding.
    pub(crate) fn valid(self, py: Python<'_>, spec: &OpSpec) -> PyResult<bool> {
        let report = crate::hot::check_described(py, spec, self.tensors, self.values)?;
        Ok(report.findings.is_empty())
    }
}

impl Binding {
    /// Whether `v`'s type is exactly one of the plain tensor types.
    fn is_plain(&self, v: &Bound<'_, PyAny>) -> bool {
        self.plain_types.contains(&(v.get_type_ptr() as usize))
    }

    /// How many parameters the op has.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The position of the parameter of this name.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.slots.iter().position(|s| s.text == name)
    }

    fn index_of(&self, key: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        if let Some(i) = self.slots.iter().position(|s| key.is(&s.name)) {
            return Ok(Some(i));
        }
        let key = key.cast::<PyString>()?.to_cow()?;
        Ok(self.slots.iter().position(|s| s.text == key))
    }

    /// The call's arguments by parameter, as `Params.bind` in Python binds them; None where
    /// PyTorch would refuse the call by its signature.
    fn bind<'py>(
        &self,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Option<Vec<Option<Arg<'py>>>>> {
        if args.len() > self.positional {
            return Ok(None);
        }
        let mut bound: Vec<Option<Arg<'py>>> = (0..self.slots.len()).map(|_| None).collect();
        for (slot, arg) in bound.iter_mut().zip(args.iter()) {
            *slot = Some(Arg::Object(arg));
        }
        if let Some(kwargs) = kwargs {
            for (k, v) in kwargs.iter() {
                match self.index_of(&k)? {
                    Some(i) if bound[i].is_none() => bound[i] = Some(Arg::Object(v)),
                    _ => return Ok(None),
                }
            }
        }
        if bound[..self.required].iter().any(Option::is_none) {
            return Ok(None);
        }
        Ok(Some(bound))
    }

    /// The check's arguments of a bound call; None where the general path must decide.
    pub(crate) fn arguments(
        &self,
        bound: &[Option<Arg<'_>>],
        strided: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Checked<'_>>> {
        let mut checked = Checked::default();
        for (slot, v) in self.slots.iter().zip(bound) {
            let v = match v {
                None => continue,
                Some(Arg::Object(v)) => v,
                Some(Arg::Items(items)) => {
                    if slot.used != Use::Indices || !self.indices(items, strided, &mut checked)? {
                        return Ok(None);
                    }
                    continue;
                }
                Some(Arg::Sizes(shape, dtype)) => {
                    // As the general path takes a view of zeros: its rows for a table, else a
                    // tensor over zero bytes.
                    match slot.used {
                        Use::Dropped => continue,
                        Use::Legacy | Use::Indices => return Ok(None),
                        Use::Table if shape.len() == 2 => {
                            if !checked.value("num_embeddings", Value::Int(shape[0] as i64)) {
                                return Ok(None);
                            }
                        }
                        _ => checked.tensors.push((slot.text, zeros(shape, *dtype))),
                    }
                    continue;
                }
            };
            match slot.used {
                Use::Dropped => continue,
                Use::Legacy if v.is_none() => continue,
                // A legacy argument: the general path decides.
                Use::Legacy => return Ok(None),
                Use::Indices => {
                    let Some(items) = listed(v)? else {
                        return Ok(None);
                    };
                    if !self.indices(&items, strided, &mut checked)? {
                        return Ok(None);
                    }
                    continue;
                }
                Use::ReadNone => {}
                _ if v.is_none() => continue,
                _ => {}
            }
            if self.is_plain(v) {
                if slot.used == Use::Table {
                    let shape = usizes(&v.getattr(intern!(v.py(), "shape"))?)?;
                    if let [rows, _] = shape[..] {
                        if !checked.value("num_embeddings", Value::Int(rows as i64)) {
                            return Ok(None);
                        }
                        continue;
                    }
                }
                let shape_only = matches!(slot.used, Use::Shape | Use::ScatterSrc);
                let Some((d, _)) = describe(v, shape_only, strided)? else {
                    return Ok(None);
                };
                checked.tensors.push((slot.text, d));
            } else if slot.used == Use::ScatterSrc && is_number(v) {
                if !checked.value("value", Value::Float(v.extract()?)) {
                    return Ok(None);
                }
            } else if is_scalar(v) {
                if !checked.value(slot.text, value(v)?) {
                    return Ok(None);
                }
            } else {
                return Ok(None);
            }
        }
        Ok(Some(checked))
    }

    /// A tuple or list of index tensors (`index_put_((rows, labels), v)`), each read in place
    /// under the check's names `index`, `index1`, ... as the general path names them (an index
    /// given by its sizes as zeros, as the general path's view of zeros); false where the
    /// general path must decide (an empty key or one of more than 8, a tensor the hot path does
    /// not read).
    fn indices<'b>(
        &'b self,
        items: &[Arg<'_>],
        strided: &Bound<'_, PyAny>,
        checked: &mut Checked<'b>,
    ) -> PyResult<bool> {
        let names: Vec<&'static str> = self
            .spec
            .tensors
            .iter()
            .map(|t| t.name)
            .filter(|n| n.starts_with("index"))
            .collect();
        if items.is_empty() || items.len() > names.len() {
            return Ok(false);
        }
        for (item, name) in items.iter().zip(names) {
            let d = match item {
                Arg::Object(t) if self.is_plain(t) => match describe(t, false, strided)? {
                    Some((d, _)) => d,
                    None => return Ok(false),
                },
                Arg::Sizes(shape, dtype) => zeros(shape, *dtype),
                _ => return Ok(false),
            };
            checked.tensors.push((name, d));
        }
        Ok(true)
    }

    fn judge(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<bool> {
        let Some(bound) = self.bind(args, kwargs)? else {
            return Ok(false);
        };
        let strided = self.strided.bind(py);
        match self.arguments(&bound, strided)? {
            Some(checked) => checked.valid(py, self.spec),
            None => Ok(false),
        }
    }

    /// `x[key]` / `x[key] = number` with one index tensor (see `valid_index`).
    fn judge_index(
        &self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        key: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        if !self.is_plain(x) || !self.is_plain(key) {
            return Ok(false);
        }
        let strided = self.strided.bind(py);
        let (Some((input, _)), Some((index, _))) =
            (describe(x, true, strided)?, describe(key, false, strided)?)
        else {
            return Ok(false);
        };
        if input.1.is_empty() || index.1.is_empty() || !matches!(index.3, DType::I64 | DType::I32) {
            return Ok(false);
        }
        let checked = Checked {
            tensors: vec![("input", input), ("index", index)],
            values: vec![("dims", Value::IntList(vec![0]))],
        };
        checked.valid(py, self.spec)
    }
}

/// A Python int, float or bool (what `float(src)` turns into scatter's value).
fn is_number(v: &Bound<'_, PyAny>) -> bool {
    v.is_exact_instance_of::<PyFloat>()
        || v.is_exact_instance_of::<PyInt>()
        || v.is_exact_instance_of::<PyBool>()
}

/// Whether a wrapped call, given as its positional tuple and keyword dict, is checked here and
/// valid (see the module docs). Never raises: any error answers False, and the general path
/// then raises its own.
#[pyfunction]
#[pyo3(signature = (binding, args, kwargs=None))]
pub fn valid_call(
    py: Python<'_>,
    binding: &Bound<'_, Binding>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> bool {
    binding.get().judge(py, args, kwargs).unwrap_or(false)
}

/// Whether `x[key]` (op "index") or `x[key] = number` (op "index_put") with `key` one plain
/// int64/int32 index tensor of at least one dimension, on a tensor of at least one, is valid:
/// the common advanced index (`weights[labels]`), checked with `x` by shape and dtype, as
/// Python's general path checks it. False for every other key and on any error.
#[pyfunction]
pub fn valid_index(
    py: Python<'_>,
    binding: &Bound<'_, Binding>,
    x: &Bound<'_, PyAny>,
    key: &Bound<'_, PyAny>,
) -> bool {
    binding.get().judge_index(py, x, key).unwrap_or(false)
}
