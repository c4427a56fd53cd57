//! The one output writer: a set written whole or not at all, links and FIFOs refused, modes kept.
#![cfg(unix)]

use labelguard_io::output::{check, write_all, Destination};
use std::os::unix::fs::PermissionsExt;

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_set_with_one_unwritable_member_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let a = check(&d.path().join("a.txt"), false).unwrap();
    // A destination checked when it could be written, whose directory is gone by write time.
    std::fs::create_dir(d.path().join("sub")).unwrap();
    let b = check(&d.path().join("sub/b.txt"), false).unwrap();
    std::fs::remove_dir(d.path().join("sub")).unwrap();
    let err = write_all(&[(a.clone(), b"a".as_slice()), (b, b"b".as_slice())]).unwrap_err();
    assert!(err.to_string().contains("sub"), "{err}");
    assert!(names(d.path()).is_empty(), "{:?}", names(d.path()));
    write_all(&[(a, b"a".as_slice())]).unwrap();
    assert_eq!(names(d.path()), ["a.txt"]);
}

#[test]
fn links_and_fifos_are_refused_unless_written_through() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("t"), "keep").unwrap();
    std::os::unix::fs::symlink("t", d.path().join("l")).unwrap();
    let e = check(&d.path().join("l"), false).unwrap_err();
    assert!(e.to_string().contains("is a symbolic link"), "{e}");
    let through = check(&d.path().join("l"), true).unwrap();
    assert!(matches!(&through, Destination::File { path, .. } if path.ends_with("t")));
    assert!(check(d.path(), false)
        .unwrap_err()
        .to_string()
        .contains("is a directory"));
    assert_eq!(check("-".as_ref(), false).unwrap(), Destination::Stdout);
    let e = check("/dev/null".as_ref(), false).unwrap_err();
    assert!(e.to_string().contains("device node"), "{e}");
    assert!(matches!(
        check("/dev/null".as_ref(), true).unwrap(),
        Destination::Special { .. }
    ));
}

#[test]
fn a_replaced_file_keeps_its_mode_and_a_capture_goes_through_the_same_writer() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("r.txt");
    std::fs::write(&p, "old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o604)).unwrap();
    write_all(&[(check(&p, false).unwrap(), b"new".as_slice())]).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o604
    );
    // A capture onto a symbolic link is refused, the link's target untouched.
    std::os::unix::fs::symlink("r.txt", d.path().join("cap.safetensors")).unwrap();
    let e =
        labelguard_io::write_safetensors(&d.path().join("cap.safetensors"), &[], &[]).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
    assert_eq!(names(d.path()), ["cap.safetensors", "r.txt"]);
}
