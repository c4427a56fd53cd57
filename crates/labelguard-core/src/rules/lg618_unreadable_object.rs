use crate::rule::declare_rule;

declare_rule! {
    /// An object of a bucket (`s3://`, `gs://`, `az://`) was listed but cannot be read.
    ///
    /// ## What it checks
    /// Every object the scan lists under the bucket prefix is read with ranged requests, each with a connect
    /// and a whole-request timeout, transient failures retried with backoff. An object that is gone by the
    /// time it is read (deleted between the listing and the read), that the credentials may list but not read
    /// (access denied), or that does not answer within the timeout after the retries, is reported and
    /// skipped; the scan goes on with the other objects. A bucket that cannot be listed at all (no such
    /// bucket, access denied, an unreachable endpoint) is not a finding: the scan stops with exit code 2.
    ///
    /// ## Why it matters
    /// A `Dataset` that reads from object storage (`s3fs`, `boto3`, WebDataset's `pipe:aws s3 cp`) raises
    /// `FileNotFoundError`, `PermissionError` or a read timeout in a DataLoader worker hours into training:
    /// the listing the sampler was built from promised an object that is not there to read.
    ///
    /// ## Example
    /// `s3://data/train/masks/000123.png: NotFound` (deleted by a cleanup job after the index was written).
    ///
    /// ## Fix
    /// Rebuild the listing or index the training job reads, restore the object, grant `s3:GetObject` on the
    /// prefix to the training role, or raise `LABELGUARD_REMOTE_TIMEOUT` for a slow endpoint.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg618_unreadable_object.rs` (same name, in the scan crate, which has its inputs)
    /// - tests against a real S3 server: `crates/labelguard-cli/tests/scan_bucket.rs`
    "LG618", "unreadable-object", Error;
    category = Unreadable
}
