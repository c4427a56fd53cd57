//! Tar shards (WebDataset) read in place: only the 512-byte headers are read, member data is
//! seeked past, and each regular member becomes `len` bytes at `offset` of the shard, scanned
//! without extracting anything.
//!
//! The facts of the format, from POSIX.1-2017 `pax` (ustar interchange format, pax extended
//! headers) and the GNU tar manual (`tar.h`, "Basic Tar Format"):
//! - a header is one 512-byte block: `name[100]` at 0, `mode[8]` 100, `uid[8]` 108, `gid[8]`
//!   116, `size[12]` 124, `mtime[12]` 136, `chksum[8]` 148, `typeflag` 156, `linkname[100]`
//!   157, `magic[6]` 257 (`"ustar\0"` POSIX, `"ustar "` + version `" \0"` GNU), ..., `devmajor[8]`
//!   329, `devminor[8]` 337, `prefix[155]` 345 (POSIX only; GNU keeps times there);
//! - the checksum is the sum of the header's bytes with the checksum field taken as 8 spaces
//!   (old writers summed signed chars; readers accept both, as GNU tar and Python do);
//! - numbers are octal ASCII ended by NUL or space; GNU writes base-256 when they do not fit:
//!   first byte 0x80 (positive) or 0xff (negative), then big-endian bytes;
//! - member data follows its header, padded to a whole block; the archive ends with two zero
//!   blocks (`tar --ignore-zeros` reads on past them: concatenated archives);
//! - `L`/`K` (GNU) members hold the long name/link name of the next header; `x` (pax) holds
//!   `"LEN KEY=VALUE\n"` records for the next header, `g` for all that follow (`path`, `size`
//!   here);
//! - types with no data: `1` hard link, `2` symlink, `3`/`4` devices, `5` directory, `6` FIFO;
//!   `0`, NUL and `7` are regular files; a regular file named with a trailing `/` is an old
//!   (V7) directory. Every other type's data is skipped.
//!
//! Which types carry data, and that a bad checksum or a single zero block ends the archive for
//! Python's `tarfile` (the reader WebDataset uses), follow CPython's `Lib/tarfile.py`
//! (`TarInfo.frombuf`, `TarFile.next`).
//!
//! Nothing here trusts a header: every size is checked against the file's length before it is
//! read or allocated, metadata members are capped at [`META_MAX`] bytes, and every step of the
//! loop moves the offset forward by at least one block, so a corrupt shard gives problems, never
//! a panic, an allocation of its claim, or a loop without end.

use std::borrow::Cow;
use std::fs::File;
use std::io;
use std::path::Path;

/// The tar block size.
pub const BLOCK: u64 = 512;

/// The largest GNU long name or pax extended header read: real ones are a few hundred bytes.
pub const META_MAX: u64 = 1 << 20;

/// How many bytes are read at once around a header: small members share one read.
const WINDOW: usize = 16 * 1024;

/// A regular file in the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member's path as stored (bytes: tar names need not be UTF-8), with `.` and empty
    /// components dropped (`./a//b.png` is `a/b.png`).
    pub name: Vec<u8>,
    /// Where its data starts in the shard.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
}

impl Member {
    /// The name as text, bad UTF-8 shown as U+FFFD.
    pub fn name_lossy(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.name)
    }
}

/// What is wrong with a shard, each at the byte offset where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TarProblem {
    /// The block at `at` is not a header (`why`: its checksum or a number field); `skipped`
    /// blocks were passed over, one at a time, before the next header or the end.
    BadHeader {
        at: u64,
        why: &'static str,
        skipped: u64,
    },
    /// The file ends inside the header block at `at`.
    TruncatedHeader { at: u64, file_len: u64 },
    /// Member `name`'s `len` bytes at `offset` run past the end of the file (`file_len`).
    TruncatedData {
        name: String,
        offset: u64,
        len: u64,
        file_len: u64,
    },
    /// The header at `at` claims `claimed` bytes, more than the whole file holds.
    ClaimsMore {
        at: u64,
        name: String,
        claimed: u64,
        file_len: u64,
    },
    /// A member named with `..` components or an absolute path: reported, never scanned.
    UnsafeName { name: String },
    /// A long-name or pax header at `at` that cannot be used (`detail` says why).
    BadExtendedHeader { at: u64, detail: String },
    /// `len` bytes at `at`, after the end-of-archive blocks, that are neither zeros nor a header.
    TrailingGarbage { at: u64, len: u64 },
    /// Another archive starts at `at`, after end-of-archive zero blocks (`cat a.tar b.tar`):
    /// its `members` were read, as `tar --ignore-zeros` reads them.
    Concatenated { at: u64, members: usize },
    /// The file could not be read at `at`.
    Io { at: u64, error: String },
}

