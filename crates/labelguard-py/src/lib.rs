//! `labelguard._native`: the contract engine for Python. Thin: conversions in, JSON out.
//!
//! Tensors arrive as `(name, owner, address, shape, strides, dtype)` tuples built by the
//! package's own Python code (`labelguard/_tensors.py`) from CPU numpy arrays and torch
//! tensors: zero-copy, any strides, bfloat16 included. The owner object is held for the whole
//! call, which keeps the memory alive while the GIL is released.

mod bound;
mod hot;
mod through;

use labelguard_core::{DType, OpSpec, Report, TensorView, Value};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A tensor described by the Python side.
type TensorArg<'py> = (
    String,
    Bound<'py, PyAny>,
    usize,
    Vec<usize>,
    Vec<isize>,
    String,
);

fn parse_dtype(dtype: &str) -> PyResult<DType> {
    DType::parse(dtype).ok_or_else(|| PyTypeError::new_err(format!("unsupported dtype {dtype}")))
}

/// Strides as the views take them: PyTorch and numpy give signed ones; a negative one must be
/// copied first.
fn usize_strides(strides: &[isize]) -> PyResult<Vec<usize>> {
    strides
        .iter()
        .map(|&s| {
            usize::try_from(s)
                .map_err(|_| PyValueError::new_err("negative strides must be copied first"))
        })
        .collect()
}

/// Builds a view over memory owned by a live Python object.
fn view<'a>(
    address: usize,
    shape: Vec<usize>,
    strides: Vec<usize>,
    dtype: DType,
) -> PyResult<TensorView<'a>> {
    if strides.len() != shape.len() {
        return Err(PyValueError::new_err("shape and strides differ in length"));
    }
    let numel: usize = shape.iter().product();
    let span = if numel == 0 {
        0
    } else {
        shape
            .iter()
            .zip(&strides)
            .map(|(&n, &s)| (n - 1) * s)
            .sum::<usize>()
            + 1
    };
    if numel > 0 && address == 0 {
        return Err(PyValueError::new_err("null data pointer"));
    }
    let bytes: &'a [u8] = if span == 0 {
        &[]
    } else {
        // SAFETY: the address and span come from a live numpy array or CPU tensor whose owner
        // is held by the caller for the duration of the call (see the module docs).
        unsafe { std::slice::from_raw_parts(address as *const u8, span * dtype.size()) }
    };
    TensorView::from_parts(dtype, shape, strides, bytes)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A view of a tensor described by the Python side.
fn described_view<'a>(
    address: usize,
    shape: &[usize],
    strides: &[isize],
    dtype: &str,
) -> PyResult<TensorView<'a>> {
    view(
        address,
        shape.to_vec(),
        usize_strides(strides)?,
        parse_dtype(dtype)?,
    )
}

