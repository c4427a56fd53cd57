//! Test data made in code: small masks in every format the scan reads, broken files, and a
//! Cityscapes-like tree. Compiled for this crate's tests and, with the `test-fixtures` feature,
//! for the tests of the crates above it and the fuzz seeds; not part of the API.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `root/rel`, creating the directories.
pub fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a parent")).expect("create dirs");
    std::fs::write(p, bytes).expect("write fixture");
}

/// Encodes a PNG with the `png` crate: any colour type and bit depth, an optional palette.
pub fn png(
    width: u32,
    height: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
    palette: Option<&[u8]>,
) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(color);
        enc.set_depth(depth);
        if let Some(p) = palette {
            enc.set_palette(p.to_vec());
        }
        let mut w = enc.write_header().expect("header");
        w.write_image_data(data).expect("data");
    }
    out
}

/// An 8-bit grey PNG of ids, `mask[y * w + x]`.
pub fn png_gray8(w: u32, h: u32, mask: &[u8]) -> Vec<u8> {
    png(
        w,
        h,
        png::ColorType::Grayscale,
        png::BitDepth::Eight,
        mask,
        None,
    )
}

/// A 16-bit grey PNG.
pub fn png_gray16(w: u32, h: u32, mask: &[u16]) -> Vec<u8> {
    let be: Vec<u8> = mask.iter().flat_map(|v| v.to_be_bytes()).collect();
    png(
        w,
        h,
        png::ColorType::Grayscale,
        png::BitDepth::Sixteen,
        &be,
        None,
    )
}

/// A palette PNG whose indices are the ids (VOC style); the palette has `colours` entries.
pub fn png_palette(w: u32, h: u32, mask: &[u8], colours: &[[u8; 3]]) -> Vec<u8> {
    png(
        w,
        h,
        png::ColorType::Indexed,
        png::BitDepth::Eight,
        mask,
        Some(&colours.concat()),
    )
}

/// An RGB PNG.
pub fn png_rgb(w: u32, h: u32, rgb: &[u8]) -> Vec<u8> {
    png(w, h, png::ColorType::Rgb, png::BitDepth::Eight, rgb, None)
}

/// One PNG chunk: length, type, data and CRC.
pub fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut v = (data.len() as u32).to_be_bytes().to_vec();
    v.extend_from_slice(kind);
    v.extend_from_slice(data);
    let mut c = kind.to_vec();
    c.extend_from_slice(data);
    v.extend_from_slice(&crc32fast::hash(&c).to_be_bytes());
    v
}

/// A valid-looking PNG whose IHDR claims `w x h` grey pixels (with correct CRCs).
pub fn png_bomb(w: u32, h: u32) -> Vec<u8> {
    png_claim(w, h, 8, 0)
}

/// A PNG of a few dozen bytes whose IHDR claims `w x h` pixels of `depth` bits and colour
/// type `colour` (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA), with correct CRCs.
pub fn png_claim(w: u32, h: u32, depth: u8, colour: u8) -> Vec<u8> {
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[depth, colour, 0, 0, 0]);
    let mut v = b"\x89PNG\r\n\x1a\n".to_vec();
    v.extend(chunk(b"IHDR", &ihdr));
    v.extend(chunk(
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    ));
    v.extend(chunk(b"IEND", b""));
    v
}

/// An indexed PNG with its PLTE chunk removed.
pub fn png_without_plte(w: u32, h: u32, mask: &[u8]) -> Vec<u8> {
    let p = png_palette(w, h, mask, &[[0, 0, 0]; 256]);
    let at = p.windows(4).position(|x| x == b"PLTE").expect("PLTE") - 4;
    let len = u32::from_be_bytes(p[at..at + 4].try_into().expect("4 bytes")) as usize;
    [&p[..at], &p[at + 12 + len..]].concat()
}

/// A TIFF (8- or 16-bit grey) written with the `tiff` crate's encoder.
pub fn tiff_gray8(w: u32, h: u32, mask: &[u8]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut enc = tiff::encoder::TiffEncoder::new(&mut out).expect("encoder");
        enc.write_image::<tiff::encoder::colortype::Gray8>(w, h, mask)
            .expect("image");
    }
    out.into_inner()
}

pub fn tiff_gray16(w: u32, h: u32, mask: &[u16]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut enc = tiff::encoder::TiffEncoder::new(&mut out).expect("encoder");
        enc.write_image::<tiff::encoder::colortype::Gray16>(w, h, mask)
            .expect("image");
    }
    out.into_inner()
}

/// An `.npy` file: `descr` like `<i8`, `|u1`, `<f4`; `data` already little-endian.
pub fn npy(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(header.len() as u16).to_le_bytes());
    v.extend_from_slice(header.as_bytes());
    v.extend_from_slice(data);
    v
}

