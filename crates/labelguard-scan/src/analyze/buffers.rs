//! Per-thread buffers, reused from file to file.

/// Per-thread buffers, reused from file to file so that a scan allocates per thread, not per
/// file. Buffers that grew for a very large file are shrunk back afterwards.
#[derive(Default)]
pub struct Buffers {
    pub(super) file: Vec<u8>,
    pub(super) pixels: Vec<u8>,
    pub(super) aux: Vec<u8>,
}

const KEEP_BYTES: usize = 64 << 20;

impl Buffers {
    pub(super) fn trim(&mut self) {
        for b in [&mut self.file, &mut self.pixels, &mut self.aux] {
            if b.capacity() > KEEP_BYTES {
                b.clear();
                b.shrink_to(KEEP_BYTES);
            }
        }
    }
}
