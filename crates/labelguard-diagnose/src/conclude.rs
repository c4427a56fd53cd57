//! From what was seen to findings: which failure, which op, how sure, and where in the user's code.
//!
//! The order of precedence: a guard exception (raised before the op ran), kernel assertion lines
//! (they name the kernel), host errors (raised at the right line), PyTorch's generic device-assert
//! text (the kernel unknown, LG901), other CUDA errors (LG903), library errors (LG904), unknown
//! exceptions (LG903), and last the note that the traceback's line cannot be trusted (LG902).
//! The log rules' own checks are in [`crate::checks`], one file per rule; the findings of
//! contract rules that the knowledge base recognises (a guard's exception, a known kernel's
//! assertion) are built here.

use crate::checks;
use crate::compiled;
use crate::context::{Context, Refined};
use crate::kb::ExplainId;
use crate::model::{Confidence, Diagnosis, Evidence, LogReport, Outcome, SourceSummary};
use crate::observed::{GuardError, MessageGroup, Observations, SiteGroup, Traceback};
use crate::ranks;
use labelguard_core::rule::Category;
use labelguard_core::rules::{self, by_code, category_of};
use labelguard_core::{Finding, Severity, Verdict};

/// The findings of one log, in order of precedence, and the overall outcome.
pub(crate) fn conclude(a: &Observations) -> LogReport {
    let kb = a.kb;
    let c = Context { obs: a, kb };
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
        out.push(guard(&c, g));
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
        out.push(asserted(&c, e, &groups, header_tb, trusted));
    }
    let unknown_sites: Vec<&SiteGroup> = a.sites.iter().filter(|s| s.explain.is_none()).collect();
    let device_failure = !a.sites.is_empty() || a.header.is_some();
    // Errors of kernels are reported late, like asserts; allocation or driver errors are not.
    let kernel_failure = device_failure || a.cuda_errors.iter().any(|g| g.kernel_error);

    for g in &a.hosts {
        let tb = g.traceback.map(|i| &a.tracebacks[i]);
        let (r, kernel) = compiled::refine(&c, c.refine(g.explain, tb, true), tb);
        let confidence = if r.guessed {
            Confidence::Low
        } else if r.inferred {
            Confidence::Medium
        } else {
            Confidence::High
        };
        let evidence = [vec![g.seen.ev.clone()], r.evidence.clone()].concat();
        let mut d = c.diagnosis(
            &r,
            Verdict::Error,
            g.text.clone(),
            confidence,
            g.seen.ev.count,
            evidence,
            tb,
            true,
        );
        if kb.explain(g.explain).key == compiled::EXPLAIN {
            compiled::annotate(&mut d, kernel, &g.text);
        }
        out.push(d);
    }

    if order.is_empty() && device_failure {
        out.push(checks::unidentified(&c, &unknown_sites, header_tb, trusted));
    }

    // A recoverable failure (a kernel that did not compile) is told once, from the last of its
    // lines that ended a traceback (the exception the program stopped with; the others add
    // evidence), and only when nothing else failed: inductor logs and drops an autotuning
    // choice that does not compile, then goes on.
    let other_failure = device_failure || !a.hosts.is_empty();
    let mut told: Vec<ExplainId> = Vec::new();
    for g in &a.cuda_errors {
        if !kb.explain(g.explain).recoverable {
            let tb = g.traceback.map(|i| &a.tracebacks[i]);
            out.push(checks::unexplained(&c, g, tb, !g.kernel_error || trusted));
            continue;
        }
        if other_failure || told.contains(&g.explain) {
            continue;
        }
        told.push(g.explain);
        let same: Vec<&MessageGroup> = a
            .cuda_errors
            .iter()
            .filter(|o| o.explain == g.explain)
            .collect();
        let g = same
            .iter()
            .rev()
            .find(|o| o.traceback.is_some())
            .unwrap_or(&same[0]);
        let tb = g.traceback.map(|i| &a.tracebacks[i]);
        let mut d = checks::unexplained(&c, g, tb, !g.kernel_error || trusted);
        d.evidence = same.iter().map(|o| o.seen.ev.clone()).collect();
        out.push(d);
    }

    if !a.secondary.is_empty() {
        out.push(checks::secondary(
            &c,
            device_failure || !a.cuda_errors.is_empty(),
        ));
    }

    if out.is_empty() {
        for g in a.unknown.iter().take(3) {
            let tb = g.traceback.map(|i| &a.tracebacks[i]);
            out.push(checks::unexplained(&c, g, tb, a.async_lines.is_none()));
        }
    }

    if !a.peers.is_empty() {
        let after = out
            .iter()
            .any(|d| category_of(d.finding.code) != Category::Consequence);
        out.push(checks::peer_failure(&c, after));
    }

    if !trusted && kernel_failure {
        let tb = header_tb;
        let primary = out.iter().find(|d| {
            d.finding.verdict == Verdict::DeviceAssert || d.finding.code == rules::LG903.code
        });
        let primary_op = primary.map_or("unknown".to_string(), |d| d.op.clone());
        // The note repeats the main finding's op, so it is never surer than that finding; with
        // no op named ("unknown") it only says that the report was asynchronous.
        let cap = primary
            .filter(|d| d.op != "unknown")
            .map_or(Confidence::High, |d| d.confidence);
        let fallback = out.first().and_then(|d| d.evidence.first()).cloned();
        if let Some(d) = checks::asynchronous(&c, tb, primary_op, cap, fallback) {
            out.push(d);
        }
    }

    // Every answer that names a cause says which clue decided it; by default the first line of
    // its evidence (the kernel's assertion line, the host error, the guard's exception).
    for d in &mut out {
        let consequence = category_of(d.finding.code) == Category::Consequence;
        if d.clue.is_none() && d.op != crate::kb::UNKNOWN_OP && !consequence {
            if let Some(e) = d.evidence.first() {
                let shared = if d.alternatives.is_empty() {
                    ""
                } else {
                    " (for the cause; nothing in the log tells apart the ops that share the kernel)"
                };
                d.clue = Some(format!(
                    "the log's line {}:{} `{}`{shared}",
                    e.source, e.line, e.text
                ));
            }
        }
    }
    let first_failure = first_failure(a, &mut out);
    let outcome = outcome(&out, first_failure.as_ref());
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
        first_failure,
        findings: out,
    }
}

