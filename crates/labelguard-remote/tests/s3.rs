//! The bucket facade against a real S3 server (`rclone serve s3` on 127.0.0.1, started here).

use labelguard_remote::test_server::{free_port, silent_server, S3Server};
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
    assert!(e.contains("\"nobody\""), "{e}");
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
