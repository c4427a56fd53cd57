//! What every conclusion draws on: the observations, the knowledge base, and the steps that
//! turn them into a diagnosis (the evidence of a frame, the user's frame, the suspects of a
//! traceback, an explanation refined by the traceback and the hints, the diagnosis itself).
//! [`crate::conclude`] and the rule checks of [`crate::checks`] both build on it.

use crate::kb::{ExplainId, Kb};
use crate::model::{Confidence, Diagnosis, Evidence, Frame, UserFrame};
use crate::observed::{Hint, MessageGroup, Observations, SiteGroup, Traceback};
use labelguard_core::rules::by_code;
use labelguard_core::{Finding, Verdict};

/// The explanation after reading the traceback and the hints.
pub(crate) struct Refined {
    pub explain: ExplainId,
    pub op: String,
    pub evidence: Vec<Evidence>,
    /// The explanation was changed by indirect evidence (a hint, or a frame of a traceback that
    /// cannot be trusted).
    pub inferred: bool,
    /// The op is the likeliest of a set that the evidence does not narrow further.
    pub guessed: bool,
    /// The ops the failing kernel may belong to.
    pub candidates: Vec<String>,
    /// Which clue decided, in words (see [`Diagnosis::clue`]).
    pub clue: Option<String>,
    /// Nothing decided between the candidates: the op is only the likeliest.
    pub undecided: bool,
}

impl Refined {
    /// An explanation of an unknown op, with nothing yet to refine it.
    pub(crate) fn unknown(explain: ExplainId) -> Refined {
        Refined {
            explain,
            op: "unknown".into(),
            evidence: Vec::new(),
            inferred: false,
            guessed: false,
            candidates: Vec::new(),
            clue: None,
            undecided: false,
        }
    }
}

/// The observations of one log and the knowledge base that explains them.
pub(crate) struct Context<'a> {
    pub obs: &'a Observations,
    pub kb: &'static Kb,
}

