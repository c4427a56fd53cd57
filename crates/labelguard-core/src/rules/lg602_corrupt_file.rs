use crate::rule::declare_rule;

declare_rule! {
    /// A label file is corrupt, truncated, of an unknown format, or not a mask at all.
    ///
    /// ## What it checks
    /// Each mask, array and table must decode completely: the magic bytes must name a format labelguard reads
    /// (PNG, TIFF, `.npy`, `.npz`, safetensors, CSV/TSV, JSONL, Parquet), every PNG chunk must pass its CRC, the
    /// compressed data must cover every row, an indexed PNG must carry its `PLTE` palette, and images paired with
    /// masks must end with their end marker (PNG `IEND`, JPEG `EOI`).
    ///
    /// ## Why it matters
    /// Pillow raises `OSError: image file is truncated` (or silently returns grey rows with
    /// `LOAD_TRUNCATED_IMAGES`) inside a DataLoader worker, which kills the run at a random epoch; a text file
    /// named `.png` fails the same way.
    ///
    /// ## Example
    /// A mask cut short by an interrupted `rsync`; an HTML error page saved as `mask.png`.
    ///
    /// ## Fix
    /// Re-download or regenerate the file, or remove the sample from the split list.
    ///
    /// ## Checked by
    /// - `crates/labelguard-formats/src/checks/lg602_corrupt_file.rs` (same name, in the formats crate, which reads the files; the scan crate names it in its `checks`): every LG602 finding is built there but a token column the token reader cannot use (`ColumnProblem`, worded in `crates/labelguard-scan/src/checks/token_rows.rs`); the readers in `crates/labelguard-formats/src/read/` (`source/file.rs`, `magic.rs`, `mask.rs`, `header.rs`, `table.rs`, `array.rs`, `class_weights.rs`) call it where the bytes are
    /// - fixture: `lg602_corrupt_file` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG602", "corrupt-file", Error;
    category = Unreadable
}
