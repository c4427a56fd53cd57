//! The corpus of logs rebuilt from real public reports (tests/fixtures/logs/real): each `.log`
//! reproduces the facts of one public issue thread (assertion texts, kernel names, header forms,
//! traceback shapes, library frames); its `.toml` sidecar gives the thread's URL, the op that
//! failed according to the thread, and the basis for that.
//!
//! The corpus is split once, by a hash of the URL, into a tuning set and a held-out set that the
//! knowledge base is never tuned on. Both sets' figures are printed; the held-out set must reach
//! the bar: at least 85% of the counted logs with the op right and at most 2 wrong answers given
//! with medium or high confidence. Logs marked `counted = false` hold no clue to the op at all;
//! they still must not crash or get a confident wrong answer.

use labelguard_diagnose::{diagnose_reader, Confidence, Options};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Sidecar {
    url: String,
    op: String,
    #[serde(default = "yes")]
    counted: bool,
    basis: String,
}

fn yes() -> bool {
    true
}

fn dir() -> PathBuf {
    corpus("real")
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/logs")
        .join(name)
}

/// FNV-1a, 64 bits: a fixed, documented hash, so the split never depends on a library version.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One log in three goes to the held-out set, decided by its URL alone.
fn held_out(url: &str) -> bool {
    fnv1a(url).is_multiple_of(3)
}

/// Ops that name the same failing kernel: cross_entropy runs nll_loss's kernel, and nn.Embedding
/// runs index_select's, so a log without the Python call cannot tell them apart.
fn same_op(want: &str, got: &str) -> bool {
    fn family(op: &str) -> &str {
        match op {
            "cross_entropy" | "nll_loss" => "nll_loss",
            "embedding" | "index_select" => "index_select",
            other => other,
        }
    }
    family(want) == family(got)
}

#[derive(Default, Debug)]
struct Figures {
    counted: usize,
    right: usize,
    unknown: usize,
    confident_wrong: Vec<String>,
    misses: Vec<String>,
    uncounted: usize,
}

impl Figures {
    fn percent(&self) -> f64 {
        100.0 * self.right as f64 / self.counted.max(1) as f64
    }
}

struct Case {
    name: String,
    sidecar: Sidecar,
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let sidecar: Sidecar =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                path.with_extension("log").exists(),
                "{name}: sidecar without a log"
            );
            out.push(Case { name, sidecar });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn evaluate(dir: &Path, cases: &[&Case]) -> Figures {
    let mut f = Figures::default();
    for c in cases {
        let file = std::fs::File::open(dir.join(format!("{}.log", c.name))).unwrap();
        let report = diagnose_reader(file, &c.name, Options::default()).unwrap();
        let first = report.findings.first();
        let op = first.map_or("none", |d| d.op.as_str());
        let confidence = first.map_or(Confidence::Low, |d| d.confidence);
        let right = same_op(&c.sidecar.op, op);
        if !right && op != "unknown" && confidence >= Confidence::Medium {
            f.confident_wrong.push(format!(
                "{}: {op} ({}), truth {}",
                c.name,
                confidence.as_str(),
                c.sidecar.op
            ));
        }
        if !c.sidecar.counted {
            f.uncounted += 1;
            continue;
        }
        f.counted += 1;
        if right {
            f.right += 1;
        } else {
            if op == "unknown" || op == "none" {
                f.unknown += 1;
            }
            f.misses.push(format!(
                "{}: {op} ({}), truth {}",
                c.name,
                confidence.as_str(),
                c.sidecar.op
            ));
        }
    }
    f
}

/// Prints a set's figures; the misses only for the tuning set, so that nobody tunes on the
/// held-out logs by reading this output.
fn print(name: &str, f: &Figures, details: bool) {
    eprintln!(
        "{name}: {}/{} counted logs with the op right ({:.1}%), {} unknown, {} wrong at medium/high confidence, {} uncounted",
        f.right,
        f.counted,
        f.percent(),
        f.unknown,
        f.confident_wrong.len(),
        f.uncounted
    );
    for m in f.misses.iter().filter(|_| details) {
        eprintln!("  miss {m}");
    }
    for m in &f.confident_wrong {
        eprintln!("  CONFIDENT WRONG {m}");
    }
}

