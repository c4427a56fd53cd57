//! The floor of a label-set scan: what listing a tree and reading every label file costs on
//! this machine with nothing else done (no parsing, no checks, no report), on `jobs` threads.
//! bench/yolo.py runs it beside `labelguard scan` and the Python pool, so that the report can
//! say how close the scan is to what the kernel allows.
//!
//! Directories are listed by `jobs` threads sharing a queue (each listing read whole, as the
//! scan does); then the files whose name ends with `ext` are each opened, read into one reused
//! buffer per thread until end of file, and closed, by `jobs` threads taking chunks of 256.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// `labelguard-bench floor DIR EXT JOBS`: prints the names listed, the files read, their
/// bytes and the seconds of each phase as JSON.
pub fn floor(a: &[String]) -> Result<String, String> {
    let root = PathBuf::from(&a[0]);
    let ext = a[1].as_bytes();
    let jobs: usize = a[2]
        .parse()
        .map_err(|_| format!("not a number: {}", a[2]))?;
    let t = Instant::now();
    let (names, files) = list(root, ext, jobs.max(1));
    let listed = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let bytes = read_all(&files, jobs.max(1))?;
    Ok(serde_json::json!({
        "names": names, "files": files.len(), "bytes": bytes,
        "list_seconds": listed, "read_seconds": t.elapsed().as_secs_f64(),
    })
    .to_string())
}

/// Lists every directory below `root` on `jobs` threads: (names seen, files ending with `ext`).
fn list(root: PathBuf, ext: &[u8], jobs: usize) -> (usize, Vec<PathBuf>) {
    // (directories to list, listings in progress): a thread that finds the queue empty stops
    // only when no listing in progress can add to it.
    let queue = Mutex::new((vec![root], 0usize));
    let names = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let dir = {
                        let mut q = queue.lock().unwrap();
                        match q.0.pop() {
                            Some(d) => {
                                q.1 += 1;
                                d
                            }
                            None if q.1 == 0 => break,
                            None => {
                                drop(q);
                                std::thread::yield_now();
                                continue;
                            }
                        }
                    };
                    let mut dirs = Vec::new();
                    if let Ok(rd) = std::fs::read_dir(&dir) {
                        for e in rd.flatten() {
                            names.fetch_add(1, Ordering::Relaxed);
                            let Ok(kind) = e.file_type() else { continue };
                            if kind.is_dir() {
                                dirs.push(e.path());
                            } else if kind.is_file()
                                && e.file_name().as_encoded_bytes().ends_with(ext)
                            {
                                mine.push(e.path());
                            }
                        }
                    }
                    let mut q = queue.lock().unwrap();
                    q.0.extend(dirs);
                    q.1 -= 1;
                }
                found.lock().unwrap().extend(mine);
            });
        }
    });
    (names.into_inner(), found.into_inner().unwrap())
}

/// Opens, reads to the end and closes every file on `jobs` threads: the bytes read.
fn read_all(files: &[PathBuf], jobs: usize) -> Result<u64, String> {
    const CHUNK: usize = 256;
    let next = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| -> Result<(), String> {
                    let mut buf = vec![0u8; 64 << 10];
                    let mut bytes = 0;
                    loop {
                        let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                        if start >= files.len() {
                            break;
                        }
                        for path in &files[start..(start + CHUNK).min(files.len())] {
                            let mut f =
                                File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
                            loop {
                                match f.read(&mut buf) {
                                    Ok(0) => break,
                                    Ok(n) => bytes += n,
                                    Err(e) => return Err(format!("{}: {e}", path.display())),
                                }
                            }
                        }
                    }
                    total.fetch_add(bytes, Ordering::Relaxed);
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().map_err(|_| "a reader panicked".to_string())?)
    })?;
    Ok(total.into_inner() as u64)
}
