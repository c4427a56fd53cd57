//! Outputs that never destroy: every file labelguard writes (reports, HTML, class weights,
//! captured calls) goes through here.
//!
//! - Only regular files are written, or created. A symbolic link, FIFO, device node, socket or
//!   directory at the path is refused with a clear error, unless the caller asks to write
//!   through (`--write-through`): then a link is followed to its target, and a FIFO or device
//!   is opened and written in place (not atomic: there is nothing to rename over).
//! - A regular file is replaced atomically: a temporary file in the same directory, written
//!   and synced, renamed over it; the old file's permission bits are kept. A file we may not
//!   write (read-only) is refused, as `>` in a shell refuses it.
//! - A set of outputs is written whole or not at all: every path is checked, and every
//!   temporary file written, before the first one is renamed into place. Stdout (`-`) and
//!   write-through targets are written after the files are prepared and before they are renamed,
//!   so that a failure there leaves no file behind either.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where one output goes, once its path has been checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Our standard output (`-`).
    Stdout,
    /// A regular file, replaced or created atomically. `mode` is the permission bits of the
    /// file it replaces, kept on the new one.
    File { path: PathBuf, mode: Option<u32> },
    /// A FIFO or device written in place (only with write-through).
    Special { path: PathBuf },
}

fn refuse(path: &Path, kind: io::ErrorKind, why: &str) -> io::Error {
    io::Error::new(kind, format!("{}: {why}", path.display()))
}

fn describe(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device node";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

#[cfg(unix)]
fn mode_of(md: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(md.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn mode_of(_md: &std::fs::Metadata) -> Option<u32> {
    None
}

/// The directory a path's temporary file goes into.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Checks that `path` may be written, without changing anything there, and says how it will be.
/// `-` is stdout. `through`: follow symbolic links and write FIFOs and devices in place.
pub fn check(path: &Path, through: bool) -> io::Result<Destination> {
    if path.as_os_str() == "-" {
        return Ok(Destination::Stdout);
    }
    let hint = " (labelguard writes only regular files; --write-through writes into it anyway)";
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            probe_dir(path)?;
            return Ok(Destination::File {
                path: path.to_path_buf(),
                mode: None,
            });
        }
        Err(e) => return Err(refuse(path, e.kind(), &format!("cannot write: {e}"))),
    };
    let ft = md.file_type();
    if ft.is_symlink() {
        if !through {
            return Err(refuse(
                path,
                io::ErrorKind::InvalidInput,
                &format!("is a symbolic link{hint}"),
            ));
        }
        let target = std::fs::canonicalize(path)
            .or_else(|_| std::fs::read_link(path).map(|t| parent_dir(path).join(t)))
            .map_err(|e| refuse(path, e.kind(), &format!("cannot follow the link: {e}")))?;
        return check(&target, through);
    }
    if ft.is_file() {
        // Opening for writing, without truncating, changes nothing and asks the system the
        // real question (permissions, ACLs, read-only mounts).
        OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| refuse(path, e.kind(), &format!("cannot write: {e}")))?;
        probe_dir(path)?;
        return Ok(Destination::File {
            path: path.to_path_buf(),
            mode: mode_of(&md),
        });
    }
    if ft.is_dir() {
        return Err(refuse(path, io::ErrorKind::InvalidInput, "is a directory"));
    }
    if !through {
        return Err(refuse(
            path,
            io::ErrorKind::InvalidInput,
            &format!("is {}{hint}", describe(&ft)),
        ));
    }
    Ok(Destination::Special {
        path: path.to_path_buf(),
    })
}

