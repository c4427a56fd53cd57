//! The closing summary of the guards: what the sitecustomize of each Python process of the run
//! left in the run's private directory (`guards-on` with torch's version once a process switched
//! the guards on, `checked-PID` with the counts of calls a process checked and refused (`12 1`;
//! an older sitecustomize wrote the first alone), written as it exits,
//! `guards-off-PID` with the reason the guards could not be switched on in a process that imported
//! torch). Nothing there (no Python process imported torch, or `--no-guard`): no summary.

use std::path::Path;

/// The files a run leaves: removed before each run of the command (`--rerun-sync` runs it twice).
const PREFIXES: [&str; 3] = ["guards-on", "checked-", "guards-off-"];

#[derive(Debug, Default, PartialEq)]
pub(super) struct Summary {
    /// torch's version, when a process switched the guards on.
    pub torch: Option<String>,
    /// Calls checked, summed over `processes`, the processes that reported a count.
    pub checked: u64,
    /// Calls refused (a TargetError raised), summed over the same processes.
    pub refused: u64,
    pub processes: usize,
    /// Why the guards were off, one entry per process where they could not be switched on.
    pub off: Vec<String>,
}

impl Summary {
    pub(super) fn read(dir: &Path) -> Summary {
        let mut summary = Summary::default();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return summary;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let text = || std::fs::read_to_string(entry.path()).unwrap_or_default();
            if name == "guards-on" {
                summary.torch = Some(text().trim().to_owned());
            } else if name.starts_with("checked-") {
                let text = text();
                let mut counts = text.split_whitespace().map(str::parse::<u64>);
                if let Some(Ok(n)) = counts.next() {
                    summary.checked += n;
                    summary.refused += counts.next().and_then(Result::ok).unwrap_or(0);
                    summary.processes += 1;
                }
            } else if name.starts_with("guards-off-") {
                summary.off.push(text().trim().to_owned());
            }
        }
        summary.off.sort();
        summary
    }

    /// Removes what an earlier run of the command left.
    pub(super) fn clear(dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name
                .to_str()
                .is_some_and(|n| PREFIXES.iter().any(|p| n.starts_with(p)))
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// The summary's lines (without `labelguard run: `), none when no process imported torch
    /// with the guards asked for.
    pub(super) fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(torch) = &self.torch {
            let calls = if self.checked == 1 { "call" } else { "calls" };
            let refused = match self.refused {
                0 => String::new(),
                n => format!(" and refused {n}"),
            };
            lines.push(match self.processes {
                0 => format!("the guards were on (torch {torch}); no process reported how many calls they checked (each reports as it exits)"),
                1 => format!("the guards checked {} {calls}{refused} (torch {torch})", self.checked),
                n => format!(
                    "the guards checked {} {calls} in {n} processes{refused} (torch {torch})",
                    self.checked
                ),
            });
        }
        if let Some(why) = self.off.first() {
            let n = self.off.len();
            let processes = if n == 1 { "process" } else { "processes" };
            lines.push(format!(
                "the guards were off in {n} {processes} that imported torch: {why}"
            ));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_the_counts_and_names_why_the_guards_were_off() {
        let dir = tempfile::tempdir().unwrap();
        let put = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        assert_eq!(Summary::read(dir.path()).lines(), Vec::<String>::new());
        put("guards-on", "2.15.0\n");
        assert_eq!(
            Summary::read(dir.path()).lines(),
            ["the guards were on (torch 2.15.0); no process reported how many calls they checked (each reports as it exits)"]
        );
        put("checked-10", "1");
        assert_eq!(
            Summary::read(dir.path()).lines(),
            ["the guards checked 1 call (torch 2.15.0)"]
        );
        put("checked-11", "41 2");
        put("checked-12", "not a number");
        put("ended-0-10", "");
        put(
            "guards-off-13",
            "labelguard.enable() failed (RuntimeError: no)",
        );
        assert_eq!(
            Summary::read(dir.path()).lines(),
            [
                "the guards checked 42 calls in 2 processes and refused 2 (torch 2.15.0)",
                "the guards were off in 1 process that imported torch: labelguard.enable() failed (RuntimeError: no)"
            ]
        );
        Summary::clear(dir.path());
        assert_eq!(Summary::read(dir.path()), Summary::default());
        assert!(
            dir.path().join("ended-0-10").exists(),
            "not the run's other files"
        );
    }
}
