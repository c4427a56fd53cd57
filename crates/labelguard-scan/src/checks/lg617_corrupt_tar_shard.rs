//! LG617 corrupt-tar-shard: a tar shard that is corrupt, truncated, concatenated, or holds a
//! member with an unsafe name. The index reader ([`labelguard_formats::read::tar`]) finds the problems
//! where the bytes are and says what it saw ([`TarProblem`], plain data); every LG617 finding
//! is built here, with its wording, hint and fix.
//! Documentation: `labelguard_core::rules::lg617_corrupt_tar_shard`.

use labelguard_core::clip::echo;
use labelguard_core::rules::LG617;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;
pub use labelguard_formats::read::tar::TarProblem;

/// What Python's tarfile does with the rest of a shard after a problem at `at`.
fn dropped_after(at: u64) -> String {
    format!("WebDataset reads shards with Python's tarfile, which stops at this point without an error: every sample after byte {at} is silently left out of training")
}

const RECREATE: &str = "re-create or re-download the shard (tar -tvf shows where it breaks)";

/// The finding for one problem of a shard.
pub fn finding(p: &TarProblem) -> Finding {
    match p {
        TarProblem::BadHeader { at, why, skipped } => problem(
            &LG617,
            format!("the block at byte {at} is not a tar header ({why}); {skipped} block(s) skipped to the next header"),
        )
        .hint(dropped_after(*at))
        .fix(RECREATE),
        TarProblem::TruncatedHeader { at, file_len } => problem(
            &LG617,
            format!("truncated: the file ({file_len} bytes) ends inside the header at byte {at}"),
        )
        .hint("an interrupted copy, download or upload")
        .fix(RECREATE),
        TarProblem::TruncatedData { name, offset, len, file_len } => problem(
            &LG617,
            format!("truncated: member '{}' needs {len} bytes from byte {offset}, but the file ends at byte {file_len}", echo(name)),
        )
        .hint("an interrupted copy, download or upload; tarfile raises 'unexpected end of data' when a DataLoader worker reads the member")
        .fix(RECREATE),
        TarProblem::ClaimsMore { at, name, claimed, file_len } => problem(
            &LG617,
            format!("the header of '{}' at byte {at} claims {claimed} bytes, more than the whole file holds ({file_len} bytes)", echo(name)),
        )
        .hint("a corrupt size field, or a shard cut short long before its end; the member is not read")
        .fix(RECREATE),
        TarProblem::UnsafeName { name } => problem(
            &LG617,
            format!("member '{}' is named with an absolute path or '..': not scanned", echo(name)),
        )
        .hint("extracting the shard writes outside the target directory (path traversal); WebDataset's key and extension split of such names is not what was meant")
        .fix("re-create the shard with relative member names (tar -C DIR -cf shard.tar .)"),
        TarProblem::BadExtendedHeader { at, detail } => problem(
            &LG617,
            format!("the long-name or pax header at byte {at} cannot be used: {}; the next member keeps its short name", echo(detail)),
        )
        .fix(RECREATE),
        TarProblem::TrailingGarbage { at, len } => problem(
            &LG617,
            format!("{len} bytes after the end-of-archive blocks, from byte {at}, are neither zeros nor a tar header"),
        )
        .hint("a file appended to the shard, or a shard partly overwritten by another")
        .fix(RECREATE),
        TarProblem::Concatenated { at, members } => problem(
            &LG617,
            format!("another archive starts at byte {at}, after the end-of-archive blocks: {members} member(s) there were read as tar --ignore-zeros reads them"),
        )
        .hint(dropped_after(*at))
        .fix("write each part as its own shard, or re-create one archive from both (tar --ignore-zeros -xf, then tar -cf)"),
        TarProblem::Io { at, error } => problem(
            &LG617,
            format!("cannot be read at byte {at}: {}", echo(error)),
        ),
    }
}

/// A compressed shard (`.tar.gz`, `.tgz`): not read yet, so not checked.
pub fn compressed() -> Finding {
    problem(&LG617, "compressed tar shard: not read (labelguard reads uncompressed .tar shards only, for now); its members were not checked")
        .fix("decompress it to scan it (gunzip -k shard.tar.gz), or write uncompressed shards: WebDataset reads both")
}