pub(crate) fn value(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_none() {
        Ok(Value::None)
    } else if v.is_instance_of::<PyBool>() {
        Ok(Value::Bool(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        Ok(Value::Int(v.extract()?))
    } else if v.is_instance_of::<PyFloat>() {
        Ok(Value::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(Value::Str(v.extract()?))
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        Ok(Value::IntList(v.extract()?))
    } else {
        Err(PyTypeError::new_err(format!(
            "cannot pass {} as an argument",
            v.get_type().name()?
        )))
    }
}

pub(crate) fn report_json(r: &Report) -> String {
    labelguard_report::call::json(r)
}

/// Calls reading fewer bytes than this keep the GIL: releasing it costs more than checking a
/// small call (enable()'s common case).
const DETACH_BYTES: usize = 1 << 20;

/// Runs `spec`'s contract on the views, without the GIL when they are large.
pub(crate) fn run_report<T: AsRef<str> + Send, A: AsRef<str> + Send>(
    py: Python<'_>,
    spec: &OpSpec,
    views: Vec<(T, TensorView<'_>)>,
    args: Vec<(A, Value)>,
) -> PyResult<Report> {
    let bytes: usize = views.iter().map(|(_, v)| v.bytes().len()).sum();
    if bytes < DETACH_BYTES {
        spec.check(views, args)
    } else {
        py.detach(|| spec.check(views, args))
    }
    .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `run_report`'s report as JSON, or None when it has no finding (a valid call then costs no
/// JSON on either side).
pub(crate) fn run_check(
    py: Python<'_>,
    spec: &OpSpec,
    views: Vec<(String, TensorView<'_>)>,
    args: Vec<(String, Value)>,
) -> PyResult<Option<String>> {
    let report = run_report(py, spec, views, args)?;
    Ok((!report.findings.is_empty()).then(|| report_json(&report)))
}

/// Checks one call; returns the op's canonical name and the report as JSON, or None for the
/// JSON when the report has no finding (the valid call then costs no JSON on either side).
/// Raises ValueError for usage errors.
#[pyfunction]
fn check(
    py: Python<'_>,
    op: &str,
    tensors: Vec<TensorArg<'_>>,
    args: Vec<(String, Bound<'_, PyAny>)>,
) -> PyResult<(&'static str, Option<String>)> {
    let spec = hot::op_spec(op)?;
    let args: Vec<(String, Value)> = args
        .iter()
        .map(|(k, v)| Ok((k.clone(), value(v)?)))
        .collect::<PyResult<_>>()?;
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(name, _owner, address, shape, strides, dtype)| {
            Ok((
                name.clone(),
                described_view(*address, shape, strides, dtype)?,
            ))
        })
        .collect::<PyResult<_>>()?;
    Ok((spec.name, run_check(py, spec, views, args)?))
}

/// Checks class-id targets alone (DataLoader guards, where no logits exist yet), with the
/// label-target contract the scan uses for label arrays; `numpy` says which library holds the
/// target, so that the fix is written in its API.
#[pyfunction]
fn check_class_targets(
    py: Python<'_>,
    target: TensorArg<'_>,
    num_classes: i64,
    ignore_index: i64,
    numpy: bool,
) -> PyResult<String> {
    use labelguard_core::ops::label_target::{class_targets, Extent, Holder, LabelTarget};
    let (name, _owner, address, shape, strides, dtype) = &target;
    let t = described_view(*address, shape, strides, dtype)?;
    let contract = LabelTarget {
        name,
        num_classes: Some(num_classes),
        holder: if numpy { Holder::Numpy } else { Holder::Torch },
        extent: Extent::Sample,
    };
    let findings = py.detach(|| class_targets(&t, &contract, ignore_index));
    Ok(report_json(&Report::new("targets", findings)))
}

/// A model directory read offline (`labelguard_model::read_model_dir`): its `ModelSpec` as JSON.
/// Raises ValueError naming the file that cannot be read.
#[pyfunction]
fn read_model_dir(py: Python<'_>, path: std::path::PathBuf) -> PyResult<String> {
    let spec = py
        .detach(|| labelguard_model::read_model_dir(&path))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(serde_json::to_string(&spec).expect("a ModelSpec serializes"))
}

/// The `ModelSpec` a configuration describes, from its JSON (a live model's
/// `config.to_dict()`): the parser of `config.json`, so that both sources agree.
#[pyfunction]
fn model_spec_of_config(config: &str, source: &str) -> PyResult<String> {
    let value: serde_json::Value = serde_json::from_str(config)
        .map_err(|e| PyValueError::new_err(format!("{source}: {e}")))?;
    let spec = labelguard_model::read_config(&value, source)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(serde_json::to_string(&spec).expect("a ModelSpec serializes"))
}

/// Checks a model's tokenizer against it (LG809-LG813) from its `ModelSpec` as JSON, and with
/// `labels`, its classification head against them (LG812): a report as JSON.
#[pyfunction]
#[pyo3(signature = (spec, labels=None))]
fn check_model(spec: &str, labels: Option<Vec<i64>>) -> PyResult<String> {
    use labelguard_core::model::{check_head_labels, check_model, ModelSpec};
    let spec: ModelSpec = serde_json::from_str(spec)
        .map_err(|e| PyValueError::new_err(format!("not a model description: {e}")))?;
    let mut findings = check_model(&spec);
    if let Some(labels) = labels {
        findings.extend(check_head_labels(&spec, &labels));
    }
    Ok(report_json(&Report::new("model", findings)))
}

/// Writes tensors and string metadata to a .safetensors file, atomically.
#[pyfunction]
fn save_safetensors(
    path: std::path::PathBuf,
    tensors: Vec<TensorArg<'_>>,
    metadata: Vec<(String, String)>,
) -> PyResult<()> {
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(name, _o, address, shape, strides, dtype)| {
            Ok((
                name.clone(),
                described_view(*address, shape, strides, dtype)?,
            ))
        })
        .collect::<PyResult<_>>()?;
    labelguard_io::write_safetensors(&path, &views, &metadata)
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))
}

/// Replays a captured call: `(metadata, report JSON)`.
#[pyfunction]
fn replay(py: Python<'_>, path: std::path::PathBuf) -> PyResult<(Vec<(String, String)>, String)> {
    let (metadata, report) = py
        .detach(|| labelguard_io::replay(&path))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((metadata, report_json(&report)))
}

/// Runs the `labelguard` command line (`argv[0]` is the program name); returns the exit code.
/// This is the wheel's `labelguard` command, so the wheel is one install for the API and the
/// command; without the `command` feature the extension links no scan, fix or run code.
#[cfg(feature = "command")]
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> i32 {
    let code = py.detach(|| labelguard_cli::run(argv));
    (0..=255u8)
        .find(|&c| std::process::ExitCode::from(c) == code)
        .map_or(1, i32::from)
}

/// `(code, name, severity, summary)` of every rule.
#[pyfunction]
fn rules() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    labelguard_core::rules::ALL
        .iter()
        .map(|r| (r.code, r.name, r.severity.as_str(), r.summary()))
        .collect()
}

/// The codes of the rules decided by shapes, dtypes and arguments alone: the ones a check can
/// decide while `torch.compile` traces a call, before any value exists.
#[pyfunction]
fn metadata_rules() -> Vec<&'static str> {
    labelguard_core::rules::ALL
        .iter()
        .filter(|r| r.decided_by == labelguard_core::DecidedBy::Metadata)
        .map(|r| r.code)
        .collect()
}

/// The documentation of one rule, by code or name.
#[pyfunction]
fn rule_doc(code: &str) -> Option<String> {
    labelguard_core::rules::by_code(code).map(|r| r.documentation())
}

/// The op table as JSON (`labelguard ops --format json` prints the same): what `enable()`
/// wraps, and how, is built from it.
#[pyfunction]
fn op_table() -> String {
    serde_json::to_string(&labelguard_core::ops::listing()).expect("the table serializes")
}

/// The preset's defaults, overridden by explicit values: `(num_classes, ignore_index)`.
fn preset_defaults(
    preset: Option<&str>,
    num_classes: Option<i64>,
    ignore_index: Option<i64>,
) -> PyResult<(Option<&'static labelguard_labels::Preset>, i64, i64)> {
    let p = match preset {
        Some(name) => Some(labelguard_labels::preset::by_name(name).ok_or_else(|| {
            PyValueError::new_err(labelguard_labels::preset::unknown(name, name))
        })?),
        None => None,
    };
    let c = num_classes.or(p.map(|p| p.num_classes as i64)).unwrap_or(0);
    let ignore = ignore_index.or(p.map(|p| p.ignore_index)).unwrap_or(255);
    Ok((p, c, ignore))
}

/// `(kind, [(from, to), ...])` of a value repair: the tables `labelguard fix` applies.
#[pyfunction]
#[pyo3(signature = (fix, preset=None, num_classes=None, ignore_index=None, values=None))]
fn repair_table(
    fix: &str,
    preset: Option<&str>,
    num_classes: Option<i64>,
    ignore_index: Option<i64>,
    values: Option<Vec<i64>>,
) -> PyResult<(String, Vec<(i64, i64)>)> {
    use labelguard_labels::repair::{table, void_target, RepairKind};
    let kind = RepairKind::by_name(fix)
        .filter(|k| k.is_value_map() && *k != RepairKind::Map)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown fix '{fix}' (known: label_ids, one_based, binary_255, reduce_zero_label, void_to_ignore, colour_to_index)"
            ))
        })?;
    let (_, c, ignore) = preset_defaults(preset, num_classes, ignore_index)?;
    if matches!(kind, RepairKind::OneBased | RepairKind::ReduceZeroLabel) && c == 0 {
        return Err(PyValueError::new_err(format!(
            "fix='{}' needs num_classes (or a preset)",
            kind.name()
        )));
    }
    let values = values.unwrap_or_else(|| vec![255]);
    let t = table(kind, c, void_target(ignore), &values);
    Ok((
        kind.name().to_string(),
        t.into_iter().map(|[a, b]| (a, b)).collect(),
    ))
}

