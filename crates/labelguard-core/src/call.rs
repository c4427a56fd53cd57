//! A call of a PyTorch op: its tensors and scalar arguments, named as in PyTorch's functional API.

use crate::tensor::TensorView;
use std::fmt;

/// A scalar argument's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    IntList(Vec<i64>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{}", crate::tensor::format_float(*v)),
            Value::Bool(v) => f.write_str(if *v { "True" } else { "False" }),
            Value::Str(s) => write!(f, "'{s}'"),
            Value::IntList(v) => write!(f, "{v:?}"),
        }
    }
}

/// The type of a scalar parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Int,
    /// An int or `None`.
    OptInt,
    Float,
    /// A float or `None`.
    OptFloat,
    Bool,
    Str,
    /// A list of ints (`[3,4]` or `3,4`); used for lengths that may also come as tensors.
    IntList,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Int => "an integer",
            Kind::OptInt => "an integer or None",
            Kind::Float => "a number",
            Kind::OptFloat => "a number or None",
            Kind::Bool => "true or false",
            Kind::Str => "a string",
            Kind::IntList => "a list of integers such as [3,4]",
        }
    }

    /// Whether a value (from the CLI or a binding) has this kind.
    pub fn accepts(self, v: &Value) -> bool {
        matches!(
            (self, v),
            (Kind::Int, Value::Int(_) | Value::Bool(_))
                | (Kind::OptInt, Value::Int(_) | Value::Bool(_) | Value::None)
                | (Kind::Float, Value::Float(_) | Value::Int(_))
                | (
                    Kind::OptFloat,
                    Value::Float(_) | Value::Int(_) | Value::None
                )
                | (Kind::Bool, Value::Bool(_))
                | (Kind::Str, Value::Str(_))
                | (Kind::IntList, Value::IntList(_) | Value::None)
        )
    }

    /// Parses the text of `--arg NAME=TEXT`.
    pub fn parse(self, text: &str) -> Option<Value> {
        let t = text.trim();
        let is_none = matches!(t, "None" | "none" | "null");
        match self {
            Kind::Int => parse_int(t).map(Value::Int),
            Kind::OptInt if is_none => Some(Value::None),
            Kind::OptInt => parse_int(t).map(Value::Int),
            Kind::Float => parse_float(t).map(Value::Float),
            Kind::OptFloat if is_none => Some(Value::None),
            Kind::OptFloat => parse_float(t).map(Value::Float),
            Kind::Bool => match t.to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => Some(Value::Bool(true)),
                "false" | "0" | "no" => Some(Value::Bool(false)),
                _ => None,
            },
            Kind::Str => Some(Value::Str(
                t.trim_matches(|c| c == '\'' || c == '"').to_string(),
            )),
            Kind::IntList => {
                let inner = t
                    .trim_start_matches(['[', '('])
                    .trim_end_matches([']', ')']);
                if inner.trim().is_empty() {
                    return Some(Value::IntList(Vec::new()));
                }
                inner
                    .split(',')
                    .map(|p| parse_int(p.trim()))
                    .collect::<Option<Vec<_>>>()
                    .map(Value::IntList)
            }
        }
    }
}

fn parse_int(t: &str) -> Option<i64> {
    t.replace('_', "").parse().ok()
}

fn parse_float(t: &str) -> Option<f64> {
    match t.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        s => s.parse().ok(),
    }
}

/// A scalar parameter of an op, with PyTorch's default (`None` in `default` means required).
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub default: Option<Default>,
}

/// A parameter's default, as a constant.
#[derive(Clone, Copy, Debug)]
pub enum Default {
    None,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'static str),
}

impl Default {
    fn value(self) -> Value {
        match self {
            Default::None => Value::None,
            Default::Int(v) => Value::Int(v),
            Default::Float(v) => Value::Float(v),
            Default::Bool(v) => Value::Bool(v),
            Default::Str(s) => Value::Str(s.to_string()),
        }
    }
}

