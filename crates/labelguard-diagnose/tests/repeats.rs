//! Repeated lines are counted without being analysed again (`repeat.rs`): GPU threads of
//! several kernels or ranks interleaved, and the same message line repeated. The counts, first
//! lines and last lines must be what analysing every line gives.

use labelguard_diagnose::{diagnose_bytes, Diagnosis, LogReport, Options};

fn diagnose(lines: &[String]) -> LogReport {
    let log = lines.join("\n") + "\n";
    diagnose_bytes(log.as_bytes(), "log", Options::default())
}

fn finding<'a>(r: &'a LogReport, code: &str) -> &'a Diagnosis {
    r.findings
        .iter()
        .find(|d| d.finding.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:#?}", r.findings))
}

fn nll(rank: usize, thread: usize) -> String {
    format!("[rank{rank}]:../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [{},0,0], thread: [{thread},0,0] Assertion `t >= 0 && t < n_classes` failed.", thread / 64)
}

fn index_select(thread: usize) -> String {
    format!("../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [0,0,0], thread: [{thread},0,0] Assertion `srcIndex < srcSelectDimSize` failed.")
}

#[test]
fn interleaved_ranks_and_kernels_count_every_line_into_their_site() {
    // 8 ranks' lines of one kernel, every third line another kernel's.
    let mut lines = Vec::new();
    let (mut nll_lines, mut index_lines) = (Vec::new(), Vec::new());
    for i in 0..600 {
        if i % 3 == 2 {
            lines.push(index_select(i));
            index_lines.push(lines.len() as u64);
        } else {
            lines.push(nll(i % 8, i));
            nll_lines.push(lines.len() as u64);
        }
    }
    let r = diagnose(&lines);
    let nll = finding(&r, "LG101");
    assert_eq!(nll.count, nll_lines.len() as u64);
    assert_eq!(nll.evidence[0].line, 1);
    assert_eq!(nll.evidence[0].count, nll_lines.len() as u64);
    assert_eq!(nll.evidence[0].last_line, nll_lines.last().copied());
    let index = finding(&r, "LG402");
    assert_eq!(index.count, index_lines.len() as u64);
    assert_eq!(index.evidence[0].line, index_lines[0]);
    assert_eq!(index.evidence[0].last_line, index_lines.last().copied());
}

#[test]
fn a_repeated_message_line_counts_like_its_first() {
    // The device-assert header repeated, with 100 different host errors cycling between.
    let mut lines = Vec::new();
    for i in 0..2000 {
        lines.push(if i % 2 == 0 {
            "RuntimeError: CUDA error: device-side assert triggered".to_string()
        } else {
            format!("IndexError: Target {} is out of bounds.", (i / 2) % 100)
        });
    }
    let r = diagnose(&lines);
    let target_5: Vec<u64> = (1..=2000u64)
        .filter(|&n| n % 2 == 0 && ((n - 1) / 2) % 100 == 5)
        .collect();
    let ev = r
        .findings
        .iter()
        .flat_map(|d| &d.evidence)
        .find(|e| e.text == "IndexError: Target 5 is out of bounds.")
        .unwrap_or_else(|| panic!("no evidence of Target 5 in {r:#?}"));
    assert_eq!((ev.line, ev.count), (target_5[0], target_5.len() as u64));
    assert_eq!(ev.last_line, target_5.last().copied());
}

#[test]
fn a_remembered_line_whose_condition_holds_thread_numbers_is_not_reused() {
    // Glued fragments: the first `Assertion` takes the kernel's path and thread numbers into its
    // condition, so each thread is its own site. Only the line just before may be reused.
    let a = |t: usize| {
        format!("loss = F.cross_entropy(out, y)Assertion ../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [0,0,0], thread: [{t},0,0] Assertion `t >= 0 && t < n_classes` failed.")
    };
    let x = "x = f(y)Assertion `srcIndex < srcSelectDimSize` failed.".to_string();
    let lines = [a(7), x.clone(), a(7), x.clone(), a(369)];
    let r = diagnose(&lines);
    let evidence: Vec<_> = r.findings.iter().flat_map(|d| &d.evidence).collect();
    let own = evidence
        .iter()
        .find(|e| e.text.contains("thread: [369,"))
        .unwrap_or_else(|| panic!("thread 369 has no site of its own: {evidence:#?}"));
    assert_eq!((own.line, own.count), (5, 1));
}
