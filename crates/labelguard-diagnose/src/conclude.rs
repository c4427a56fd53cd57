//! From what was seen to findings: which failure, which op, how sure, and where in the user's code.
//!
//! The order of precedence: a guard exception (raised before the op ran), kernel assertion lines
//! (they name the kernel), host errors (raised at the right line), PyTorch's generic device-assert
//! text (the kernel unknown), other CUDA errors, library errors, unknown exceptions, and last the
//! note that the traceback's line cannot be trusted.

use crate::analyze::{Analyzer, Hint, MessageGroup, SiteGroup, Traceback};
use crate::kb::{ExplainId, Kb};
use crate::model::{
    Confidence, Diagnosis, Evidence, Frame, LogReport, Outcome, SourceSummary, UserFrame,
};
use labelguard_core::rules::{self, by_code};
use labelguard_core::{Finding, Severity, Verdict};

/// The explanation after reading the traceback and the hints.
struct Refined {
    explain: ExplainId,
    op: String,
    evidence: Vec<Evidence>,
    /// The explanation was changed by indirect evidence (a hint, or a frame of a traceback that
    /// cannot be trusted).
    inferred: bool,
    /// The op is the likeliest of a set that the evidence does not narrow further.
    guessed: bool,
    /// The ops the failing kernel may belong to.
    candidates: Vec<String>,
}

pub(crate) fn conclude(a: &Analyzer) -> LogReport {
    let kb = a.kb;
    let c = Conclusions { a, kb };
    let trusted = a.opts.launch_blocking || (a.async_lines.is_none() && a.sync_wording);
    // The traceback of the failure: the one that ended in PyTorch's device-assert text, else
    // the one of the error that CUDA reported instead (a library error, another CUDA error).
    let header_tb = a
        .header_traceback
        .or_else(|| a.secondary.iter().find_map(|g| g.traceback))
        .or_else(|| a.cuda_errors.iter().find_map(|g| g.traceback))
        .map(|i| &a.tracebacks[i]);
    let mut out: Vec<Diagnosis> = Vec::new();

    for g in &a.guards {
        out.push(c.guard(g));
    }

    // Kernel assertion lines of known kernels, one finding per explanation.
    let mut order: Vec<ExplainId> = Vec::new();
    for e in a.sites.iter().filter_map(|s| s.explain) {
        if !order.contains(&e) {
            order.push(e);
        }
    }
    for &e in &order {
        let groups: Vec<&SiteGroup> = a.sites.iter().filter(|s| s.explain == Some(e)).collect();
        out.push(c.asserted(e, &groups, header_tb, trusted));
    }
    let unknown_sites: Vec<&SiteGroup> = a.sites.iter().filter(|s| s.explain.is_none()).collect();
    let device_failure = !a.sites.is_empty() || a.header.is_some();
    // Errors of kernels are reported late, like asserts; allocation or driver errors are not.
    let kernel_failure = device_failure || a.cuda_errors.iter().any(|g| g.kernel_error);

    for g in &a.hosts {
        let tb = g.traceback.map(|i| &a.tracebacks[i]);
        let r = c.refine(g.explain, tb, true);
        let confidence = if r.guessed {
            Confidence::Low
        } else if r.inferred {
            Confidence::Medium
        } else {
            Confidence::High
        };
        let evidence = [vec![g.seen.ev.clone()], r.evidence.clone()].concat();
        out.push(c.diagnosis(
            &r,
            Verdict::Error,
            g.text.clone(),
            confidence,
            g.seen.ev.count,
            evidence,
            tb,
            true,
        ));
    }

    if order.is_empty() && device_failure {
        out.push(c.unidentified(&unknown_sites, header_tb, trusted));
    }

    for g in &a.cuda_errors {
        let tb = g.traceback.map(|i| &a.tracebacks[i]);
        out.push(c.unexplained(g, tb, !g.kernel_error || trusted));
    }

    if !a.secondary.is_empty() {
        out.push(c.secondary(device_failure || !a.cuda_errors.is_empty()));
    }

    if out.is_empty() {
        for g in a.unknown.iter().take(3) {
            let tb = g.traceback.map(|i| &a.tracebacks[i]);
            out.push(c.unexplained(g, tb, a.async_lines.is_none()));
        }
    }

    if !trusted && kernel_failure {
        let tb = header_tb;
        let primary_op = out
            .iter()
            .find(|d| {
                d.finding.verdict == Verdict::DeviceAssert || d.finding.code == rules::LG903.code
            })
            .map_or("unknown".to_string(), |d| d.op.clone());
        let fallback = out.first().and_then(|d| d.evidence.first()).cloned();
        if let Some(d) = c.asynchronous(tb, primary_op, fallback) {
            out.push(d);
        }
    }

    let outcome = if out.is_empty() {
        Outcome::NoError
    } else if out
        .iter()
        .any(|d| d.finding.severity == Severity::Error && d.confidence == Confidence::Low)
    {
        Outcome::Unexplained
    } else {
        Outcome::Explained
    };
    LogReport {
        outcome,
        pytorch: a.eras.clone(),
        inputs: a
            .sources
            .iter()
            .map(|(name, bytes, lines)| SourceSummary {
                source: name.clone(),
                bytes: *bytes,
                lines: *lines,
            })
            .collect(),
        findings: out,
    }
}

