//! LG601 unreadable-file: a path the scan cannot read: an I/O error (permissions, a dangling
//! or looping symlink), a FIFO, socket or device, which is never opened, or a directory the
//! walker does not follow (a symlink loop, nesting too deep). The walker ([`crate::walk`])
//! and the readers find them; every LG601 finding is built here.
//! Documentation: `labelguard_core::rules::lg601_unreadable_file`.

use crate::problem::problem;
use labelguard_core::rules::LG601;
use labelguard_core::Finding;
use labelguard_io::portable::{is_symlink_loop, special_kind, Special};

/// Maps an I/O error on a path to the LG601 problem that explains it.
pub fn io_problem(what: &str, e: &std::io::Error) -> Finding {
    use std::io::ErrorKind::*;
    let p = problem(&LG601, format!("{what}: {e}"));
    match e.kind() {
        PermissionDenied => p
            .hint("the scanning user may not read it; a DataLoader worker running as the same user will fail the same way")
            .fix("fix the permissions (chmod a+r), or exclude the path"),
        NotFound => p
            .hint("a dangling symlink, or the file was removed during the scan")
            .fix("restore the link target or remove the link"),
        _ if is_symlink_loop(e) => p
            .hint("a symlink that points to itself or into a cycle")
            .fix("remove the looping symlink"),
        _ => p,
    }
}

/// LG601 for a FIFO, socket or device: never opened, because opening a FIFO blocks.
pub fn special_file_problem(t: &std::fs::FileType) -> Finding {
    let what = match special_kind(t) {
        Special::Fifo => "a FIFO (named pipe)",
        Special::Socket => "a socket",
        Special::Device => "a device file",
        Special::Other => "not a regular file",
    };
    problem(&LG601, format!("{what}, not a regular file; not opened"))
        .hint("opening a FIFO blocks until a writer appears: a DataLoader worker that opens it hangs forever")
        .fix("remove it from the dataset, or exclude it")
}

/// A directory symlink that points back to `target` (an ancestor, as the message shows it).
pub fn symlink_loop(target: &str) -> Finding {
    problem(&LG601, format!("directory symlink loop: this link points back to {target}; not followed"))
        .hint("os.walk(followlinks=True) and glob('**', recursive=True) recurse through such a loop until they fail")
        .fix("remove the link, or exclude it with --exclude")
}

/// A directory nested deeper than `max_depth` levels.
pub fn nesting_too_deep(max_depth: usize) -> Finding {
    problem(
        &LG601,
        format!("directory nesting deeper than {max_depth} levels; not followed"),
    )
}

/// A tree of files (a model directory, a `datasets` folder) found in a tar shard or a bucket:
/// it is read as files on disk only.
pub fn local_only(what: &str) -> Finding {
    problem(
        &LG601,
        format!("{what} is read from local disk only, not from a tar shard or a bucket"),
    )
    .fix("extract or download it, then scan the local copy")
}
