use crate::rule::declare_rule;

declare_rule! {
    /// A tar shard (WebDataset) is corrupt, truncated, concatenated or holds an unsafe member name.
    ///
    /// ## What it checks
    /// Every `.tar` found in the dataset or named on the command line is indexed without extracting it (only
    /// its 512-byte headers are read): each header must pass its checksum and have numbers in its number
    /// fields; the file must not end inside a header or inside a member's data; no header may claim more bytes
    /// than the file holds; long-name and pax headers must parse; after the end-of-archive zero blocks there
    /// must be only zeros. A second archive appended after them (`cat a.tar b.tar`) is read on, as
    /// `tar --ignore-zeros` does, and reported. A member named with an absolute path or `..` components is
    /// reported and never scanned (nor written anywhere).
    ///
    /// ## Why it matters
    /// WebDataset reads shards with Python's `tarfile` in stream mode, which stops without an error at a bad
    /// header or at the first end-of-archive block: every sample after it is silently missing from training.
    /// A truncated member raises `tarfile.ReadError: unexpected end of data` in a DataLoader worker, at a
    /// random point of an epoch. Extracting a member named `../x` or `/etc/x` writes outside the target
    /// directory (Python 3.14's default `data` filter refuses it, older versions do not).
    ///
    /// ## Example
    /// A shard cut short by an interrupted upload; two shards joined with `cat`; an archive written with
    /// absolute paths (`tar -P`).
    ///
    /// ## Fix
    /// Re-create or re-download the shard (`tar -tvf shard.tar` shows where it breaks); write one archive per
    /// shard instead of concatenating; create members with relative names (`tar -C dir -cf shard.tar .`).
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg617_corrupt_tar_shard.rs` (same name, in the scan crate, which has its inputs); the index reader `crates/labelguard-formats/src/read/tar.rs` finds the problems (`TarProblem`)
    /// - fixture: `lg617_corrupt_tar_shard` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG617", "corrupt-tar-shard", Error
}
