//! The few file-system operations whose form differs between Unix and Windows, in one place,
//! so that every crate above builds for both (`cargo check --target x86_64-pc-windows-gnu`)
//! and the readers and the walker keep one code path with the same findings.
//!
//! What Windows gets instead:
//! - positional reads use `seek_read`, which also moves the file's cursor: callers only ever
//!   read these files by position;
//! - there are no FIFOs, sockets or device files in a Windows directory tree (named pipes live
//!   in `\\.\pipe\`), so opening never blocks and every special file is "not a regular file";
//! - a directory's identity is its canonical path (std has no stable volume/file index there);
//! - a directory symlink needs Developer Mode or an administrator: without, linking fails with
//!   the system's message, never silently.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fs::{File, FileType, Metadata};
use std::io;
use std::path::Path;

/// Reads up to `buf.len()` bytes at `offset` of `file`, without a shared cursor (Unix) or with
/// the cursor left after them (Windows); fewer bytes only at the end of the file.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(file, buf, offset)
    }
}

/// Fills `buf` from `offset` of `file` (as `read_at`, retried until full); `UnexpectedEof` when
/// the file ends first.
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset) {
            // std's own words (`FileExt::read_exact_at`), which findings quote.
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "failed to fill whole buffer",
                ))
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Opens `path` for reading without ever blocking: on Unix with `O_NONBLOCK`, which makes
/// opening a FIFO return at once (a plain open waits for a writer forever).
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    options.open(path)
}

/// What a file that is neither a regular file nor a directory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    Fifo,
    Socket,
    Device,
    Other,
}

/// The kind of special file `t` is (`Other` for anything Windows has).
pub fn special_kind(t: &FileType) -> Special {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Special::Fifo;
        } else if t.is_socket() {
            return Special::Socket;
        } else if t.is_char_device() || t.is_block_device() {
            return Special::Device;
        }
    }
    let _ = t;
    Special::Other
}

/// Whether `e` says a path could not be resolved because its symlinks loop: ELOOP on Unix,
/// ERROR_CANT_RESOLVE_FILENAME (1921, "The name of the file cannot be resolved by the
/// system", Microsoft's System Error Codes 1700-3999) on Windows.
pub fn is_symlink_loop(e: &io::Error) -> bool {
    #[cfg(unix)]
    let code = libc::ELOOP;
    #[cfg(windows)]
    let code = 1921;
    e.raw_os_error() == Some(code)
}

/// The error listing a path that is not a directory gives: ENOTDIR on Unix, ERROR_DIRECTORY
/// (267, "The directory name is invalid") on Windows.
pub fn not_a_directory() -> io::Error {
    #[cfg(unix)]
    let code = libc::ENOTDIR;
    #[cfg(windows)]
    let code = 267;
    io::Error::from_raw_os_error(code)
}

/// A directory's identity, which tells a directory reached twice (through a symlink) apart
/// from another with the same name.
pub type DirId = (u64, u64);

/// The identity of the directory at `path` whose metadata is `meta`: (device, inode) on Unix;
/// on Windows a 128-bit hash of its canonical path (the path itself when it cannot be
/// canonicalized).
pub fn dir_id(path: &Path, meta: &Metadata) -> DirId {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        (meta.dev(), meta.ino())
    }
    #[cfg(windows)]
    {
        use std::hash::{BuildHasher, Hasher};
        let _ = meta;
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let hash = |key: u64| {
            let mut h =
                std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().build_hasher();
            h.write_u64(key);
            std::hash::Hash::hash(&canonical, &mut h);
            h.finish()
        };
        (hash(1), hash(2))
    }
}

/// The path from the bytes of a walked name (`OsStr::as_encoded_bytes`, cut and joined only at
/// ASCII characters such as `/`): the same name on Unix; on Windows the same name unless it
/// held an unpaired surrogate, which becomes U+FFFD.
pub fn os_str_from_bytes(bytes: &[u8]) -> Cow<'_, OsStr> {
    #[cfg(unix)]
    {
        Cow::Borrowed(std::os::unix::ffi::OsStrExt::from_bytes(bytes))
    }
    #[cfg(windows)]
    {
        match String::from_utf8_lossy(bytes) {
            Cow::Borrowed(s) => Cow::Borrowed(OsStr::new(s)),
            Cow::Owned(s) => Cow::Owned(s.into()),
        }
    }
}

/// Creates a symlink at `link` to the directory `target`.
pub fn symlink_dir(target: &Path, link: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::symlink_dir(target, link)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_at_reads_by_position_and_short_only_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        let f = File::open(&p).unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(read_at(&f, &mut buf, 3).unwrap(), 4);
        assert_eq!(&buf, b"3456");
        assert_eq!(read_at(&f, &mut buf, 8).unwrap(), 2);
        assert_eq!(&buf[..2], b"89");
        assert_eq!(read_at(&f, &mut buf, 10).unwrap(), 0);
        read_exact_at(&f, &mut buf, 6).unwrap();
        assert_eq!(&buf, b"6789");
        let e = read_exact_at(&f, &mut buf, 7).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_directory_reached_twice_has_one_identity() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let id = |p: &Path| dir_id(p, &std::fs::metadata(p).unwrap());
        assert_eq!(id(&a), id(&a.join("..").join("a")));
        assert_ne!(id(&a), id(&b));
        let link = dir.path().join("link");
        if symlink_dir(&a, &link).is_ok() {
            assert_eq!(id(&a), id(&link));
        }
    }

    #[test]
    fn walked_names_round_trip() {
        let name = OsStr::new("train/ünïcode_labelIds.png");
        assert_eq!(os_str_from_bytes(name.as_encoded_bytes()), name);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_opens_at_once_and_is_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let f = open_nonblocking(&fifo).unwrap();
        assert_eq!(
            special_kind(&f.metadata().unwrap().file_type()),
            Special::Fifo
        );
        let e = std::fs::metadata(dir.path().join("missing")).unwrap_err();
        assert!(!is_symlink_loop(&e));
        let looped = dir.path().join("self");
        std::os::unix::fs::symlink("self", &looped).unwrap();
        assert!(is_symlink_loop(&std::fs::metadata(&looped).unwrap_err()));
        assert_eq!(not_a_directory().kind(), io::ErrorKind::NotADirectory);
    }
}
