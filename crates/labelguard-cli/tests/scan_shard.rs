//! `--shard K/N` + `labelguard merge`: the merged report equals the unsharded one, byte for
//! byte (reports that do not belong together are refused: tests/cmd/merge/refused.trycmd).

mod scan_common;
use scan_common::*;

fn scan_json(dir: &std::path::Path, extra: &[&str]) -> String {
    let mut args = vec![
        "scan",
        "DATA",
        "--preset",
        "cityscapes",
        "--no-config",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let o = run_in(dir, &args);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    stdout(&o)
}

#[test]
fn merged_shards_equal_the_unsharded_report() {
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());
    // More files so that every shard gets several.
    cityscapes(&dir.path().join("DATA/extra"), 6);
    let whole = scan_json(dir.path(), &[]);
    for n in [1usize, 2, 3, 5] {
        let mut parts = Vec::new();
        let mut scanned = 0u64;
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let text = scan_json(dir.path(), &["--shard", &shard]);
            let r: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(r["shard"]["index"], k as u64);
            scanned += r["summary"]["files_scanned"].as_u64().unwrap();
            let p = dir.path().join(format!("part{k}of{n}.json"));
            std::fs::write(&p, text).unwrap();
            parts.push(p.to_string_lossy().into_owned());
        }
        let mut args = vec!["merge", "--format", "json"];
        args.extend(parts.iter().map(|s| s.as_str()));
        let o = run_in(dir.path(), &args);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert_eq!(
            scanned,
            json(&o)["summary"]["files_scanned"].as_u64().unwrap()
        );
        assert_eq!(
            stdout(&o),
            whole,
            "merge of {n} shards differs from the unsharded scan"
        );
        // The text report too.
        let mut args = vec!["merge"];
        args.extend(parts.iter().map(|s| s.as_str()));
        let merged_text = stdout(&run_in(dir.path(), &args));
        let whole_text = stdout(&run_in(
            dir.path(),
            &["scan", "DATA", "--preset", "cityscapes", "--no-config"],
        ));
        assert_eq!(merged_text, whole_text);
    }
}