/// Creates and removes a temporary file next to `path`: the only sure test that the directory
/// takes new files.
fn probe_dir(path: &Path) -> io::Result<()> {
    let (tmp, file) = temp_file(path, None)?;
    drop(file);
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A new, empty temporary file in `path`'s directory, with `mode` (or the default mode).
fn temp_file(path: &Path, mode: Option<u32>) -> io::Result<(PathBuf, File)> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .ok_or_else(|| refuse(path, io::ErrorKind::InvalidInput, "is not a file name"))?;
    let meta = std::fs::metadata(dir)
        .map_err(|e| refuse(dir, e.kind(), &format!("cannot write into it: {e}")))?;
    if !meta.is_dir() {
        return Err(refuse(
            dir,
            io::ErrorKind::InvalidInput,
            "is not a directory",
        ));
    }
    loop {
        let tmp = dir.join(format!(
            ".{}.labelguard-{}-{}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        // A new file gets 0666 less the umask, as `File::create` gives it; a replacement is
        // private until it has the old file's mode.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(
            &mut options,
            if mode.is_some() { 0o600 } else { 0o666 },
        );
        match options.open(&tmp) {
            Ok(file) => {
                let result = set_mode(&file, mode);
                if let Err(e) = result {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(refuse(path, e.kind(), &format!("cannot write: {e}")));
                }
                return Ok((tmp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(refuse(
                    path,
                    e.kind(),
                    &format!("cannot write into {}: {e}", dir.display()),
                ))
            }
        }
    }
}

/// Gives a replaced file's mode to its successor (a new file keeps what the umask gave it).
#[cfg(unix)]
fn set_mode(file: &File, mode: Option<u32>) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match mode {
        Some(m) => file.set_permissions(std::fs::Permissions::from_mode(m)),
        None => Ok(()),
    }
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: Option<u32>) -> io::Result<()> {
    Ok(())
}

/// A temporary file written and synced, waiting to be renamed over its destination.
struct Prepared {
    tmp: PathBuf,
    path: PathBuf,
}

/// Writes one output atomically with `write` filling it: the form for outputs produced in a
/// stream (the captured tensors).
pub fn write_with(
    dest: &Destination,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match dest {
        Destination::Stdout => {
            let mut out = io::stdout().lock();
            match write(&mut out).and_then(|_| out.flush()) {
                // The reader stopped reading (`| head`): what it wanted, not a failure.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| {
                    refuse(Path::new("stdout"), e.kind(), &format!("cannot write: {e}"))
                }),
            }
        }
        Destination::Special { path } => OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| write(&mut f).and_then(|_| f.flush()))
            .map_err(|e| refuse(path, e.kind(), &format!("cannot write: {e}"))),
        Destination::File { path, mode } => {
            let prepared = prepare(path, *mode, write)?;
            commit(std::slice::from_ref(&prepared))
        }
    }
}

/// Writes `dest`'s temporary file and syncs it; errors name the destination.
fn prepare(
    path: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Prepared> {
    let (tmp, file) = temp_file(path, mode)?;
    let result = (|| {
        let mut w = io::BufWriter::new(file);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    })();
    match result {
        Ok(()) => Ok(Prepared {
            tmp,
            path: path.to_path_buf(),
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(refuse(path, e.kind(), &format!("cannot write: {e}")))
        }
    }
}

/// Renames every prepared file into place (and syncs their directories); on the first failure
/// the temporary files not yet renamed are removed.
fn commit(prepared: &[Prepared]) -> io::Result<()> {
    for (i, p) in prepared.iter().enumerate() {
        if let Err(e) = std::fs::rename(&p.tmp, &p.path) {
            for rest in &prepared[i..] {
                let _ = std::fs::remove_file(&rest.tmp);
            }
            return Err(refuse(&p.path, e.kind(), &format!("cannot write: {e}")));
        }
        // The rename is durable once the directory is synced; failing to sync it is not an error
        // worth losing the output over.
        if let Ok(d) = File::open(parent_dir(&p.path)) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Writes a set of outputs whole or not at all: every file is written to its temporary file
/// first; then stdout and write-through targets; only when all of that succeeded are the files
/// renamed into place. On any failure no new file is left behind and no existing one changed.
pub fn write_all(outputs: &[(Destination, &[u8])]) -> io::Result<()> {
    let mut prepared = Vec::new();
    let discard = |prepared: &[Prepared]| {
        for p in prepared {
            let _ = std::fs::remove_file(&p.tmp);
        }
    };
    for (dest, bytes) in outputs {
        if let Destination::File { path, mode } = dest {
            match prepare(path, *mode, |w| w.write_all(bytes)) {
                Ok(p) => prepared.push(p),
                Err(e) => {
                    discard(&prepared);
                    return Err(e);
                }
            }
        }
    }
    for (dest, bytes) in outputs {
        if !matches!(dest, Destination::File { .. }) {
            if let Err(e) = write_with(dest, |w| w.write_all(bytes)) {
                discard(&prepared);
                return Err(e);
            }
        }
    }
    commit(&prepared)
}
