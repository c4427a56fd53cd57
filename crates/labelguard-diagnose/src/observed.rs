//! What the analyzer saw: the bounded summary of a log that the conclusions are drawn from.
//!
//! The model between the two halves of a diagnosis: [`crate::analyze`] fills an
//! [`Observations`] line by line, [`crate::conclude`] reads it once at the end. Both import this
//! module; neither imports the other's insides.

use crate::kb::{ExplainId, Kb, Kind};
use crate::model::Frame;
use crate::seen::Seen;
pub use crate::seen::SourceId;

/// Facts known from outside the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The process ran with `CUDA_LAUNCH_BLOCKING=1` (`labelguard run --sync`): its traceback is
    /// where the failure happened.
    pub launch_blocking: bool,
}

/// One count a line added to what was seen (what `Observations::count` adds again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// The device-assert header line.
    Header,
    /// The "asynchronously reported" lines.
    Async,
    /// A message group: the groups of this kind of message (see `Observations::groups`), and
    /// the group's index.
    Group(Option<Kind>, u32),
    /// An assertion site's group.
    Site(u32),
}

/// A kernel assertion site (file:line, function, condition) and how often it failed.
pub(crate) struct SiteGroup {
    pub explain: Option<ExplainId>,
    /// The matching signature does not rule out another explanation.
    pub weak: bool,
    pub kernel: String,
    pub condition: String,
    pub seen: Seen,
    /// The ops that launch the kernel, when the kernel table knows them.
    pub ops: Vec<String>,
}

/// A message line (host error, CUDA error, library error) grouped by explanation and text.
pub(crate) struct MessageGroup {
    pub explain: ExplainId,
    pub text: String,
    pub seen: Seen,
    /// The traceback this message ended, if it was a traceback's exception line.
    pub traceback: Option<usize>,
    /// A kernel's error, reported asynchronously.
    pub kernel_error: bool,
}

pub(crate) struct Hint {
    pub explain: ExplainId,
    pub applies_to: Vec<ExplainId>,
    pub seen: Seen,
    /// A clue, not proof: it names the op of a low-confidence answer.
    pub weak: bool,
}

/// A labelguard guard exception: `labelguard._report.TargetError: cross_entropy ...` followed by
/// `[LG101] ...`, `  hint: ...`, `  fix: ...` lines (or the code on the exception line itself).
pub(crate) struct GuardError {
    pub code: Option<&'static str>,
    pub text: String,
    pub hint: Option<String>,
    pub fix: Option<String>,
    pub seen: Seen,
    pub traceback: Option<usize>,
}

/// A finished traceback.
pub(crate) struct Traceback {
    pub frames: Vec<Frame>,
}

/// Everything the analysis keeps for the conclusions.
pub(crate) struct Observations {
    pub(crate) kb: &'static Kb,
    pub(crate) opts: Options,
    pub(crate) sources: Vec<(String, u64, u64)>,
    pub(crate) sites: Vec<SiteGroup>,
    pub(crate) header: Option<Seen>,
    pub(crate) header_traceback: Option<usize>,
    pub(crate) async_lines: Option<Seen>,
    pub(crate) sync_wording: bool,
    pub(crate) eras: Vec<String>,
    pub(crate) hosts: Vec<MessageGroup>,
    pub(crate) cuda_errors: Vec<MessageGroup>,
    pub(crate) secondary: Vec<MessageGroup>,
    /// Errors of a rank that follow from another rank's failure (`Kind::Peer`, LG909).
    pub(crate) peers: Vec<MessageGroup>,
    /// The ranks whose lines matched `Kind::Peer` messages.
    pub(crate) peer_ranks: Vec<u32>,
    /// TorchElastic's failure summary.
    pub(crate) elastic: crate::ranks::ElasticSummary,
    pub(crate) unknown: Vec<MessageGroup>,
    pub(crate) hints: Vec<Hint>,
    pub(crate) guards: Vec<GuardError>,
    pub(crate) tracebacks: Vec<Traceback>,
    /// Source lines outside any traceback: the line printed right before an exception line (a
    /// traceback pasted without its frames), and the last input of an interactive session.
    pub(crate) orphan_code: Option<Seen>,
    pub(crate) repl_code: Option<Seen>,
}

impl Observations {
    pub(crate) fn new(kb: &'static Kb, opts: Options) -> Observations {
        Observations {
            kb,
            opts,
            sources: Vec::new(),
            sites: Vec::new(),
            header: None,
            header_traceback: None,
            async_lines: None,
            sync_wording: false,
            eras: Vec::new(),
            hosts: Vec::new(),
            cuda_errors: Vec::new(),
            secondary: Vec::new(),
            peers: Vec::new(),
            peer_ranks: Vec::new(),
            elastic: Default::default(),
            unknown: Vec::new(),
            hints: Vec::new(),
            guards: Vec::new(),
            tracebacks: Vec::new(),
            orphan_code: None,
            repl_code: None,
        }
    }

    /// The groups that message lines of this kind go to; other kinds (and `None`: an exception
    /// the knowledge base does not know) go to the unknown exceptions.
    pub(crate) fn groups(&mut self, kind: Option<Kind>) -> &mut Vec<MessageGroup> {
        match kind {
            Some(Kind::HostError) => &mut self.hosts,
            Some(Kind::CudaError) => &mut self.cuda_errors,
            Some(Kind::Secondary) => &mut self.secondary,
            Some(Kind::Peer) => &mut self.peers,
            _ => &mut self.unknown,
        }
    }

    /// Counts one more line into what an earlier line created.
    pub(crate) fn count(&mut self, c: Count, line_no: u64) {
        let seen = match c {
            Count::Header => self.header.as_mut(),
            Count::Async => self.async_lines.as_mut(),
            Count::Group(kind, i) => self.groups(kind).get_mut(i as usize).map(|g| &mut g.seen),
            Count::Site(i) => self.sites.get_mut(i as usize).map(|g| &mut g.seen),
        };
        seen.expect("a count refers to what its line created")
            .bump(line_no);
    }
}
