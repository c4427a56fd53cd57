//! The bucket facade against a real S3 server (`rclone serve s3` on 127.0.0.1, started here).

use labelguard_remote::test_server::{
    answering_server, free_port, silent_server, S3Server, ACCESS_KEY, SECRET_KEY,
};
use labelguard_remote::{Bucket, Env, Listed};
use std::io::ErrorKind;
use std::time::{Duration, Instant};

fn open(url: &str, env: &Env) -> Bucket {
    Bucket::open(url, env).unwrap()
}

/// A quick-failing client: half a second per request, one retry.
fn impatient(mut env: Env) -> Env {
    env.set("LABELGUARD_REMOTE_TIMEOUT", "0.5");
    env.set("LABELGUARD_REMOTE_RETRIES", "1");
    env
}

#[test]
fn listing_reads_every_page_under_the_prefix_only() {
    let s = S3Server::start();
    let b = s.bucket("data");
    std::fs::create_dir_all(b.join("train/deep")).unwrap();
    std::fs::create_dir_all(b.join("train2")).unwrap();
    // More than a page: S3 lists at most 1000 keys per request.
    for i in 0..1203 {
        std::fs::write(b.join(format!("train/{i:05}.txt")), vec![b'x'; i % 7]).unwrap();
    }
    std::fs::write(b.join("train/deep/a.png"), b"abc").unwrap();
    std::fs::write(b.join("train2/not-under-the-prefix.png"), b"abc").unwrap();
    let listed = open("s3://data/train/", &s.client_env()).list().unwrap();
    assert_eq!(listed.len(), 1204);
    assert_eq!(
        listed[0],
        Listed {
            key: "train/00000.txt".into(),
            size: 0
        }
    );
    assert_eq!(
        listed[1202],
        Listed {
            key: "train/01202.txt".into(),
            size: 1202 % 7
        }
    );
    assert_eq!(
        listed[1203],
        Listed {
            key: "train/deep/a.png".into(),
            size: 3
        }
    );
    assert!(listed.windows(2).all(|w| w[0].key < w[1].key));
    let whole = open("s3://data", &s.client_env()).list().unwrap();
    assert_eq!(whole.len(), 1205);
}

#[test]
fn ranges_read_exactly_what_is_there() {
    let s = S3Server::start();
    let b = s.bucket("data");
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(b.join("blob.bin"), &bytes).unwrap();
    std::fs::write(b.join("empty.bin"), b"").unwrap();
    let bucket = open("s3://data", &s.client_env());
    let mut buf = vec![1, 2, 3];
    bucket.read_range("blob.bin", 0..100_000, &mut buf).unwrap();
    assert_eq!(buf, bytes);
    bucket
        .read_range("blob.bin", 99_990..200_000, &mut buf)
        .unwrap();
    assert_eq!(buf, &bytes[99_990..], "a range past the end reads the rest");
    bucket.read_range("blob.bin", 1000..1016, &mut buf).unwrap();
    assert_eq!(buf, &bytes[1000..1016]);
    bucket
        .read_range("blob.bin", 100_000..100_010, &mut buf)
        .unwrap();
    assert!(buf.is_empty(), "a range starting at the end reads nothing");
    bucket.read_range("empty.bin", 0..512, &mut buf).unwrap();
    assert!(buf.is_empty());
    let mut spool = Vec::new();
    assert_eq!(
        bucket.copy_to("blob.bin", 50_000, &mut spool).unwrap(),
        50_000
    );
    assert_eq!(spool, &bytes[..50_000]);
}