/// A tensor parameter of an op.
#[derive(Clone, Copy, Debug)]
pub struct TensorParam {
    pub name: &'static str,
    pub required: bool,
}

/// Why a call could not even be described: the user's words, not PyTorch's verdict.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    #[error("unknown op '{name}'; known ops: {known}")]
    UnknownOp { name: String, known: String },
    #[error(
        "tensor '{name}' is not a parameter of {op}; its tensors are named {expected}{suggestion}"
    )]
    UnknownTensor {
        op: &'static str,
        name: String,
        expected: String,
        /// ` (rename 'labels' to 'target'?)` when the name is a common synonym.
        suggestion: String,
    },
    #[error("{op} needs a tensor named '{name}' (its tensors are named {expected})")]
    MissingTensor {
        op: &'static str,
        name: &'static str,
        expected: String,
    },
    #[error("'{name}' is not an argument of {op}; its arguments are {expected}")]
    UnknownArg {
        op: &'static str,
        name: String,
        expected: String,
    },
    #[error("{op} needs the argument {name} (give it as --arg {name}=VALUE)")]
    MissingArg {
        op: &'static str,
        name: &'static str,
    },
    #[error("cannot read {name}={text}: {name} takes {expected}")]
    BadValue {
        name: String,
        text: String,
        expected: &'static str,
    },
    #[error("{0}")]
    Conflict(String),
}

/// The PyTorch parameter name that a common tensor name in training code stands for.
fn synonym(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "logits" | "pred" | "preds" | "prediction" | "predictions" | "output" | "outputs"
        | "probs" | "x" | "input_ids" | "ids" | "tokens" => "input",
        "labels" | "label" | "y" | "gt" | "mask" | "masks" | "targets" | "seg" | "segmentation" => {
            "target"
        }
        "idx" | "indices" | "indexes" => "index",
        "class_weight" | "class_weights" | "weights" => "weight",
        _ => return None,
    })
}

/// A fully described call: tensors by PyTorch parameter name, scalar arguments with defaults.
/// Both are held in the order of the op's parameters (a handful), so building a call
/// allocates two short vectors and a lookup is a scan of a few names.
#[derive(Clone, Debug)]
pub struct Call<'a> {
    pub op: &'static str,
    tensor_params: &'static [TensorParam],
    tensors: Vec<Option<TensorView<'a>>>,
    params: &'static [Param],
    args: Vec<Value>,
}

