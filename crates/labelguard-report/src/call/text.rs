//! A checked call as text: each finding, then the verdict.

use crate::{finding_text, look, Style};
use labelguard_core::{Report, Verdict};

/// What each verdict means, in one line.
pub fn verdict_meaning(v: Verdict) -> &'static str {
    match v {
        Verdict::Ok => "PyTorch accepts this call and the result means something",
        Verdict::Silent => "PyTorch accepts this call, but the result is garbage",
        Verdict::DeviceAssert => "on CUDA this call triggers a device-side assert (the CUDA context dies); on the CPU PyTorch raises",
        Verdict::Error => "PyTorch raises on the host before any kernel runs",
    }
}

/// A whole report as text: each finding, then the verdict.
pub fn text(r: &Report, style: Style) -> String {
    let mut out = String::new();
    for f in &r.findings {
        out += &finding_text(f, style);
        out.push('\n');
    }
    let verdict = match r.verdict {
        Verdict::Ok => style.paint(look::GOOD, "ok"),
        Verdict::Silent => style.paint(look::WARNING, "silent"),
        v => style.paint(look::ERROR, v.as_str()),
    };
    out += &format!("{}: {verdict} — {}\n", r.op, verdict_meaning(r.verdict));
    out
}