/// A shard's regular members, in archive order, and what is wrong with it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TarIndex {
    pub members: Vec<Member>,
    pub problems: Vec<TarProblem>,
}

/// Positioned reads, so that the index reader serves files and (for tests and fuzzing) bytes.
pub trait ReadAt {
    /// Reads up to `buf.len()` bytes at `offset`; fewer only at the end.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize>;
}

impl ReadAt for [u8] {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

impl ReadAt for File {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            match labelguard_io::portable::read_at(self, &mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }
}

/// Indexes the shard at `path`. An error only when it cannot be opened or measured.
pub fn index_file(path: &Path) -> io::Result<TarIndex> {
    let f = File::open(path)?;
    let len = f.metadata()?.len();
    Ok(index(&f, len))
}

/// Indexes `len` bytes of `src` as a tar archive.
pub fn index<R: ReadAt + ?Sized>(src: &R, len: u64) -> TarIndex {
    Indexer {
        window: Window::new(src, len),
        out: TarIndex::default(),
        next: Pending::default(),
        global: Pending::default(),
    }
    .run()
}

/// Bytes of the file around the current header, refilled when a read falls outside.
struct Window<'a, R: ?Sized> {
    src: &'a R,
    len: u64,
    start: u64,
    buf: Vec<u8>,
}

impl<'a, R: ReadAt + ?Sized> Window<'a, R> {
    fn new(src: &'a R, len: u64) -> Self {
        Window {
            src,
            len,
            start: 0,
            buf: Vec::new(),
        }
    }

    /// The `n` bytes at `at` (fewer at the end of the file); `n` is at most [`WINDOW`].
    fn get(&mut self, at: u64, n: usize) -> io::Result<&[u8]> {
        let end = at.saturating_add(n as u64).min(self.len);
        let held = self.start + self.buf.len() as u64;
        if at < self.start || end > held {
            let want = (self.len.saturating_sub(at)).min(WINDOW.max(n) as u64) as usize;
            self.buf.resize(want, 0);
            let got = self.src.read_at(at, &mut self.buf)?;
            self.buf.truncate(got);
            self.start = at;
        }
        let from = (at - self.start) as usize;
        let to = ((end - self.start) as usize).min(self.buf.len()).max(from);
        Ok(&self.buf[from..to])
    }

    /// `n` bytes at `at` (`n` at most [`META_MAX`]): the data of a metadata member.
    fn read_exact(&mut self, at: u64, n: u64) -> io::Result<Vec<u8>> {
        let mut data = vec![0; n as usize];
        let got = self.src.read_at(at, &mut data)?;
        if got as u64 != n {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        Ok(data)
    }
}

/// What GNU long-name and pax headers say about the next member (or, global, every member).
#[derive(Clone, Debug, Default)]
struct Pending {
    path: Option<Vec<u8>>,
    size: Option<u64>,
}

/// A header block, checked.
struct Header {
    name: Vec<u8>,
    size: u64,
    kind: u8,
}

struct Indexer<'a, R: ?Sized> {
    window: Window<'a, R>,
    out: TarIndex,
    /// What the metadata members read so far say about the next header.
    next: Pending,
    /// What pax global headers say about every header that follows.
    global: Pending,
}

