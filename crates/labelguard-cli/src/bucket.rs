//! Scan roots in object storage (`s3://bucket/prefix`, `gs://`, `az://`): listed through
//! `labelguard-remote` into a [`Root::Listed`] whose entries read their objects through it, so
//! that the layouts run on a bucket as on a directory of the same files.

use labelguard_core::Finding;
use labelguard_formats::source::{ObjectRead, Source};
use labelguard_formats::walk::{Entry, EntryKind};
use labelguard_remote::{is_bucket_url, Bucket, Env};
use labelguard_scan::checks::lg618_unreadable_object::object_problem;
use labelguard_scan::layout::shards::{shard_entries, shard_name};
use labelguard_scan::layout::{ListedRoot, Root};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// Whether a scan argument names a bucket rather than a path.
pub fn is_bucket(arg: &Path) -> bool {
    arg.to_str().is_some_and(is_bucket_url)
}

/// The root a scan argument stands for: a path as it is, a bucket prefix listed now. A bucket
/// that cannot be listed (no such bucket, access denied, an unreachable endpoint, no answer
/// in time) is an error (exit code 2) that says which. The tar shards of a bucket are spooled
/// to a temporary folder, which the caller keeps until the scan is over.
pub fn root(arg: &Path) -> anyhow::Result<(Root, Option<tempfile::TempDir>)> {
    let Some(url) = arg.to_str().filter(|s| is_bucket_url(s)) else {
        // A path, a tar shard or a brace pattern of shards.
        return Ok((
            labelguard_scan::layout::shards::root_of_argument(arg)?,
            None,
        ));
    };
    let bucket = Bucket::open(url, &Env::process()).map_err(anyhow::Error::msg)?;
    let listed = bucket.list()?;
    labelguard_io::fault::pause_if_chosen("listed");
    let objects = Arc::new(Objects(bucket));
    let store: Arc<dyn ObjectRead> = objects.clone();
    let shards = listed
        .iter()
        .any(|o| shard_name(o.key.as_bytes()).is_some());
    let spool = match shards {
        true => Some(
            tempfile::Builder::new()
                .prefix("labelguard-shards-")
                .tempdir()?,
        ),
        false => None,
    };
    let entries = listed
        .into_par_iter()
        .flat_map_iter(|o| {
            // The key under the prefix is the relative path, and what `--shard` hashes: a
            // bucket splits as a directory of the same files does.
            let rel = objects.0.url().relative(&o.key).as_bytes().to_vec();
            let shown = objects.url(&o.key);
            let source = Source::Object {
                store: store.clone(),
                key: o.key,
                len: o.size,
            };
            let entry = Entry::listed(source, rel.clone(), shown, rel);
            match spool.as_ref() {
                Some(dir) if shard_name(&entry.rel_bytes).is_some() => {
                    shard_members(&objects.0, entry, dir.path())
                }
                _ => vec![entry],
            }
        })
        .collect();
    let root = Root::Listed(ListedRoot {
        display: objects.0.url().display(),
        entries,
    });
    Ok((root, spool))
}

/// The members of a tar shard in a bucket: the object streamed to a file in `dir` (never held
/// in memory), then indexed as a local shard; its members keep the object's URL in their names.
/// An object that cannot be copied is its LG618 finding.
fn shard_members(bucket: &Bucket, entry: Entry, dir: &Path) -> Vec<Entry> {
    let Source::Object { key, len, .. } = &entry.source else {
        return vec![entry];
    };
    let shown = entry.shown.clone().unwrap_or_default();
    // A name for the key, unique within one scan.
    let file = dir.join(format!(
        "{:016x}.tar",
        labelguard_scan::pipeline::fnv1a(key.as_bytes())
    ));
    let copied = std::fs::File::create(&file).and_then(|mut out| {
        let n = bucket.copy_to(key, *len, &mut out)?;
        if n < *len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("the object ended after {n} of its {len} bytes"),
            ));
        }
        Ok(())
    });
    match copied {
        Ok(()) => shard_entries(&file, &entry.rel_bytes, &shown),
        Err(e) => {
            let mut e2 = entry;
            e2.kind = EntryKind::Problem(object_problem(&e));
            vec![e2]
        }
    }
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
