//! Every output file goes through labelguard's one output module (`labelguard_io::output`):
//! written to a temporary name in its final directory, synced, renamed into place; a symlink,
//! FIFO or directory at the output path is refused. So a killed run leaves only whole files,
//! and temporaries, which the next run removes before it starts.

use labelguard_io::output;
use std::path::Path;

/// The marker in the output module's temporary names (`.NAME.labelguard-PID-N.tmp`).
const TMP_MARK: &str = ".labelguard-";

/// Writes `bytes` to `path` atomically, creating its directory.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    output::write_all(&[(output::check(path, false)?, bytes)])
}

/// Removes the temporaries a killed run left under `root`; returns how many.
pub fn remove_stale(root: &Path) -> usize {
    let mut n = 0;
    let Ok(read) = std::fs::read_dir(root) else {
        return 0;
    };
    for e in read.flatten() {
        let Ok(t) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        if t.is_dir() {
            n += remove_stale(&e.path());
        } else if t.is_file()
            && name.starts_with('.')
            && name.contains(TMP_MARK)
            && name.ends_with(".tmp")
            && std::fs::remove_file(e.path()).is_ok()
        {
            n += 1;
        }
    }
    n
}

/// Removes the temporaries a killed run left for the one file `path` (beside it, in a
/// directory that may hold other files, which are left alone); returns how many.
pub fn remove_stale_of(path: &Path) -> usize {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return 0;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!(".{}{TMP_MARK}", name.to_string_lossy());
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with(&prefix) && n.ends_with(".tmp")
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_whole_files_and_stale_temporaries_go() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.png");
        write(&p, b"one").unwrap();
        write(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        std::fs::write(dir.path().join("a/.c.png.labelguard-77-0.tmp"), b"half").unwrap();
        assert_eq!(remove_stale(dir.path()), 1);
        let left: Vec<_> = std::fs::read_dir(dir.path().join("a/b")).unwrap().collect();
        // One file's temporaries only.
        std::fs::write(dir.path().join("a/.x.json.labelguard-9-0.tmp"), b"half").unwrap();
        std::fs::write(dir.path().join("a/.y.json.labelguard-9-0.tmp"), b"other").unwrap();
        assert_eq!(remove_stale_of(&dir.path().join("a/x.json")), 1);
        assert!(dir.path().join("a/.y.json.labelguard-9-0.tmp").exists());
        std::fs::remove_file(dir.path().join("a/.y.json.labelguard-9-0.tmp")).unwrap();
        assert_eq!(left.len(), 1);
        // A symlink planted at an output path is refused, not followed.
        #[cfg(unix)]
        {
            let link = dir.path().join("a/link.png");
            std::os::unix::fs::symlink(&p, &link).unwrap();
            assert!(write(&link, b"x").is_err());
            assert_eq!(std::fs::read(&p).unwrap(), b"two");
        }
    }
}
