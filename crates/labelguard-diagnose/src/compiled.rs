//! Failures inside kernels that `torch.compile` (TorchInductor) generated. Inductor checks every
//! indirect index it loads against the size it indexes, `index out of bounds: 0 <= tmp4 < 32000`:
//! a `TORCH_CHECK` in its C++ on the CPU (raised as `RuntimeError: kernel, <file>.cpp:44, ...`,
//! or, inside an OpenMP region, `terminate called after throwing ... what(): kernel, ...`), a
//! Triton `device_assert` on CUDA (`...py:30: unknown: block: [..], thread: [..] Assertion
//! `index out of bounds: 0 <= tmp4 < 1 + ks0` failed.`). The knowledge base sends these lines to
//! the explanation `compiled-index`; this module names the op from the fused kernel's name, when
//! the traceback shows its call in the generated `call` function and the name holds exactly one
//! indexing op (`cpp_fused_embedding_mean_0`, `triton_poi_fused_embedding_0`,
//! `cpp_fused__log_softmax_nll_loss_forward_0`), and reads the bound (the table or class count).
//! A name with none or several indexing ops names none: the op stays `unknown`.
//!
//! Sources: inductor's `gen_assert_indirect_indexing` / `indirect_assert` (torch/_inductor/codegen
//! cpp.py and triton.py, torch 2.15) print `index out of bounds: {lower}{var} < {upper}`; the
//! Triton lines of pytorch/torchtitan#1640, Lightning-AI/litgpt#774, meta-pytorch/gpt-fast#14;
//! the CPU forms of pytorch/pytorch#195402, #111952, #190272 and #100967 (the c10::Error form of
//! torch 2.1); the logs of `tests/fixtures/logs/inductor_*.log`, made with torch 2.15 on the CPU.

use crate::context::{Context, Refined};
use crate::model::{Confidence, Diagnosis, LogReport};
use crate::observed::Traceback;
use std::sync::OnceLock;

/// The explanation of the knowledge base for these failures.
pub(crate) const EXPLAIN: &str = "compiled-index";

/// ATen ops that inductor writes in a fused kernel's name and that belong to no op of the table:
/// `_unsafe_index` is upsampling's own computed index, never a user's.
const NOT_OPS: &[&str] = &["unsafe_index"];

/// Every kernel name of the op table (its rows' `kernels`) and [`NOT_OPS`] (op ""), longest
/// first, so that `nll_loss2d_forward` wins over a shorter name inside it.
fn kernel_names() -> &'static [(&'static str, &'static str)] {
    static NAMES: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let table = labelguard_core::OPS
            .iter()
            .flat_map(|op| op.surface.kernels.iter().map(move |k| (*k, op.name)));
        let mut names: Vec<_> = NOT_OPS.iter().map(|k| (*k, "")).chain(table).collect();
        names.sort_by_key(|(k, _)| std::cmp::Reverse(k.split('_').count()));
        names
    })
}

/// The bound of an inductor index check: `3L` -> 3, `32000` -> 32000, `1 + ks0` -> None (a
/// size known at run time only).
pub(crate) fn bound(line: &str) -> Option<(String, Option<u64>)> {
    let rest = &line[line.find("index out of bounds: ")? + "index out of bounds: ".len()..];
    let after = &rest[rest.find(" < ")? + 3..];
    let end = after.find(['`', '\'', '"', ',']).unwrap_or(after.len());
    let text = after[..end].trim().to_string();
    let digits = text.strip_suffix('L').unwrap_or(&text);
    let value = digits.parse::<u64>().ok();
    (!text.is_empty()).then_some((text, value))
}

/// The ops fused into a kernel of this name that index (deduplicated, in the name's order).
pub(crate) fn kernel_ops(kernel: &str) -> Vec<&'static str> {
    let Some(start) = kernel.find("fused_") else {
        return Vec::new();
    };
    let tokens: Vec<&str> = kernel[start + "fused_".len()..].split('_').collect();
    let mut ops: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let found = kernel_names().iter().find_map(|&(name, op)| {
            let n = name.split('_').count();
            (i + n <= tokens.len() && tokens[i..i + n].join("_") == name).then_some((n, op))
        });
        match found {
            Some((n, op)) => {
                if !op.is_empty() && !ops.contains(&op) {
                    ops.push(op);
                }
                i += n;
            }
            None => i += 1,
        }
    }
    ops
}

/// The generated kernel called in the traceback: the innermost frame of an inductor output file
/// whose line calls a fused kernel (`cpp_fused_embedding_mean_0(buf1, ...)`,
/// `triton_poi_fused_embedding_0.run(...)`).
fn kernel_in(tb: Option<&Traceback>) -> Option<String> {
    tb?.frames.iter().rev().find_map(|f| {
        let code = f.code.as_deref()?;
        let name: String = code
            .trim()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (f.file.contains("torchinductor") && name.contains("fused_")).then_some(name)
    })
}

