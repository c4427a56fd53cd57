//! The tar index reader on archives made in code: every kind of member and every bad case.
//! (Archives made by GNU tar, Python's `tarfile` and `webdataset.TarWriter` are read in
//! `tests/tar_tools.rs` and `tests/python/test_tar_shards.py`.)

use super::*;
use crate::fixtures::{tar, tar_checksum, tar_header, tar_member};

fn names(ix: &TarIndex) -> Vec<String> {
    ix.members
        .iter()
        .map(|m| m.name_lossy().into_owned())
        .collect()
}

fn of(bytes: &[u8]) -> TarIndex {
    index(bytes, bytes.len() as u64)
}

fn end() -> Vec<u8> {
    vec![0; 1024]
}

#[test]
fn members_are_found_with_their_data_offsets() {
    let big = vec![7u8; 40_000];
    let a = tar(&[
        ("000001.png", b"abc"),
        ("sub/000001.cls", b"3"),
        ("big.bin", &big),
    ]);
    let ix = of(&a);
    assert_eq!(ix.problems, vec![]);
    assert_eq!(names(&ix), ["000001.png", "sub/000001.cls", "big.bin"]);
    let data: Vec<&[u8]> = ix
        .members
        .iter()
        .map(|m| &a[m.offset as usize..(m.offset + m.len) as usize])
        .collect();
    assert_eq!(data, [&b"abc"[..], b"3", &big]);
}

#[test]
fn an_empty_file_and_a_file_of_zeros_have_no_members_and_no_problems() {
    assert_eq!(of(b""), TarIndex::default());
    assert_eq!(of(&[0; 10240]), TarIndex::default());
}

#[test]
fn directories_links_and_devices_are_skipped_and_links_carry_no_data() {
    let mut a = tar_member("dir/", b'5', b"");
    a.extend(tar_member("old-style-dir/", b'0', b""));
    // A symlink whose header claims a size: links carry no data, so the next block is a header.
    a.extend(tar_header(b"link.png", 600, b'2'));
    a.extend(tar_member("hard.png", b'1', b""));
    a.extend(tar_member("fifo", b'6', b""));
    a.extend(tar_member("dumpdir", b'D', b"xyz"));
    a.extend(tar_member("dir/a.png", b'0', b"png"));
    a.extend(tar_member("contiguous.png", b'7', b"c"));
    a.extend(end());
    let ix = of(&a);
    assert_eq!(ix.problems, vec![]);
    assert_eq!(names(&ix), ["dir/a.png", "contiguous.png"]);
}

#[test]
fn the_ustar_prefix_is_joined_to_the_name_but_not_for_gnu_headers() {
    let mut h = tar_header(b"file.png", 1, b'0');
    h[345..354].copy_from_slice(b"deep/path");
    tar_checksum(&mut h);
    let mut a = h.to_vec();
    a.extend([b'x'; 512]);
    let mut gnu = tar_header(b"gnu.png", 1, b'0');
    gnu[257..265].copy_from_slice(b"ustar  \0");
    gnu[345..349].copy_from_slice(b"\x01\x02\x03\x04"); // GNU keeps times here
    tar_checksum(&mut gnu);
    a.extend(gnu);
    a.extend([b'y'; 512]);
    a.extend(end());
    assert_eq!(names(&of(&a)), ["deep/path/file.png", "gnu.png"]);
}

#[test]
fn gnu_long_names_name_the_next_member_only() {
    let long = format!("{}/000001.seg.png", "d".repeat(150));
    let mut a = tar_member("././@LongLink", b'L', format!("{long}\0").as_bytes());
    a.extend(tar_member("truncated-name", b'0', b"1"));
    a.extend(tar_member(
        "././@LongLink",
        b'K',
        b"some/long/link/target\0",
    ));
    a.extend(tar_member("short.png", b'0', b"2"));
    a.extend(end());
    let ix = of(&a);
    assert_eq!(ix.problems, vec![]);
    assert_eq!(names(&ix), [long.as_str(), "short.png"]);
}