#[test]
fn an_object_deleted_after_the_listing_reads_as_not_found() {
    let s = S3Server::start();
    let b = s.bucket("data");
    std::fs::write(b.join("a.png"), b"abc").unwrap();
    let bucket = open("s3://data", &s.client_env());
    assert_eq!(bucket.list().unwrap().len(), 1);
    std::fs::remove_file(b.join("a.png")).unwrap();
    let e = bucket
        .read_range("a.png", 0..3, &mut Vec::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
}

#[test]
fn a_wrong_secret_is_access_denied_for_listing_and_reading() {
    let s = S3Server::start();
    std::fs::write(s.bucket("data").join("a.png"), b"abc").unwrap();
    let mut env = s.client_env();
    env.set("AWS_SECRET_ACCESS_KEY", "not-the-secret");
    let bucket = open("s3://data", &env);
    let e = bucket.list().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied, "{e}");
    assert!(
        e.to_string()
            .starts_with("s3://data: access denied (check AWS_ACCESS_KEY_ID"),
        "{e}"
    );
    let e = bucket
        .read_range("a.png", 0..3, &mut Vec::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied, "{e}");
}

#[test]
fn a_bucket_that_does_not_exist_says_so() {
    let s = S3Server::start();
    let e = open("s3://nosuchbucket/x", &s.client_env())
        .list()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(
        e.to_string()
            .starts_with("s3://nosuchbucket/x: the bucket does not exist"),
        "{e}"
    );
}