/// A safetensors file with one tensor.
pub fn safetensors(name: &str, dtype: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let mut header = format!(
        "{{\"{name}\":{{\"dtype\":\"{dtype}\",\"shape\":{:?},\"data_offsets\":[0,{}]}}}}",
        shape,
        data.len()
    );
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut v = (header.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(header.as_bytes());
    v.extend_from_slice(data);
    v
}

/// The header of a baseline JPEG of `w x h` (APP0, SOF0, SOS) and its end marker: enough for
/// header readers, which never decode the pixels.
pub fn jpeg_stub(w: u16, h: u16) -> Vec<u8> {
    let mut v = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
    v.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    v.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08]);
    v.extend_from_slice(&h.to_be_bytes());
    v.extend_from_slice(&w.to_be_bytes());
    v.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    v.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x02, 0x12, 0x34, 0xFF, 0xD9]);
    v
}

/// A street-scene-like mask: horizontal bands of `ids` with a rectangle of `spot` in the middle.
pub fn scene(w: usize, h: usize, ids: &[u8], spot: u8) -> Vec<u8> {
    let mut m = vec![0u8; w * h];
    for y in 0..h {
        let band = ids[(y * ids.len() / h).min(ids.len() - 1)];
        for x in 0..w {
            m[y * w + x] = band;
        }
    }
    for y in h / 3..h / 2 {
        for x in w / 3..w / 2 {
            m[y * w + x] = spot;
        }
    }
    m
}

/// A small Cityscapes tree: `n` clean train frames and `n` clean val frames (64x32), each mask
/// with its image. Returns the relative mask paths.
pub fn cityscapes(root: &Path, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (split, city) in [("train", "aachen"), ("val", "lindau")] {
        for i in 0..n {
            let stem = format!("{city}_{i:06}_000019");
            let m = scene(64, 32, &[10, 2, 0, 255], (i % 19) as u8);
            let rel = format!("gtFine/{split}/{city}/{stem}_gtFine_labelTrainIds.png");
            put(root, &rel, &png_gray8(64, 32, &m));
            put(
                root,
                &format!("leftImg8bit/{split}/{city}/{stem}_leftImg8bit.png"),
                &png_rgb(64, 32, &vec![90; 64 * 32 * 3]),
            );
            out.push(rel);
        }
    }
    out
}

/// A Parquet file (Snappy) with one optional INT64 column `label`.
#[cfg(feature = "parquet")]
pub fn parquet_labels(labels: &[Option<i64>]) -> Vec<u8> {
    parquet_labels_with(labels, |p| p)
}

/// [`parquet_labels`] in a single data page whatever the number of labels (its header claims
/// them all): the page of issue 8 whose rows are bounded only by `--max-rows`.
#[cfg(feature = "parquet")]
pub fn parquet_labels_one_page(labels: &[Option<i64>]) -> Vec<u8> {
    parquet_labels_with(labels, |p| {
        p.set_data_page_row_count_limit(usize::MAX)
            .set_data_page_size_limit(usize::MAX)
    })
}

#[cfg(feature = "parquet")]
fn parquet_labels_with(
    labels: &[Option<i64>],
    props: impl FnOnce(
        parquet::file::properties::WriterPropertiesBuilder,
    ) -> parquet::file::properties::WriterPropertiesBuilder,
) -> Vec<u8> {
    use parquet::data_type::Int64Type;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use std::sync::Arc;
    let schema = Arc::new(
        parquet::schema::parser::parse_message_type("message schema { OPTIONAL INT64 label; }")
            .expect("schema"),
    );
    let props = Arc::new(
        props(WriterProperties::builder().set_compression(parquet::basic::Compression::SNAPPY))
            .build(),
    );
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, props).expect("writer");
    let mut rg = w.next_row_group().expect("row group");
    let mut col = rg.next_column().expect("column").expect("one column");
    let values: Vec<i64> = labels.iter().flatten().copied().collect();
    let defs: Vec<i16> = labels.iter().map(|l| l.is_some() as i16).collect();
    col.typed::<Int64Type>()
        .write_batch(&values, Some(&defs), None)
        .expect("batch");
    col.close().expect("close column");
    rg.close().expect("close row group");
    w.close().expect("close file");
    out
}

/// Every file under `root` with its bytes, by path relative to `root`: what tests compare to
/// show that an input was never modified or that two outputs are the same.
pub fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    fn go(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                go(&p, root, out);
            } else {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    go(root, root, &mut out);
    out
}

/// One `<object>` of [`voc_annotation`]: its name, its `<bndbox>` corners as written (`None`:
/// no `<bndbox>`), and its `<difficult>` and `<truncated>` flags.
pub struct VocObj {
    pub name: Option<String>,
    pub bndbox: Option<[String; 4]>,
    pub difficult: bool,
    pub truncated: bool,
}

/// A box object named `name` with corners `(xmin, ymin, xmax, ymax)`.
pub fn voc_obj(name: &str, b: [u32; 4]) -> VocObj {
    VocObj {
        name: Some(name.to_string()),
        bndbox: Some(b.map(|v| v.to_string())),
        difficult: false,
        truncated: false,
    }
}