fn pax(records: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, v) in records {
        let body = format!(" {k}={v}\n");
        // The length counts its own digits.
        let mut n = body.len() + 1;
        while format!("{n}{body}").len() != n {
            n += 1;
        }
        out.extend(format!("{n}{body}").bytes());
    }
    out
}

#[test]
fn pax_headers_set_the_path_and_size_of_the_next_member_and_global_ones_of_all() {
    let mut a = tar_member(
        "PaxHeaders/x",
        b'x',
        &pax(&[("path", "pax/ünïcode name.png"), ("mtime", "1.5")]),
    );
    a.extend(tar_member("ignored", b'0', b"data"));
    a.extend(tar_member("plain.png", b'0', b"p"));
    // The size field says 0; the pax size (5) is the truth.
    a.extend(tar_member("PaxHeaders/y", b'x', &pax(&[("size", "5")])));
    a.extend(tar_header(b"sized.bin", 0, b'0'));
    a.extend(b"12345");
    a.resize(a.len().div_ceil(512) * 512, 0);
    a.extend(tar_member("GlobalHead", b'g', &pax(&[("comment", "x")])));
    a.extend(tar_member("after-global.png", b'0', b"g"));
    a.extend(end());
    let ix = of(&a);
    assert_eq!(ix.problems, vec![]);
    assert_eq!(
        names(&ix),
        [
            "pax/ünïcode name.png",
            "plain.png",
            "sized.bin",
            "after-global.png"
        ]
    );
    assert_eq!(ix.members[2].len, 5);
}

#[test]
fn a_malformed_pax_header_is_a_problem_and_the_member_keeps_its_header_name() {
    for bad in [
        &b"99 path=x\n"[..],
        b"abc path=x\n",
        b"9 pathx\n",
        b"12 size=zz\n",
    ] {
        let mut a = tar_member("PaxHeaders/x", b'x', bad);
        a.extend(tar_member("named.png", b'0', b"1"));
        a.extend(end());
        let ix = of(&a);
        assert!(
            matches!(
                ix.problems[..],
                [TarProblem::BadExtendedHeader { at: 0, .. }]
            ),
            "{:?}: {:?}",
            String::from_utf8_lossy(bad),
            ix.problems
        );
        assert_eq!(names(&ix), ["named.png"]);
    }
}

#[test]
fn a_pax_header_larger_than_the_limit_is_not_read() {
    let mut a = tar_header(b"PaxHeaders/x", META_MAX + 1, b'x').to_vec();
    a.resize(a.len() + (META_MAX as usize + 1).div_ceil(512) * 512, b'9');
    a.extend(tar_member("next.png", b'0', b"1"));
    a.extend(end());
    let ix = of(&a);
    assert!(
        matches!(ix.problems[..], [TarProblem::BadExtendedHeader { .. }]),
        "{:?}",
        ix.problems
    );
    assert_eq!(names(&ix), ["next.png"]);
}

#[test]
fn base_256_sizes_are_read_and_negative_ones_are_bad_headers() {
    let mut h = tar_header(b"b256.bin", 0, b'0');
    h[124..136].copy_from_slice(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00]);
    tar_checksum(&mut h);
    let mut a = h.to_vec();
    a.extend([1u8; 512]);
    a.extend(end());
    let ix = of(&a);
    assert_eq!(ix.problems, vec![]);
    assert_eq!((ix.members[0].offset, ix.members[0].len), (512, 512));

    h[124..136].copy_from_slice(&[0xff; 12]);
    tar_checksum(&mut h);
    let ix = of(&[&h[..], &end()].concat());
    assert!(matches!(
        ix.problems[..],
        [TarProblem::BadHeader {
            at: 0,
            why: "its size field is not a number",
            ..
        }]
    ));
}