impl<'a> Call<'a> {
    /// Builds a call, checking names against the op's parameters and filling in defaults.
    /// Names are anything string-like: the CLI's owned strings, the Python hot path's borrowed ones.
    pub fn new<T: AsRef<str>, A: AsRef<str>>(
        op: &'static str,
        tensor_params: &'static [TensorParam],
        params: &'static [Param],
        tensors: Vec<(T, TensorView<'a>)>,
        args: Vec<(A, Value)>,
    ) -> Result<Call<'a>, CallError> {
        let tensor_names = || {
            tensor_params
                .iter()
                .map(|p| format!("'{}'", p.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut by_param: Vec<Option<TensorView<'a>>> = vec![None; tensor_params.len()];
        for (name, view) in tensors {
            let name = name.as_ref();
            let Some(i) = tensor_params.iter().position(|p| p.name == name) else {
                let suggestion = synonym(name)
                    .filter(|s| tensor_params.iter().any(|p| p.name == *s))
                    .map(|s| format!(" (rename '{name}' to '{s}'?)"))
                    .unwrap_or_default();
                return Err(CallError::UnknownTensor {
                    op,
                    name: name.to_string(),
                    expected: tensor_names(),
                    suggestion,
                });
            };
            by_param[i] = Some(view);
        }
        for (p, view) in tensor_params.iter().zip(&by_param) {
            if p.required && view.is_none() {
                return Err(CallError::MissingTensor {
                    op,
                    name: p.name,
                    expected: tensor_names(),
                });
            }
        }
        let mut values: Vec<Option<Value>> = vec![None; params.len()];
        for (name, value) in args {
            let name = name.as_ref();
            let Some(i) = params.iter().position(|p| p.name == name) else {
                let expected = if params.is_empty() {
                    "none".to_string()
                } else {
                    params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                };
                return Err(CallError::UnknownArg {
                    op,
                    name: name.to_string(),
                    expected,
                });
            };
            if !params[i].kind.accepts(&value) {
                return Err(CallError::BadValue {
                    name: name.to_string(),
                    text: value.to_string(),
                    expected: params[i].kind.describe(),
                });
            }
            values[i] = Some(value);
        }
        let args = params
            .iter()
            .zip(values)
            .map(|(p, v)| match (v, p.default) {
                (Some(v), _) => Ok(v),
                (None, Some(d)) => Ok(d.value()),
                (None, None) => Err(CallError::MissingArg { op, name: p.name }),
            })
            .collect::<Result<_, _>>()?;
        Ok(Call {
            op,
            tensor_params,
            tensors: by_param,
            params,
            args,
        })
    }

    /// Parses `NAME=TEXT` pairs against the op's parameters.
    pub fn parse_args(
        params: &[Param],
        args: &[(String, String)],
    ) -> Result<Vec<(String, Value)>, CallError> {
        args.iter()
            .map(|(name, text)| {
                let kind = params
                    .iter()
                    .find(|p| p.name == name)
                    .map(|p| p.kind)
                    .unwrap_or(Kind::Str);
                kind.parse(text)
                    .map(|v| (name.clone(), v))
                    .ok_or_else(|| CallError::BadValue {
                        name: name.clone(),
                        text: text.clone(),
                        expected: kind.describe(),
                    })
            })
            .collect()
    }

    pub fn tensor(&self, name: &str) -> Option<&TensorView<'a>> {
        let i = self.tensor_params.iter().position(|p| p.name == name)?;
        self.tensors[i].as_ref()
    }
    /// A required tensor (presence was checked in `new`).
    pub fn required(&self, name: &str) -> &TensorView<'a> {
        self.tensor(name)
            .unwrap_or_else(|| panic!("{} has no tensor '{name}'", self.op))
    }
    pub fn arg(&self, name: &str) -> &Value {
        match self.params.iter().position(|p| p.name == name) {
            Some(i) => &self.args[i],
            None => panic!("{} has no argument '{name}'", self.op),
        }
    }
    pub fn int(&self, name: &str) -> i64 {
        match self.arg(name) {
            Value::Int(v) => *v,
            Value::Bool(b) => *b as i64,
            other => panic!("argument {name} is {other:?}, not an int"),
        }
    }
    pub fn opt_int(&self, name: &str) -> Option<i64> {
        match self.arg(name) {
            Value::None => None,
            _ => Some(self.int(name)),
        }
    }
    pub fn float(&self, name: &str) -> f64 {
        match self.arg(name) {
            Value::Float(v) => *v,
            Value::Int(v) => *v as f64,
            other => panic!("argument {name} is {other:?}, not a float"),
        }
    }
    pub fn opt_float(&self, name: &str) -> Option<f64> {
        match self.arg(name) {
            Value::None => None,
            _ => Some(self.float(name)),
        }
    }
    pub fn bool(&self, name: &str) -> bool {
        match self.arg(name) {
            Value::Bool(v) => *v,
            Value::Int(v) => *v != 0,
            other => panic!("argument {name} is {other:?}, not a bool"),
        }
    }
    pub fn str(&self, name: &str) -> &str {
        match self.arg(name) {
            Value::Str(s) => s,
            other => panic!("argument {name} is {other:?}, not a string"),
        }
    }
    pub fn int_list(&self, name: &str) -> Option<&[i64]> {
        match self.arg(name) {
            Value::IntList(v) => Some(v),
            _ => None,
        }
    }
}
