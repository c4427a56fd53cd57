//! LG909 (peer rank failure): errors of ranks that follow from another rank's failure (a closed
//! connection, a collective timeout, the launcher's SIGTERM); a warning after that rank's own
//! error, an error when the log does not show it.
//!
//! The messages are the knowledge base's `peer` lines (`knowledge.toml`); which rank failed first
//! is `crate::ranks`. Rule documentation: [`labelguard_core::rules::LG909`]; fixtures: the
//! `LG909` cases of `tests/fixtures/logs/expected.toml`.

use crate::context::Context;
use crate::model::{Confidence, Diagnosis};
use labelguard_core::rule::Category;
use labelguard_core::rules::{category_of, LG909};
use labelguard_core::Severity;

pub(crate) fn peer_failure(c: &Context, after_failure: bool) -> Diagnosis {
    // The ranks that said a peer is gone, and those TorchElastic lists as ended by a signal (the
    // launcher's SIGTERM) that are not the first failure: a rank's own CUDA assert ends it by a
    // signal too (SIGABRT, exitcode -6), and the agent's line for it is no root-cause entry.
    let mut ranks = c.obs.peer_ranks.clone();
    let first = c.obs.elastic.root_cause().map(|e| e.rank);
    let killed = c.obs.elastic.entries.iter();
    let killed = killed
        .filter(|e| !e.root_cause && Some(e.rank) != first && e.exitcode.is_some_and(|x| x < 0));
    ranks.extend(killed.map(|e| e.rank));
    ranks.sort_unstable();
    ranks.dedup();
    let who = match ranks.as_slice() {
        [] => "a rank".to_string(),
        [one] => format!("rank {one}"),
        many => {
            let many: Vec<String> = many.iter().map(u32::to_string).collect();
            format!("ranks {}", many.join(", "))
        }
    };

    let text = &c.obs.peers[0].text;
    let mut message = format!("{who} failed because another rank failed first ({text})");
    message += if after_failure { AFTER } else { ALONE };
    c.consequence(&c.obs.peers, after_failure, message)
}

const AFTER: &str = ": a consequence, not a separate problem";
const ALONE: &str = ", but that rank's own error is not in the log";

/// Logs diagnosed together (one per rank): a log whose only errors say that a peer is gone is
/// explained by another log that shows a rank's own failure.
pub fn explained_by_other_logs(reports: &mut [crate::LogReport]) {
    let own_failure = |r: &crate::LogReport| {
        r.findings
            .iter()
            .any(|d| category_of(d.finding.code) != Category::Consequence)
    };
    let failed: Vec<bool> = reports.iter().map(own_failure).collect();
    for (i, r) in reports.iter_mut().enumerate() {
        let elsewhere = failed.iter().enumerate().any(|(j, f)| *f && j != i);
        if !elsewhere {
            continue;
        }
        for d in r
            .findings
            .iter_mut()
            .filter(|d| d.finding.code == LG909.code)
        {
            if let Some(head) = d.finding.message.strip_suffix(ALONE) {
                d.finding.message = format!("{head}{AFTER}");
                d.finding.severity = Severity::Warning;
                d.confidence = Confidence::High;
            }
        }
        r.outcome = crate::conclude::outcome(&r.findings, r.first_failure.as_ref());
    }
}
