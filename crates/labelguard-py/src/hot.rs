//! `check_plain`: the hot path of `enable()`, one native call per wrapped PyTorch call.
//!
//! A valid call costs a few microseconds, so describing each tensor in Python (six attribute
//! reads, a tuple, a list, strings) was as dear as the check itself. Here the call's argument
//! dict is read directly: plain CPU torch tensors become views over their memory, the tensors
//! named `unread` (and meta tensors) become shape-and-dtype views over zero bytes, and Python
//! scalars become values. Anything else (CUDA tensors, subclasses, sparse or negative-bit
//! views, numpy arrays, other objects) returns None: the Python side then takes its general
//! path, which decides exactly as before.

use crate::{value, view};
use labelguard_core::{lookup, DType, OpSpec, Report, TensorView, Value, OPS};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::cell::RefCell;

/// What an abstract tensor's zero-stride view reads (never written).
pub(crate) static ZEROS: [u8; 16] = [0; 16];

/// An op by its exact canonical name (no allocation, no trimming), else by `lookup`.
pub fn op_spec(op: &str) -> PyResult<&'static OpSpec> {
    match OPS.iter().find(|o| o.name == op) {
        Some(spec) => Ok(spec),
        None => lookup(op).map_err(|e| PyValueError::new_err(e.to_string())),
    }
}

thread_local! {
    /// torch dtype objects (singletons) by address, and what labelguard reads them as.
    static DTYPES: RefCell<Vec<(usize, Option<DType>)>> = const { RefCell::new(Vec::new()) };
}

/// The labelguard dtype of a torch dtype object; TypeError for one the core does not read.
pub(crate) fn dtype_of(dtype: &Bound<'_, PyAny>) -> PyResult<DType> {
    let key = dtype.as_ptr() as usize;
    let known = DTYPES.with(|d| d.borrow().iter().find(|(k, _)| *k == key).map(|(_, t)| *t));
    let parsed = match known {
        Some(t) => t,
        None => {
            let t = DType::parse(&dtype.str()?.to_cow()?);
            DTYPES.with(|d| d.borrow_mut().push((key, t)));
            t
        }
    };
    parsed.ok_or_else(|| {
        let name = dtype.str().map(|s| s.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!(
            "unsupported dtype {}",
            name.trim_start_matches("torch.")
        ))
    })
}

pub(crate) fn usizes(t: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    t.cast::<PyTuple>()?.iter().map(|d| d.extract()).collect()
}

/// One plain torch tensor, as `(address, shape, strides, dtype)`; None when the general path
/// must describe it (not on the CPU nor meta, not strided, a negative-bit view, a negative
/// stride).
pub(crate) type Described = (usize, Vec<usize>, Vec<usize>, DType);

pub(crate) fn describe(
    v: &Bound<'_, PyAny>,
    abstract_: bool,
    strided: &Bound<'_, PyAny>,
) -> PyResult<Option<(Described, bool)>> {
    let py = v.py();
    let abstract_ = abstract_ || {
        let cpu = v.getattr(intern!(py, "is_cpu"))?.is_truthy()?;
        if !cpu && !v.getattr(intern!(py, "is_meta"))?.is_truthy()? {
            return Ok(None);
        }
        !cpu
    };
    let shape = usizes(&v.getattr(intern!(py, "shape"))?)?;
    let dtype = dtype_of(&v.getattr(intern!(py, "dtype"))?)?;
    if abstract_ {
        let strides = vec![0; shape.len()];
        return Ok(Some((
            (ZEROS.as_ptr() as usize, shape, strides, dtype),
            true,
        )));
    }
    if !v.getattr(intern!(py, "layout"))?.is(strided)
        || v.call_method0(intern!(py, "is_neg"))?.is_truthy()?
    {
        return Ok(None);
    }
    let address: usize = v.call_method0(intern!(py, "data_ptr"))?.extract()?;
    let Ok(strides) = usizes(&v.call_method0(intern!(py, "stride"))?) else {
        return Ok(None);
    };
    Ok(Some(((address, shape, strides, dtype), false)))
}

pub(crate) fn is_scalar(v: &Bound<'_, PyAny>) -> bool {
    v.is_none()
        || v.is_exact_instance_of::<PyInt>()
        || v.is_exact_instance_of::<PyFloat>()
        || v.is_exact_instance_of::<PyBool>()
        || v.is_exact_instance_of::<PyString>()
        || v.is_exact_instance_of::<PyList>()
        || v.is_exact_instance_of::<PyTuple>()
}

/// Whether `v`'s type is exactly one of `plain` (torch.Tensor, nn.Parameter, ...): a tensor
/// the hot paths read in place (subclasses such as fake tensors are not).
pub(crate) fn is_plain(v: &Bound<'_, PyAny>, plain: &Bound<'_, PyTuple>) -> bool {
    let ty = v.get_type();
    plain.iter().any(|p| ty.is(&p))
}

/// Runs `spec`'s contract on described tensors (whose Python objects the caller holds).
pub(crate) fn check_described<T: AsRef<str> + Send, A: AsRef<str> + Send>(
    py: Python<'_>,
    spec: &OpSpec,
    described: Vec<(T, Described)>,
    args: Vec<(A, Value)>,
) -> PyResult<Report> {
    let views: Vec<(T, TensorView<'_>)> = described
        .into_iter()
        .map(|(name, (address, shape, strides, dtype))| {
            Ok((name, view(address, shape, strides, dtype)?))
        })
        .collect::<PyResult<_>>()?;
    crate::run_report(py, spec, views, args)
}

/// The result of a hot-path check: the op's canonical name, the report as JSON (None when
/// there is no finding), and the tensors read as shape and dtype only.
type Checked = (&'static str, Option<String>, Vec<String>);

/// Checks a call given as its argument dict. `plain`: the exact tensor types read in place
/// (torch.Tensor, nn.Parameter, ...); `strided`: torch.strided; `unread`: names whose values
/// are not read. None: the general path must decide (see the module docs).
#[pyfunction]
pub fn check_plain(
    py: Python<'_>,
    op: &str,
    call: &Bound<'_, PyDict>,
    unread: &Bound<'_, PyAny>,
    plain: &Bound<'_, PyTuple>,
    strided: &Bound<'_, PyAny>,
) -> PyResult<Option<Checked>> {
    let spec = op_spec(op)?;
    let mut described: Vec<(String, Described)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut args: Vec<(String, Value)> = Vec::new();
    for (k, v) in call.iter() {
        let name: String = k.extract()?;
        if is_plain(&v, plain) {
            let Some((d, abstract_)) = describe(&v, unread.contains(&k)?, strided)? else {
                return Ok(None);
            };
            if abstract_ {
                skipped.push(name.clone());
            }
            described.push((name, d));
        } else if is_scalar(&v) {
            args.push((name, value(&v)?));
        } else {
            return Ok(None);
        }
    }
    // The tensors of `call` stay alive (the dict holds them) for the whole check.
    let report = check_described(py, spec, described, args)?;
    let json = (!report.findings.is_empty()).then(|| crate::report_json(&report));
    Ok(Some((spec.name, json, skipped)))
}
