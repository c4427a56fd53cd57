//! Every output file is written under a temporary name in its final directory and renamed
//! into place, so that a killed run leaves only whole files (and temporaries, which the next
//! run removes before it starts).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The marker in temporary names; nothing else in an output tree has it.
const TMP_MARK: &str = ".lgfix-";

fn tmp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}{TMP_MARK}{}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` atomically, creating its directory.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = tmp_path(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
        std::fs::write(dir.path().join("a/.c.png.lgfix-77.tmp"), b"half").unwrap();
        assert_eq!(remove_stale(dir.path()), 1);
        let left: Vec<_> = std::fs::read_dir(dir.path().join("a/b")).unwrap().collect();
        assert_eq!(left.len(), 1);
    }
}