/// One colour and its class id.
type ColourId = ((u8, u8, u8), i64);

/// `[((r, g, b), id), ...]`: the preset's palette, then its void colours -> the ignore value.
#[pyfunction]
#[pyo3(signature = (preset, ignore_index=None))]
fn colour_table(preset: &str, ignore_index: Option<i64>) -> PyResult<Vec<ColourId>> {
    let (p, _, ignore) = preset_defaults(Some(preset), None, ignore_index)?;
    let p = p.expect("a preset was named");
    let mut out: Vec<ColourId> = Vec::new();
    let mut push = |c: [u8; 3], id: i64| {
        if !out.iter().any(|(k, _)| *k == (c[0], c[1], c[2])) {
            out.push(((c[0], c[1], c[2]), id));
        }
    };
    for (i, c) in (p.palette)().into_iter().enumerate() {
        push(c, i as i64);
    }
    for c in p.void_colours {
        push(*c, labelguard_labels::repair::void_target(ignore));
    }
    Ok(out)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Large tensors are scanned on every CPU this process may use, as PyTorch's own
    // reductions are (the command line keeps one thread per file).
    labelguard_core::kernels::set_scan_threads(
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(hot::check_plain, m)?)?;
    m.add_class::<bound::Binding>()?;
    m.add_class::<through::Through>()?;
    m.add_function(wrap_pyfunction!(bound::valid_call, m)?)?;
    m.add_function(wrap_pyfunction!(bound::valid_index, m)?)?;
    m.add_function(wrap_pyfunction!(check_class_targets, m)?)?;
    m.add_function(wrap_pyfunction!(save_safetensors, m)?)?;
    m.add_function(wrap_pyfunction!(read_model_dir, m)?)?;
    m.add_function(wrap_pyfunction!(model_spec_of_config, m)?)?;
    m.add_function(wrap_pyfunction!(check_model, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    #[cfg(feature = "command")]
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(rules, m)?)?;
    m.add_function(wrap_pyfunction!(metadata_rules, m)?)?;
    m.add_function(wrap_pyfunction!(rule_doc, m)?)?;
    m.add_function(wrap_pyfunction!(op_table, m)?)?;
    m.add_function(wrap_pyfunction!(repair_table, m)?)?;
    m.add_function(wrap_pyfunction!(colour_table, m)?)?;
    Ok(())
}
