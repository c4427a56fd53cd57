//! `Through`: the valid path of `labelguard::check_through`, the op that runs the checks of
//! one place of a graph compiled by inductor (`python/labelguard/_compiled.py`).
//!
//! The op gets its checks' tensors, sizes and numbers as flat lists. Rebuilding each check's
//! call in Python (a view of zeros per tensor taken by its sizes, a tuple, a dict) and then
//! binding it cost more than the check: the op runs between inductor's kernels, where every
//! Python line and torch call runs with cold caches. Here each check's layout is read once,
//! when the op's spec is first seen, and a call binds its arguments straight from the lists.
//! `valid` answers True only when every check is valid, as `valid_call` would for each call;
//! on False the Python side takes its general path, which decides as before.

use crate::bound::{Arg, Binding};
use labelguard_core::DType;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString};

/// How one argument of a check's call comes from the op's inputs (the "slots" of
/// `_compiled._Plan`, with positions relative to the check's own tensors, dims and floats).
enum Source {
    /// One of the check's tensors.
    Tensor(usize),
    /// A tensor taken by its sizes: `count` dims from `first`, and its dtype.
    Sizes(usize, usize, DType),
    /// An int: one dim.
    Int(usize),
    /// A list of ints: `count` dims from `first`.
    Ints(usize, usize),
    /// A float.
    Float(usize),
    /// A constant of the traced call (a bool, a string, None).
    Constant(Py<PyAny>),
    /// A tuple (or list) of tensors, item by item.
    Tensors(Vec<Item>),
}

/// One tensor of a "tl" slot's list: one of the check's tensors, or an index the graph proved
/// in range, given by its sizes (`count` dims from `first`) and dtype and read as zeros
/// (`_placement._index_zeros`).
enum Item {
    Tensor(usize),
    Zeros(usize, usize, DType),
}

struct Check {
    binding: Py<Binding>,
    /// Per bound parameter: its position among the binding's parameters and its source.
    args: Vec<(usize, Source)>,
    /// The positions of the check's tensors among the op's, and where its dims and floats start.
    read: Vec<usize>,
    dims: usize,
    floats: usize,
}

/// One check as Python describes it: its op's binding, its slots (JSON) and keyword names, the
/// positions of its tensors among the op's, and where its dims and floats start.
type CheckLayout = (Py<Binding>, String, Vec<String>, Vec<usize>, usize, usize);

/// The checks of one `check_through` spec (see the module docs).
#[pyclass(frozen, module = "labelguard._native")]
pub struct Through {
    checks: Vec<Check>,
}

#[pymethods]
impl Through {
    /// `Through([(binding, slots_json, names, read, dims_start, floats_start), ...])`; ValueError
    /// where a check holds an argument this path does not rebuild (an indexing key's slice or
    /// ellipsis) or a call its binding refuses: the Python path checks such an op.
    #[new]
    fn new(py: Python<'_>, checks: Vec<CheckLayout>) -> PyResult<Self> {
        let checks = checks
            .into_iter()
            .map(|(binding, slots, names, read, dims, floats)| {
                let args = sources(py, binding.get(), &slots, &names)?;
                Ok(Check {
                    binding,
                    args,
                    read,
                    dims,
                    floats,
                })
            })
            .collect::<PyResult<_>>()?;
        Ok(Through { checks })
    }

    /// Whether every check is valid for these inputs of the op. Never raises: any error answers
    /// False, and the general path then raises its own.
    fn valid(
        &self,
        py: Python<'_>,
        tensors: &Bound<'_, PyAny>,
        dims: &Bound<'_, PyAny>,
        floats: &Bound<'_, PyAny>,
    ) -> bool {
        self.checks
            .iter()
            .all(|check| check.valid(py, tensors, dims, floats).unwrap_or(false))
    }
}

impl Check {
    fn valid(
        &self,
        py: Python<'_>,
        tensors: &Bound<'_, PyAny>,
        dims: &Bound<'_, PyAny>,
        floats: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let binding = self.binding.get();
        let tensor = |k: usize| tensors.get_item(self.read[k]);
        let dim = |k: usize| dims.get_item(self.dims + k);
        let mut bound: Vec<Option<Arg<'_>>> = (0..binding.len()).map(|_| None).collect();
        for (param, source) in &self.args {
            bound[*param] = Some(match source {
                Source::Tensor(k) => Arg::Object(tensor(*k)?),
                Source::Sizes(first, count, dtype) => Arg::Sizes(
                    (*first..first + count)
                        .map(|k| dim(k)?.extract())
                        .collect::<PyResult<_>>()?,
                    *dtype,
                ),
                Source::Int(k) => Arg::Object(dim(*k)?),
                Source::Ints(first, count) => {
                    let items = (*first..first + count)
                        .map(dim)
                        .collect::<PyResult<Vec<_>>>()?;
                    Arg::Object(PyList::new(py, items)?.into_any())
                }
                Source::Float(k) => Arg::Object(floats.get_item(self.floats + k)?),
                Source::Constant(v) => Arg::Object(v.bind(py).clone()),
                Source::Tensors(items) => Arg::Items(
                    items
                        .iter()
                        .map(|item| match item {
                            Item::Tensor(k) => Ok(Arg::Object(tensor(*k)?)),
                            Item::Zeros(first, count, dtype) => Ok(Arg::Sizes(
                                (*first..first + count)
                                    .map(|k| dim(k)?.extract())
                                    .collect::<PyResult<_>>()?,
                                *dtype,
                            )),
                        })
                        .collect::<PyResult<_>>()?,
                ),
            });
        }
        match binding.arguments(&bound, binding.strided.bind(py))? {
            Some(checked) => checked.valid(py, binding.spec),
            None => Ok(false),
        }
    }
}

