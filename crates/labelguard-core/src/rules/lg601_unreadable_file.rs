use crate::rule::declare_rule;

declare_rule! {
    /// A file of the dataset cannot be read: permissions, a dangling symlink, a FIFO or device, a loop.
    ///
    /// ## What it checks
    /// Every path the scan meets must be a readable regular file or directory. Permission errors, broken
    /// symlinks, symlink loops (`a/b -> ..`), FIFOs, sockets and device files are reported and skipped;
    /// the scan never opens a FIFO (that would block) and never follows a loop.
    ///
    /// ## Why it matters
    /// A PyTorch `Dataset` raises `PermissionError` or `FileNotFoundError` in a DataLoader worker hours into
    /// training, or hangs forever on a FIFO; a symlink loop makes `os.walk(followlinks=True)` and `glob('**')`
    /// recurse until they fail.
    ///
    /// ## Example
    /// `gtFine/train/aachen/aachen_000000_000019_gtFine_labelTrainIds.png -> /mnt/old/...` (the target was deleted).
    ///
    /// ## Fix
    /// Fix the permissions (`chmod a+r`), restore or remove the dangling link, break the loop, or exclude the path
    /// (`--exclude GLOB`).
    ///
    /// ## Checked by
    /// - `crates/labelguard-formats/src/checks/lg601_unreadable_file.rs` (same name, in the formats crate, which reads the files; the scan crate names it in its `checks`)
    /// - fixture: `lg601_unreadable_file` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG601", "unreadable-file", Error;
    category = Unreadable
}