/// No error, every error explained, or one that is not (a low-confidence error).
/// A log whose only sign of an error is that a rank failed (TorchElastic's summary of a rank
/// that printed nothing, or whose output is not in the log) is unexplained, not error-free.
pub(crate) fn outcome(
    findings: &[Diagnosis],
    failed: Option<&crate::model::FirstFailure>,
) -> Outcome {
    if findings.is_empty() && failed.is_none() {
        Outcome::NoError
    } else if findings.is_empty()
        || findings
            .iter()
            .any(|d| d.finding.severity == Severity::Error && d.confidence == Confidence::Low)
    {
        Outcome::Unexplained
    } else {
        Outcome::Explained
    }
}

/// Which rank failed first (see `crate::ranks`); its finding is moved to the front.
fn first_failure(a: &Observations, out: &mut [Diagnosis]) -> Option<crate::model::FirstFailure> {
    // A primary finding counts from its first line, under its rank's first line.
    let primary: Vec<(u64, &Evidence)> = out
        .iter()
        .filter(|d| category_of(d.finding.code) != Category::Consequence)
        .filter_map(|d| {
            let first = d.evidence.first()?;
            let rank = d.rank();
            let named = d
                .evidence
                .iter()
                .find(|e| e.rank.is_some() && e.rank == rank);
            Some((first.order, named.unwrap_or(first)))
        })
        .collect();
    let mut failed: Vec<u32> = out
        .iter()
        .flat_map(|d| d.evidence.iter().filter_map(|e| e.rank))
        .chain(a.peer_ranks.iter().copied())
        .chain(a.elastic.entries.iter().map(|e| e.rank))
        .collect();
    failed.sort_unstable();
    failed.dedup();
    let first = ranks::first_failure(&a.elastic, &primary, &failed)?;
    if let Some(i) = out.iter().position(|d| {
        let evidence = first.evidence.as_ref();
        evidence.is_some_and(|e| d.evidence.contains(e))
    }) {
        out[..=i].rotate_right(1);
    }
    Some(first)
}

/// Assertion lines of known kernels that share one explanation.
fn asserted(
    c: &Context,
    e: ExplainId,
    groups: &[&SiteGroup],
    tb: Option<&Traceback>,
    trusted: bool,
) -> Diagnosis {
    let refined = c.refine_among(e, &groups[0].ops, tb, trusted);
    let (r, kernel) = compiled::refine(c, refined, tb);
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
        c.kb.explain(r.explain).title
    );
    let mut d = c.device_assert(&r, groups, message, confidence, count, tb, trusted);
    if c.kb.explain(e).key == compiled::EXPLAIN {
        compiled::annotate(&mut d, kernel, &first.condition);
    }
    d
}

/// labelguard's own guard raised before the op ran: the code is in the message.
fn guard(c: &Context, g: &GuardError) -> Diagnosis {
    let tb = g.traceback.map(|i| &c.obs.tracebacks[i]);
    let Some(code) = g.code else {
        // A guard exception without a rule code: report it, unexplained, as it is.
        let r = Refined::unknown(c.kb.unknown_exception);
        let evidence = vec![g.seen.ev.clone()];
        return c.diagnosis(
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
    let op = crate::kb::ops()
        .iter()
        .find(|op| **op != crate::kb::UNKNOWN_OP && contains_word(&g.text, op))
        .unwrap_or(&crate::kb::UNKNOWN_OP);
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
        user_frame: c.user_frame(tb, true),
        suspects: Vec::new(),
        clue: Some(format!("labelguard's guard raised `{}`", g.text)),
        alternatives: Vec::new(),
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
