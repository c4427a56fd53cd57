//! The knowledge base: PyTorch's messages as data (`knowledge.toml`), compiled once into matchers.
//!
//! Adding a signature is a data change: one `[[assert]]` or `[[message]]` entry pointing at an
//! `[explain.KEY]`. The code below only loads, validates and indexes the entries.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// Ops `diagnose` names that `enable()` does not wrap: their failures are known from logs only.
pub const LOG_ONLY_OPS: &[&str] = &["bernoulli"];

/// The op of a finding whose evidence names none.
pub const UNKNOWN_OP: &str = "unknown";

/// The operations a finding can name: every op of core's table (`labelguard ops`), then
/// [`LOG_ONLY_OPS`], then [`UNKNOWN_OP`].
pub fn ops() -> &'static [&'static str] {
    static OPS: OnceLock<Vec<&'static str>> = OnceLock::new();
    OPS.get_or_init(|| {
        let table = labelguard_core::OPS.iter().map(|o| o.name);
        table
            .chain(LOG_ONLY_OPS.iter().copied())
            .chain([UNKNOWN_OP])
            .collect()
    })
}

const SOURCE: &str = include_str!("knowledge.toml");

/// An index into [`Kb::explains`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExplainId(pub u16);

/// What went wrong and how to fix it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explain {
    #[serde(skip)]
    pub key: String,
    /// The op whose kernel or check fails (`unknown` when the evidence cannot tell).
    pub op: String,
    /// Ops a traceback may reveal instead (the caller of the failing kernel).
    #[serde(default)]
    pub candidates: Vec<String>,
    /// Candidate ops that change the explanation, e.g. `one_hot` for the scatter kernel.
    #[serde(default)]
    switch: BTreeMap<String, String>,
    #[serde(skip)]
    pub switch_ids: Vec<(String, ExplainId)>,
    pub code: String,
    pub title: String,
    pub cause: String,
    pub fix: String,
    /// A failure the program may log and go on from (inductor drops an autotuning choice that
    /// does not compile): its lines make one finding, and only when nothing else failed.
    #[serde(default)]
    pub recoverable: bool,
}

/// One device-assertion signature. Every given part must be a substring of the line's part.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssertSig {
    pub file: Option<String>,
    pub function: Option<String>,
    pub condition: Option<String>,
    explain: String,
    #[serde(skip, default = "no_explain")]
    pub explain_id: ExplainId,
    /// The kernel to name when the line does not print a function (Windows builds).
    pub kernel: Option<String>,
    /// The match does not rule out another explanation (a file that holds several assertions).
    #[serde(default)]
    pub weak: bool,
    /// The ops that launch the kernel (from `kernel_asserts.toml`); when given, the answer is
    /// one of them.
    #[serde(default)]
    pub ops: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    DeviceAssert,
    Async,
    Era,
    HostError,
    CudaError,
    Secondary,
    /// An error of one rank that follows from another rank's failure (LG909).
    Peer,
    Hint,
    Wrapper,
    Benign,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ByValue {
    pub value: Option<i64>,
    pub below: Option<i64>,
    explain: String,
    #[serde(skip, default = "no_explain")]
    pub explain_id: ExplainId,
}

impl Explain {
    /// The explanation to use when the failing op turns out to be `op` (one_hot for the scatter
    /// kernel).
    pub fn switch_for(&self, op: &str) -> Option<ExplainId> {
        self.switch_ids
            .iter()
            .find(|(o, _)| o == op)
            .map(|(_, id)| *id)
    }
}

impl ByValue {
    pub fn matches(&self, v: i64) -> bool {
        self.value.is_none_or(|x| x == v) && self.below.is_none_or(|b| v < b)
    }
}

/// One message signature: every string of `match` occurs in the line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageSig {
    #[serde(rename = "match")]
    pub needles: Vec<String>,
    pub kind: Kind,
    explain: Option<String>,
    #[serde(skip)]
    pub explain_id: Option<ExplainId>,
    pub era: Option<String>,
    /// This wording is followed by the "asynchronously reported" lines unless CUDA_LAUNCH_BLOCKING=1.
    #[serde(default)]
    pub sync_unless_async: bool,
    /// The integer printed right after this text is the offending value (`Target 255 is ...`).
    pub value_after: Option<String>,
    #[serde(default)]
    pub by_value: Vec<ByValue>,
    /// A CUDA error raised by a kernel: reported asynchronously, like an assert.
    #[serde(default)]
    pub kernel_error: bool,
    /// For hints: a clue, not proof (a low-confidence answer unless other evidence agrees).
    #[serde(default)]
    pub weak: bool,
    /// For hints: the explanations this hint refines.
    #[serde(default)]
    applies_to: Vec<String>,
    #[serde(skip)]
    pub applies_to_ids: Vec<ExplainId>,
    #[serde(skip)]
    pub needle_ids: Vec<usize>,
}