struct Conclusions<'a> {
    a: &'a Analyzer,
    kb: &'static Kb,
}

impl Conclusions<'_> {
    fn frame_evidence(&self, f: &Frame) -> Evidence {
        let mut text = format!("File \"{}\"", f.file);
        if let Some(l) = f.line {
            text += &format!(", line {l}");
        }
        text += &format!(", in {}", f.function);
        if let Some(code) = &f.code {
            text += &format!(": {code}");
        }
        Evidence {
            source: self.a.sources[f.at.0 as usize].0.clone(),
            line: f.at.1,
            text,
            count: 1,
            last_line: None,
        }
    }

    fn user_frame(&self, tb: Option<&Traceback>, trusted: bool) -> Option<UserFrame> {
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
    fn suspects(&self, tb: Option<&Traceback>) -> Vec<String> {
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
    fn hint_for(&self, explain: ExplainId) -> Option<&Hint> {
        self.a
            .hints
            .iter()
            .find(|h| !h.weak && h.applies_to.contains(&explain))
    }

    /// Narrows an explanation with the traceback (only to ops the failing kernel can belong to)
    /// and with hints printed before the failure.
    fn refine(&self, e: ExplainId, tb: Option<&Traceback>, trusted: bool) -> Refined {
        let kb = self.kb;
        let ex = kb.explain(e);
        let mut r = Refined {
            explain: e,
            op: ex.op.clone(),
            evidence: Vec::new(),
            inferred: false,
            guessed: false,
            candidates: Vec::new(),
        };
        r.candidates = ex.candidates.clone();
        if !ex.candidates.is_empty() {
            // Outermost first: the frames of a traceback are one call path, and the outermost op
            // on it is the one the user called (cross_entropy, not the nll_loss it runs).
            for f in tb.map_or(&[][..], |t| &t.frames) {
                let Some(fs) = kb.frame_op(&f.function, f.code.as_deref().unwrap_or("")) else {
                    continue;
                };
                if fs.weak
                    || fs.op == "unknown"
                    || !(ex.candidates.contains(&fs.op) || ex.op == fs.op)
                {
                    continue;
                }
                r.op = fs.op.clone();
                let switch = fs.explain_id.or_else(|| ex.switch_for(&fs.op));
                if let Some(id) = switch.filter(|id| *id != e) {
                    r.explain = id;
                    r.inferred |= !trusted;
                }
                r.evidence.push(self.frame_evidence(f));
                break;
            }
        }
        if r.op == "unknown" && !ex.candidates.is_empty() {
            // The kernel is shared by several ops: the other clues choose, else the likeliest.
            let ranked =
                crate::clues::rank(self.a, tb, |f| self.frame_evidence(f), Some(&ex.candidates));
            match ranked {
                Some(c) => {
                    r.op = c.op.clone();
                    if let Some(id) = ex.switch_for(&c.op) {
                        r.explain = id;
                    }
                    r.evidence.extend(c.evidence);
                    r.inferred = true;
                    r.guessed = c.confidence == Confidence::Low;
                }
                None => {
                    r.op = ex.candidates[0].clone();
                    r.guessed = true;
                }
            }
        }
        if let Some(h) = self.hint_for(r.explain) {
            r.explain = h.explain;
            r.op = kb.explain(h.explain).op.clone();
            r.evidence.push(h.seen.ev.clone());
            r.inferred = true;
        }
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn diagnosis(
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
        }
    }

    /// The evidence of a device-assert diagnosis: the first few assertion sites, the generic
    /// header and asynchronous-report lines, then what refined the explanation.
    fn assert_evidence(&self, sites: &[&SiteGroup], r: &Refined) -> Vec<Evidence> {
        let mut evidence: Vec<Evidence> = sites.iter().take(3).map(|g| g.seen.ev.clone()).collect();
        evidence.extend(self.context_evidence());
        evidence.extend(r.evidence.iter().cloned());
        evidence
    }

    fn context_evidence(&self) -> Vec<Evidence> {
        [&self.a.header, &self.a.async_lines]
            .into_iter()
            .flatten()
            .map(|s| s.ev.clone())
            .collect()
    }

    /// Assertion lines of known kernels that share one explanation.
    fn asserted(
        &self,
        e: ExplainId,
        groups: &[&SiteGroup],
        tb: Option<&Traceback>,
        trusted: bool,
    ) -> Diagnosis {
        let r = self.refine(e, tb, trusted);
        let count: u64 = groups.iter().map(|g| g.seen.ev.count).sum();
        let weak = groups.iter().all(|g| g.weak);
        let confidence = if r.guessed {
            Confidence::Low
        } else if weak || r.inferred {
            Confidence::Medium
        } else {
            Confidence::High
        };
        let first = groups[0];
        let message = format!(
            "`{}` failed the device assertion `{}` {}: {}",
            first.kernel,
            first.condition,
            times(count, "GPU thread"),
            self.kb.explain(r.explain).title
        );
        let evidence = self.assert_evidence(groups, &r);
        let mut d = self.diagnosis(
            &r,
            Verdict::DeviceAssert,
            message,
            confidence,
            count,
            evidence,
            tb,
            trusted,
        );
        d.kernel = Some(first.kernel.clone());
        d
    }

    /// A device assert whose kernel the log does not name (or names, but labelguard does not know).
    fn unidentified(
        &self,
        unknown_sites: &[&SiteGroup],
        tb: Option<&Traceback>,
        trusted: bool,
    ) -> Diagnosis {
        let kb = self.kb;
        let mut r = Refined {
            explain: kb.device_assert,
            op: "unknown".into(),
            evidence: Vec::new(),
            inferred: false,
            guessed: false,
            candidates: Vec::new(),
        };
        let mut confidence = Confidence::Low;
        if trusted {
            // A synchronous traceback ends in the failing call; the outermost frame on that path
            // that names an op is the op the user called.
            let named = tb.map_or(&[][..], |t| &t.frames).iter().find_map(|f| {
                kb.frame_op(&f.function, f.code.as_deref().unwrap_or(""))
                    .filter(|s| s.op != "unknown" && !s.weak)
                    .map(|s| (f, s))
            });
            if let Some((f, s)) = named {
                r.explain = s.explain_id.unwrap_or(kb.op_default[&s.op]);
                r.op = s.op.clone();
                r.evidence.push(self.frame_evidence(f));
                confidence = Confidence::Medium;
            }
        }
        if confidence == Confidence::Low {
            if let Some(h) = self.hint_for(kb.device_assert) {
                r.explain = h.explain;
                r.op = kb.explain(h.explain).op.clone();
                r.evidence.push(h.seen.ev.clone());
                confidence = Confidence::Medium;
            }
        }
        if confidence == Confidence::Low {
            if let Some(c) = crate::clues::rank(self.a, tb, |f| self.frame_evidence(f), None) {
                // A low-confidence answer keeps the generic explanation (and its advice to
                // localise the failure); the op is named as the likeliest.
                if c.confidence > Confidence::Low {
                    r.explain = c.explain;
                }
                r.op = c.op;
                r.evidence = c.evidence;
                confidence = c.confidence;
            }
        }
        let title = &kb.explain(r.explain).title;
        let message = match unknown_sites.first() {
            Some(s) => format!(
                "`{}` failed the device assertion `{}`, which labelguard does not know",
                s.kernel, s.condition
            ),
            None if confidence == Confidence::Medium => {
                format!("a device-side assert in {}: {title}", r.op)
            }
            None if r.op != "unknown" => format!(
                "a device-side assert, most likely in {} (indirect evidence, see below): {title}",
                r.op
            ),
            None => {
                "CUDA reported a device-side assert, but the log does not say which kernel failed"
                    .into()
            }
        };
        let count = if unknown_sites.is_empty() {
            self.a.header.as_ref().map_or(1, |h| h.ev.count)
        } else {
            unknown_sites.iter().map(|g| g.seen.ev.count).sum()
        };
        let evidence = self.assert_evidence(unknown_sites, &r);
        let mut d = self.diagnosis(
            &r,
            Verdict::DeviceAssert,
            message,
            confidence,
            count,
            evidence,
            tb,
            trusted,
        );
        d.kernel = unknown_sites.first().map(|s| s.kernel.clone());
        if confidence == Confidence::Low {
            d.suspects = self.suspects(tb);
        }
        d
    }

    /// A CUDA error that is not an assert, or an exception the knowledge base does not know.
    fn unexplained(&self, g: &MessageGroup, tb: Option<&Traceback>, trusted: bool) -> Diagnosis {
        let r = Refined {
            explain: g.explain,
            op: "unknown".into(),
            evidence: Vec::new(),
            inferred: false,
            guessed: false,
            candidates: Vec::new(),
        };
        let mut d = self.diagnosis(
            &r,
            Verdict::Error,
            g.text.clone(),
            Confidence::Low,
            g.seen.ev.count,
            vec![g.seen.ev.clone()],
            tb,
            trusted,
        );
        d.suspects = self.suspects(tb);
        d
    }

    fn secondary(&self, after_failure: bool) -> Diagnosis {
        let groups = &self.a.secondary;
        let r = Refined {
            explain: groups[0].explain,
            op: "unknown".into(),
            evidence: Vec::new(),
            inferred: false,
            guessed: false,
            candidates: Vec::new(),
        };
        let count = groups.iter().map(|g| g.seen.ev.count).sum();
        let evidence = groups.iter().take(3).map(|g| g.seen.ev.clone()).collect();
        let (message, confidence) = if after_failure {
            (
                format!(
                    "{} is a consequence of the CUDA failure above, not a separate problem",
                    groups[0].text
                ),
                Confidence::High,
            )
        } else {
            (
                format!(
                    "{} may hide a device-side assert; the log shows no earlier CUDA failure",
                    groups[0].text
                ),
                Confidence::Low,
            )
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
            d.finding.severity = Severity::Error;
        }
        d
    }

    /// The traceback's line is not where the failure happened.
    fn asynchronous(
        &self,
        tb: Option<&Traceback>,
        op: String,
        fallback: Option<Evidence>,
    ) -> Option<Diagnosis> {
        let certain = self.a.async_lines.is_some();
        let user = self.user_frame(tb, false);
        if !certain && tb.is_none() {
            return None;
        }
        let rule = &rules::LG902;
        let message = match &user {
            Some(u) => format!(
                "the traceback points at {}{} in {}, where CUDA reported the failure{}; the failing call ran earlier",
                u.frame.file,
                u.frame.line.map_or(String::new(), |l| format!(":{l}")),
                u.frame.function,
                if certain { "" } else { " (this PyTorch does not say whether it was asynchronous, so assume it was)" },
            ),
            None => "the failure was reported asynchronously: a traceback of this run would point at a later, innocent line".into(),
        };
        let evidence = [&self.a.async_lines, &self.a.header]
            .into_iter()
            .flatten()
            .map(|s| s.ev.clone())
            .chain(fallback)
            .take(1)
            .collect();
        Some(Diagnosis {
            finding: Finding::new(rule, Verdict::DeviceAssert, message).fix(
                "Localise it: `labelguard run --sync -- <your command>` sets CUDA_LAUNCH_BLOCKING=1 before torch is imported (setting it inside the script is too late), or `labelguard run --rerun-sync -- <your command>` reruns only when this happens.",
            ),
            op,
            candidates: Vec::new(),
            kernel: None,
            cause: "CUDA kernels run asynchronously; a failed kernel is reported at the next call that synchronizes (.item(), .cpu(), optimizer.step(), printing a tensor).".into(),
            confidence: if certain { Confidence::High } else { Confidence::Medium },
            count: 1,
            evidence,
            user_frame: user,
            suspects: Vec::new(),
        })
    }

    /// labelguard's own guard raised before the op ran: the code is in the message.
    fn guard(&self, g: &crate::analyze::GuardError) -> Diagnosis {
        let tb = g.traceback.map(|i| &self.a.tracebacks[i]);
        let Some(code) = g.code else {
            // A guard exception without a rule code: report it, unexplained, as it is.
            let r = Refined {
                explain: self.kb.unknown_exception,
                op: "unknown".into(),
                evidence: Vec::new(),
                inferred: false,
                guessed: false,
                candidates: Vec::new(),
            };
            let evidence = vec![g.seen.ev.clone()];
            return self.diagnosis(
                &r,
                Verdict::Error,
                g.text.clone(),
                Confidence::Low,
                1,
                evidence,
                tb,
                true,
            );
        };
        let rule = by_code(code).expect("checked when parsed");
        let op = crate::kb::OPS
            .iter()
            .find(|op| **op != "unknown" && contains_word(&g.text, op))
            .unwrap_or(&"unknown");
        Diagnosis {
            finding: Finding::new(rule, Verdict::Error, g.text.clone())
                .fix(g.fix.clone().unwrap_or_else(|| rule_fix(rule))),
            op: op.to_string(),
            candidates: Vec::new(),
            kernel: None,
            cause: g.hint.clone().unwrap_or_else(|| rule.summary().to_string()),
            confidence: Confidence::High,
            count: g.seen.ev.count,
            evidence: vec![g.seen.ev.clone()],
            user_frame: self.user_frame(tb, true),
            suspects: Vec::new(),
        }
    }
}

/// "once", "on 4,096 GPU threads".
fn times(n: u64, what: &str) -> String {
    if n == 1 {
        format!("on 1 {what}")
    } else {
        format!("on {} {what}s", thousands(n))
    }
}

use labelguard_core::finding::thousands;

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        edge(before) && edge(after)
    })
}

/// The "## Fix" section of a rule's documentation.
fn rule_fix(rule: &labelguard_core::Rule) -> String {
    let doc = rule.documentation();
    match doc.split_once("## Fix\n") {
        Some((_, fix)) => fix
            .split("\n## ")
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        None => format!("See `labelguard rule {}`.", rule.code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(thousands(4096), "4,096");
        assert_eq!(thousands(100), "100");
        assert_eq!(times(1, "GPU thread"), "on 1 GPU thread");
        assert!(contains_word(
            "[LG101] cross_entropy: target 3",
            "cross_entropy"
        ));
        assert!(!contains_word("binary_cross_entropy", "cross_entropy"));
        assert!(rule_fix(&rules::LG101).starts_with("Give the model head"));
    }
}
