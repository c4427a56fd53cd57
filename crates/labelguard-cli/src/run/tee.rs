//! Copying a child's output stream to ours while the diagnoser reads it on a thread of its own,
//! so that output flows at the speed of a plain pipe whatever the diagnoser costs.
//!
//! The copier writes each chunk out first, then offers it to the diagnoser through a bounded
//! queue. When the queue is full (a child writing faster than the diagnoser reads, a flood of
//! gigabytes), the chunk is not waited for: it is counted as a gap (bytes and line ends, so line
//! numbers stay right) and the output keeps its pace. Memory is bounded by the queue.

use super::process;
use labelguard_diagnose::{Analyzer, Scanner};
use std::fs::File;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Bytes read at once.
const CHUNK: usize = 64 * 1024;
/// Chunks waiting for the diagnoser, at most (4 MiB per stream).
const QUEUE: usize = 64;

enum Piece {
    Data(Vec<u8>, usize),
    Gap { bytes: u64, newlines: u64, last: u8 },
}

/// One stream's copier and diagnoser threads.
pub struct Tee {
    copier: JoinHandle<Option<File>>,
}

impl Tee {
    /// Waits for the copier; returns the pipe, still open, when it was stopped before the end.
    pub fn join(self) -> Option<File> {
        self.copier.join().ok().flatten()
    }
}

/// What the diagnoser of one run shares: the analyzer (taken when the run ends), bytes that
/// went by undiagnosed, a signal per stream that is done, and the request to stop copying.
#[derive(Clone)]
pub struct Shared {
    pub analyzer: Arc<Mutex<Option<Analyzer>>>,
    pub skipped: Arc<AtomicU64>,
    pub done: mpsc::Sender<()>,
    pub stop: Arc<AtomicBool>,
}

/// Copies `from` to our file descriptor `fd` as bytes arrive. If our side is closed (`| head`),
/// the pipe from the child is closed too, so the child sees the broken pipe it would have seen
/// without labelguard. When `stop` is set the copier returns the pipe, still open.
pub fn start(mut from: File, fd: i32, mut scanner: Scanner, shared: Shared) -> Tee {
    let (tx, rx) = mpsc::sync_channel::<Piece>(QUEUE);
    let (pool_tx, pool) = mpsc::channel::<Vec<u8>>();
    let Shared {
        analyzer,
        skipped,
        done,
        stop,
    } = shared;
    std::thread::spawn(move || {
        for piece in rx {
            let mut guard = analyzer.lock().unwrap_or_else(|e| e.into_inner());
            match piece {
                Piece::Data(buf, n) => {
                    if let Some(a) = guard.as_mut() {
                        scanner.feed(&buf[..n], a);
                    }
                    drop(guard);
                    let _ = pool_tx.send(buf);
                }
                Piece::Gap {
                    bytes,
                    newlines,
                    last,
                } => scanner.skip(bytes, newlines, last),
            }
        }
        if let Some(a) = analyzer.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            scanner.finish(a);
        }
        let _ = done.send(());
    });
    let copier = std::thread::spawn(move || {
        let mut out = process::raw_output(fd);
        let mut buf = vec![0u8; CHUNK];
        let mut gap = (0u64, 0u64, b'\n');
        let handed_back = loop {
            if !process::readable(&from, &stop) {
                break true;
            }
            let n = match from.read(&mut buf) {
                Ok(0) => break false,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break false,
            };
            let written = out.write_all(&buf[..n]);
            buf = offer(&tx, &pool, buf, n, &mut gap, &skipped);
            if written.is_err() {
                break false;
            }
        };
        if gap.0 > 0 {
            let _ = tx.send(Piece::Gap {
                bytes: gap.0,
                newlines: gap.1,
                last: gap.2,
            });
        }
        handed_back.then_some(from)
    });
    Tee { copier }
}

/// Adds `data` to the gap.
fn count_gap(gap: &mut (u64, u64, u8), data: &[u8], skipped: &AtomicU64) {
    gap.0 += data.len() as u64;
    gap.1 += data.iter().filter(|&&b| b == b'\n').count() as u64;
    gap.2 = *data.last().unwrap_or(&gap.2);
    skipped.fetch_add(data.len() as u64, Ordering::Relaxed);
}

/// Hands `buf[..n]` to the diagnoser if it has room (after any gap before it), else adds it to
/// the gap. Returns the buffer to read into next.
fn offer(
    tx: &SyncSender<Piece>,
    pool: &mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    n: usize,
    gap: &mut (u64, u64, u8),
    skipped: &AtomicU64,
) -> Vec<u8> {
    if gap.0 > 0 {
        let piece = Piece::Gap {
            bytes: gap.0,
            newlines: gap.1,
            last: gap.2,
        };
        if tx.try_send(piece).is_err() {
            count_gap(gap, &buf[..n], skipped);
            return buf;
        }
        *gap = (0, 0, b'\n');
    }
    match tx.try_send(Piece::Data(buf, n)) {
        // The buffers in use are at most the queue's, the one scanned and this one.
        Ok(()) => pool.try_recv().unwrap_or_else(|_| vec![0u8; CHUNK]),
        Err(TrySendError::Full(piece) | TrySendError::Disconnected(piece)) => match piece {
            Piece::Data(buf, n) => {
                count_gap(gap, &buf[..n], skipped);
                buf
            }
            Piece::Gap { .. } => vec![0u8; CHUNK],
        },
    }
}
