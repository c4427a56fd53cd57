//! What a diagnosis says: findings with the op, the evidence lines and the user's frame.

use labelguard_core::Finding;
use serde::{Serialize, Serializer};

/// How sure a finding is. `High`: a kernel assertion line, a DSA report or a host error names the
/// failure. `Medium`: indirect but strong evidence (a synchronous traceback, a tokenizer warning).
/// `Low`: labelguard does not know; the op is `unknown` or only a suspect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

/// A line of the log that a finding relies on.
#[derive(Clone, Debug, Eq, Serialize)]
pub struct Evidence {
    /// The file name, `stdin`, or the stream (`stderr`) of a `labelguard run` child.
    pub source: String,
    /// 1-based line number (lines end at `\n`; `\r` progress updates share a line).
    pub line: u64,
    /// The line without colour codes, shortened to a few hundred characters.
    pub text: String,
    /// How many lines of the same kind were grouped under this one.
    #[serde(skip_serializing_if = "is_one")]
    pub count: u64,
    /// The line number of the last line of the group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_line: Option<u64>,
    /// The rank of a multi-process job that printed the line, when the line says (see `ranks.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// The line's place among the lines of every source, in the order they arrived (the two
    /// streams of a `labelguard run` child number their lines apart).
    #[serde(skip)]
    pub order: u64,
}

/// Equal lines: where they were, what they say, how many; not when they arrived, which depends
/// on how the streams were read.
impl PartialEq for Evidence {
    fn eq(&self, o: &Evidence) -> bool {
        (
            &self.source,
            self.line,
            &self.text,
            self.count,
            self.last_line,
            self.rank,
        ) == (&o.source, o.line, &o.text, o.count, o.last_line, o.rank)
    }
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

/// A traceback frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    pub function: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Where the frame was printed in the log.
    #[serde(skip)]
    pub at: (u16, u64),
    /// IPython's numbered context lines printed just before the frame's arrow line (the calls
    /// that ran right before the reported one), nearest last.
    #[serde(skip)]
    pub context: Vec<(u64, String)>,
}

/// The innermost frame of the user's own code, and whether it is where the failure happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UserFrame {
    #[serde(flatten)]
    pub frame: Frame,
    /// False when the error was reported asynchronously: the line is where CUDA noticed the
    /// failure, not where the failing operation was called.
    pub trusted: bool,
}

/// One explained (or honestly unexplained) failure.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosis {
    /// The rule, severity, verdict, one-line message and fix, as every face of labelguard reports them.
    pub finding: Finding,
    /// The PyTorch operation that failed, from [`crate::ops`].
    pub op: String,
    /// Other ops it may be, when the evidence cannot tell them apart.
    pub candidates: Vec<String>,
    /// The CUDA kernel that asserted, when a line names it.
    pub kernel: Option<String>,
    pub cause: String,
    pub confidence: Confidence,
    /// How many log lines reported this failure (one per failing GPU thread for asserts).
    pub count: u64,
    pub evidence: Vec<Evidence>,
    pub user_frame: Option<UserFrame>,
    /// Ops seen in a traceback that cannot be trusted: where to look first, not an answer.
    pub suspects: Vec<String>,
    /// Which clue decided the op and the cause (an assertion line, a frame, a library's
    /// function, the user's source line), in words; for a kernel that several ops share and
    /// nothing tells apart, the line that decided the cause (and `alternatives` lists the
    /// other ops). `None` for an answer that names nothing (`unknown`) and for consequences.
    pub clue: Option<String>,
    /// The other ops the failure may be in, when nothing in the log decides between them: `op`
    /// is only the likeliest.
    pub alternatives: Vec<String>,
}

impl Diagnosis {
    /// The rank of a multi-process job that reported it: the one its evidence lines name (a
    /// kernel's assertion line has no prefix, the traceback's header after it has), unless they
    /// name several (errors of several ranks grouped in one finding).
    pub fn rank(&self) -> Option<u32> {
        let rank = self.evidence.iter().find_map(|e| e.rank)?;
        let alone = self
            .evidence
            .iter()
            .all(|e| e.rank.is_none_or(|r| r == rank));
        alone.then_some(rank)
    }
}

impl Serialize for Diagnosis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct View<'a> {
            code: &'a str,
            rule: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            rank: Option<u32>,
            severity: labelguard_core::Severity,
            verdict: labelguard_core::Verdict,
            op: &'a str,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            candidates: &'a [String],
            #[serde(skip_serializing_if = "Option::is_none")]
            kernel: Option<&'a str>,
            message: &'a str,
            cause: &'a str,
            fix: &'a str,
            confidence: Confidence,
            count: u64,
            evidence: &'a [Evidence],
            user_frame: Option<&'a UserFrame>,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            suspects: &'a [String],
            #[serde(skip_serializing_if = "Option::is_none")]
            clue: Option<&'a str>,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            alternatives: &'a [String],
        }
        View {
            code: self.finding.code,
            rule: self.finding.rule,
            rank: self.rank(),
            severity: self.finding.severity,
            verdict: self.finding.verdict,
            op: &self.op,
            candidates: &self.candidates,
            kernel: self.kernel.as_deref(),
            message: &self.finding.message,
            cause: &self.cause,
            fix: &self.finding.fix,
            confidence: self.confidence,
            count: self.count,
            evidence: &self.evidence,
            user_frame: self.user_frame.as_ref(),
            suspects: &self.suspects,
            clue: self.clue.as_deref(),
            alternatives: &self.alternatives,
        }
        .serialize(s)
    }
}

/// How much of one input was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceSummary {
    pub source: String,
    pub bytes: u64,
    pub lines: u64,
}

/// The overall answer, which decides the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// No error in the log.
    NoError,
    /// Every error found is explained.
    Explained,
    /// Some error is not explained (exit code 1).
    Unexplained,
}

/// The diagnosis of one log (or of the output streams of one process).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogReport {
    pub outcome: Outcome,
    /// What the wording says about the PyTorch build that wrote the log.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pytorch: Vec<String>,
    pub inputs: Vec<SourceSummary>,
    /// In a multi-process job: the rank that failed first (its finding comes first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<FirstFailure>,
    pub findings: Vec<Diagnosis>,
}

impl LogReport {
    /// Whether a failure was seen that a synchronous rerun would localise: a device assert (or a
    /// kernel error) whose traceback cannot be trusted.
    pub fn needs_sync_rerun(&self) -> bool {
        self.findings
            .iter()
            .any(|d| d.finding.code == labelguard_core::rules::LG902.code)
    }
}

/// The rank that failed first, and how that is known.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstFailure {
    pub rank: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_rank: Option<u32>,
    /// `elastic-root-cause` (TorchElastic's summary says so), `elastic-agent` (its agent logged
    /// this local rank's failure first; no summary in the log) or `first-error-line` (the
    /// earliest error line of any rank).
    pub how: &'static str,
    /// The rank's own error line, when the log shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// The other ranks that reported errors (their own, or errors that follow from this one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_ranks: Vec<u32>,
}
