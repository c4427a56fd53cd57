//! Object storage for the scan: `s3://bucket/prefix` (and `gs://`, `az://`), listed and read
//! through the `object_store` crate behind a blocking facade, so that the scan's rayon threads
//! read an object the way they read a file.
//!
//! - **Settings** come from the environment as the AWS CLI reads it ([`Env`], `aws_profile`):
//!   `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, `AWS_REGION` /
//!   `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, `AWS_PROFILE` with
//!   `~/.aws/credentials` and `~/.aws/config` (a shared file that is not there is skipped, as
//!   the AWS CLI skips it; one that is there and cannot be read is an error naming it and the
//!   line); `AWS_NO_SIGN_REQUEST=YES` reads a public bucket anonymously. A custom endpoint is
//!   addressed path-style (`http://host/bucket/key`).
//! - **Every request** has a connect timeout and a whole-request timeout, transient failures
//!   (5xx, connection resets, timeouts of reads) are retried with backoff, and the requests in
//!   flight are bounded ([`Settings`]): memory is bounded by the reads in flight, never the bucket.
//! - **Errors** keep `io::ErrorKind` NotFound / PermissionDenied / TimedOut / NotConnected, so
//!   that the scan can say what happened (LG618 for an object, exit 2 for the listing).

mod aws_profile;
mod errors;
mod ini;
#[cfg(feature = "test-server")]
pub mod test_server;

use errors::{io_error, status_of};
use futures_util::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ClientOptions, GetOptions, ObjectStore, RetryConfig};
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The environment the settings are read from: the process's, or a map the tests build.
#[derive(Clone, Debug, Default)]
pub struct Env(BTreeMap<String, String>);

impl Env {
    /// The process's environment (variables that are not UTF-8 are left out).
    pub fn process() -> Env {
        // vars() would panic on a variable that is not UTF-8.
        Env(std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect())
    }

    /// A variable's value; an empty one counts as unset, as the AWS CLI counts it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn set(&mut self, name: &str, value: &str) {
        self.0.insert(name.to_string(), value.to_string());
    }

    fn yes(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("{name}={v:?} is not a number")),
        }
    }
}

/// The object stores a scan root may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    S3,
    Gcs,
    Azure,
}

impl Scheme {
    fn prefix(self) -> &'static str {
        match self {
            Scheme::S3 => "s3://",
            Scheme::Gcs => "gs://",
            Scheme::Azure => "az://",
        }
    }
}

/// `s3://bucket/prefix` taken apart. The prefix has no slash at either end; empty for the
/// whole bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketUrl {
    pub scheme: Scheme,
    pub bucket: String,
    pub prefix: String,
}

/// Whether a scan root names a bucket rather than a path.
pub fn is_bucket_url(root: &str) -> bool {
    [Scheme::S3, Scheme::Gcs, Scheme::Azure]
        .iter()
        .any(|s| root.starts_with(s.prefix()))
}

impl BucketUrl {
    pub fn parse(url: &str) -> Result<BucketUrl, String> {
        let (scheme, rest) = [Scheme::S3, Scheme::Gcs, Scheme::Azure]
            .into_iter()
            .find_map(|s| url.strip_prefix(s.prefix()).map(|rest| (s, rest)))
            .ok_or_else(|| format!("{url}: not an s3://, gs:// or az:// URL"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(format!(
                "{url}: no bucket name (expected {}BUCKET/PREFIX)",
                scheme.prefix()
            ));
        }
        Ok(BucketUrl {
            scheme,
            bucket: bucket.to_string(),
            prefix: prefix.trim_matches('/').to_string(),
        })
    }

    /// The URL of the prefix, as reports show the root.
    pub fn display(&self) -> String {
        self.url_of(&self.prefix)
    }

    /// The URL of an object (`s3://bucket/key`).
    pub fn url_of(&self, key: &str) -> String {
        let sep = if key.is_empty() { "" } else { "/" };
        format!("{}{}{sep}{key}", self.scheme.prefix(), self.bucket)
    }

    /// A key relative to the prefix (`a/b.png` of `prefix/a/b.png`).
    pub fn relative<'k>(&self, key: &'k str) -> &'k str {
        if self.prefix.is_empty() {
            return key;
        }
        key.strip_prefix(self.prefix.as_str())
            .and_then(|k| k.strip_prefix('/'))
            .unwrap_or(key)
    }
}

