//! LG614 non-utf8-path: a file name that is not valid UTF-8. The walker keeps names
//! byte-exact and flags them ([`labelguard_formats::walk`]); the finding is built here, for the files the
//! layout scans and for every other file of the dataset alike.
//! Documentation: `labelguard_core::rules::lg614_non_utf8_path`.

use labelguard_core::rules::LG614;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// The finding for one file whose name is not UTF-8.
pub fn finding() -> Finding {
    problem(&LG614, "the file name is not valid UTF-8 (shown with U+FFFD)")
        .hint("Python sees it with surrogate escapes; writing it to JSON, CSV or a log raises UnicodeEncodeError")
        .fix("rename the file to UTF-8, e.g. convmv -f latin1 -t utf8 --notest")
}
