#!/usr/bin/env python3
"""Peak memory of `labelguard scan` on broken files whose headers claim far more than they
hold (see docs/benchmarks-history.md, issue 8: "peak memory does not grow with a header's claims").

    python3 bench/header_claims.py --bin target/release/labelguard [--limit-mib 512]

Each file is scanned on its own (`scan FILE --no-config --format json -q`) under
/usr/bin/time -v and `timeout 5`; the script prints wall seconds, peak RSS, exit code and the
finding's rule, and fails when a file takes over 2 s or 512 MiB or yields no finding. The
files (a few MB in all) are written into a temporary folder that is deleted at the end.

Files: PNGs whose IHDR claims 16384x16384 (the pixel limit, 2^28) in 8-bit grey (the fast
path), 16-bit grey and 16-bit RGBA (the `png` crate), and Adam7-interlaced 8-bit grey, each
with a real zlib stream of zero rows cut to 1/8 of its length (too little compressed data
for the claim) and cut by its last 16 bytes (data for nearly all rows), and with a stream of
rows holding sparse random bytes (about 50:1), the whole file cut 1 KiB before its end and
uncut (valid); a 69-byte PNG with
the same claim; a TIFF claiming 16384x16384 with one strip cut short; an uncompressed 16-bit
TIFF of 16384x8192 (256 MiB, at the decoded-byte limit) whole and cut 1 KiB before its end; a .npy claiming
(16384, 16384) uint8 and (2^28,) int64 with 10 bytes of data; a CSV and a JSONL table of one
60 MB label cell (under the 64 MiB line cap) and one of 100 MB (over it).
"""
import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def pngs(w, h, depth, colour, interlace=0):
    """Two PNGs of zero rows (PNG spec: IHDR, IDAT, IEND): the IDAT stream cut to 1/8 (too
    little data for the claim), and cut by its last 16 bytes (data for nearly all of it)."""
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    row = b"\0" * (1 + w * channels * depth // 8)
    z = zlib.compressobj(9)
    parts = [z.compress(row) for _ in range(h)]  # interlaced or not, zeros are zeros
    stream = b"".join(parts) + z.flush()
    noisy = png_of(w, h, depth, colour, interlace, noisy_stream(len(row), h))
    return [("cut8", png_of(w, h, depth, colour, interlace, stream[: len(stream) // 8])),
            ("cut16b", png_of(w, h, depth, colour, interlace, stream[:-16])),
            ("noise-cut1k", noisy[:-1024]),  # the file cut 1 KiB before its end
            ("noise-whole", noisy)]


def noisy_stream(row_len, h):
    """Rows (filter byte 0) of zeros with one random byte in every 256: real compressed data
    (about 50:1, so that the file can hold its claim), not zeros at deflate's 1032:1."""
    rng = random.Random(8)
    pool = []  # 17 rows, cycled: a row repeats 17 rows later, beyond deflate's 32 KiB window
    for _ in range(17):
        row = bytearray(row_len)
        for i in range(1 + rng.randrange(256), row_len, 256):
            row[i] = rng.randrange(1, 256)
        pool.append(bytes(row))
    z = zlib.compressobj(1)
    parts = [z.compress(pool[y % 17]) for y in range(h)]
    return b"".join(parts) + z.flush()


def png_of(w, h, depth, colour, interlace, stream):
    ihdr = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, interlace)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", stream) + chunk(b"IEND", b"")


def png_69_bytes(w, h, depth, colour):
    return png_of(w, h, depth, colour, 0, bytes([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]))


def tiff(w, h, bits, present):
    """A little-endian baseline TIFF (TIFF 6.0: header, one IFD) of one uncompressed grey strip
    of `bits`-bit samples that claims w*h samples, of which `present` bytes are in the file
    (class id 1 in every sample)."""
    size = w * h * bits // 8
    entries = [
        (256, 4, 1, w),  # ImageWidth
        (257, 4, 1, h),  # ImageLength
        (258, 3, 1, bits),  # BitsPerSample
        (259, 3, 1, 1),  # Compression: none
        (262, 3, 1, 1),  # PhotometricInterpretation: BlackIsZero
        (273, 4, 1, 0),  # StripOffsets (filled in below)
        (277, 3, 1, 1),  # SamplesPerPixel
        (278, 4, 1, h),  # RowsPerStrip
        (279, 4, 1, size),  # StripByteCounts
    ]
    ifd_at = 8
    data_at = ifd_at + 2 + 12 * len(entries) + 4
    out = b"II*\0" + struct.pack("<I", ifd_at) + struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        value = data_at if tag == 273 else value
        packed = struct.pack("<HI", value, 0)[:4] if typ == 3 else struct.pack("<I", value)
        out += struct.pack("<HHI", tag, typ, count) + packed
    sample = (1).to_bytes(bits // 8, "little")
    return out + struct.pack("<I", 0) + (sample * (present // len(sample) + 1))[:present]


def npy(descr, shape, data):
    """A .npy (NEP 1 format, version 1.0) with the header claiming `shape`."""
    dims = ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}".encode()
    pad = 64 - (10 + len(header) + 1) % 64
    header += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def cases():
    n = 16384
    for name, args in [("gray8", (8, 0)), ("gray16", (16, 0)), ("rgba16", (16, 6)),
                       ("gray8-interlaced", (8, 0, 1))]:
        for cut, data in pngs(n, n, *args):
            yield f"png-{name}-16384sq-{cut}.png", data
    yield "png-rgba16-16384sq-69-bytes.png", png_69_bytes(n, n, 16, 6)
    yield "tiff-gray8-16384sq-cut.tif", tiff(n, n, 8, 4096)
    # 16-bit, 16384x8192: 256 MiB of samples in a 256 MiB file, at the decoded-byte limit.
    whole = n * (n // 2) * 2
    yield "tiff-gray16-16384x8192-whole.tif", tiff(n, n // 2, 16, whole)
    yield "tiff-gray16-16384x8192-cut-1k.tif", tiff(n, n // 2, 16, whole - 1024)
    yield "npy-u1-16384sq-10-bytes.npy", npy("|u1", (n, n), b"\1" * 10)
    yield "npy-i8-2pow28-10-bytes.npy", npy("<i8", (1 << 28,), b"\1" * 10)
    for mb in (60, 100):
        cell = "x" * (mb << 20)
        yield f"csv-{mb}mb-cell.csv", f"path,label\na.png,{cell}\nb.png,1\n".encode()
        yield f"jsonl-{mb}mb-cell.jsonl", f'{{"label": "{cell}"}}\n{{"label": 1}}\n'.encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--limit-mib", type=float, default=512)
    ap.add_argument("--limit-s", type=float, default=2)
    ap.add_argument("--timeout", default="5", help="seconds before a scan is killed")
    ap.add_argument("--only", default="", help="scan only the files whose name matches this regex")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="lg-header-claims-")
    bad = 0
    try:
        print(f"{'file':<40} {'bytes':>10} {'wall s':>7} {'peak MiB':>9} {'exit':>4}  finding")
        for name, data in cases():
            if not re.search(a.only, name):
                continue
            path = os.path.join(root, name)
            with open(path, "wb") as f:
                f.write(data)
            cmd = ["/usr/bin/time", "-v", "timeout", a.timeout, a.bin, "scan", path, "--no-config",
                   "--format", "json", "-q"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
            h, m, s = wall.groups()
            seconds = int(h or 0) * 3600 + int(m) * 60 + float(s)
            rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
            codes = sorted(set(re.findall(r'"code": "(LG\d+)"', p.stdout)))
            # A whole (valid) file needs no finding; a broken one must have one.
            ok = seconds <= a.limit_s and rss <= a.limit_mib and p.returncode in (0, 1) and (codes or "whole" in name)
            bad += not ok
            print(f"{name:<40} {len(data):>10} {seconds:>7.2f} {rss:>9.1f} {p.returncode:>4}  {' '.join(codes)}{'' if ok else '  <-- FAILS'}", flush=True)
            os.remove(path)
    finally:
        shutil.rmtree(root)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
