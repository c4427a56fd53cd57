//! Benchmark driver: decode PNG masks and nothing else, on N threads.
//!
//! `png_decode DIR THREADS` uses the `png` crate (bound (b) of docs/benchmarks-history.md: the
//! decoder alone); `png_decode DIR THREADS fast` uses labelguard's fast path for 8-bit masks, to
//! show how much of the scan's lead over (b) comes from decoding. Prints files/s as JSON.

use rayon::prelude::*;
use std::io::Cursor;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: png_decode DIR THREADS [fast]");
        std::process::exit(2);
    }
    let fast = args.get(3).is_some_and(|a| a == "fast");
    let threads: usize = args[2].parse().expect("THREADS is a number");
    let mut paths: Vec<_> = std::fs::read_dir(&args[1])
        .expect("readable directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    paths.sort();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let start = Instant::now();
    let bytes: usize = pool.install(|| {
        paths
            .par_iter()
            .map_init(
                || (Vec::new(), Vec::new(), Vec::new()),
                |(file, out, scratch): &mut (Vec<u8>, Vec<u8>, Vec<u8>), p| {
                    file.clear();
                    use std::io::Read;
                    std::fs::File::open(p)
                        .and_then(|mut f| f.read_to_end(file))
                        .expect("readable file");
                    if fast {
                        let f = labelguard_formats::read::fastpng::decode_u8(
                            file,
                            1 << 28,
                            out,
                            scratch,
                        )
                        .expect("an 8-bit mask");
                        return f.width * f.height;
                    }
                    let mut dec = png::Decoder::new(Cursor::new(&file[..]));
                    dec.set_transformations(png::Transformations::IDENTITY);
                    let mut reader = dec.read_info().expect("valid PNG");
                    out.resize(reader.output_buffer_size().expect("size"), 0);
                    let info = reader.next_frame(out).expect("decodes");
                    info.buffer_size()
                },
            )
            .sum()
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{{\"files\": {}, \"seconds\": {secs:.6}, \"files_per_s\": {:.3}, \"decoded_bytes\": {bytes}}}",
        paths.len(),
        paths.len() as f64 / secs
    );
}