#[test]
fn a_closed_port_fails_fast_and_a_silent_server_times_out() {
    for (endpoint, kind, words) in [
        (
            format!("http://127.0.0.1:{}", free_port()),
            ErrorKind::NotConnected,
            "cannot connect to http://127.0.0.1:",
        ),
        (
            silent_server(),
            ErrorKind::TimedOut,
            "did not answer in time",
        ),
    ] {
        let mut env = impatient(Env::default());
        env.set("AWS_ENDPOINT_URL", &endpoint);
        env.set("AWS_ACCESS_KEY_ID", "k");
        env.set("AWS_SECRET_ACCESS_KEY", "s");
        let bucket = open("s3://data/x", &env);
        let started = Instant::now();
        let e = bucket.list().unwrap_err();
        assert_eq!(e.kind(), kind, "{endpoint}: {e}");
        assert!(e.to_string().contains(words), "{e}");
        let e = bucket
            .read_range("x/a.png", 0..3, &mut Vec::new())
            .unwrap_err();
        assert_eq!(e.kind(), kind, "{endpoint}: {e}");
        // The deadline of one read: two requests of 0.5 s and a backoff (Settings::deadline).
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{endpoint}: {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn credentials_region_and_endpoint_come_from_the_named_profile() {
    let s = S3Server::start();
    std::fs::write(s.bucket("data").join("a.png"), b"abc").unwrap();
    let home = tempfile::tempdir().unwrap();
    let creds = home.path().join("creds.ini");
    std::fs::write(
        &creds,
        format!(
            "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n[lab]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            labelguard_remote::test_server::ACCESS_KEY,
            labelguard_remote::test_server::SECRET_KEY
        ),
    )
    .unwrap();
    std::fs::create_dir(home.path().join(".aws")).unwrap();
    std::fs::write(
        home.path().join(".aws/config"),
        format!(
            "[profile lab]\nregion = eu-west-1\nendpoint_url = {}\n",
            s.endpoint
        ),
    )
    .unwrap();
    let mut env = Env::default();
    env.set("HOME", home.path().to_str().unwrap());
    env.set("AWS_SHARED_CREDENTIALS_FILE", creds.to_str().unwrap());
    env.set("AWS_PROFILE", "lab");
    assert_eq!(open("s3://data", &env).list().unwrap().len(), 1);
    // The variables' key pair wins over the profile's.
    env.set("AWS_ACCESS_KEY_ID", "wrong");
    env.set("AWS_SECRET_ACCESS_KEY", "wrong");
    let e = open("s3://data", &env).list().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied, "{e}");
    env.set("AWS_PROFILE", "nobody");
    let e = Bucket::open("s3://data", &env).unwrap_err();
    assert!(
        e.starts_with("s3://data: The config profile (nobody) could not be found"),
        "{e}"
    );
}

#[test]
fn no_sign_request_reads_a_public_bucket_with_no_credentials() {
    let s = S3Server::start_public();
    std::fs::write(s.bucket("data").join("a.png"), b"abc").unwrap();
    let mut env = Env::default();
    env.set("AWS_ENDPOINT_URL", &s.endpoint);
    env.set("HOME", "/nonexistent");
    env.set("AWS_NO_SIGN_REQUEST", "YES");
    let bucket = open("s3://data", &env);
    assert_eq!(bucket.list().unwrap().len(), 1);
    let mut buf = Vec::new();
    bucket.read_range("a.png", 0..3, &mut buf).unwrap();
    assert_eq!(buf, b"abc");
    // The server that wants a signature refuses the same unsigned request.
    let s = S3Server::start();
    std::fs::write(s.bucket("data").join("a.png"), b"abc").unwrap();
    env.set("AWS_ENDPOINT_URL", &s.endpoint);
    assert!(open("s3://data", &env).list().is_err());
}

/// The issue of a CI job that points the shared files' variables at paths that are not there
/// and gives the keys (and the endpoint, by `AWS_ENDPOINT_URL_S3`) in the environment.
#[test]
fn shared_files_that_are_not_there_are_skipped() {
    let s = S3Server::start();
    std::fs::write(s.bucket("data").join("a.png"), b"abc").unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut env = Env::default();
    env.set("HOME", home.path().to_str().unwrap());
    env.set("AWS_ENDPOINT_URL_S3", &s.endpoint);
    env.set("AWS_ACCESS_KEY_ID", ACCESS_KEY);
    env.set("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    for (var, file) in [
        ("AWS_SHARED_CREDENTIALS_FILE", "credentials-none"),
        ("AWS_CONFIG_FILE", "config-none"),
    ] {
        env.set(var, home.path().join(file).to_str().unwrap());
    }
    let bucket = open("s3://data", &env);
    assert_eq!(bucket.list().unwrap().len(), 1);
    let mut buf = Vec::new();
    bucket.read_range("a.png", 0..3, &mut buf).unwrap();
    assert_eq!(buf, b"abc");
    // The same with no variables and no ~/.aws.
    let mut env = s.client_env();
    env.set("HOME", home.path().to_str().unwrap());
    assert_eq!(open("s3://data", &env).list().unwrap().len(), 1);
}

#[test]
fn shared_files_present_are_read_and_unreadable_or_malformed_ones_are_errors_naming_them() {
    let s = S3Server::start();
    std::fs::write(s.bucket("data").join("a.png"), b"abc").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let creds = dir.path().join("credentials");
    let mut env = s.client_env();
    env.set("AWS_ACCESS_KEY_ID", "");
    env.set("AWS_SECRET_ACCESS_KEY", "");
    env.set("AWS_SHARED_CREDENTIALS_FILE", creds.to_str().unwrap());
    // Present: the keys come from it.
    std::fs::write(
        &creds,
        format!(
            "[default]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key : {SECRET_KEY}\n"
        ),
    )
    .unwrap();
    assert_eq!(open("s3://data", &env).list().unwrap().len(), 1);
    // Malformed: the file and the line.
    std::fs::write(
        &creds,
        format!("[default]\naws_access_key_id = {ACCESS_KEY}\n{SECRET_KEY}\n"),
    )
    .unwrap();
    let e = Bucket::open("s3://data", &env).unwrap_err();
    assert_eq!(
        e,
        format!(
            "s3://data: cannot read the AWS credentials file {} (AWS_SHARED_CREDENTIALS_FILE), line 3: \"{SECRET_KEY}\" is neither a [section], a `key = value` nor a comment",
            creds.display()
        )
    );
    // Unreadable: a folder (the tests run as root, which reads any file).
    std::fs::remove_file(&creds).unwrap();
    std::fs::create_dir(&creds).unwrap();
    let e = Bucket::open("s3://data", &env).unwrap_err();
    assert_eq!(
        e,
        format!(
            "s3://data: the AWS credentials file {} (AWS_SHARED_CREDENTIALS_FILE) is a folder, not a file",
            creds.display()
        )
    );
    // The config file the same way.
    env.set("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/c");
    let config = dir.path().join("config");
    std::fs::write(&config, "region = eu-west-1\n").unwrap();
    env.set("AWS_CONFIG_FILE", config.to_str().unwrap());
    let e = Bucket::open("s3://data", &env).unwrap_err();
    assert!(
        e.contains(&format!(
            "the AWS config file {} (AWS_CONFIG_FILE), line 1: ",
            config.display()
        )),
        "{e}"
    );
}

/// Each way a listing fails has its own message, with the server's own code where it sent
/// one, and ends within the request timeout (the shared files pointed at paths that are not
/// there, as in the issue).
#[test]
fn each_failure_names_its_cause_within_the_request_timeout() {
    let s = S3Server::start();
    std::fs::write(s.bucket("data").join("a.png"), b"abc").unwrap();
    let denied = answering_server("403 Forbidden", "AccessDenied", "Access Denied");
    let cases: [(&str, &str, String, ErrorKind, &str); 7] = [
        (
            "AWS_SECRET_ACCESS_KEY",
            "not-the-secret",
            "s3://data".into(),
            ErrorKind::PermissionDenied,
            "s3://data: access denied (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE, or AWS_NO_SIGN_REQUEST=YES for a public bucket): HTTP 403, SignatureDoesNotMatch: The request signature we calculated does not match",
        ),
        (
            "AWS_ACCESS_KEY_ID",
            "nobody",
            "s3://data".into(),
            ErrorKind::PermissionDenied,
            "HTTP 403, InvalidAccessKeyId: ",
        ),
        (
            "AWS_ENDPOINT_URL",
            &denied,
            "s3://data".into(),
            ErrorKind::PermissionDenied,
            "s3://data: access denied (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE, or AWS_NO_SIGN_REQUEST=YES for a public bucket): HTTP 403, AccessDenied: Access Denied",
        ),
        (
            "AWS_REGION",
            "us-east-1",
            "s3://nosuchbucket/x".into(),
            ErrorKind::NotFound,
            "s3://nosuchbucket/x: the bucket does not exist: HTTP 404, NoSuchBucket: The specified bucket does not exist",
        ),
        (
            "AWS_ENDPOINT_URL",
            &format!("http://127.0.0.1:{}", free_port()),
            "s3://data".into(),
            ErrorKind::NotConnected,
            "s3://data: cannot connect to http://127.0.0.1:",
        ),
        (
            "AWS_ENDPOINT_URL",
            &format!("http://127.0.0.1:{}", free_port()),
            "s3://data".into(),
            ErrorKind::NotConnected,
            "Connection refused",
        ),
        (
            "AWS_ENDPOINT_URL",
            &silent_server(),
            "s3://data".into(),
            ErrorKind::TimedOut,
            "did not answer in time: the first page of the listing did not come within 2.0s",
        ),
    ];
    for (var, value, url, kind, words) in cases {
        let mut env = s.client_env();
        // Three retries would take (2 s + 3 s) x 4 = 20 s: the listing of an endpoint that
        // never answered ends after one request's time.
        env.set("LABELGUARD_REMOTE_TIMEOUT", "2");
        env.set("LABELGUARD_REMOTE_RETRIES", "3");
        env.set(var, value);
        let started = Instant::now();
        let e = open(&url, &env).list().unwrap_err();
        assert_eq!(e.kind(), kind, "{var}={value}: {e}");
        assert!(e.to_string().contains(words), "{var}={value}: {e}");
        assert!(
            started.elapsed() < Duration::from_secs(6),
            "{var}={value}: {:?}",
            started.elapsed()
        );
    }
}