/// The longest wait for the first page of a listing: a page of 1000 keys comes in well under a
/// second from any live endpoint, so a silent one is named within 20 s even when reads of
/// large objects are given the longer request timeout.
pub const FIRST_PAGE: Duration = Duration::from_secs(20);

/// How requests are made: from `LABELGUARD_REMOTE_TIMEOUT` (seconds a request may take, 30),
/// `LABELGUARD_REMOTE_RETRIES` (3) and `LABELGUARD_REMOTE_REQUESTS` (the requests in flight, 64).
#[derive(Clone, Debug)]
pub struct Settings {
    /// The whole request, first byte to last (a connection that accepts and never answers ends here).
    pub request_timeout: Duration,
    /// Establishing the connection.
    pub connect_timeout: Duration,
    /// Retries of a transient failure, with exponential backoff.
    pub retries: usize,
    /// Requests in flight at once, over all threads.
    pub max_in_flight: usize,
}

impl Settings {
    pub fn from_env(env: &Env) -> Result<Settings, String> {
        let secs: f64 = env.number("LABELGUARD_REMOTE_TIMEOUT", 30.0)?;
        if !(secs > 0.0 && secs < 86_400.0) {
            return Err(format!(
                "LABELGUARD_REMOTE_TIMEOUT={secs}: expected seconds above 0"
            ));
        }
        let request_timeout = Duration::from_secs_f64(secs);
        Ok(Settings {
            request_timeout,
            connect_timeout: request_timeout.min(Duration::from_secs(10)),
            retries: env.number("LABELGUARD_REMOTE_RETRIES", 3)?,
            max_in_flight: env.number("LABELGUARD_REMOTE_REQUESTS", 64usize)?.max(1),
        })
    }

    /// The longest one read may take, retries and backoff included: the hard bound that a
    /// read never passes, whatever the server does.
    pub fn deadline(&self) -> Duration {
        let backoff = Duration::from_secs(1) * self.retries as u32;
        (self.request_timeout + backoff) * (self.retries as u32 + 1)
    }
}

/// One object of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// The full key (`prefix/a/b.png`).
    pub key: String,
    pub size: u64,
}

/// A bucket prefix, opened: lists and reads its objects from any thread, blocking.
pub struct Bucket {
    url: BucketUrl,
    store: Arc<dyn ObjectStore>,
    runtime: tokio::runtime::Runtime,
    in_flight: tokio::sync::Semaphore,
    settings: Settings,
    /// The endpoint, for messages about the connection.
    endpoint: String,
    /// The sizes of the listed objects: a read of a whole object asks for no range.
    sizes: OnceLock<HashMap<String, u64>>,
    /// Whether the server answered a range with the whole-object status (200).
    ignores_ranges: AtomicBool,
}

impl std::fmt::Debug for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bucket({})", self.url.display())
    }
}