/// A traceback frame that reveals the op.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameSig {
    pub function: Option<String>,
    pub code: Option<String>,
    pub op: String,
    explain: Option<String>,
    #[serde(skip)]
    pub explain_id: Option<ExplainId>,
    /// A guess, not a call of the op: a generic loss helper (`criterion(...)`). It may name the
    /// op of a low-confidence answer but never raises the confidence.
    #[serde(default)]
    pub weak: bool,
}

/// A frame in a well-known library file whose failing call is known (a detection head's loss,
/// an accuracy helper that runs right after the loss).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibrarySig {
    /// A substring of the frame's path, with `/` separators.
    pub path: String,
    /// The frame's function must be one of these (any when empty).
    #[serde(default)]
    pub functions: Vec<String>,
    pub op: String,
    /// Why this frame implies the op (shown as the clue that decided).
    pub why: String,
    /// The explanation of a failure there, when the library's use of the op has a known cause.
    explain: Option<String>,
    #[serde(skip)]
    pub explain_id: Option<ExplainId>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Skim {
    anchors: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TracebackCfg {
    pub library: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    explain: BTreeMap<String, Explain>,
    #[serde(rename = "assert")]
    asserts: Vec<AssertSig>,
    #[serde(rename = "message")]
    messages: Vec<MessageSig>,
    #[serde(rename = "frame")]
    frames: Vec<FrameSig>,
    #[serde(rename = "library")]
    libraries: Vec<LibrarySig>,
    op_default: BTreeMap<String, String>,
    skim: Skim,
    traceback: TracebackCfg,
}

fn no_explain() -> ExplainId {
    ExplainId(u16::MAX)
}

/// The compiled knowledge base.
#[derive(Debug)]
pub struct Kb {
    pub explains: Vec<Explain>,
    pub asserts: Vec<AssertSig>,
    pub messages: Vec<MessageSig>,
    pub frames: Vec<FrameSig>,
    pub libraries: Vec<LibrarySig>,
    pub op_default: HashMap<String, ExplainId>,
    pub traceback: TracebackCfg,
    pub skim_anchors: Vec<String>,
    /// Finds the lines worth a close look in the raw byte stream.
    pub skim: AhoCorasick,
    /// Finds every needle of every message signature in one line.
    pub needles: AhoCorasick,
    pub needle_count: usize,
    pub device_assert: ExplainId,
    pub unknown_exception: ExplainId,
}

impl Kb {
    /// The embedded knowledge base, compiled on first use.
    pub fn get() -> &'static Kb {
        static KB: OnceLock<Kb> = OnceLock::new();
        KB.get_or_init(|| {
            Kb::parse(SOURCE).expect("the embedded knowledge base is valid (checked by its tests)")
        })
    }

    pub fn explain(&self, id: ExplainId) -> &Explain {
        &self.explains[id.0 as usize]
    }

    /// Parses and validates a knowledge base; every reference must resolve.
    pub fn parse(source: &str) -> Result<Kb, String> {
        let raw: Raw = toml::from_str(source).map_err(|e| e.to_string())?;
        let mut explains: Vec<Explain> = Vec::new();
        let mut ids: HashMap<String, ExplainId> = HashMap::new();
        for (key, mut e) in raw.explain {
            e.key = key.clone();
            ids.insert(key, ExplainId(explains.len() as u16));
            explains.push(e);
        }
        let resolve = |key: &str, what: &str| -> Result<ExplainId, String> {
            ids.get(key)
                .copied()
                .ok_or_else(|| format!("{what} refers to unknown explanation '{key}'"))
        };
        let check_op = |op: &str, what: &str| -> Result<(), String> {
            if ops().contains(&op) {
                Ok(())
            } else {
                Err(format!("{what}: '{op}' is not in the op vocabulary"))
            }
        };
        for e in &mut explains {
            let what = format!("explain.{}", e.key);
            check_op(&e.op, &what)?;
            for c in &e.candidates {
                check_op(c, &what)?;
            }
            let mut switch_ids = Vec::new();
            for (op, key) in &e.switch {
                if !e.candidates.contains(op) {
                    return Err(format!("{what}: switch op '{op}' is not a candidate"));
                }
                switch_ids.push((op.clone(), resolve(key, &what)?));
            }
            e.switch_ids = switch_ids;
            if labelguard_core::rules::by_code(&e.code).is_none() {
                return Err(format!("{what}: no rule {}", e.code));
            }
        }
        let mut asserts = raw.asserts;
        for (i, a) in asserts.iter_mut().enumerate() {
            let what = format!("assert #{i}");
            if a.file.is_none() && a.function.is_none() && a.condition.is_none() {
                return Err(format!("{what} has no file, function or condition"));
            }
            a.explain_id = resolve(&a.explain, &what)?;
        }
        // The kernels' own words, per release: each site of the table is a signature of its file
        // and its whole condition (more specific than any entry above, so it wins).
        for s in crate::kernel_table::Table::parse(crate::kernel_table::SOURCE)?.sites {
            let what = format!("kernel_asserts.toml: `{}` in {}", s.condition, s.path);
            for op in &s.ops {
                check_op(op, &what)?;
            }
            asserts.push(AssertSig {
                file: Some(s.file().to_string()),
                function: None,
                condition: Some(s.condition.clone()),
                explain_id: resolve(&s.explain, &what)?,
                explain: s.explain,
                kernel: (s.kernel != "operator()").then_some(s.kernel),
                weak: false,
                ops: s.ops,
            });
        }
        let mut needle_strings: Vec<String> = Vec::new();
        let mut messages = raw.messages;
        for (i, m) in messages.iter_mut().enumerate() {
            let what = format!("message #{i} {:?}", m.needles);
            if m.needles.is_empty() || m.needles.iter().any(|n| n.is_empty()) {
                return Err(format!("{what} has an empty match"));
            }
            if m.needles.iter().any(|n| n.contains(['\n', '\r'])) {
                return Err(format!("{what}: a line never contains a line break"));
            }
            m.explain_id = match &m.explain {
                Some(k) => Some(resolve(k, &what)?),
                None => None,
            };
            let needs_explain = matches!(
                m.kind,
                Kind::HostError | Kind::CudaError | Kind::Secondary | Kind::Peer | Kind::Hint
            );
            if needs_explain != m.explain_id.is_some() {
                return Err(format!("{what}: explain is required exactly for host_error, cuda_error, secondary, peer and hint"));
            }
            for b in &mut m.by_value {
                b.explain_id = resolve(&b.explain, &what)?;
            }
            if m.kernel_error && m.kind != Kind::CudaError {
                return Err(format!("{what}: kernel_error is for cuda_error entries"));
            }
            if !m.by_value.is_empty() && m.value_after.is_none() {
                return Err(format!("{what}: by_value needs value_after"));
            }
            m.applies_to_ids = m
                .applies_to
                .iter()
                .map(|k| resolve(k, &what))
                .collect::<Result<_, _>>()?;
            if m.kind == Kind::Hint && m.applies_to_ids.is_empty() {
                return Err(format!("{what}: a hint needs applies_to"));
            }
            m.needle_ids = m
                .needles
                .iter()
                .map(|n| match needle_strings.iter().position(|s| s == n) {
                    Some(p) => p,
                    None => {
                        needle_strings.push(n.clone());
                        needle_strings.len() - 1
                    }
                })
                .collect();
        }
        let mut frames = raw.frames;
        for (i, f) in frames.iter_mut().enumerate() {
            let what = format!("frame #{i}");
            check_op(&f.op, &what)?;
            if f.function.is_none() == f.code.is_none() {
                return Err(format!("{what} needs exactly one of function and code"));
            }
            f.explain_id = match &f.explain {
                Some(k) => Some(resolve(k, &what)?),
                None => None,
            };
        }
        let mut libraries = raw.libraries;
        for (i, l) in libraries.iter_mut().enumerate() {
            let what = format!("library #{i}");
            check_op(&l.op, &what)?;
            if l.path.is_empty() || l.why.is_empty() {
                return Err(format!("{what} needs a path and a why"));
            }
            l.explain_id = match &l.explain {
                Some(k) => Some(resolve(k, &what)?),
                None => None,
            };
        }
        let mut op_default = HashMap::new();
        for (op, key) in &raw.op_default {
            check_op(op, "op_default")?;
            op_default.insert(op.clone(), resolve(key, "op_default")?);
        }
        for m in &messages {
            let covered = m
                .needles
                .iter()
                .any(|n| raw.skim.anchors.iter().any(|a| n.contains(a.as_str())));
            if !covered {
                return Err(format!(
                    "message {:?} contains no [skim] anchor: the scanner would never look at it",
                    m.needles
                ));
            }
        }
        let skim = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&raw.skim.anchors)
            .map_err(|e| e.to_string())?;
        // A DFA: the overlapping search runs on every line looked at closely.
        let needles = AhoCorasickBuilder::new()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&needle_strings)
            .map_err(|e| e.to_string())?;
        let device_assert = resolve("device-assert", "the built-in explanations")?;
        let unknown_exception = resolve("unknown-exception", "the built-in explanations")?;
        Ok(Kb {
            explains,
            asserts,
            messages,
            frames,
            libraries,
            op_default,
            traceback: raw.traceback,
            skim_anchors: raw.skim.anchors,
            skim,
            needle_count: needle_strings.len(),
            needles,
            device_assert,
            unknown_exception,
        })
    }

    /// The assertion signature that best matches a kernel site: every given part matches, and
    /// the longest total match wins (a specific condition beats a file name).
    pub fn match_assert(&self, prefix: &str, condition: &str) -> Option<&AssertSig> {
        let mut best: Option<(usize, &AssertSig)> = None;
        for a in &self.asserts {
            let mut score = 0;
            let parts = [
                (&a.file, prefix, true),
                (&a.function, prefix, false),
                (&a.condition, condition, false),
            ];
            let mut ok = true;
            for (needle, hay, file) in parts {
                if let Some(n) = needle {
                    if hay.contains(n.as_str()) || (file && names_hipified(hay, n)) {
                        score += n.len();
                    } else {
                        ok = false;
                        break;
                    }
                }
            }
            if ok && best.is_none_or(|(s, _)| score > s) {
                best = Some((score, a));
            }
        }
        best.map(|(_, a)| a)
    }

    /// The op a traceback frame reveals, and the explanation it implies, if any.
    /// A function name matches exactly; otherwise the longest matching code snippet wins.
    pub fn frame_op(&self, function: &str, code: &str) -> Option<&FrameSig> {
        let function = function.split('(').next().unwrap_or("").trim();
        if let Some(f) = self
            .frames
            .iter()
            .find(|f| f.function.as_deref() == Some(function))
        {
            return Some(f);
        }
        self.frames
            .iter()
            .filter(|f| f.code.as_deref().is_some_and(|c| code.contains(c)))
            .max_by_key(|f| f.code.as_deref().map_or(0, str::len))
    }

    /// The op that a frame in a well-known library file implies, if any.
    pub fn library_op(&self, path: &str, function: &str) -> Option<&LibrarySig> {
        let path = path.replace('\\', "/");
        let function = function.split('(').next().unwrap_or("").trim();
        let function = function.rsplit('.').next().unwrap_or(function);
        self.libraries.iter().find(|l| {
            path.contains(l.path.as_str())
                && (l.functions.is_empty() || l.functions.iter().any(|f| f == function))
        })
    }

    /// Whether a traceback path is library code (torch, site-packages, the standard library).
    pub fn is_library(&self, path: &str) -> bool {
        self.traceback
            .library
            .iter()
            .any(|m| path.contains(m.as_str()))
    }
}

