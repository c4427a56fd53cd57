use crate::rule::declare_rule;

declare_rule! {
    /// A WebDataset sample that is incomplete or that WebDataset cannot build.
    ///
    /// ## What it checks
    /// The samples of the `webdataset` layout, grouped as WebDataset's `group_by_keys` groups the files of a shard
    /// (or of a directory the shards were extracted into): a sample is a run of consecutive files that share a key
    /// (the path up to the first dot of the file name). It is flagged when
    /// - it has label parts (a mask, a class label such as `.cls`, a label array) but no data part (an image, a
    ///   text or any other file that is not a label; a `.json` is neither);
    /// - its key appears again after other keys or in another shard: WebDataset yields it twice, each time with part
    ///   of its files;
    /// - two of its files have the same extension once lower-cased (`a.jpg` and `a.JPG`, or a member written twice).
    ///
    /// ## Why it matters
    /// The training loop's `sample["jpg"]` raises `KeyError` on a sample without its image, and a key split in two
    /// runs gives two samples that each lack parts. Two parts with one extension make `group_by_keys` raise
    /// `ValueError: duplicate file name in tar file`, which stops the `DataLoader` worker.
    ///
    /// ## Fix
    /// Write every file of a sample together, in one shard (`webdataset.TarWriter` does when each sample is one
    /// `write` call), restore the missing parts or drop the sample, and give each part one extension.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg616_incomplete_sample.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg616_incomplete_sample` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG616", "incomplete-sample", Error
}