impl Bucket {
    /// Opens `url` with the settings and credentials of `env`. Makes no request: a bad
    /// endpoint or bucket shows at [`Bucket::list`].
    pub fn open(url: &str, env: &Env) -> Result<Bucket, String> {
        let parsed = BucketUrl::parse(url)?;
        let settings = Settings::from_env(env)?;
        // reqwest is built without a TLS provider of its own; ring is ours (no cmake, no C
        // toolchain beyond cc). Installing twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = ClientOptions::new()
            .with_timeout(settings.request_timeout)
            .with_connect_timeout(settings.connect_timeout);
        let retry = RetryConfig {
            max_retries: settings.retries,
            retry_timeout: settings.deadline(),
            ..RetryConfig::default()
        };
        let (store, endpoint): (Arc<dyn ObjectStore>, String) = match parsed.scheme {
            Scheme::S3 => s3_store(&parsed, env, client, retry)?,
            Scheme::Gcs => {
                let b = object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_bucket_name(&parsed.bucket)
                    .with_client_options(client)
                    .with_retry(retry);
                let store = b.build().map_err(|e| format!("{url}: {e}"))?;
                (Arc::new(store), "storage.googleapis.com".to_string())
            }
            Scheme::Azure => {
                let b = object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_container_name(&parsed.bucket)
                    .with_client_options(client)
                    .with_retry(retry);
                let store = b.build().map_err(|e| format!("{url}: {e}"))?;
                (Arc::new(store), "the Azure storage account".to_string())
            }
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("labelguard-remote")
            .enable_all()
            .build()
            .map_err(|e| format!("{url}: cannot start the I/O runtime: {e}"))?;
        Ok(Bucket {
            in_flight: tokio::sync::Semaphore::new(settings.max_in_flight),
            url: parsed,
            store,
            runtime,
            settings,
            endpoint,
            sizes: OnceLock::new(),
            ignores_ranges: AtomicBool::new(false),
        })
    }

    pub fn url(&self) -> &BucketUrl {
        &self.url
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Every object under the prefix (all pages), sorted by key; "directory" markers (keys
    /// ending in `/`) are left out. The error says what went wrong in words (no such bucket,
    /// access denied, endpoint unreachable, no answer) and keeps the matching `ErrorKind`.
    pub fn list(&self) -> io::Result<Vec<Listed>> {
        let prefix =
            (!self.url.prefix.is_empty()).then(|| ObjectPath::from(self.url.prefix.as_str()));
        let listing = async {
            let mut stream = self.store.list(prefix.as_ref());
            let mut out = Vec::new();
            // The first page comes within one request's time, retries included, and at most
            // FIRST_PAGE: an endpoint that accepts and never answers ends the listing then, not
            // after the retries' deadline (4 x 30 s and backoff by default).
            let limit = self.settings.request_timeout.min(FIRST_PAGE);
            let mut next = tokio::time::timeout(limit, stream.next())
                .await
                .map_err(|_| Failure::NoAnswer(limit))?;
            while let Some(meta) = next {
                let meta = meta?;
                let key = meta.location.to_string();
                if !key.ends_with('/') {
                    out.push(Listed {
                        key,
                        size: meta.size,
                    });
                }
                next = stream.next().await;
            }
            Ok::<_, Failure>(out)
        };
        let mut listed = self
            .bounded(
                listing,
                Duration::from_secs(3600).max(self.settings.deadline()),
            )
            .map_err(|e| self.explain_listing(e))?;
        listed.sort_by(|a, b| a.key.cmp(&b.key));
        let _ = self
            .sizes
            .set(listed.iter().map(|l| (l.key.clone(), l.size)).collect());
        Ok(listed)
    }

    /// Reads `range` of `key` into `buf` (cleared first). A range past the end reads what is
    /// there (nothing when it starts at or after the end).
    pub fn read_range(&self, key: &str, range: Range<u64>, buf: &mut Vec<u8>) -> io::Result<()> {
        buf.clear();
        if range.is_empty() {
            return Ok(());
        }
        let path = ObjectPath::from(key);
        // The whole object (its size is known from the listing) needs no Range header.
        let whole = range.start == 0
            && self
                .sizes
                .get()
                .and_then(|s| s.get(key))
                .is_some_and(|&n| range.end >= n);
        let read = async {
            if !whole && !self.ignores_ranges.load(Ordering::Relaxed) {
                let options = GetOptions::default().with_range(Some(range.clone()));
                match self.store.get_opts(&path, options).await {
                    Ok(got) => {
                        buf.extend_from_slice(&got.bytes().await?);
                        return Ok(());
                    }
                    // A server that answers a range with 200, not 206 (rclone serve s3 does,
                    // with the right bytes): object_store refuses the answer, so from now on
                    // this bucket's ranges are read from the start of an unranged answer.
                    Err(e) if e.to_string().contains("non-partial response") => {
                        self.ignores_ranges.store(true, Ordering::Relaxed);
                    }
                    Err(e) => return Err(e),
                }
            }
            self.stream(&path, range.clone(), &mut |bytes| {
                buf.extend_from_slice(bytes);
                Ok(())
            })
            .await
            .map(drop)
        };
        match self.bounded(read, self.settings.deadline()) {
            Ok(()) => Ok(()),
            Err(e) => {
                buf.clear();
                // 416 Range Not Satisfiable: the range starts at or after the object's end.
                if status_of(&e) == Some(416) {
                    return Ok(());
                }
                Err(self.explain_read(e))
            }
        }
    }

    /// Streams up to `max` bytes of `key` into `out` (a spool file), without holding the
    /// object in memory. Returns the bytes written.
    pub fn copy_to(&self, key: &str, max: u64, out: &mut dyn io::Write) -> io::Result<u64> {
        let path = ObjectPath::from(key);
        let mut sink = |bytes: &[u8]| out.write_all(bytes);
        let copy = self.stream(&path, 0..max, &mut sink);
        // A large object streams for as long as it takes; each request has its own timeout.
        self.bounded(copy, Duration::from_secs(24 * 3600))
            .map_err(|e| self.explain_read(e))
    }

    /// Hands `range` of an unranged GET of `path` to `sink`, chunk by chunk, and stops reading
    /// at the range's end. Returns the bytes handed over.
    async fn stream(
        &self,
        path: &ObjectPath,
        range: Range<u64>,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<u64, object_store::Error> {
        let mut stream = self
            .store
            .get_opts(path, GetOptions::default())
            .await?
            .into_stream();
        let (mut at, mut handed) = (0u64, 0u64);
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            let end = at + chunk.len() as u64;
            let from = (range.start.clamp(at, end) - at) as usize;
            let to = (range.end.clamp(at, end) - at) as usize;
            sink(&chunk[from..to]).map_err(|e| object_store::Error::Generic {
                store: "sink",
                source: Box::new(e),
            })?;
            handed += (to - from) as u64;
            at = end;
            if at >= range.end {
                break;
            }
        }
        Ok(handed)
    }

    /// Runs `work` on the runtime within one permit of the in-flight bound and `deadline`.
    fn bounded<T, E: Into<Failure>>(
        &self,
        work: impl std::future::Future<Output = Result<T, E>>,
        deadline: Duration,
    ) -> Result<T, Failure> {
        self.runtime.block_on(async {
            let _permit = self
                .in_flight
                .acquire()
                .await
                .expect("the semaphore is never closed");
            match tokio::time::timeout(deadline, work).await {
                Ok(r) => r.map_err(Into::into),
                Err(_) => Err(Failure::Deadline(deadline)),
            }
        })
    }

    /// A read's error; the caller names the object.
    fn explain_read(&self, e: Failure) -> io::Error {
        io_error(e, &self.settings)
    }

    fn explain_listing(&self, e: Failure) -> io::Error {
        let e = io_error(e, &self.settings);
        let what = match e.kind() {
            io::ErrorKind::NotFound => "the bucket does not exist".to_string(),
            io::ErrorKind::PermissionDenied => match self.url.scheme {
                Scheme::S3 => "access denied (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE, or AWS_NO_SIGN_REQUEST=YES for a public bucket)".to_string(),
                _ => "access denied (check the credentials in the environment)".to_string(),
            },
            io::ErrorKind::NotConnected => format!("cannot connect to {}", self.endpoint),
            io::ErrorKind::TimedOut => format!("{} did not answer in time", self.endpoint),
            _ => "cannot list the objects".to_string(),
        };
        io::Error::new(e.kind(), format!("{}: {what}: {e}", self.url.display()))
    }
}

/// Why a request failed: the store's error, or our own deadline.
#[derive(Debug)]
pub(crate) enum Failure {
    Store(object_store::Error),
    Deadline(Duration),
    /// The first page of a listing did not come within this time (the request timeout).
    NoAnswer(Duration),
}

impl From<object_store::Error> for Failure {
    fn from(e: object_store::Error) -> Failure {
        Failure::Store(e)
    }
}

/// The S3 store and its endpoint, configured as the AWS CLI would be.
fn s3_store(
    url: &BucketUrl,
    env: &Env,
    client: ClientOptions,
    retry: RetryConfig,
) -> Result<(Arc<dyn ObjectStore>, String), String> {
    use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
    let profile = aws_profile::load(env).map_err(|e| format!("{}: {e}", url.display()))?;
    // The client options first: the settings below (allow_http) are kept in them.
    let mut b = AmazonS3Builder::new()
        .with_client_options(client)
        .with_retry(retry);
    // object_store's own variables (web identity, container credentials, ...), as from_env reads them.
    for (k, v) in &env.0 {
        if let Some(key) = k.strip_prefix("AWS_") {
            if let Ok(key) =
                format!("aws_{}", key.to_ascii_lowercase()).parse::<AmazonS3ConfigKey>()
            {
                b = b.with_config(key, v);
            }
        }
    }
    // The AWS CLI's order: the variables, then the profile.
    let first = |vars: &[&str], profile_key: &str| {
        vars.iter()
            .find_map(|v| env.get(v))
            .or_else(|| profile.get(profile_key))
            .map(str::to_string)
    };
    let region = first(&["AWS_REGION", "AWS_DEFAULT_REGION"], "region")
        .unwrap_or_else(|| "us-east-1".into());
    let endpoint = first(&["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"], "endpoint_url");
    let anonymous = env.yes("AWS_NO_SIGN_REQUEST") || env.yes("AWS_SKIP_SIGNATURE");
    b = b
        .with_bucket_name(&url.bucket)
        .with_region(&region)
        .with_skip_signature(anonymous);
    // The variables' key pair wins as a pair; otherwise the profile's.
    if env.get("AWS_ACCESS_KEY_ID").is_none() && !anonymous {
        if let (Some(id), Some(secret)) = (
            profile.get("aws_access_key_id"),
            profile.get("aws_secret_access_key"),
        ) {
            b = b.with_access_key_id(id).with_secret_access_key(secret);
            if let Some(token) = profile.get("aws_session_token") {
                b = b.with_token(token);
            }
        }
    }
    let shown = match &endpoint {
        Some(e) => {
            // A custom endpoint (MinIO, Ceph, rclone, R2) is addressed path-style; plain HTTP
            // is allowed because the user named it.
            b = b
                .with_endpoint(e)
                .with_virtual_hosted_style_request(false)
                .with_allow_http(e.starts_with("http://"));
            e.clone()
        }
        None => format!("s3.{region}.amazonaws.com"),
    };
    let store = b.build().map_err(|e| format!("{}: {e}", url.display()))?;
    Ok((Arc::new(store), shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_bucket_and_prefix() {
        let u = BucketUrl::parse("s3://data/train/masks/").unwrap();
        assert_eq!(
            (u.scheme, u.bucket.as_str(), u.prefix.as_str()),
            (Scheme::S3, "data", "train/masks")
        );
        assert_eq!(u.display(), "s3://data/train/masks");
        assert_eq!(u.url_of("train/masks/a.png"), "s3://data/train/masks/a.png");
        assert_eq!(u.relative("train/masks/a/b.png"), "a/b.png");
        let whole = BucketUrl::parse("gs://data").unwrap();
        assert_eq!((whole.scheme, whole.prefix.as_str()), (Scheme::Gcs, ""));
        assert_eq!(whole.display(), "gs://data");
        assert_eq!(whole.relative("a.png"), "a.png");
        assert_eq!(BucketUrl::parse("az://c/x").unwrap().scheme, Scheme::Azure);
        assert!(BucketUrl::parse("s3:///x")
            .unwrap_err()
            .contains("no bucket name"));
        assert!(is_bucket_url("s3://b") && !is_bucket_url("s3:/b") && !is_bucket_url("data/s3://"));
    }

    #[test]
    fn settings_read_the_environment_and_reject_nonsense() {
        let mut env = Env::default();
        let s = Settings::from_env(&env).unwrap();
        assert_eq!(
            (s.request_timeout, s.connect_timeout, s.retries),
            (Duration::from_secs(30), Duration::from_secs(10), 3)
        );
        env.set("LABELGUARD_REMOTE_TIMEOUT", "0.5");
        env.set("LABELGUARD_REMOTE_RETRIES", "0");
        let s = Settings::from_env(&env).unwrap();
        assert_eq!(
            (s.request_timeout, s.connect_timeout, s.retries),
            (Duration::from_millis(500), Duration::from_millis(500), 0)
        );
        assert!(s.deadline() >= s.request_timeout);
        env.set("LABELGUARD_REMOTE_TIMEOUT", "soon");
        assert!(Settings::from_env(&env)
            .unwrap_err()
            .contains("LABELGUARD_REMOTE_TIMEOUT"));
        env.set("LABELGUARD_REMOTE_TIMEOUT", "-1");
        assert!(Settings::from_env(&env).is_err());
    }
}
