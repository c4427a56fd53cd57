//! Copying a child's output stream to ours while the diagnoser reads it on a thread of its own,
//! so that output flows at the speed of a plain pipe whatever the diagnoser costs.
//!
//! The copier writes each chunk out first, then keeps it in the stream's tail: while the
//! diagnoser is busy, the last [`TAIL`] bytes are held back and handed to it, in full, when the
//! stream ends, so the end of the output, where the traceback is, is always diagnosed, however
//! busy the machine; whenever the diagnoser has caught up, it is handed the tail at once. What
//! leaves the tail goes to the diagnoser through a queue bounded in bytes: when the queue is full (a child writing faster than the diagnoser reads, a flood of gigabytes),
//! the chunk is not waited for: it is counted as a gap (bytes and line ends, so line numbers
//! stay right) and the output keeps its pace. Memory is bounded by the queue and the tail.

use super::process;
use labelguard_diagnose::{Analyzer, Scanner};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The size of a buffer: the most read at once.
const CHUNK: usize = 64 * 1024;
/// A read goes into the last buffer of the tail while it has this much room; else a new one.
/// Tiny writes (an unbuffered traceback, 4 bytes at a time) so share buffers.
const MIN_ROOM: usize = 16 * 1024;
/// Bytes waiting for the diagnoser, at most, per stream.
const QUEUE: usize = 4 << 20;
/// The end of a stream that is always diagnosed: held back until the stream ends.
const TAIL: usize = 1 << 20;

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
/// without labelguard. When `stop` is set the copier returns the pipe, still open. The
/// diagnoser reads the stream's tail when the copier ends, and then signals `done`.
pub fn start(mut from: File, fd: i32, scanner: Scanner, shared: Shared) -> Tee {
    let (tx, rx) = mpsc::channel::<Piece>();
    let (pool_tx, pool) = mpsc::channel::<Vec<u8>>();
    let queued = Arc::new(AtomicUsize::new(0));
    let Shared {
        analyzer,
        skipped,
        done,
        stop,
    } = shared;
    let waiting = queued.clone();
    std::thread::spawn(move || diagnose(rx, scanner, &analyzer, &waiting, &pool_tx, &done));
    let copier = std::thread::spawn(move || {
        let mut out = process::raw_output(fd);
        let mut q = Queue {
            tx,
            pool,
            queued,
            gap: Gap::default(),
            skipped,
        };
        let mut tail = Tail::default();
        let handed_back = loop {
            // A quiet stream's tail goes to the diagnoser as soon as it has caught up, so what a
            // job prints before it goes silent (a failed rank, for `--hang-timeout`) is seen.
            if !process::readable(&from, &stop, &mut || q.hand_tail(&mut tail)) {
                break true;
            }
            let room = tail.room(&q.pool);
            let n = match from.read(room) {
                Ok(0) => break false,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break false,
            };
            let written = out.write_all(&room[..n]);
            tail.took(n);
            while let Some((buf, n)) = tail.over() {
                tail.spare = q.offer(buf, n).or(tail.spare.take());
            }
            q.hand_tail(&mut tail);
            if written.is_err() {
                break false;
            }
        };
        q.finish(tail);
        handed_back.then_some(from)
    });
    Tee { copier }
}

