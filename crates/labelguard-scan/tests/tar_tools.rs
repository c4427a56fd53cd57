//! The tar index reader on archives written by the real tools: GNU tar in each of its formats
//! (gnu, oldgnu, ustar, posix/pax, v7) and Python's `tarfile` (ustar, gnu, pax): every member
//! is found with its exact bytes, long names included; broken archives made from them give the
//! problems. (WebDataset's TarWriter is in tests/python/test_tar_shards.py.)

use labelguard_formats::read::tar::{index_file, TarIndex, TarProblem};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Files with short names, a name longer than 100 bytes (GNU long name, ustar prefix, pax
/// path), non-ASCII names and a directory.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let long_dir = format!("deep/{}", "d".repeat(90));
    let files = [
        "000001.jpg".to_string(),
        "000001.seg.png".into(),
        "000001.cls".into(),
        "sub/000002.seg.png".into(),
        format!("{long_dir}/000003.seg.png"),
        format!("{}.seg.png", "n".repeat(120)),
        "ünï/çødé.png".into(),
        "empty.cls".into(),
    ];
    let mut out = BTreeMap::new();
    for (i, rel) in files.iter().enumerate() {
        let data: Vec<u8> = (0..(i * 613) % 2000).map(|j| (j * 31 + i) as u8).collect();
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &data).unwrap();
        out.insert(rel.clone(), data);
    }
    std::fs::create_dir_all(root.join("an/empty/dir")).unwrap();
    out
}

fn members(shard: &Path) -> (BTreeMap<String, Vec<u8>>, TarIndex) {
    let ix = index_file(shard).unwrap();
    let bytes = std::fs::read(shard).unwrap();
    let m = ix
        .members
        .iter()
        .map(|m| {
            let data = bytes[m.offset as usize..(m.offset + m.len) as usize].to_vec();
            (m.name_lossy().into_owned(), data)
        })
        .collect();
    (m, ix)
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("the tool runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn gnu_tar_archives_of_every_format_are_read_member_for_member() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let files = tree(&src);
    for format in ["gnu", "oldgnu", "ustar", "posix", "v7"] {
        let shard = dir.path().join(format!("{format}.tar"));
        let out = Command::new("tar")
            .arg(format!("--format={format}"))
            .arg("-C")
            .arg(&src)
            .arg("-cf")
            .arg(&shard)
            .arg(".")
            .output()
            .unwrap();
        // v7 and ustar cannot hold every name: tar says so, leaves them out, exits 2.
        let limited = matches!(format, "v7" | "ustar");
        assert!(
            out.status.success()
                || (limited && String::from_utf8_lossy(&out.stderr).contains("too long")),
            "{format}: {out:?}"
        );
        let (found, ix) = members(&shard);
        let want: BTreeMap<_, _> = files
            .iter()
            .filter(|(name, _)| match format {
                "v7" => name.len() < 100,
                "ustar" => !name.starts_with("nnn"),
                _ => true,
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(ix.problems, vec![], "{format}");
        assert_eq!(found, want, "{format}");
    }
}

#[test]
fn gnu_tar_broken_archives_give_their_problems() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let files = tree(&src);
    let shard = dir.path().join("a.tar");
    run(Command::new("tar")
        .arg("-C")
        .arg(&src)
        .arg("-cf")
        .arg(&shard)
        .arg("."));
    let whole = std::fs::read(&shard).unwrap();
    let (all, _) = members(&shard);
    assert_eq!(all, files);

    // Cut short: fewer members and a truncation.
    let cut = dir.path().join("cut.tar");
    std::fs::write(&cut, &whole[..whole.len() / 2 + 100]).unwrap();
    let (some, ix) = members(&cut);
    assert!(some.len() < files.len() && some.iter().all(|(k, v)| files[k] == *v));
    assert!(
        matches!(
            ix.problems[..],
            [TarProblem::TruncatedData { .. } | TarProblem::TruncatedHeader { .. }]
        ),
        "{:?}",
        ix.problems
    );

    // Two archives joined with cat: GNU tar's own --ignore-zeros reads both, and so do we.
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("extra.cls"), b"7").unwrap();
    let b = dir.path().join("b.tar");
    run(Command::new("tar")
        .arg("-C")
        .arg(&other)
        .arg("-cf")
        .arg(&b)
        .arg("extra.cls"));
    let joined = dir.path().join("joined.tar");
    std::fs::write(
        &joined,
        [whole.clone(), std::fs::read(&b).unwrap()].concat(),
    )
    .unwrap();
    let (both, ix) = members(&joined);
    assert_eq!(both.len(), files.len() + 1);
    assert_eq!(both["extra.cls"], b"7");
    assert_eq!(
        ix.problems,
        [TarProblem::Concatenated {
            at: whole.len() as u64,
            members: 1
        }]
    );
    let listed = Command::new("tar")
        .arg("--ignore-zeros")
        .arg("-tf")
        .arg(&joined)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout)
            .lines()
            .filter(|l| !l.ends_with('/'))
            .count(),
        both.len()
    );

    // Absolute names kept by -P are reported, not listed.
    let abs = dir.path().join("abs.tar");
    run(Command::new("tar")
        .arg("-P")
        .arg("-cf")
        .arg(&abs)
        .arg(src.join("000001.cls")));
    let (none, ix) = members(&abs);
    assert!(none.is_empty());
    assert!(
        matches!(&ix.problems[..], [TarProblem::UnsafeName { name }] if name.starts_with('/')),
        "{:?}",
        ix.problems
    );

    // One flipped bit in the first header: GNU tar and the index both skip to the next header.
    let mut flipped = whole.clone();
    flipped[3] ^= 0x40;
    let bad = dir.path().join("bad.tar");
    std::fs::write(&bad, &flipped).unwrap();
    let (rest, ix) = members(&bad);
    assert!(
        matches!(
            ix.problems[..],
            [TarProblem::BadHeader {
                at: 0,
                why: "bad header checksum",
                ..
            }]
        ),
        "{:?}",
        ix.problems
    );
    assert!(!rest.is_empty() && rest.iter().all(|(k, v)| files[k] == *v));
}

#[test]
fn python_tarfile_archives_of_every_format_are_read_member_for_member() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let files = tree(&src);
    for format in ["USTAR", "GNU", "PAX"] {
        let shard = dir.path().join(format!("{format}.tar"));
        let script = format!(
            "import os, sys, tarfile\n\
             src, out = sys.argv[1], sys.argv[2]\n\
             with tarfile.open(out, 'w', format=tarfile.{format}_FORMAT) as t:\n\
             \x20   for root, dirs, files in sorted(os.walk(src)):\n\
             \x20       for f in sorted(files):\n\
             \x20           p = os.path.join(root, f)\n\
             \x20           try:\n\
             \x20               t.add(p, os.path.relpath(p, src))\n\
             \x20           except ValueError:\n\
             \x20               pass  # a name ustar cannot hold\n"
        );
        run(Command::new("python3")
            .arg("-c")
            .arg(&script)
            .arg(&src)
            .arg(&shard));
        let (found, ix) = members(&shard);
        let want: BTreeMap<_, _> = files
            .iter()
            .filter(|(name, _)| format != "USTAR" || !name.starts_with("nnn"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(ix.problems, vec![], "{format}");
        assert_eq!(found, want, "{format}");
    }
}
