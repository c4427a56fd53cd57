//! What a scan is given: paths on disk, or entries listed elsewhere (the members of tar
//! shards, the objects under a bucket prefix). Discovery walks the one and takes the other as
//! it is; the shards module makes the listed roots of shards.

use labelguard_formats::walk::Entry;
use std::path::PathBuf;

/// What a scan is given: a path on disk, or entries listed elsewhere.
#[derive(Clone, Debug)]
pub enum Root {
    /// A directory (walked) or a file (read as what it is).
    Path(PathBuf),
    /// Entries listed elsewhere (the members of tar shards, the objects under a bucket prefix):
    /// the layouts run on them as on a walked directory.
    Listed(ListedRoot),
}

/// Entries listed elsewhere, with problems of the listing itself as entries of kind
/// [`EntryKind::Problem`](labelguard_formats::walk::EntryKind::Problem) (a corrupt shard, an object that vanished).
#[derive(Clone, Debug)]
pub struct ListedRoot {
    /// What the report shows as the root (`s3://bucket/prefix`, `shards/`).
    pub display: String,
    pub entries: Vec<Entry>,
}

impl Root {
    /// The path on disk, for a root that is one.
    pub fn path(&self) -> Option<&PathBuf> {
        match self {
            Root::Path(p) => Some(p),
            Root::Listed(_) => None,
        }
    }

    /// What the report shows for the root.
    pub fn shown(&self) -> PathBuf {
        match self {
            Root::Path(p) => p.clone(),
            Root::Listed(l) => PathBuf::from(&l.display),
        }
    }
}
