//! Diagnoses as text for people, built on the shared finding block.

use crate::{finding_text, look, thousands, visible, Style};
use labelguard_diagnose::{Confidence, FirstFailure, LogReport, Outcome};

/// The diagnoses of one or more logs as text.
pub fn text(reports: &[LogReport], style: Style) -> String {
    let mut out = String::new();
    for r in reports {
        if let Some(f) = &r.first_failure {
            out += &first_failure(f, style);
        }
        for d in &r.findings {
            let mut f = d.finding.clone();
            f.hint = Some(d.cause.clone());
            let block = finding_text(&f, style);
            // The shared renderer prints message, hint and fix; the op and the confidence go
            // right under the message.
            let mut lines = block.lines();
            for l in lines.by_ref().take(2) {
                out += l;
                out.push('\n');
            }
            let mut facts = format!("op: {}", visible(&d.op));
            if let Some(rank) = d.rank() {
                facts = format!("rank: {rank} · {facts}");
            }
            // A confident answer needs no list of the ops it was chosen from.
            if !d.candidates.is_empty() && d.confidence < Confidence::High {
                facts += &format!(" (one of {})", visible(&d.candidates.join(", ")));
            }
            if let Some(k) = &d.kernel {
                facts += &format!(" · kernel: {}", visible(k));
            }
            facts += &format!(" · confidence: {}", d.confidence.as_str());
            out += &format!("  {}\n", style.paint(look::LABEL, &facts));
            for l in lines {
                out += l;
                out.push('\n');
            }
            if let Some(clue) = &d.clue {
                out += &format!(
                    "  {} {}\n",
                    style.paint(look::LABEL, "decided by:"),
                    visible(clue)
                );
            }
            if !d.alternatives.is_empty() {
                out += &format!(
                    "  {} {} (nothing in the log tells them apart from {})\n",
                    style.paint(look::LABEL, "or:"),
                    visible(&d.alternatives.join(", ")),
                    visible(&d.op)
                );
            }
            if !d.suspects.is_empty() {
                out += &format!(
                    "  {} {} (named in a traceback that cannot be trusted)\n",
                    style.paint(look::LABEL, "suspects:"),
                    visible(&d.suspects.join(", "))
                );
            }
            if let Some(u) = &d.user_frame {
                let at = match u.frame.line {
                    Some(l) => format!("{}:{l}", visible(&u.frame.file)),
                    None => visible(&u.frame.file).into_owned(),
                };
                let code = u
                    .frame
                    .code
                    .as_deref()
                    .map_or(String::new(), |c| format!(": {}", visible(c)));
                let trust = if u.trusted {
                    ""
                } else {
                    " (reported here, not necessarily where it failed)"
                };
                out += &format!(
                    "  {} {at} in {}{code}{trust}\n",
                    style.paint(look::INFO, "your code:"),
                    visible(&u.frame.function)
                );
            }
            out += &format!("  {}\n", style.paint(look::LABEL, "evidence:"));
            for e in &d.evidence {
                let group = match (e.count, e.last_line) {
                    (1, _) => String::new(),
                    (n, Some(last)) => format!(" (x{}, last at line {last})", thousands(n)),
                    (n, None) => format!(" (x{})", thousands(n)),
                };
                out += &format!(
                    "    {}:{} {}{group}\n",
                    visible(&e.source),
                    e.line,
                    visible(&e.text)
                );
            }
            out.push('\n');
        }
    }
    let outcome = reports
        .iter()
        .map(|r| r.outcome)
        .max()
        .unwrap_or(Outcome::NoError);
    let errors = reports.iter().map(|r| r.findings.len()).sum::<usize>();
    out += &match outcome {
        Outcome::NoError => style.paint(look::GOOD, "no error found in the log"),
        Outcome::Explained => format!("{} — {} finding(s)", style.paint(look::GOOD, "explained"), errors),
        Outcome::Unexplained => format!(
            "{} — labelguard found an error it cannot explain; `labelguard run --sync -- <command>` localises it",
            style.paint(look::ERROR, "unexplained")
        ),
    };
    out.push('\n');
    out
}

/// `rank 1 failed first (TorchElastic's root cause): stderr:12 labelguard.TargetError: ...`,
/// and the ranks that failed after it.
fn first_failure(f: &FirstFailure, style: Style) -> String {
    let how = match f.how {
        "elastic-root-cause" => "TorchElastic's root cause",
        "elastic-agent" => "TorchElastic's agent saw it fail first",
        _ => "its error came before any other rank's",
    };
    let mut out = format!(
        "{} ({how})",
        style.paint(look::ERROR, &format!("rank {} failed first", f.rank))
    );
    if let Some(e) = &f.evidence {
        out += &format!(": {}:{} {}", visible(&e.source), e.line, visible(&e.text));
    }
    out.push('\n');
    if !f.other_ranks.is_empty() {
        let others: Vec<String> = f.other_ranks.iter().map(u32::to_string).collect();
        out += &format!(
            "  {} {} (their errors follow from it unless listed as findings of their own)\n",
            style.paint(look::LABEL, "then:"),
            others.join(", ")
        );
    }
    out.push('\n');
    out
}
