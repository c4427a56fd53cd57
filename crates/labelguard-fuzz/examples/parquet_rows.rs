//! `cargo run --release -p labelguard-fuzz --example parquet_rows -- DIR [ROWS]`: writes Parquet
//! files whose one data page claims ROWS rows (default 2^25, the `--max-rows` default) in a few
//! bytes: `nulls.parquet` (one run of null definition levels) and `dictionary.parquet` (one
//! dictionary entry, one run of repeated indices). See docs/benchmarks-history.md, issue 8.

use labelguard_formats::fixtures::parquet_labels_one_page;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: parquet_rows DIR [ROWS]"));
    let rows: usize = args.next().map_or(1 << 25, |r| r.parse().expect("ROWS"));
    std::fs::create_dir_all(&dir).expect("create DIR");
    for (name, label) in [("nulls", None), ("dictionary", Some(3))] {
        let bytes = parquet_labels_one_page(&vec![label; rows]);
        let path = dir.join(format!("{name}.parquet"));
        std::fs::write(&path, &bytes).expect("write");
        println!("{} ({} bytes, {rows} rows)", path.display(), bytes.len());
    }
}
