//! Every adversarial Parquet case (issue 8: cut footers, wrong metadata lengths, every integer
//! of the footer and page headers made huge, negative or past the end, skipped lists of 2^31
//! elements) is read to an answer: no panic, no hang, and each damaged file that cannot be
//! read is a corrupt-file problem with a message.

use labelguard_formats::read::table::{read_labels, TableError, TableFormat};
use labelguard_fuzz::parquet_cases::{cases, seed};
use labelguard_fuzz::{run_one, targets::TARGETS, Outcome};

fn read(bytes: &[u8], dir: &std::path::Path) -> Result<Vec<i64>, String> {
    let p = dir.join("t.parquet");
    std::fs::write(&p, bytes).unwrap();
    let source = labelguard_formats::source::Source::File(p.clone());
    match read_labels(&source, TableFormat::Parquet, None, None, -1, 1 << 20) {
        Ok(c) => Ok(c.ids),
        Err(TableError::Problem(p)) => Err(format!("{}: {}", p.code, p.message)),
        Err(TableError::MissingColumn { wanted, .. }) => Err(format!("no column {wanted}")),
    }
}

#[test]
fn the_seed_reads_and_every_case_returns_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let ids = read(&seed(), dir.path()).unwrap();
    let want: Vec<i64> = (0..40)
        .map(|i| if i % 7 == 3 { -1 } else { i % 5 })
        .collect();
    assert_eq!(ids, want);
    let target = TARGETS.iter().find(|t| t.name == "parquet").unwrap();
    for (name, bytes) in cases() {
        let out = run_one(target, &bytes, &dir.path().join("input"));
        assert_eq!(out, Outcome::Ok, "{name}");
    }
}

#[test]
fn skipped_lists_of_two_billion_elements_are_refused_from_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let skips: Vec<_> = cases()
        .into_iter()
        .filter(|(n, _)| n.contains("skips-2pow31"))
        .collect();
    assert_eq!(skips.len(), 4);
    for (name, bytes) in skips {
        let e = read(&bytes, dir.path()).unwrap_err();
        assert!(e.starts_with("LG602: corrupt Parquet"), "{name}: {e}");
        assert!(e.contains("a list of 2147483647 elements"), "{name}: {e}");
    }
}

#[test]
fn truncated_files_and_wrong_lengths_are_corrupt_files() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in cases()
        .into_iter()
        .filter(|(n, _)| n.starts_with("cut-") || n.starts_with("metadata-length-"))
    {
        let e = read(&bytes, dir.path()).unwrap_err();
        assert!(e.starts_with("LG602: corrupt Parquet"), "{name}: {e}");
    }
}

/// A table of many pages (the writer starts a page every 20,000 rows) reads back whole through
/// the checked source: the checks refuse nothing a writer makes.
#[test]
fn a_table_of_many_pages_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let labels: Vec<Option<i64>> = (0..100_000i64)
        .map(|i| (i % 11 != 0).then_some(i % 1000))
        .collect();
    let ids = read(
        &labelguard_formats::fixtures::parquet_labels(&labels),
        dir.path(),
    )
    .unwrap();
    let want: Vec<i64> = labels.iter().map(|l| l.unwrap_or(-1)).collect();
    assert_eq!(ids, want);
}