#[test]
fn a_checksum_summed_over_signed_bytes_is_accepted() {
    let mut h = tar_header("é.png".as_bytes(), 1, b'0');
    let signed: i64 = h
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if (148..156).contains(&i) {
                32
            } else {
                i64::from(c as i8)
            }
        })
        .sum();
    h[148..156].copy_from_slice(format!("{signed:06o}\0 ").as_bytes());
    let a = [&h[..], &[b'z'; 512], &end()].concat();
    assert_eq!(names(&of(&a)), ["é.png"]);
}

#[test]
fn a_bad_checksum_is_a_problem_and_reading_resumes_at_the_next_header() {
    let mut a = tar_member("good.png", b'0', b"1");
    let mut broken = tar_member("broken.png", b'0', &[b'q'; 700]);
    broken[10] ^= 1; // the name changes, the checksum does not
    a.extend(broken);
    a.extend(tar_member("after.png", b'0', b"2"));
    a.extend(end());
    let ix = of(&a);
    assert_eq!(
        ix.problems,
        [TarProblem::BadHeader {
            at: 1024,
            why: "bad header checksum",
            skipped: 3
        }]
    );
    assert_eq!(names(&ix), ["good.png", "after.png"]);
}

#[test]
fn a_file_that_is_not_a_tar_is_one_bad_header_problem() {
    let junk: Vec<u8> = (0..5000u32).map(|i| (i * 7 + 1) as u8).collect();
    let ix = of(&junk);
    assert_eq!(ix.members, vec![]);
    assert!(
        matches!(
            ix.problems[..],
            [
                TarProblem::BadHeader {
                    at: 0,
                    skipped: 9,
                    ..
                },
                TarProblem::TruncatedHeader { at: 4608, .. }
            ]
        ),
        "{:?}",
        ix.problems
    );
}

#[test]
fn a_file_cut_inside_a_header_or_inside_member_data_is_truncated() {
    let a = tar(&[("a.png", b"1"), ("b.png", &[5; 3000])]);
    let cut_header = of(&a[..1024 + 100]);
    assert_eq!(
        cut_header.problems,
        [TarProblem::TruncatedHeader {
            at: 1024,
            file_len: 1124
        }]
    );
    assert_eq!(names(&cut_header), ["a.png"]);

    let cut_data = of(&a[..1024 + 512 + 2000]);
    assert_eq!(
        cut_data.problems,
        [TarProblem::TruncatedData {
            name: "b.png".into(),
            offset: 1536,
            len: 3000,
            file_len: 3536
        }]
    );
    assert_eq!(names(&cut_data), ["a.png"]);
}

#[test]
fn every_cut_of_an_archive_keeps_the_members_before_it_and_never_panics() {
    let a = tar(&[("a.png", b"1"), ("b.png", &[5; 3000]), ("c.png", b"3")]);
    let all = of(&a);
    for cut in 0..a.len() {
        let ix = of(&a[..cut]);
        assert!(all.members.starts_with(&ix.members), "cut at {cut}");
        // Cut after a member's last byte (its padding may go) up to its next header, or inside
        // the end-of-archive zeros: nothing is missing.
        let clean =
            cut == 0 || (513..=1024).contains(&cut) || (4536..=4608).contains(&cut) || cut >= 5121;
        assert_eq!(
            ix.problems.is_empty(),
            clean,
            "cut at {cut}: {:?}",
            ix.problems
        );
    }
}

