//! Where an item's bytes come from: a file, a member of a tar shard (a slice of a local file,
//! never extracted), or an object in a bucket. Every reader reads through [`Source`], so a
//! dataset gives the same findings extracted, sharded or in a bucket.
//!
//! The limits are the same for all three: a source over the byte limit is refused before it is
//! read, an empty one is LG603, and nothing is allocated from a size nobody checked. Whole reads
//! ([`Source::read_all`]) go into the caller's reused buffer; readers that stream or seek (TIFF,
//! image headers, COCO JSON, tables) get a [`SourceReader`], which reads a bucket's object in
//! ranges on demand instead of fetching all of it.

use crate::checks::lg601_unreadable_file::io_problem;
use crate::checks::lg602_corrupt_file;
use crate::checks::lg603_empty_file::empty_file;
pub mod file;

use file::{open_regular, open_within, read_file};
use labelguard_core::Finding;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where an item's bytes come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A file on local disk.
    File(PathBuf),
    /// `len` bytes at `offset` of a local file: a member of the tar shard `file`, which
    /// messages call `name` (`shards/train-000001.tar:000123.jpg`; the shard's own name, also
    /// when `file` is a spooled copy of a bucket's object).
    Slice {
        file: Arc<PathBuf>,
        name: Arc<str>,
        offset: u64,
        len: u64,
    },
    /// An object in a bucket, read through its store.
    Object {
        store: Arc<dyn ObjectRead>,
        key: String,
        len: u64,
    },
}

/// A bucket's reading side (implemented by `labelguard-remote`): the scan crate knows no
/// protocol, only how to ask for a range of an object.
pub trait ObjectRead: Send + Sync + std::fmt::Debug {
    /// The object's URL as findings show it (`s3://bucket/key`).
    fn url(&self, key: &str) -> String;
    /// Reads `range` of `key` into `buf` (cleared first), retrying transient errors, each request
    /// under a timeout. The error is a finding that names what happened (vanished, denied, timed
    /// out).
    fn read_range(
        &self,
        key: &str,
        range: std::ops::Range<u64>,
        buf: &mut Vec<u8>,
    ) -> Result<(), Finding>;
}

/// A reader that can also seek: what streaming readers take.
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

impl Source {
    /// The local file behind a plain file source (model directories and `datasets` folders,
    /// which are read as trees of files, need one).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::File(p) => Some(p),
            _ => None,
        }
    }

    /// What a message calls it: the path, `shard.tar:member`, or the object's URL.
    pub fn describe(&self) -> String {
        match self {
            Source::File(p) => p.display().to_string(),
            Source::Slice { name, .. } => name.to_string(),
            Source::Object { store, key, .. } => store.url(key),
        }
    }

    /// Reads the whole source into `buf` (its capacity reused): refused before reading when it
    /// is empty or over `max_bytes`.
    pub fn read_all(&self, max_bytes: u64, buf: &mut Vec<u8>) -> Result<(), Finding> {
        match self {
            Source::File(p) => read_file(p, max_bytes, buf),
            Source::Slice {
                file, offset, len, ..
            } => {
                let f = open_shard(file, *len, max_bytes)?;
                buf.clear();
                buf.resize(*len as usize, 0);
                labelguard_io::portable::read_exact_at(&f, buf, *offset).map_err(|e| {
                    buf.clear();
                    io_problem("cannot read the member from its shard", &e)
                })
            }
            Source::Object { store, key, len } => {
                within(*len, max_bytes)?;
                store.read_range(key, 0..*len, buf)
            }
        }
    }

    /// Reads the first `n` bytes (fewer when the source is shorter) into `buf`: what sniffing a
    /// format needs, without the limits of a whole read.
    pub fn read_head(&self, n: u64, buf: &mut Vec<u8>) -> Result<(), Finding> {
        buf.clear();
        match self {
            Source::File(p) => {
                let (file, _) = open_regular(p)?;
                file.take(n)
                    .read_to_end(buf)
                    .map(|_| ())
                    .map_err(|e| io_problem("cannot read", &e))
            }
            Source::Slice { len, .. } | Source::Object { len, .. } if *len == 0 => Ok(()),
            Source::Slice { .. } | Source::Object { .. } => {
                let (r, _) = self.open(u64::MAX)?;
                r.take(n)
                    .read_to_end(buf)
                    .map(|_| ())
                    .map_err(|e| io_problem("cannot read", &e))
            }
        }
    }

    /// Opens the source for streaming: a reader and the length, refused like
    /// [`Source::read_all`] when empty or over `max_bytes`.
    pub fn open(&self, max_bytes: u64) -> Result<(SourceReader, u64), Finding> {
        match self {
            Source::File(p) => {
                let (file, len) = open_within(p, max_bytes)?;
                Ok((SourceReader::File(file), len))
            }
            Source::Slice {
                file, offset, len, ..
            } => {
                let f = open_shard(file, *len, max_bytes)?;
                Ok((
                    SourceReader::Slice {
                        file: f,
                        start: *offset,
                        len: *len,
                        pos: 0,
                    },
                    *len,
                ))
            }
            Source::Object { store, key, len } => {
                within(*len, max_bytes)?;
                Ok((
                    SourceReader::Object(Box::new(ObjectReader {
                        store: store.clone(),
                        key: key.clone(),
                        len: *len,
                        pos: 0,
                        window_start: 0,
                        window: Vec::new(),
                    })),
                    *len,
                ))
            }
        }
    }
}

