//! The analyzer's multi-line reports: the lines after a guard exception (`[LG101] ...`, `hint:`,
//! `fix:`) and TORCH_USE_CUDA_DSA's assertion reports.

use super::Analyzer;
use crate::assertion::{self, Site};
use crate::seen::{Seen, SourceId};
use crate::text;

#[derive(Default)]
pub(super) struct Dsa {
    condition: Option<(String, Seen)>,
    file: String,
    function: String,
    kernel: String,
}

impl Analyzer {
    /// The lines after a guard exception: `[LG101] ...`, `hint: ...`, `fix: ...`.
    pub(super) fn guard_line(&mut self, t: &str) -> bool {
        let Some((i, left)) = self.guard_lines else {
            return false;
        };
        self.guard_lines = (left > 1).then_some((i, left - 1));
        let g = &mut self.obs.guards[i];
        if let Some(h) = t.strip_prefix("hint:") {
            g.hint = Some(text::shorten(h));
        } else if let Some(f) = t.strip_prefix("fix:") {
            g.fix = Some(text::shorten(f));
        } else if let Some(code) = t.strip_prefix('[').and_then(rule_code) {
            if g.code.is_none() {
                g.code = Some(code);
                g.text = text::shorten(&format!("{} {t}", g.text));
            }
        } else {
            self.guard_lines = None;
            return false;
        }
        true
    }

    /// TORCH_USE_CUDA_DSA reports: `Assertion failure 0`, then indented `key = value` lines.
    pub(super) fn dsa_line(
        &mut self,
        src: SourceId,
        line_no: u64,
        s: &str,
        t: &str,
        full: &str,
    ) -> bool {
        let starts = t.starts_with("Assertion failure ")
            || (self.dsa.is_none() && text::has(&text::DSA_FOUND, t));
        if starts {
            self.rec.impure();
            self.finish_dsa();
            self.dsa = Some(Dsa::default());
            return t.starts_with("Assertion failure ");
        }
        let Some(dsa) = self.dsa.as_mut() else {
            return false;
        };
        let field = |name: &str| t.strip_prefix(name).map(|v| v.trim().to_string());
        if let Some(v) = field("GPU assertion failure message =") {
            let seen = self.seen(src, line_no, full);
            self.dsa.as_mut().expect("open").condition = Some((v, seen));
        } else if let Some(v) = field("File containing assertion =") {
            dsa.file = v;
        } else if let Some(v) = field("Device function containing assertion =") {
            dsa.function = v;
        } else if let Some(v) = field("Name of kernel launched that led to failure =") {
            dsa.kernel = v;
        } else if s.len() == t.len() && !t.starts_with('[') {
            // An unindented line ends the report.
            self.finish_dsa();
            return false;
        }
        true
    }

    pub(super) fn finish_dsa(&mut self) {
        let Some(dsa) = self.dsa.take() else { return };
        let Some((condition, seen)) = dsa.condition else {
            return;
        };
        let file = dsa
            .file
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or("")
            .to_string();
        let prefix = format!("{file}: {}: ", dsa.function);
        let site = Site {
            prefix: &prefix,
            condition: &condition,
            device: true,
            host: false,
        };
        let kernel =
            assertion::kernel_name(&dsa.function).or_else(|| assertion::kernel_name(&dsa.kernel));
        let src = seen.source;
        let line = seen.ev.text.clone();
        self.site(src, seen.ev.line, &line, &site, kernel.as_deref());
        self.recent.clear();
    }
}

/// Whether an exception line is a labelguard guard's, and its rule code when the line has it
/// (`labelguard._report.TargetError: ...`, `ValueError: [LG101] ...`).
pub(super) fn guard_code(t: &str) -> Option<Option<&'static str>> {
    let (name, msg) = text::exception_line(t)?;
    let code = msg.strip_prefix('[').and_then(rule_code);
    (name.contains("labelguard") || code.is_some()).then_some(code.or_else(|| {
        let i = msg.find("[LG")?;
        rule_code(&msg[i + 1..])
    }))
}

/// The rule code at the start of `s` (`LG101]...`).
fn rule_code(s: &str) -> Option<&'static str> {
    let code = s.get(..5)?;
    if !code.starts_with("LG") || s.as_bytes().get(5) != Some(&b']') {
        return None;
    }
    labelguard_core::rules::by_code(code).map(|r| r.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_codes() {
        assert_eq!(
            guard_code("labelguard.LabelguardError: [LG101] class id 3 >= 3 classes"),
            Some(Some("LG101"))
        );
        assert_eq!(
            guard_code("ValueError: [LG103] 255 not ignored"),
            Some(Some("LG103"))
        );
        assert_eq!(
            guard_code("labelguard._report.TargetError: cross_entropy: x [LG101]"),
            Some(Some("LG101"))
        );
        assert_eq!(
            guard_code("labelguard._report.TargetError: cross_entropy"),
            Some(None)
        );
        assert_eq!(guard_code("ValueError: LG101"), None);
        assert_eq!(guard_code("labelguard.XError: [LG999]"), Some(None));
    }
}
