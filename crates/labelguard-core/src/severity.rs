//! How bad a finding is: the severity a rule gives it and the verdict, what PyTorch does with
//! the call. Both rules ([`crate::rule`]) and findings ([`crate::finding`]) use them; neither
//! owns them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What PyTorch does with a call. Ordered by precedence: a host error stops the call before
/// any kernel runs, a device assert stops it in the kernel, silent garbage lets it finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Accepted, and the result means something.
    Ok,
    /// Accepted, but the result is garbage (NaN loss, wrong gradients, out-of-bounds reads).
    Silent,
    /// On CUDA a kernel asserts (`device-side assert triggered`); on the CPU PyTorch raises.
    DeviceAssert,
    /// PyTorch raises on the host before any kernel runs.
    Error,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Silent => "silent",
            Verdict::DeviceAssert => "device_assert",
            Verdict::Error => "error",
        }
    }
    /// Whether PyTorch raises (on the CPU) for this verdict.
    pub fn raises(self) -> bool {
        matches!(self, Verdict::DeviceAssert | Verdict::Error)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How serious a rule's findings are. Ordered: `Info < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}