/// The shard a member of `len` bytes is in, opened as any label file is (without blocking, a
/// regular file only), once the member's length passed the limits.
fn open_shard(shard: &Path, len: u64, max_bytes: u64) -> Result<std::fs::File, Finding> {
    within(len, max_bytes)?;
    open_regular(shard).map(|(f, _)| f)
}

fn within(len: u64, max_bytes: u64) -> Result<(), Finding> {
    if len == 0 {
        return Err(empty_file());
    }
    if len > max_bytes {
        return Err(lg602_corrupt_file::over_file_limit(len, max_bytes));
    }
    Ok(())
}

/// What [`Source::open`] gives: a file, a window of a file, or an object read in ranges.
pub enum SourceReader {
    File(std::fs::File),
    Slice {
        file: std::fs::File,
        start: u64,
        len: u64,
        pos: u64,
    },
    Object(Box<ObjectReader>),
}

impl Read for SourceReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        match self {
            SourceReader::File(f) => f.read(out),
            SourceReader::Slice {
                file,
                start,
                len,
                pos,
            } => {
                let n = (out.len() as u64).min(len.saturating_sub(*pos)) as usize;
                if n == 0 {
                    return Ok(0);
                }
                let got = labelguard_io::portable::read_at(file, &mut out[..n], *start + *pos)?;
                if got == 0 {
                    // The shard is shorter than its index said: it changed under the scan.
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                *pos += got as u64;
                Ok(got)
            }
            SourceReader::Object(o) => o.read(out),
        }
    }
}

impl Seek for SourceReader {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let (len, pos) = match self {
            SourceReader::File(f) => return f.seek(to),
            SourceReader::Slice { len, pos, .. } => (*len, pos),
            SourceReader::Object(o) => (o.len, &mut o.pos),
        };
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => len.checked_add_signed(d),
            SeekFrom::Current(d) => pos.checked_add_signed(d),
        };
        *pos = target.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the start of the source",
            )
        })?;
        Ok(*pos)
    }
}

/// Reads an object in windows of [`WINDOW`] bytes on demand: an image header costs a request
/// for its head and one for its tail, not the whole image.
pub struct ObjectReader {
    store: Arc<dyn ObjectRead>,
    key: String,
    len: u64,
    pos: u64,
    window_start: u64,
    window: Vec<u8>,
}

const WINDOW: u64 = 1 << 20;

