//! Captured calls: a `.safetensors` file whose tensors are a call's tensors (PyTorch names)
//! and whose metadata holds `labelguard.op` and `labelguard.args` (a JSON object), as
//! `labelguard.capture` writes them. Replaying reruns the check offline.

use crate::{read_metadata, read_tensors, Limits, ReadError};
use labelguard_core::{lookup, Report, Value};
use std::path::Path;

/// Metadata keys of a captured call.
pub const OP_KEY: &str = "labelguard.op";
pub const ARGS_KEY: &str = "labelguard.args";

/// Why a capture could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{0}: not a labelguard capture (no '{OP_KEY}' in its metadata); use `labelguard check OP FILE`")]
    NotACapture(String),
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

fn to_value(v: &serde_json::Value) -> Option<Value> {
    Some(match v {
        serde_json::Value::Null => Value::None,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64()?),
        },
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(a) => {
            Value::IntList(a.iter().map(|x| x.as_i64()).collect::<Option<_>>()?)
        }
        serde_json::Value::Object(_) => return None,
    })
}

/// The metadata of a capture (all of it: versions, traceback, ...), and its check replayed.
pub fn replay(path: &Path) -> Result<(Vec<(String, String)>, Report), ReplayError> {
    let shown = path.display().to_string();
    let metadata = read_metadata(path)?;
    let get = |k: &str| {
        metadata
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let op = get(OP_KEY).ok_or_else(|| ReplayError::NotACapture(shown.clone()))?;
    let spec = lookup(op).map_err(|e| ReplayError::Invalid {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let args: serde_json::Map<String, serde_json::Value> = match get(ARGS_KEY) {
        Some(text) => serde_json::from_str(text).map_err(|e| ReplayError::Invalid {
            path: shown.clone(),
            message: format!("{ARGS_KEY} is not a JSON object: {e}"),
        })?,
        None => Default::default(),
    };
    let args = args
        .iter()
        .map(|(k, v)| {
            to_value(v)
                .map(|v| (k.clone(), v))
                .ok_or_else(|| ReplayError::Invalid {
                    path: shown.clone(),
                    message: format!("argument {k}={v} cannot be replayed"),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let tensors = read_tensors(path, &Limits::default())?;
    let views = tensors
        .iter()
        .map(|t| (t.name.clone(), t.tensor.view()))
        .collect();
    let report = spec.check(views, args).map_err(|e| ReplayError::Invalid {
        path: shown,
        message: e.to_string(),
    })?;
    Ok((metadata, report))
}