#[test]
fn the_corpus_is_large_enough_and_every_sidecar_names_a_known_op_and_a_source() {
    let cases = cases(&dir());
    assert!(cases.len() >= 60, "{} real-report fixtures", cases.len());
    let mut urls: Vec<&str> = cases.iter().map(|c| c.sidecar.url.as_str()).collect();
    urls.sort();
    urls.dedup();
    assert_eq!(urls.len(), cases.len(), "one fixture per public report");
    for c in &cases {
        assert!(c.sidecar.url.starts_with("https://"), "{}", c.name);
        assert!(
            labelguard_diagnose::ops().contains(&c.sidecar.op.as_str())
                && c.sidecar.op != "unknown",
            "{}: {}",
            c.name,
            c.sidecar.op
        );
        assert!(!c.sidecar.basis.is_empty(), "{}", c.name);
    }
    let held = cases.iter().filter(|c| held_out(&c.sidecar.url)).count();
    assert!(held >= 15, "{held} held-out logs");
}

#[test]
fn held_out_logs_meet_the_bar_and_no_set_has_many_confident_wrong_answers() {
    let cases = cases(&dir());
    let (held, tuning): (Vec<&Case>, Vec<&Case>) =
        cases.iter().partition(|c| held_out(&c.sidecar.url));
    let t = evaluate(&dir(), &tuning);
    let h = evaluate(&dir(), &held);
    print("tuning", &t, true);
    print("held-out", &h, false);
    assert!(
        h.confident_wrong.len() <= 2,
        "held-out confident wrong: {:?}",
        h.confident_wrong
    );
    assert!(
        t.confident_wrong.len() <= 2,
        "tuning confident wrong: {:?}",
        t.confident_wrong
    );
    assert!(h.percent() >= 85.0, "held-out: {:.1}%", h.percent());
}

/// Issue 38's corpus (tests/fixtures/logs/real-2x): real logs of PyTorch 2.x kernels (2.8's
/// vectorized gather, the gather/scatter kernel that several ops share, 2.8's AcceleratorError)
/// and logs with no assertion line at all (DETR-style matchers, nnU-Net's Dice loss, a
/// notebook cell). Collected for the issue, so it is not a held-out set: it is evaluated whole,
/// misses printed, to the same bar (at least 85% right) and at most one confident wrong answer.
#[test]
fn the_pytorch_2x_and_traceback_only_corpus_meets_the_bar() {
    let dir = corpus("real-2x");
    let cases = cases(&dir);
    assert!(cases.len() >= 12, "{} fixtures", cases.len());
    let all: Vec<&Case> = cases.iter().collect();
    let f = evaluate(&dir, &all);
    print("pytorch-2.x and traceback-only", &f, true);
    assert!(f.confident_wrong.len() <= 1, "{:?}", f.confident_wrong);
    assert!(f.percent() >= 85.0, "{:.1}%", f.percent());
}

#[test]
fn the_split_is_fixed_by_the_url_hash() {
    assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    assert!(same_op("cross_entropy", "nll_loss"));
    assert!(!same_op("gather", "scatter"));
}

/// The second round of issue 38 (tests/fixtures/logs/real-2023): 42 real logs posted 2023-2026,
/// split by a seeded shuffle into `tuning/` and `held-out/` before any was diagnosed (see the
/// corpus's README). Only the tuning half's misses are printed. Each half must reach the judges'
/// bar: at least 85% of the counted logs right and at most one confident wrong answer.
#[test]
fn the_2023_2026_corpus_meets_the_bar_on_both_halves() {
    for (half, details) in [("tuning", true), ("held-out", false)] {
        let dir = corpus("real-2023").join(half);
        let cases = cases(&dir);
        assert!(cases.len() >= 20, "{half}: {} fixtures", cases.len());
        let all: Vec<&Case> = cases.iter().collect();
        let f = evaluate(&dir, &all);
        print(&format!("2023-2026 {half}"), &f, details);
        assert!(
            f.confident_wrong.len() <= 1,
            "{half}: {:?}",
            f.confident_wrong
        );
        assert!(f.percent() >= 85.0, "{half}: {:.1}%", f.percent());
    }
}
