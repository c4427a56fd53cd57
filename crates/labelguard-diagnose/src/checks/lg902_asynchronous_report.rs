//! LG902 (asynchronous report): the traceback of a kernel failure points at the line where CUDA
//! reported it, not at the failing call.
//!
//! Fires after the other findings when the failure came from a kernel and the log is not known
//! to be synchronous (no `CUDA_LAUNCH_BLOCKING=1`, no synchronous wording): certain (high) when
//! PyTorch printed its "asynchronously reported" lines, else medium; never surer than the main
//! finding whose op it repeats (a low guess of the op stays low here too), unless that op is
//! `unknown`. Rule documentation:
//! [`labelguard_core::rules::LG902`]; fixtures: the `also = ["LG902"]` cases of
//! `tests/fixtures/logs/expected.toml`.

use crate::context::Context;
use crate::model::{Confidence, Diagnosis, Evidence};
use crate::observed::Traceback;
use labelguard_core::rules;
use labelguard_core::{Finding, Verdict};

/// The traceback's line is not where the failure happened.
pub(crate) fn asynchronous(
    c: &Context,
    tb: Option<&Traceback>,
    op: String,
    cap: Confidence,
    fallback: Option<Evidence>,
) -> Option<Diagnosis> {
    let certain = c.obs.async_lines.is_some();
    let user = c.user_frame(tb, false);
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
    let evidence = [&c.obs.async_lines, &c.obs.header]
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
        confidence: if certain { Confidence::High } else { Confidence::Medium }.min(cap),
        count: 1,
        evidence,
        user_frame: user,
        suspects: Vec::new(),
        clue: None,
        alternatives: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use crate::{diagnose_bytes, Confidence, Options};

    fn lg902(log: &str) -> (Confidence, Confidence) {
        let r = diagnose_bytes(log.as_bytes(), "t", Options::default());
        let note = r
            .findings
            .iter()
            .find(|d| d.finding.code == "LG902")
            .expect("an LG902 note");
        (r.findings[0].confidence, note.confidence)
    }

    const ASYNC: &str = "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n";

    #[test]
    fn certain_beside_a_certain_finding() {
        let log = format!(
            "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    print(loss.item())\n{ASYNC}"
        );
        assert_eq!(lg902(&log), (Confidence::High, Confidence::High));
    }

    #[test]
    fn never_surer_than_the_low_guess_whose_op_it_names() {
        // Only a guess names the op (`criterion(` is most often cross_entropy): the note that
        // carries that op stays low although PyTorch printed its asynchronous wording.
        let log = format!(
            "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    loss = criterion(out, y)\n{ASYNC}"
        );
        let (main, note) = lg902(&log);
        assert_eq!(main, Confidence::Low);
        assert_eq!(note, Confidence::Low);
    }

    #[test]
    fn beside_an_unknown_op_it_keeps_its_own_certainty() {
        // Nothing names the op: the note carries none, and PyTorch's wording makes it certain.
        let log = format!("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    x = y.sum()\n{ASYNC}");
        let (main, note) = lg902(&log);
        assert_eq!(main, Confidence::Low);
        assert_eq!(note, Confidence::High);
    }
}