#[test]
fn a_header_claiming_more_than_the_file_holds_is_a_problem_not_an_allocation() {
    let mut a = tar_member("a.png", b'0', b"1");
    a.extend(tar_header(b"huge.bin", 10 << 30, b'0')); // "10 GB" in a 3 KiB file
    a.extend(end());
    let ix = of(&a);
    assert_eq!(
        ix.problems,
        [TarProblem::ClaimsMore {
            at: 1024,
            name: "huge.bin".into(),
            claimed: 10 << 30,
            file_len: 2560
        }]
    );
    assert_eq!(names(&ix), ["a.png"]);
    // The largest size base-256 can write.
    let mut h = tar_header(b"max.bin", 0, b'0');
    h[124..136].copy_from_slice(&[
        0x80, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
    tar_checksum(&mut h);
    assert!(matches!(
        of(&h).problems[..],
        [TarProblem::ClaimsMore {
            claimed: u64::MAX,
            ..
        }]
    ));
}

#[test]
fn unsafe_names_are_reported_and_not_listed_and_dot_components_are_dropped() {
    let a = tar(&[
        ("../escape.png", b"1"),
        ("/etc/passwd", b"2"),
        ("a/../../b.png", b"3"),
        ("./x//y/./ok.png", b"4"),
        ("fine..name.png", b"5"),
        ("./", b""),
    ]);
    let ix = of(&a);
    assert_eq!(names(&ix), ["x/y/ok.png", "fine..name.png"]);
    let unsafe_names: Vec<&str> = ix
        .problems
        .iter()
        .map(|p| match p {
            TarProblem::UnsafeName { name } => name.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        unsafe_names,
        ["../escape.png", "/etc/passwd", "a/../../b.png"]
    );
}

#[test]
fn garbage_after_the_end_of_archive_is_a_problem_but_zero_padding_is_not() {
    let mut a = tar(&[("a.png", b"1")]);
    a.extend([0; 8192]); // padding to a record
    assert_eq!(of(&a).problems, vec![]);
    let at = a.len() as u64;
    a.extend(b"this is not a tar header");
    assert_eq!(
        of(&a).problems,
        [TarProblem::TrailingGarbage { at, len: 24 }]
    );
    a.resize(a.len() + 1000, 9);
    assert_eq!(
        of(&a).problems,
        [TarProblem::TrailingGarbage { at, len: 1024 }]
    );
}

#[test]
fn concatenated_archives_are_read_on_as_tar_ignore_zeros_does() {
    let one = tar(&[("a/1.png", b"1"), ("a/2.png", b"2")]);
    let two = tar(&[("b/1.png", b"3")]);
    let mut both = one.clone();
    both.extend([0; 9216]); // the first archive's record padding
    let at = both.len() as u64;
    both.extend(&two);
    let ix = of(&both);
    assert_eq!(names(&ix), ["a/1.png", "a/2.png", "b/1.png"]);
    assert_eq!(ix.problems, [TarProblem::Concatenated { at, members: 1 }]);
    // A single zero block between two members is an end of archive for Python's tarfile too.
    let lone = [
        tar_member("x.png", b'0', b"1"),
        vec![0; 512],
        tar(&[("y.png", b"2")]),
    ]
    .concat();
    let ix = of(&lone);
    assert_eq!(names(&ix), ["x.png", "y.png"]);
    assert_eq!(
        ix.problems,
        [TarProblem::Concatenated {
            at: 1536,
            members: 1
        }]
    );
}

#[test]
fn a_long_name_before_the_end_does_not_name_the_next_archive_s_member() {
    let mut a = tar_member("././@LongLink", b'L', b"stale-name\0");
    a.extend(end());
    a.extend(tar(&[("real.png", b"1")]));
    assert_eq!(names(&of(&a)), ["real.png"]);
}

#[test]
fn a_real_file_is_indexed_with_positioned_reads() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("shard.tar");
    let members: Vec<(String, Vec<u8>)> = (0..50)
        .map(|i| (format!("{i:06}.seg.png"), vec![i as u8; i * 97]))
        .collect();
    let refs: Vec<(&str, &[u8])> = members
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    let a = tar(&refs);
    std::fs::write(&p, &a).unwrap();
    let ix = index_file(&p).unwrap();
    assert_eq!(ix, of(&a));
    assert_eq!(ix.members.len(), 50);
    assert!(index_file(&dir.path().join("missing.tar")).is_err());
}