impl<R: ReadAt + ?Sized> Indexer<'_, R> {
    fn run(mut self) -> TarIndex {
        let len = self.window.len;
        let mut at = 0u64;
        // Where the end-of-archive zero blocks began, when the last block read was zeros.
        let mut zeros_at: Option<u64> = None;
        // Where a run of blocks that are not headers began, and its length in blocks.
        let mut bad: Option<(u64, &'static str, u64)> = None;
        let mut concatenated: Option<(u64, usize)> = None;
        while at < len {
            let block = match self.window.get(at, BLOCK as usize) {
                Ok(b) => b.to_vec(),
                Err(e) => {
                    self.io(at, e);
                    break;
                }
            };
            let zero = block.iter().all(|&b| b == 0);
            if (block.len() as u64) < BLOCK && !zero {
                self.flush_bad(&mut bad);
                self.out.problems.push(match zeros_at {
                    Some(_) => TarProblem::TrailingGarbage { at, len: len - at },
                    None => TarProblem::TruncatedHeader { at, file_len: len },
                });
                break;
            }
            if zero {
                self.flush_bad(&mut bad);
                zeros_at.get_or_insert(at);
                self.next = Pending::default();
                at += BLOCK;
                continue;
            }
            let header = match parse_header(&block) {
                Ok(h) => h,
                Err(why) => {
                    if zeros_at.is_some() {
                        self.out
                            .problems
                            .push(TarProblem::TrailingGarbage { at, len: len - at });
                        break;
                    }
                    match &mut bad {
                        Some((_, _, n)) => *n += 1,
                        None => bad = Some((at, why, 1)),
                    }
                    self.next = Pending::default();
                    at += BLOCK;
                    continue;
                }
            };
            self.flush_bad(&mut bad);
            if zeros_at.take().is_some() && concatenated.is_none() {
                concatenated = Some((at, self.out.members.len()));
            }
            match self.member(at, header) {
                Some(next) => at = next,
                None => break,
            }
        }
        self.flush_bad(&mut bad);
        if let Some((at, before)) = concatenated {
            let members = self.out.members.len() - before;
            self.out
                .problems
                .push(TarProblem::Concatenated { at, members });
        }
        self.out
    }

    /// Takes in the header at `at`; returns where the next header is, or `None` to stop.
    fn member(&mut self, at: u64, h: Header) -> Option<u64> {
        let len = self.window.len;
        let data = at + BLOCK;
        let meta = matches!(h.kind, b'L' | b'K' | b'x' | b'g');
        let mut size = h.size;
        let mut name = h.name;
        if !meta {
            let next = std::mem::take(&mut self.next);
            if let Some(s) = next.size.or(self.global.size) {
                size = s;
            }
            if let Some(p) = next.path.or_else(|| self.global.path.clone()) {
                name = p;
            }
        }
        let regular = matches!(h.kind, b'0' | 0 | b'7') && !name.ends_with(b"/");
        let carries_data = !matches!(h.kind, b'1'..=b'6');
        let data_len = if carries_data { size } else { 0 };
        if data_len > len {
            self.out.problems.push(TarProblem::ClaimsMore {
                at,
                name: lossy(&name),
                claimed: data_len,
                file_len: len,
            });
            return None;
        }
        if data + data_len > len {
            self.out.problems.push(TarProblem::TruncatedData {
                name: lossy(&name),
                offset: data,
                len: data_len,
                file_len: len,
            });
            return None;
        }
        let next = (data + data_len)
            .div_ceil(BLOCK)
            .saturating_mul(BLOCK)
            .min(len);
        if meta {
            self.metadata(at, h.kind, data, data_len);
        } else if regular {
            match clean_name(&name) {
                Some(name) => self.out.members.push(Member {
                    name,
                    offset: data,
                    len: data_len,
                }),
                None => self
                    .out
                    .problems
                    .push(TarProblem::UnsafeName { name: lossy(&name) }),
            }
        }
        Some(next)
    }

    /// Reads a GNU long name (`L`), long link (`K`) or pax header (`x`, `g`) of `n` bytes at `data`.
    fn metadata(&mut self, at: u64, kind: u8, data: u64, n: u64) {
        if n > META_MAX {
            self.out.problems.push(TarProblem::BadExtendedHeader {
                at,
                detail: format!("claims {n} bytes, more than the {META_MAX}-byte limit for a name or pax header"),
            });
            return;
        }
        let bytes = match self.window.read_exact(data, n) {
            Ok(b) => b,
            Err(e) => return self.io(data, e),
        };
        match kind {
            b'L' => self.next.path = Some(until_nul(&bytes).to_vec()),
            b'K' => {}
            _ => {
                let target = if kind == b'g' {
                    &mut self.global
                } else {
                    &mut self.next
                };
                if let Err(detail) = apply_pax(&bytes, target) {
                    self.out
                        .problems
                        .push(TarProblem::BadExtendedHeader { at, detail });
                }
            }
        }
    }

    fn flush_bad(&mut self, bad: &mut Option<(u64, &'static str, u64)>) {
        if let Some((at, why, skipped)) = bad.take() {
            self.out
                .problems
                .push(TarProblem::BadHeader { at, why, skipped });
        }
    }

    fn io(&mut self, at: u64, e: io::Error) {
        self.out.problems.push(TarProblem::Io {
            at,
            error: e.to_string(),
        });
    }
}

fn lossy(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

/// The bytes before the first NUL.
fn until_nul(b: &[u8]) -> &[u8] {
    b.iter().position(|&c| c == 0).map_or(b, |i| &b[..i])
}

/// Checks one header block: its checksum, its number fields, and its name.
fn parse_header(b: &[u8]) -> Result<Header, &'static str> {
    let stored = number(&b[148..156]).ok_or("its checksum field is not a number")?;
    let (mut unsigned, mut signed) = (0u64, 0i64);
    for (i, &c) in b.iter().enumerate() {
        let c = if (148..156).contains(&i) { b' ' } else { c };
        unsigned += u64::from(c);
        signed += i64::from(c as i8);
    }
    if stored != unsigned && i64::try_from(stored).ok() != Some(signed) {
        return Err("bad header checksum");
    }
    // mode, uid, gid, mtime, devmajor, devminor: Python's tarfile refuses a header whose
    // numbers do not parse, so such a block is no header to it either.
    for range in [100..108, 108..116, 116..124, 136..148, 329..337, 337..345] {
        number(&b[range]).ok_or("a number field of the header is not a number")?;
    }
    let size = number(&b[124..136]).ok_or("its size field is not a number")?;
    let kind = b[156];
    let mut name = until_nul(&b[0..100]).to_vec();
    let gnu = &b[257..265] == b"ustar  \0";
    let prefix = until_nul(&b[345..500]);
    if !gnu && !prefix.is_empty() && !matches!(kind, b'L' | b'K') {
        let mut full = prefix.to_vec();
        full.push(b'/');
        full.extend_from_slice(&name);
        name = full;
    }
    Ok(Header { name, size, kind })
}

/// A tar number field: octal ASCII (leading and trailing spaces, ended by NUL), or GNU
/// base-256 (first byte 0x80; 0xff is negative, which no field here may be). `None` when it is
/// neither or does not fit in a u64.
fn number(field: &[u8]) -> Option<u64> {
    match field.first() {
        Some(0x80) => field[1..]
            .iter()
            .try_fold(0u64, |n, &b| n.checked_mul(256).map(|n| n + u64::from(b))),
        Some(0xff) => None,
        _ => {
            let text = until_nul(field);
            let text = text.trim_ascii();
            text.iter().try_fold(0u64, |n, &c| match c {
                b'0'..=b'7' => n.checked_mul(8).map(|n| n + u64::from(c - b'0')),
                _ => None,
            })
        }
    }
}

/// Reads pax records (`"LEN KEY=VALUE\n"`, LEN counting the whole record) into `into`.
fn apply_pax(mut data: &[u8], into: &mut Pending) -> Result<(), String> {
    while !data.is_empty() && data[0] != 0 {
        let space = data
            .iter()
            .position(|&c| c == b' ')
            .ok_or("a pax record without its length")?;
        let n: usize = std::str::from_utf8(&data[..space])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or("a pax record whose length is not a number")?;
        if n <= space + 1 || n > data.len() || data[n - 1] != b'\n' {
            return Err(format!(
                "a pax record's length ({n}) does not match its bytes"
            ));
        }
        let record = &data[space + 1..n - 1];
        let eq = record
            .iter()
            .position(|&c| c == b'=')
            .ok_or("a pax record without '='")?;
        let (key, value) = (&record[..eq], &record[eq + 1..]);
        match key {
            b"path" => into.path = Some(value.to_vec()),
            b"size" => {
                let size = std::str::from_utf8(value)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or("the pax size is not a number")?;
                into.size = Some(size);
            }
            _ => {}
        }
        data = &data[n..];
    }
    Ok(())
}

/// The member's path with `.` and empty components dropped; `None` when it is absolute, climbs
/// out with `..`, or is empty (such a member is never scanned, nor joined to any directory).
fn clean_name(name: &[u8]) -> Option<Vec<u8>> {
    if name.first() == Some(&b'/') {
        return None;
    }
    let mut out = Vec::with_capacity(name.len());
    for part in name.split(|&c| c == b'/') {
        match part {
            b"" | b"." => {}
            b".." => return None,
            _ => {
                if !out.is_empty() {
                    out.push(b'/');
                }
                out.extend_from_slice(part);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
#[path = "tar_tests.rs"]
mod tests;