/// The diagnoser thread: feeds the pieces in order, then ends the stream and signals `done`.
fn diagnose(
    rx: mpsc::Receiver<Piece>,
    mut scanner: Scanner,
    analyzer: &Mutex<Option<Analyzer>>,
    queued: &AtomicUsize,
    pool: &Sender<Vec<u8>>,
    done: &Sender<()>,
) {
    let slow = labelguard_io::fault::slow_diagnoser();
    for piece in rx {
        match piece {
            Piece::Data(buf, n) => {
                if let Some(pause) = slow {
                    std::thread::sleep(pause);
                }
                let mut guard = analyzer.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(a) = guard.as_mut() {
                    scanner.feed(&buf[..n], a);
                }
                drop(guard);
                queued.fetch_sub(n, Ordering::AcqRel);
                let _ = pool.send(buf);
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
}

/// The last bytes of the stream, in buffers of [`CHUNK`] bytes (`(buffer, bytes used)`).
#[derive(Default)]
struct Tail {
    bufs: VecDeque<(Vec<u8>, usize)>,
    bytes: usize,
    /// A buffer that was skipped, to read into next.
    spare: Option<Vec<u8>>,
}

impl Tail {
    /// Where to read next: the room left in the last buffer, or a new buffer.
    fn room(&mut self, pool: &mpsc::Receiver<Vec<u8>>) -> &mut [u8] {
        if self
            .bufs
            .back()
            .is_none_or(|(_, used)| CHUNK - used < MIN_ROOM)
        {
            let buf = (self.spare.take())
                .or_else(|| pool.try_recv().ok())
                .unwrap_or_else(|| vec![0u8; CHUNK]);
            self.bufs.push_back((buf, 0));
        }
        let (buf, used) = self.bufs.back_mut().expect("one buffer at least");
        &mut buf[*used..]
    }

    /// Counts `n` bytes just read into [`Tail::room`].
    fn took(&mut self, n: usize) {
        self.bufs.back_mut().expect("read into the last buffer").1 += n;
        self.bytes += n;
    }

    /// Every buffer, the last one too (the next read starts a new one).
    fn take(&mut self) -> VecDeque<(Vec<u8>, usize)> {
        self.bytes = 0;
        std::mem::take(&mut self.bufs)
    }

    /// The first buffer, once the others hold [`TAIL`] bytes without it.
    fn over(&mut self) -> Option<(Vec<u8>, usize)> {
        let first = self.bufs.front()?.1;
        if self.bytes - first < TAIL {
            return None;
        }
        self.bytes -= first;
        self.bufs.pop_front()
    }
}

/// Bytes skipped since the last piece sent: their count, their line ends and their last byte.
struct Gap {
    bytes: u64,
    newlines: u64,
    last: u8,
}

impl Default for Gap {
    fn default() -> Gap {
        Gap {
            bytes: 0,
            newlines: 0,
            last: b'\n',
        }
    }
}

/// The copier's side of the queue to the diagnoser.
struct Queue {
    tx: Sender<Piece>,
    pool: mpsc::Receiver<Vec<u8>>,
    /// Bytes sent and not yet diagnosed.
    queued: Arc<AtomicUsize>,
    gap: Gap,
    skipped: Arc<AtomicU64>,
}

impl Queue {
    /// Hands `buf[..n]` to the diagnoser if the queue has room for it, else adds it to the gap
    /// and gives the buffer back.
    fn offer(&mut self, buf: Vec<u8>, n: usize) -> Option<Vec<u8>> {
        if self.queued.load(Ordering::Acquire) + n <= QUEUE {
            self.send(buf, n);
            return None;
        }
        let data = &buf[..n];
        self.gap.bytes += n as u64;
        self.gap.newlines += data.iter().filter(|&&b| b == b'\n').count() as u64;
        self.gap.last = *data.last().unwrap_or(&self.gap.last);
        self.skipped.fetch_add(n as u64, Ordering::Relaxed);
        Some(buf)
    }

    /// Hands the whole tail to the diagnoser once it has read everything sent to it, so that it
    /// reads what comes as it comes whenever it keeps up; a busy one leaves the tail held back.
    fn hand_tail(&mut self, tail: &mut Tail) {
        if self.queued.load(Ordering::Acquire) == 0 {
            for (buf, n) in tail.take() {
                self.send(buf, n);
            }
        }
    }

    /// Sends the gap, if any.
    fn flush_gap(&mut self) {
        let gap = std::mem::take(&mut self.gap);
        if gap.bytes > 0 {
            let _ = self.tx.send(Piece::Gap {
                bytes: gap.bytes,
                newlines: gap.newlines,
                last: gap.last,
            });
        }
    }

    /// Sends any gap, then `buf[..n]`, whatever the queue holds.
    fn send(&mut self, buf: Vec<u8>, n: usize) {
        self.flush_gap();
        self.queued.fetch_add(n, Ordering::AcqRel);
        let _ = self.tx.send(Piece::Data(buf, n));
    }

    /// The stream ended (or the copier stops): the gap, then the whole tail, to be diagnosed.
    fn finish(mut self, tail: Tail) {
        self.flush_gap();
        for (buf, n) in tail.bufs {
            self.send(buf, n);
        }
    }
}