impl Context<'_> {
    pub(crate) fn frame_evidence(&self, f: &Frame) -> Evidence {
        let mut text = format!("File \"{}\"", f.file);
        if let Some(l) = f.line {
            text += &format!(", line {l}");
        }
        text += &format!(", in {}", f.function);
        if let Some(code) = &f.code {
            text += &format!(": {code}");
        }
        Evidence {
            source: self.obs.sources[f.at.0 as usize].0.clone(),
            line: f.at.1,
            text,
            count: 1,
            last_line: None,
            rank: None,
            order: 0,
        }
    }

    pub(crate) fn user_frame(&self, tb: Option<&Traceback>, trusted: bool) -> Option<UserFrame> {
        tb?.frames
            .iter()
            .rev()
            .find(|f| !self.kb.is_library(&f.file))
            .map(|f| UserFrame {
                frame: f.clone(),
                trusted,
            })
    }

    /// Ops named by the frames of a traceback, innermost first.
    pub(crate) fn suspects(&self, tb: Option<&Traceback>) -> Vec<String> {
        let mut ops: Vec<String> = Vec::new();
        for f in tb.map_or(&[][..], |t| &t.frames).iter().rev() {
            if let Some(s) = self
                .kb
                .frame_op(&f.function, f.code.as_deref().unwrap_or(""))
            {
                if s.op != "unknown" && !ops.contains(&s.op) {
                    ops.push(s.op.clone());
                }
            }
        }
        ops
    }

    /// A hint that refines an explanation (weak hints are only clues, see [`crate::clues`]).
    pub(crate) fn hint_for(&self, explain: ExplainId) -> Option<&Hint> {
        self.obs
            .hints
            .iter()
            .find(|h| !h.weak && h.applies_to.contains(&explain))
    }

    /// Narrows an explanation with the traceback (only to ops the failing kernel can belong to)
    /// and with hints printed before the failure.
    pub(crate) fn refine(&self, e: ExplainId, tb: Option<&Traceback>, trusted: bool) -> Refined {
        self.refine_among(e, &[], tb, trusted)
    }

    /// [`Context::refine`] among the ops that launch the failing kernel (from the kernel table;
    /// empty: the explanation's op and candidates): one op is the answer; several are
    /// candidates, with the explanation's op the default when it is one of them.
    pub(crate) fn refine_among(
        &self,
        e: ExplainId,
        ops: &[String],
        tb: Option<&Traceback>,
        trusted: bool,
    ) -> Refined {
        let kb = self.kb;
        let ex = kb.explain(e);
        let (default_op, candidates) = match ops {
            [] => (ex.op.clone(), ex.candidates.clone()),
            [one] => (one.clone(), Vec::new()),
            _ if ops.contains(&ex.op) => (ex.op.clone(), ops.to_vec()),
            _ => ("unknown".to_string(), ops.to_vec()),
        };
        let mut r = Refined {
            explain: e,
            op: default_op.clone(),
            evidence: Vec::new(),
            inferred: false,
            guessed: false,
            candidates: Vec::new(),
            clue: None,
            undecided: false,
        };
        r.candidates = candidates.clone();
        if !candidates.is_empty() {
            // Outermost first: the frames of a traceback are one call path, and the outermost op
            // on it is the one the user called (cross_entropy, not the nll_loss it runs).
            for f in tb.map_or(&[][..], |t| &t.frames) {
                let Some(fs) = kb.frame_op(&f.function, f.code.as_deref().unwrap_or("")) else {
                    continue;
                };
                if fs.weak
                    || fs.op == "unknown"
                    || !(candidates.contains(&fs.op) || default_op == fs.op)
                {
                    continue;
                }
                r.op = fs.op.clone();
                // A kernel that several ops share, named by a frame of a traceback that cannot
                // be trusted: the frame may be a later call than the failing one.
                r.inferred |= default_op == "unknown" && !trusted;
                let switch = fs.explain_id.or_else(|| ex.switch_for(&fs.op));
                if let Some(id) = switch.filter(|id| *id != e) {
                    r.explain = id;
                    r.inferred |= !trusted;
                }
                let ev = self.frame_evidence(f);
                r.clue = Some(format!(
                    "the traceback's frame `{}` calls {}",
                    ev.text, fs.op
                ));
                r.evidence.push(ev);
                break;
            }
        }
        if r.op == "unknown" && !candidates.is_empty() {
            // The kernel is shared by several ops: the other clues choose, else the likeliest.
            let ranked =
                crate::clues::rank(self.obs, tb, |f| self.frame_evidence(f), Some(&candidates));
            match ranked {
                Some(c) => {
                    r.op = c.op.clone();
                    if let Some(id) = ex.switch_for(&c.op) {
                        r.explain = id;
                    }
                    r.evidence.extend(c.evidence);
                    r.clue = Some(c.clue);
                    r.inferred = true;
                    r.guessed = c.confidence == Confidence::Low;
                }
                None => {
                    r.op = candidates[0].clone();
                    r.guessed = true;
                    r.undecided = true;
                }
            }
        }
        if let Some(h) = self.hint_for(r.explain) {
            r.explain = h.explain;
            r.op = kb.explain(h.explain).op.clone();
            r.evidence.push(h.seen.ev.clone());
            r.clue = Some(format!(
                "the line printed before the failure: `{}`",
                h.seen.ev.text
            ));
            r.undecided = false;
            r.inferred = true;
        }
        r
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn diagnosis(
        &self,
        r: &Refined,
        verdict: Verdict,
        message: String,
        confidence: Confidence,
        count: u64,
        evidence: Vec<Evidence>,
        tb: Option<&Traceback>,
        trusted: bool,
    ) -> Diagnosis {
        let ex = self.kb.explain(r.explain);
        let rule = by_code(&ex.code).expect("validated");
        let candidates = if r.candidates.is_empty() {
            ex.candidates.clone()
        } else {
            r.candidates.clone()
        };
        let alternatives = if r.undecided {
            candidates.iter().filter(|c| **c != r.op).cloned().collect()
        } else {
            Vec::new()
        };
        Diagnosis {
            finding: Finding::new(rule, verdict, message).fix(ex.fix.clone()),
            op: r.op.clone(),
            candidates,
            kernel: None,
            cause: ex.cause.clone(),
            confidence,
            count,
            evidence,
            user_frame: self.user_frame(tb, trusted),
            suspects: Vec::new(),
            clue: r.clue.clone(),
            alternatives,
        }
    }

    /// A device-assert diagnosis from assertion sites (the first names the kernel). Its evidence:
    /// the first few sites, the generic header and asynchronous-report lines, then what refined
    /// the explanation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn device_assert(
        &self,
        r: &Refined,
        sites: &[&SiteGroup],
        message: String,
        confidence: Confidence,
        count: u64,
        tb: Option<&Traceback>,
        trusted: bool,
    ) -> Diagnosis {
        let mut evidence: Vec<Evidence> = sites.iter().take(3).map(|g| g.seen.ev.clone()).collect();
        evidence.extend(self.context_evidence());
        evidence.extend(r.evidence.iter().cloned());
        let mut d = self.diagnosis(
            r,
            Verdict::DeviceAssert,
            message,
            confidence,
            count,
            evidence,
            tb,
            trusted,
        );
        d.kernel = sites.first().map(|s| s.kernel.clone());
        d
    }

    /// The finding of errors that follow from another failure (LG904, LG909): a warning, sure,
    /// after that failure; an error, unexplained, when the log does not show it.
    pub(crate) fn consequence(
        &self,
        groups: &[MessageGroup],
        after_failure: bool,
        message: String,
    ) -> Diagnosis {
        let r = Refined::unknown(groups[0].explain);
        let count = groups.iter().map(|g| g.seen.ev.count).sum();
        let evidence = groups.iter().take(3).map(|g| g.seen.ev.clone()).collect();
        let confidence = if after_failure {
            Confidence::High
        } else {
            Confidence::Low
        };
        let mut d = self.diagnosis(
            &r,
            Verdict::Error,
            message,
            confidence,
            count,
            evidence,
            None,
            false,
        );
        if !after_failure {
            d.finding.severity = labelguard_core::Severity::Error;
        }
        d
    }

    pub(crate) fn context_evidence(&self) -> Vec<Evidence> {
        [&self.obs.header, &self.obs.async_lines]
            .into_iter()
            .flatten()
            .map(|s| s.ev.clone())
            .collect()
    }
}