/// A "tl" slot's items: `count` of the check's tensors from `first`, and where `zeros` (its
/// fifth item) lists them, an index given by its sizes for each `[dtype, ndim]` in it; the
/// sizes are the next dims. None where the list does not add up.
fn items(
    zeros: Option<&serde_json::Value>,
    first: usize,
    count: usize,
    dims: &mut usize,
) -> Option<Vec<Item>> {
    let Some(listed) = zeros else {
        return Some((first..first + count).map(Item::Tensor).collect());
    };
    let mut next = first;
    let mut out = Vec::new();
    for z in listed.as_array()? {
        if z.is_null() {
            out.push(Item::Tensor(next));
            next += 1;
        } else {
            let dtype = DType::parse(z.get(0)?.as_str()?)?;
            let ndim = z.get(1)?.as_u64()? as usize;
            *dims += ndim;
            out.push(Item::Zeros(*dims - ndim, ndim, dtype));
        }
    }
    (next == first + count).then_some(out)
}

/// Each slot's parameter and source, as `_Plan.call` rebuilds the call and `valid_call` binds
/// it: the first slots by position, the rest by `names`.
fn sources(
    py: Python<'_>,
    binding: &Binding,
    slots: &str,
    names: &[String],
) -> PyResult<Vec<(usize, Source)>> {
    let unsupported = |what: &str| PyValueError::new_err(format!("not rebuilt natively: {what}"));
    let slots: Vec<serde_json::Value> =
        serde_json::from_str(slots).map_err(|e| unsupported(&e.to_string()))?;
    let positional = slots
        .len()
        .checked_sub(names.len())
        .ok_or_else(|| unsupported("more names than slots"))?;
    if positional > binding.positional {
        return Err(unsupported("too many positional arguments"));
    }
    let (mut dims, mut taken) = (0usize, vec![false; binding.len()]);
    let mut args = Vec::with_capacity(slots.len());
    for (j, slot) in slots.iter().enumerate() {
        let param = if j < positional {
            j
        } else {
            binding
                .position(&names[j - positional])
                .ok_or_else(|| unsupported("an unknown keyword"))?
        };
        if std::mem::replace(&mut taken[param], true) {
            return Err(unsupported("an argument given twice"));
        }
        let int = |i: usize| {
            slot.get(i)
                .and_then(serde_json::Value::as_u64)
                .map(|v| v as usize)
        };
        let kind = slot
            .get(0)
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        let source = match (kind, int(1), int(2)) {
            ("t", Some(k), _) => Source::Tensor(k),
            ("s", _, Some(count)) => {
                let name = slot
                    .get(1)
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("");
                dims += count;
                Source::Sizes(
                    dims - count,
                    count,
                    DType::parse(name).unwrap_or(DType::F32),
                )
            }
            ("i", _, _) => {
                dims += 1;
                Source::Int(dims - 1)
            }
            ("l", Some(count), _) => {
                dims += count;
                Source::Ints(dims - count, count)
            }
            ("f", Some(k), _) => Source::Float(k),
            ("tl", Some(first), Some(count)) => Source::Tensors(
                items(slot.get(4), first, count, &mut dims)
                    .ok_or_else(|| unsupported("a list's items"))?,
            ),
            ("c", _, _) => Source::Constant(match slot.get(1) {
                Some(serde_json::Value::Bool(b)) => {
                    PyBool::new(py, *b).to_owned().into_any().unbind()
                }
                Some(serde_json::Value::String(s)) => PyString::new(py, s).into_any().unbind(),
                Some(serde_json::Value::Null) | None => py.None(),
                Some(_) => return Err(unsupported("a constant")),
            }),
            _ => return Err(unsupported(kind)),
        };
        args.push((param, source));
    }
    if taken[..binding.required].iter().any(|t| !t) {
        return Err(unsupported("a required argument missing"));
    }
    Ok(args)
}
