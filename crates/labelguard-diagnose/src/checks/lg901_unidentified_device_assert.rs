//! LG901 (unidentified device assert): a device-side assert was reported, but no assertion line
//! of a kernel labelguard knows says which kernel failed.
//!
//! Decides the op and the explanation from what else the log holds, strongest first: a
//! synchronous traceback's outermost frame that names an op (medium), a hint line printed before
//! the failure (medium), then the indirect clues of [`crate::clues`] (a low answer keeps the
//! generic explanation, LG901, and names the op as the likeliest). Without any, the finding is
//! LG901 at low confidence, with the traceback's ops as suspects. Rule documentation:
//! [`labelguard_core::rules::LG901`]; fixtures: the `LG901` cases of
//! `tests/fixtures/logs/expected.toml`.

use crate::context::{Context, Refined};
use crate::model::{Confidence, Diagnosis};
use crate::observed::{SiteGroup, Traceback};

/// A device assert whose kernel the log does not name (or names, but labelguard does not know).
pub(crate) fn unidentified(
    c: &Context,
    unknown_sites: &[&SiteGroup],
    tb: Option<&Traceback>,
    trusted: bool,
) -> Diagnosis {
    let kb = c.kb;
    let mut r = Refined::unknown(kb.device_assert);
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
            let ev = c.frame_evidence(f);
            r.clue = Some(format!(
                "the synchronous traceback's frame `{}` calls {}",
                ev.text, s.op
            ));
            r.evidence.push(ev);
            confidence = Confidence::Medium;
        }
    }
    if confidence == Confidence::Low {
        if let Some(h) = c.hint_for(kb.device_assert) {
            r.explain = h.explain;
            r.op = kb.explain(h.explain).op.clone();
            r.evidence.push(h.seen.ev.clone());
            r.clue = Some(format!(
                "the line printed before the failure: `{}`",
                h.seen.ev.text
            ));
            confidence = Confidence::Medium;
        }
    }
    if confidence == Confidence::Low {
        if let Some(c) = crate::clues::rank(c.obs, tb, |f| c.frame_evidence(f), None) {
            // A low-confidence answer keeps the generic explanation (and its advice to
            // localise the failure), unless the clue knows its own cause (a library function
            // whose failure has one); the op is named as the likeliest.
            if c.confidence > Confidence::Low || c.specific {
                r.explain = c.explain;
            }
            r.op = c.op;
            r.evidence = c.evidence;
            r.clue = Some(c.clue);
            confidence = c.confidence;
        }
    }
    let title = &kb.explain(r.explain).title;
    let late = if trusted {
        ""
    } else {
        "; the error is reported asynchronously, so the failing call may be a few lines before the one the traceback shows"
    };
    let message = match unknown_sites.first() {
        Some(s) => format!(
            "`{}` failed the device assertion `{}`, which labelguard does not know",
            s.kernel, s.condition
        ),
        None if confidence == Confidence::Medium => {
            format!(
                "a device-side assert in {} (see below{late}): {title}",
                r.op
            )
        }
        None if r.op != "unknown" => format!(
            "a device-side assert, most likely in {} (indirect evidence, see below{late}): {title}",
            r.op
        ),
        None => "CUDA reported a device-side assert, but the log does not say which kernel failed"
            .into(),
    };
    let count = if unknown_sites.is_empty() {
        c.obs.header.as_ref().map_or(1, |h| h.ev.count)
    } else {
        unknown_sites.iter().map(|g| g.seen.ev.count).sum()
    };
    let mut d = c.device_assert(&r, unknown_sites, message, confidence, count, tb, trusted);
    if confidence == Confidence::Low {
        d.suspects = c.suspects(tb);
    }
    d
}
