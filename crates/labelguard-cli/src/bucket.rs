//! Scan roots in object storage (`s3://bucket/prefix`, `gs://`, `az://`): listed through
//! `labelguard-remote` into a [`Root::Listed`] whose entries read their objects through it, so
//! that the layouts run on a bucket as on a directory of the same files.

use labelguard_core::Finding;
use labelguard_remote::{is_bucket_url, Bucket, Env};
use labelguard_scan::checks::lg618_unreadable_object::object_problem;
use labelguard_scan::layout::{ListedRoot, Root};
use labelguard_scan::source::{ObjectRead, Source};
use labelguard_scan::walk::Entry;
use std::path::Path;
use std::sync::Arc;

/// Whether a scan argument names a bucket rather than a path.
pub fn is_bucket(arg: &Path) -> bool {
    arg.to_str().is_some_and(is_bucket_url)
}

/// The root a scan argument stands for: a path as it is, a bucket prefix listed now. A bucket
/// that cannot be listed (no such bucket, access denied, an unreachable endpoint, no answer
/// in time) is an error (exit code 2) that says which.
pub fn root(arg: &Path) -> anyhow::Result<Root> {
    let Some(url) = arg.to_str().filter(|s| is_bucket_url(s)) else {
        // A path, a tar shard or a brace pattern of shards.
        return Ok(labelguard_scan::layout::shards::root_of_argument(arg)?);
    };
    let bucket = Bucket::open(url, &Env::process()).map_err(anyhow::Error::msg)?;
    let listed = bucket.list()?;
    labelguard_io::fault::pause_if_chosen("listed");
    let objects = Arc::new(Objects(bucket));
    let store: Arc<dyn ObjectRead> = objects.clone();
    let entries = listed
        .into_iter()
        .map(|o| {
            // The key under the prefix is the relative path, and what `--shard` hashes: a
            // bucket splits as a directory of the same files does.
            let rel = objects.0.url().relative(&o.key).as_bytes().to_vec();
            let shown = objects.url(&o.key);
            let source = Source::Object {
                store: store.clone(),
                key: o.key,
                len: o.size,
            };
            Entry::listed(source, rel.clone(), shown, rel)
        })
        .collect();
    Ok(Root::Listed(ListedRoot {
        display: objects.0.url().display(),
        entries,
    }))
}

/// A bucket as the scan reads it: an object's read error is its LG618 finding.
#[derive(Debug)]
struct Objects(Bucket);

impl ObjectRead for Objects {
    fn url(&self, key: &str) -> String {
        self.0.url().url_of(key)
    }

    fn read_range(
        &self,
        key: &str,
        range: std::ops::Range<u64>,
        buf: &mut Vec<u8>,
    ) -> Result<(), Finding> {
        self.0
            .read_range(key, range, buf)
            .map_err(|e| object_problem(&e))
    }
}