/// The op and explanation of a failed inductor index check, from the kernel that the traceback
/// shows; the diagnosis then says what the bound is and how to localise the call.
pub(crate) fn refine(c: &Context, r: Refined, tb: Option<&Traceback>) -> (Refined, Option<String>) {
    if c.kb.explain(r.explain).key != EXPLAIN {
        return (r, None);
    }
    let kernel = kernel_in(tb);
    let ops = kernel.as_deref().map(kernel_ops).unwrap_or_default();
    let mut r = r;
    if let [op] = ops[..] {
        // The explanation of a device assert in that op (every op of the table has one).
        if let Some(&explain) = c.kb.op_default.get(op) {
            r.explain = explain;
            r.op = op.to_string();
        }
    } else if ops.len() > 1 {
        r.candidates = ops.iter().map(|o| o.to_string()).collect();
    }
    (r, kernel)
}

/// What the bound means for the op, the kernel, and the rerun that finds the line: added to a
/// diagnosis of a failed inductor index check.
pub(crate) fn annotate(d: &mut Diagnosis, kernel: Option<String>, line: &str) {
    let size = match bound(line) {
        Some((_, Some(n))) => {
            let what = match d.op.as_str() {
                "nll_loss" | "cross_entropy" => format!("{n}, the number of classes (the model's outputs): a target is not below it"),
                "embedding" => format!("{n}, the rows of the embedding table (the vocabulary): an id is not below it"),
                "unknown" => format!("{n}, the size of the indexed table or dimension (a class count, a vocabulary)"),
                _ => format!("{n}, the size of the indexed dimension"),
            };
            format!(" The compiled kernel's bound is {what}.")
        }
        Some((text, None)) => format!(" The compiled kernel's bound is `{text}`, a size known only at run time (dynamic shapes)."),
        None => String::new(),
    };
    let named = match (&kernel, d.op.as_str()) {
        (Some(k), "unknown") if !d.candidates.is_empty() => format!(
            " The kernel `{k}` fuses several indexing ops ({}); the log does not say which failed.",
            d.candidates.join(", ")
        ),
        (Some(k), "unknown") => format!(" The kernel `{k}` names no indexing op."),
        (None, "unknown") => {
            " No traceback names the generated kernel, so the op is unknown.".to_string()
        }
        (Some(k), op) => format!(" The kernel `{k}` that torch.compile generated runs {op}."),
        (None, _) => String::new(),
    };
    d.cause = format!("{}{size}{named}", d.cause);
    d.finding.fix = format!(
        "{} To find the line: `labelguard run --rerun-sync -- <command>` reruns it with torch.compile off (TORCH_COMPILE_DISABLE=1) and the guards on; or call labelguard.enable() before the model is compiled, and the check inside the compiled graph names the call.",
        d.finding.fix
    );
    if d.op == "unknown" {
        d.confidence = Confidence::Low; // the failure is known, the op is not
    }
    if kernel.is_some() {
        d.kernel = kernel;
    }
    if let Some(u) = d.user_frame.as_mut() {
        u.trusted = false; // the compiled frame's first line, not the call that failed
    }
}

/// Whether a diagnosis is of a failed inductor index check (its evidence quotes the check).
pub(crate) fn failed_in_generated_kernel(d: &Diagnosis) -> bool {
    d.evidence.iter().any(|e| bound(&e.text).is_some())
}

impl LogReport {
    /// Whether a failure happened in a kernel that torch.compile generated: its line is unknown
    /// until the command runs with compilation off.
    pub fn compiled_failure(&self) -> bool {
        self.findings.iter().any(failed_in_generated_kernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_of_every_form() {
        let cpu = "RuntimeError: kernel, /tmp/torchinductor_root/qk/cqk.main.cpp:44, index out of bounds: 0 <= tmp21 < 3L";
        assert_eq!(bound(cpu), Some(("3L".into(), Some(3))));
        let triton = "unknown:0: unknown: block: [0,0,0], thread: [128,0,0] Assertion `index out of bounds: 0 <= tmp4 < 32000` failed.";
        assert_eq!(bound(triton), Some(("32000".into(), Some(32000))));
        let dynamic = "x.py:30: unknown: block: [1,0,0], thread: [48,0,0] Assertion `index out of bounds: 0 <= tmp4 < 1 + ks0` failed.";
        assert_eq!(bound(dynamic), Some(("1 + ks0".into(), None)));
        assert_eq!(
            bound("RuntimeError: index out of bounds: tmp1 < 2L"),
            Some(("2L".into(), Some(2)))
        );
        assert_eq!(
            bound("index 5 is out of bounds for dimension 1 with size 3"),
            None
        );
    }

    #[test]
    fn kernel_names_give_their_indexing_ops() {
        let ops = kernel_ops;
        assert_eq!(ops("cpp_fused_embedding_mean_0"), ["embedding"]);
        assert_eq!(ops("triton_poi_fused_embedding_0"), ["embedding"]);
        assert_eq!(
            ops(
                "cpp_fused__log_softmax_arange_eq_expand_nll_loss_backward_nll_loss_forward_view_1"
            ),
            ["nll_loss"]
        );
        assert_eq!(ops("triton_red_fused_gather_sum_2"), ["gather"]);
        assert_eq!(ops("cpp_fused_index_select_3"), ["index_select"]);
        assert_eq!(
            ops("cpp_fused_embedding_gather_mul_0"),
            ["embedding", "gather"]
        );
        assert!(ops("cpp_fused_add_mul_0").is_empty());
        assert!(ops("cpp_fused__unsafe_index_add_0").is_empty());
        assert!(ops("kernel").is_empty());
    }
}