/// Whether a kernel's prefix names the ROCm build of a CUDA source file: PyTorch's hipify turns
/// `native/cuda/Loss.cu` into `native/hip/Loss.hip` (and `.cuh` into `.cuh`, kept).
fn names_hipified(prefix: &str, file: &str) -> bool {
    file.strip_suffix(".cu").is_some_and(|stem| {
        prefix
            .match_indices(stem)
            .any(|(i, _)| prefix[i + stem.len()..].starts_with(".hip:"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_knowledge_base_is_valid() {
        let kb = Kb::parse(SOURCE).unwrap();
        assert!(kb.asserts.len() >= 30, "{}", kb.asserts.len());
        assert!(kb.messages.len() >= 60, "{}", kb.messages.len());
        // The skim automaton stays small enough for the SIMD prefilter.
        assert!(kb.skim_anchors.len() <= 64);
    }

    /// The vocabulary is the op table's ops (what `labelguard ops` lists), then the log-only
    /// ones: an op added to the table must leave LOG_ONLY_OPS.
    #[test]
    fn the_vocabulary_is_the_op_table_and_the_log_only_ops() {
        let table: Vec<&str> = labelguard_core::OPS.iter().map(|o| o.name).collect();
        assert_eq!(ops()[..table.len()], table[..]);
        for op in LOG_ONLY_OPS {
            assert!(
                !table.contains(op),
                "{op} is in the op table: drop it from LOG_ONLY_OPS"
            );
        }
        assert_eq!(ops().len(), table.len() + LOG_ONLY_OPS.len() + 1);
    }

    #[test]
    fn every_op_of_the_vocabulary_but_unknown_has_a_default_explanation() {
        let kb = Kb::get();
        for op in ops().iter().filter(|o| **o != UNKNOWN_OP) {
            assert!(kb.op_default.contains_key(*op), "{op}");
            let e = kb.explain(kb.op_default[*op]);
            assert!(
                e.op == *op || e.candidates.iter().any(|c| c == op),
                "{op} -> {}",
                e.key
            );
        }
    }

    #[test]
    fn broken_knowledge_is_rejected_with_a_reason() {
        let base = SOURCE;
        let bad_ref = base.replacen("explain = \"bce-input\"", "explain = \"nope\"", 1);
        assert!(Kb::parse(&bad_ref).unwrap_err().contains("nope"));
        let bad_code = base.replacen("code = \"LG501\"", "code = \"LG999\"", 1);
        assert!(Kb::parse(&bad_code).unwrap_err().contains("LG999"));
        let bad_op = base.replacen("op = \"multinomial\"", "op = \"softmax\"", 1);
        assert!(Kb::parse(&bad_op).unwrap_err().contains("softmax"));
        let unskimmed = base.replacen(
            "match = [\"bincount only supports 1-d non-negative integral inputs\"]",
            "match = [\"zzz never skimmed\"]",
            1,
        );
        assert!(Kb::parse(&unskimmed).unwrap_err().contains("skim"));
    }

    #[test]
    fn the_most_specific_assert_signature_wins() {
        let kb = Kb::get();
        let key = |p: &str, c: &str| {
            kb.explain(kb.match_assert(p, c).unwrap().explain_id)
                .key
                .clone()
        };
        assert_eq!(
            key(
                "NLLLoss2d.cu:106: nll_loss2d_forward_kernel: ",
                "t >= 0 && t < n_classes"
            ),
            "class-id"
        );
        assert_eq!(
            key(
                "NLLLoss2d.cu:107: nll_loss2d_forward_kernel: ",
                "input_index >= 0"
            ),
            "index-overflow"
        );
        assert_eq!(
            key(
                "Loss.cu:94: operator(): ",
                "input_val >= zero && input_val <= one"
            ),
            "bce-input"
        );
        assert_eq!(
            key(
                "ScatterGatherKernel.cu:144: operator(): ",
                "idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\""
            ),
            "gather-scatter"
        );
        assert_eq!(
            key(
                "IndexKernel.cu:92: operator(): ",
                "-sizes[i] <= index && index < sizes[i] && \"index out of bounds\""
            ),
            "advanced-index"
        );
        // Loss.cu holds both nll_loss and BCE: the file alone decides nothing.
        assert!(kb
            .match_assert("Loss.cu:250: operator(): ", "x > y")
            .is_none());
    }

    #[test]
    fn frames_reveal_ops_by_function_or_longest_code() {
        let kb = Kb::get();
        let op = |f: &str, c: &str| kb.frame_op(f, c).map(|s| s.op.as_str());
        assert_eq!(op("cross_entropy", ""), Some("cross_entropy"));
        assert_eq!(
            op("forward", "return F.binary_cross_entropy(input, target)"),
            Some("binary_cross_entropy")
        );
        assert_eq!(
            op(
                "forward",
                "return F.binary_cross_entropy_with_logits(input, target)"
            ),
            Some("unknown")
        );
        assert_eq!(
            op("forward", "inputs_embeds = self.word_embeddings(input_ids)"),
            Some("embedding")
        );
        assert_eq!(op("train_step", "loss.backward()"), None);
    }
}
