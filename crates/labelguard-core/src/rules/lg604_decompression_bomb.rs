use crate::rule::declare_rule;

declare_rule! {
    /// Decompression bomb: the file's header claims more pixels than the limit.
    ///
    /// ## What it checks
    /// The width x height (x frames) in a PNG `IHDR`, a TIFF directory or an array header, read before anything is
    /// allocated, against `--max-pixels` (default 2^28 = 268,435,456 pixels, configurable with `max_pixels` in
    /// the config file). The file is not decoded.
    ///
    /// ## Why it matters
    /// A tiny file can claim a 100,000 x 100,000 image: decoding it allocates gigabytes and the DataLoader worker
    /// is killed by the OOM killer (Pillow raises `DecompressionBombError` above 2 x 89 million pixels).
    ///
    /// ## Fix
    /// Remove the file if it is not a real mask; if it is, tile it, or raise the limit with `--max-pixels`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-formats/src/checks/lg604_decompression_bomb.rs` (same name, in the formats crate, which reads the files; the scan crate names it in its `checks`): every LG604 finding is built there; the readers (`crates/labelguard-formats/src/read/mask.rs`, `array.rs`) and the analysis of arrays and tables (`crates/labelguard-scan/src/analyze/array.rs`, `table.rs`) call it where the sizes are compared with the limits
    /// - fixture: `lg604_decompression_bomb` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG604", "decompression-bomb", Error;
    category = Unreadable
}
