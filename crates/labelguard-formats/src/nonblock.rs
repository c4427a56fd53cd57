//! Opening a path without ever blocking: `O_NONBLOCK` makes opening a FIFO return at once
//! (a plain open waits for a writer forever), and the opened file is checked to be a regular
//! file before anything reads it. Label files (`source::file`) and the files settings name
//! (a config, a palette, a class list) are opened this way.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Opens `path` for reading without blocking, with its metadata (the caller decides what a
/// directory or a special file means for it).
pub fn open_nonblocking(path: &Path) -> std::io::Result<(File, Metadata)> {
    let file = labelguard_io::portable::open_nonblocking(path)?;
    let meta = file.metadata()?;
    Ok((file, meta))
}

/// The text of a small file a setting names: a regular file of at most `max_bytes`, UTF-8.
/// The error says what is wrong in words.
pub fn read_setting_text(path: &Path, max_bytes: u64) -> Result<String, String> {
    let (file, meta) = open_nonblocking(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(if meta.is_dir() {
            "is a directory, not a file".into()
        } else {
            "is not a regular file (a FIFO, socket or device?); not read".into()
        });
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "is {} bytes, more than the {max_bytes} a settings file may have",
            meta.len()
        ));
    }
    let mut text = String::new();
    file.take(max_bytes)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    Ok(text)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_at_once_and_a_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_setting_text(&fifo, 1 << 20).unwrap_err();
        assert!(e.contains("FIFO"), "{e}");
        assert!(read_setting_text(dir.path(), 1 << 20)
            .unwrap_err()
            .contains("directory"));
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "road\nsky\n").unwrap();
        assert_eq!(read_setting_text(&f, 1 << 20).unwrap(), "road\nsky\n");
        assert!(read_setting_text(&f, 3).unwrap_err().contains("more than"));
    }
}
