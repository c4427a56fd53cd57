//! Indirect evidence of the failing op, for a log whose assertion lines do not name it: the
//! source lines of a traceback (and IPython's context lines before its arrow), frames in
//! well-known library files, a source line printed right before the exception, the last input of
//! an interactive session, and THC-era headers that name a kernel's file.
//!
//! Every clue votes for an op with a weight; the op with the most weight wins. The answer is
//! never more than `medium`: `medium` needs two independent clues that agree and a direct call of
//! the op among them; one clue alone, or only guesses (`criterion(...)`), give `low`.

use crate::kb::{ExplainId, Kb};
use crate::model::{Confidence, Evidence, Frame};
use crate::observed::{Observations, Traceback};
use crate::seen::Seen;

/// The best-supported op and what supports it.
pub(crate) struct Ranked {
    pub op: String,
    pub explain: ExplainId,
    pub evidence: Vec<Evidence>,
    pub confidence: Confidence,
    /// The strongest clue that voted for the op, in words.
    pub clue: String,
    /// The explanation is the clue's own (a library's known cause), not the op's default.
    pub specific: bool,
}

struct Vote {
    op: String,
    explain: Option<ExplainId>,
    weight: u32,
    /// The clue is a call of the op itself, not a guess.
    direct: bool,
    /// Which kind of clue voted (clues of one kind are not independent).
    kind: u8,
    evidence: Evidence,
}

const HEADER: u8 = 0;
const FRAME: u8 = 1;
const LIBRARY: u8 = 2;
const CONTEXT: u8 = 3;
const ORPHAN: u8 = 4;
const REPL: u8 = 5;

/// Ranks the clues. `allowed` limits the answer to a set of ops (the candidates of a kernel that
/// several ops share).
pub(crate) fn rank(
    a: &Observations,
    tb: Option<&Traceback>,
    frame_evidence: impl Fn(&Frame) -> Evidence,
    allowed: Option<&[String]>,
) -> Option<Ranked> {
    let kb = a.kb;
    let mut votes: Vec<Vote> = Vec::new();
    for h in a
        .hints
        .iter()
        .filter(|h| h.applies_to.contains(&kb.device_assert))
    {
        votes.push(Vote {
            op: kb.explain(h.explain).op.clone(),
            explain: Some(h.explain),
            weight: if h.weak { 2 } else { 4 },
            direct: !h.weak,
            kind: HEADER,
            evidence: h.seen.ev.clone(),
        });
    }
    let mut innermost = true;
    for f in tb.map_or(&[][..], |t| &t.frames).iter().rev() {
        let code = f.code.as_deref().unwrap_or("");
        if let Some(s) = kb.frame_op(&f.function, code).filter(|s| s.op != "unknown") {
            let weight = if s.weak {
                1
            } else if innermost {
                3
            } else {
                2
            };
            innermost &= s.weak;
            votes.push(Vote {
                op: s.op.clone(),
                explain: s.explain_id,
                weight,
                direct: !s.weak,
                kind: FRAME,
                evidence: frame_evidence(f),
            });
        }
        if let Some(l) = kb.library_op(&f.file, &f.function) {
            votes.push(Vote {
                op: l.op.clone(),
                explain: l.explain_id,
                weight: 2,
                direct: false,
                kind: LIBRARY,
                evidence: frame_evidence(f),
            });
        }
        for (line, text) in &f.context {
            if let Some(s) = kb.frame_op("", text).filter(|s| s.op != "unknown") {
                let mut ev = frame_evidence(f);
                ev.line = *line;
                ev.text = text.clone();
                votes.push(Vote {
                    op: s.op.clone(),
                    explain: s.explain_id,
                    weight: 1,
                    direct: !s.weak,
                    kind: CONTEXT,
                    evidence: ev,
                });
            }
        }
    }
    for (seen, kind) in [(&a.orphan_code, ORPHAN), (&a.repl_code, REPL)] {
        if let Some(v) = code_vote(kb, seen.as_ref(), kind) {
            votes.push(v);
        }
    }
    votes.retain(|v| allowed.is_none_or(|ops| ops.contains(&v.op)));
    // The op with the most weight; on a tie, the one voted for first (the header, then the
    // innermost frame).
    let mut best: Option<(&str, u32)> = None;
    for v in &votes {
        let total: u32 = votes
            .iter()
            .filter(|w| w.op == v.op)
            .map(|w| w.weight)
            .sum();
        if best.is_none_or(|(_, b)| total > b) {
            best = Some((&v.op, total));
        }
    }
    let (op, total) = best?;
    let mine: Vec<&Vote> = votes.iter().filter(|v| v.op == op).collect();
    let mut kinds: Vec<u8> = mine.iter().map(|v| v.kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let rival = votes.iter().any(|v| v.op != op && v.weight >= 2);
    let confidence = if total >= 4 && kinds.len() >= 2 && mine.iter().any(|v| v.direct) && !rival {
        Confidence::Medium
    } else {
        Confidence::Low
    };
    let specific = mine.iter().find_map(|v| v.explain);
    let explain = specific.or_else(|| kb.op_default.get(op).copied())?;
    let strongest = mine
        .iter()
        .max_by_key(|v| (v.weight, std::cmp::Reverse(v.kind)))
        .expect("the op has votes");
    Some(Ranked {
        op: op.to_string(),
        explain,
        evidence: unique(mine.iter().map(|v| &v.evidence)),
        confidence,
        clue: describe(strongest, op, kb),
        specific: specific.is_some(),
    })
}

/// The evidence lines of the votes, each once (a frame votes as a call and as a library
/// function), at most four.
fn unique<'a>(lines: impl Iterator<Item = &'a Evidence>) -> Vec<Evidence> {
    let mut out: Vec<Evidence> = Vec::new();
    for e in lines {
        if out.len() < 4 && !out.contains(e) {
            out.push(e.clone());
        }
    }
    out
}

/// A clue in words: what kind of line voted, and the line.
fn describe(v: &Vote, op: &str, kb: &Kb) -> String {
    let text = &v.evidence.text;
    match v.kind {
        HEADER => format!("the line printed before the failure: `{text}`"),
        FRAME => format!("the traceback's frame `{text}` calls {op}"),
        LIBRARY => {
            let why = kb
                .libraries
                .iter()
                .find(|l| text.replace('\\', "/").contains(l.path.as_str()))
                .map_or(String::new(), |l| format!(": {}", l.why));
            format!("the traceback's frame `{text}` is a well-known library function whose failure means {op}{why}")
        }
        CONTEXT => format!("a source line that ran just before the reported one: `{text}`"),
        _ => format!("the source line printed with the error: `{text}`"),
    }
}

fn code_vote(kb: &Kb, seen: Option<&Seen>, kind: u8) -> Option<Vote> {
    let seen = seen?;
    let s = kb
        .frame_op("", &seen.ev.text)
        .filter(|s| s.op != "unknown")?;
    Some(Vote {
        op: s.op.clone(),
        explain: s.explain_id,
        weight: if s.weak { 1 } else { 2 },
        direct: !s.weak,
        kind,
        evidence: seen.ev.clone(),
    })
}
