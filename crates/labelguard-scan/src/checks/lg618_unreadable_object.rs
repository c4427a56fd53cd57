//! LG618 unreadable-object: an object of a bucket that was listed but cannot be read (gone,
//! access denied, no answer after the retries). The object reads of `source.rs` find
//! them; every LG618 finding is built here.
//! Documentation: `labelguard_core::rules::lg618_unreadable_object`.

use labelguard_core::rules::LG618;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// Maps the error of an object's read (as `labelguard-remote` types it) to its finding.
pub fn object_problem(e: &std::io::Error) -> Finding {
    use std::io::ErrorKind::*;
    let p = problem(&LG618, format!("cannot read the object: {e}"));
    match e.kind() {
        NotFound => p
            .hint("the object was listed but is gone: deleted or overwritten while the scan ran, as it may be between building a training index and reading it")
            .fix("rebuild the listing or index the training job reads, or restore the object"),
        PermissionDenied => p
            .hint("the credentials may list the prefix but not read this object; a DataLoader worker with the same role fails the same way")
            .fix("grant read access (s3:GetObject) on the object to the role that trains"),
        TimedOut => p
            .hint("the endpoint did not answer within the timeout, after the retries")
            .fix("check the endpoint's health, or raise LABELGUARD_REMOTE_TIMEOUT for a slow one"),
        _ => p,
    }
}