impl Read for ObjectReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.len || out.is_empty() {
            return Ok(0);
        }
        let in_window = self.pos >= self.window_start
            && self.pos < self.window_start + self.window.len() as u64;
        if !in_window {
            let end = (self.pos + WINDOW).min(self.len);
            if let Err(f) = self
                .store
                .read_range(&self.key, self.pos..end, &mut self.window)
            {
                // Streaming readers report an I/O error by its text: the store's own words.
                self.window.clear();
                return Err(std::io::Error::other(f.message));
            }
            self.window_start = self.pos;
            if self.window.is_empty() {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
        let at = (self.pos - self.window_start) as usize;
        let n = out.len().min(self.window.len() - at);
        out[..n].copy_from_slice(&self.window[at..at + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// An in-memory bucket that counts its requests.
    #[derive(Debug, Default)]
    struct Memory {
        objects: Vec<(String, Vec<u8>)>,
        requests: Mutex<usize>,
    }

    impl ObjectRead for Memory {
        fn url(&self, key: &str) -> String {
            format!("mem://{key}")
        }
        fn read_range(
            &self,
            key: &str,
            range: std::ops::Range<u64>,
            buf: &mut Vec<u8>,
        ) -> Result<(), Finding> {
            *self.requests.lock().unwrap() += 1;
            let (_, data) =
                self.objects.iter().find(|(k, _)| k == key).ok_or_else(|| {
                    io_problem("cannot read", &std::io::ErrorKind::NotFound.into())
                })?;
            buf.clear();
            buf.extend_from_slice(&data[range.start as usize..range.end as usize]);
            Ok(())
        }
    }

    fn three_sources(data: &[u8]) -> (tempfile::TempDir, Vec<Source>, Arc<Memory>) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.bin");
        std::fs::write(&file, data).unwrap();
        let shard = dir.path().join("s.tar");
        let mut padded = b"0123456789".to_vec();
        padded.extend_from_slice(data);
        padded.extend_from_slice(b"trailing");
        std::fs::write(&shard, &padded).unwrap();
        let store = Arc::new(Memory {
            objects: vec![("k".into(), data.to_vec())],
            ..Default::default()
        });
        let sources = vec![
            Source::File(file),
            Source::Slice {
                file: Arc::new(shard),
                name: "s.tar:a.bin".into(),
                offset: 10,
                len: data.len() as u64,
            },
            Source::Object {
                store: store.clone(),
                key: "k".into(),
                len: data.len() as u64,
            },
        ];
        (dir, sources, store)
    }

    #[test]
    fn the_three_sources_read_the_same_bytes_whole_and_streamed() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let (_dir, sources, _) = three_sources(&data);
        for s in &sources {
            let mut buf = Vec::new();
            s.read_all(u64::MAX, &mut buf).unwrap();
            assert_eq!(buf, data, "{s:?}");
            let (mut r, len) = s.open(u64::MAX).unwrap();
            assert_eq!(len, data.len() as u64);
            r.seek(SeekFrom::End(-5)).unwrap();
            let mut tail = Vec::new();
            r.read_to_end(&mut tail).unwrap();
            assert_eq!(tail, data[data.len() - 5..]);
            r.seek(SeekFrom::Start(1_500_000)).unwrap();
            let mut mid = [0u8; 3];
            r.read_exact(&mut mid).unwrap();
            assert_eq!(mid, data[1_500_000..1_500_003]);
            r.rewind().unwrap();
            let mut all = Vec::new();
            r.read_to_end(&mut all).unwrap();
            assert_eq!(all, data);
            assert!(r.seek(SeekFrom::Current(-(data.len() as i64) - 1)).is_err());
        }
    }

    #[test]
    fn limits_apply_to_every_source_before_reading() {
        let (_dir, sources, store) = three_sources(b"0123456789");
        for s in &sources {
            let mut buf = Vec::new();
            let f = s.read_all(4, &mut buf).unwrap_err();
            assert_eq!(f.code, "LG602", "{s:?}: {}", f.message);
            assert!(s.open(4).is_err());
        }
        assert_eq!(
            *store.requests.lock().unwrap(),
            0,
            "refused before any request"
        );
        let (_dir, sources, _) = three_sources(b"");
        for s in &sources {
            let f = s.read_all(4, &mut Vec::new()).unwrap_err();
            assert_eq!(f.code, "LG603", "{s:?}");
        }
    }

    #[test]
    fn an_object_is_read_in_windows_not_whole() {
        let data = vec![7u8; 5 * WINDOW as usize];
        let (_dir, sources, store) = three_sources(&data);
        let (mut r, _) = sources[2].open(u64::MAX).unwrap();
        let mut head = [0u8; 64];
        r.read_exact(&mut head).unwrap();
        r.seek(SeekFrom::End(-16)).unwrap();
        r.read_exact(&mut [0u8; 16]).unwrap();
        assert_eq!(*store.requests.lock().unwrap(), 2);
    }

    #[test]
    fn a_shard_shorter_than_its_index_is_an_error_not_a_loop() {
        let (_dir, sources, _) = three_sources(b"abc");
        let Source::Slice { file, name, .. } = &sources[1] else {
            unreachable!()
        };
        let short = Source::Slice {
            file: file.clone(),
            name: name.clone(),
            offset: 10,
            len: 1000,
        };
        assert!(short.read_all(u64::MAX, &mut Vec::new()).is_err());
        let (mut r, _) = short.open(u64::MAX).unwrap();
        assert!(r.read_to_end(&mut Vec::new()).is_err());
    }
}
