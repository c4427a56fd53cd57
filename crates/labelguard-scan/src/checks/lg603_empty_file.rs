//! LG603 empty-file: a label file of 0 bytes. (Files that hold nothing to check, such as an
//! array file without arrays or a table without rows, are LG603 where they are read.)
//! Documentation: `labelguard_core::rules::lg603_empty_file`.

use crate::problem::problem;
use labelguard_core::rules::LG603;
use labelguard_core::Finding;

/// The finding for a file of 0 bytes.
pub fn empty_file() -> Finding {
    problem(&LG603, "is empty (0 bytes)")
        .hint("an interrupted copy or download, or a placeholder created by a script")
        .fix("regenerate or re-download the file, or drop the sample")
}