/// A Pascal VOC annotation XML for `filename`, with `<size>` `size` (width, height; `None`:
/// no `<size>`) and `objects`, laid out as the devkit's files are.
pub fn voc_annotation(filename: &str, size: Option<(u32, u32)>, objects: &[VocObj]) -> Vec<u8> {
    let mut s = format!("<annotation>\n\t<folder>VOC2007</folder>\n\t<filename>{filename}</filename>\n\t<source><database>The VOC2007 Database</database></source>\n");
    if let Some((w, h)) = size {
        s.push_str(&format!(
            "\t<size>\n\t\t<width>{w}</width>\n\t\t<height>{h}</height>\n\t\t<depth>3</depth>\n\t</size>\n"
        ));
    }
    s.push_str("\t<segmented>0</segmented>\n");
    for o in objects {
        s.push_str("\t<object>\n");
        if let Some(n) = &o.name {
            s.push_str(&format!("\t\t<name>{n}</name>\n"));
        }
        s.push_str(&format!(
            "\t\t<pose>Unspecified</pose>\n\t\t<truncated>{}</truncated>\n\t\t<difficult>{}</difficult>\n",
            u8::from(o.truncated),
            u8::from(o.difficult)
        ));
        if let Some([a, b, c, d]) = &o.bndbox {
            s.push_str(&format!("\t\t<bndbox>\n\t\t\t<xmin>{a}</xmin>\n\t\t\t<ymin>{b}</ymin>\n\t\t\t<xmax>{c}</xmax>\n\t\t\t<ymax>{d}</ymax>\n\t\t</bndbox>\n"));
        }
        s.push_str("\t</object>\n");
    }
    s.push_str("</annotation>\n");
    s.into_bytes()
}

/// A VOC2007-like detection tree under `root/VOCdevkit/VOC2007`: for each `(stem, xml)`, the
/// annotation and a JPEG header of `w x h` as its image, and `ImageSets/Main/train.txt`
/// listing every stem. Returns the dataset's folder relative to `root`.
pub fn voc_detection_tree(root: &Path, files: &[(&str, Vec<u8>)], w: u16, h: u16) -> String {
    let base = "VOCdevkit/VOC2007";
    let mut list = String::new();
    for (stem, xml) in files {
        put(root, &format!("{base}/Annotations/{stem}.xml"), xml);
        put(
            root,
            &format!("{base}/JPEGImages/{stem}.jpg"),
            &jpeg_stub(w, h),
        );
        list.push_str(stem);
        list.push('\n');
    }
    put(
        root,
        &format!("{base}/ImageSets/Main/train.txt"),
        list.as_bytes(),
    );
    base.to_string()
}

/// A ustar header block for `name` (at most 100 bytes) of `size` bytes and type `kind`, with
/// its checksum (sizes of 8 GiB and more in GNU base-256).
pub fn tar_header(name: &[u8], size: u64, kind: u8) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name);
    h[100..107].copy_from_slice(b"0000644");
    h[108..115].copy_from_slice(b"0000000");
    h[116..123].copy_from_slice(b"0000000");
    if size < 1 << 33 {
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    } else {
        // GNU's base-256 for sizes octal cannot hold.
        h[124] = 0x80;
        h[128..136].copy_from_slice(&size.to_be_bytes());
    }
    h[136..147].copy_from_slice(b"00000000000");
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    tar_checksum(&mut h);
    h
}

/// Writes a header block's checksum (the sum of its bytes, the field counted as spaces).
pub fn tar_checksum(h: &mut [u8; 512]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// One tar member of type `kind`: its header, then `data` padded to a whole block.
pub fn tar_member(name: &str, kind: u8, data: &[u8]) -> Vec<u8> {
    let mut out = tar_header(name.as_bytes(), data.len() as u64, kind).to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// A ustar archive of regular files (`name`, `data`), ended by its two zero blocks.
pub fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out: Vec<u8> = members
        .iter()
        .flat_map(|(name, data)| tar_member(name, b'0', data))
        .collect();
    out.extend_from_slice(&[0; 1024]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_decode() {
        let mut buf = Vec::new();
        let m = crate::read::mask::decode_mask(
            &tiff_gray16(3, 1, &[1, 300, 65535]),
            1 << 28,
            &mut buf,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(m.dtype, labelguard_core::DType::U16);
        let m = crate::read::mask::decode_mask(
            &tiff_gray8(2, 2, &[1, 2, 3, 4]),
            1 << 28,
            &mut buf,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!((m.width, m.height), (2, 2));
        assert_eq!(buf, vec![1, 2, 3, 4]);
        let hdr = labelguard_io::parse_npy(&npy("<i8", &[2, 3], &[0; 48])).unwrap();
        assert_eq!(hdr.shape, vec![2, 3]);
    }
}
