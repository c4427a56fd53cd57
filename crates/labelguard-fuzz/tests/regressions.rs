//! Every crasher the campaigns found (crashes/<target>/*) is replayed on every build: it must
//! now return, without a panic, within the time budget. A short campaign per target checks
//! that the harness and every target still work.

use labelguard_fuzz::{campaign, run_one, targets::TARGETS, Outcome};
use std::time::Duration;

#[test]
fn every_saved_crasher_now_passes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crashes");
    let dir = tempfile::tempdir().unwrap();
    let mut replayed = 0;
    for t in TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(t.name)) else {
            continue;
        };
        for e in entries.flatten() {
            let input = std::fs::read(e.path()).unwrap();
            let out = run_one(t, &input, &dir.path().join("input"));
            assert_eq!(out, Outcome::Ok, "{}: {}", t.name, e.path().display());
            replayed += 1;
        }
    }
    assert!(replayed > 0, "the regression corpus is empty");
}

#[test]
fn a_short_campaign_on_every_target_finds_nothing() {
    let crashes = tempfile::tempdir().unwrap();
    for t in TARGETS {
        let s = campaign(t, Duration::from_millis(300), 7, crashes.path());
        assert!(s.executions > 0, "{}", t.name);
        assert!(s.found.is_empty(), "{}: {:?}", t.name, s.found);
    }
}
