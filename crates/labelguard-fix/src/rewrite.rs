//! One mask in, its repaired bytes out: decode with the scan's readers, apply the file's
//! repairs, encode in the same format. A file that cannot be repaired exactly is left alone
//! with the reason (never guessed).

use crate::majority;
use crate::mapping::{remap_signed, remap_u16, remap_u8, Moved, ValueMap};
use crate::png_out::{self, Image};
use labelguard_core::DType;
use labelguard_formats::read::mask::{decode_mask, MaskImage};
use labelguard_labels::repair::{Repair, RepairKind};
use std::collections::BTreeMap;

/// Settings shared by every file of a run.
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    pub max_pixels: u64,
    /// Colour -> class id (palette, then the void colours -> the void target).
    pub palette: Option<labelguard_scan::colours::ColourMap>,
    /// Replace resize artefacts by the majority of their neighbours (an approximation).
    pub fill_artefacts: bool,
}

/// A repaired file.
#[derive(Debug, Default)]
pub struct Rewritten {
    pub bytes: Vec<u8>,
    pub moved: Vec<Moved>,
    /// Colours mapped to ids (colour masks).
    pub colours: Vec<(String, i64, u64)>,
    /// What the user should know: approximations, artefact pixels left as they were.
    pub notes: Vec<String>,
    /// Whether any sample or the layout changed; an unchanged file is copied as it is.
    pub changed: bool,
}

/// Why a file was left alone.
pub type LeftAlone = String;

/// Repairs one file's bytes.
pub fn rewrite(bytes: &[u8], repairs: &[Repair], ctx: &Ctx) -> Result<Rewritten, LeftAlone> {
    if bytes.starts_with(png_out::SIGNATURE) {
        rewrite_png(bytes, repairs, ctx)
    } else if bytes.starts_with(b"\x93NUMPY") {
        rewrite_npy(bytes, repairs)
    } else if labelguard_formats::read::mask::is_tiff(bytes) {
        Err(
            "a TIFF mask: labelguard fix rewrites PNG and .npy masks only; convert it to PNG first"
                .into(),
        )
    } else {
        Err("not a PNG or .npy mask: labelguard fix rewrites PNG and .npy masks only".into())
    }
}

fn has(repairs: &[Repair], kind: RepairKind) -> bool {
    repairs.iter().any(|r| r.kind == kind)
}

fn rewrite_png(bytes: &[u8], repairs: &[Repair], ctx: &Ctx) -> Result<Rewritten, LeftAlone> {
    let header = png_out::header(bytes).ok_or("the PNG header is unreadable")?;
    let (colour, depth) = png_out::png_format(&header).ok_or("an invalid PNG header")?;
    let (mut samples, mut scratch) = (Vec::new(), Vec::new());
    let img = decode_mask(bytes, ctx.max_pixels, &mut samples, &mut scratch)
        .map_err(|p| format!("cannot be decoded: {}", p.message))?;
    let mut out = Rewritten::default();
    let (mut colour, mut depth) = (colour, depth);
    out.changed = img.channels != 1;
    if img.channels >= 3 {
        if has(repairs, RepairKind::ColourToIndex) {
            samples = colour_to_index(&img, &samples, ctx, &mut out)?;
            (colour, depth) = (png::ColorType::Grayscale, png::BitDepth::Eight);
        } else if has(repairs, RepairKind::FirstChannel) {
            samples = first_channel(&img, &samples)?;
            colour = png::ColorType::Grayscale;
        } else {
            return Err(format!(
                "a {}-channel colour mask, and no colour repair was planned for it",
                img.channels
            ));
        }
    } else if img.channels != 1 {
        return Err(
            "a grey + alpha PNG: not rewritten (keep the first channel when you load it)".into(),
        );
    }
    let map = ValueMap::new(repairs);
    let what = format!("a {}-bit PNG", depth as u8);
    if img.dtype == DType::U16 && depth == png::BitDepth::Sixteen {
        out.moved = remap_u16(&map, &mut samples, false, &what).map_err(|e| e.to_string())?;
    } else {
        let max = (1i64 << (depth as u8).min(8)) - 1;
        out.moved = remap_u8(&map, &mut samples, max, &what).map_err(|e| e.to_string())?;
    }
    if let Some(r) = repairs
        .iter()
        .find(|r| r.kind == RepairKind::ResizeArtefacts)
    {
        fill_artefacts(&mut samples, &img, depth, r, ctx, &mut out);
    }
    out.changed |= !out.moved.is_empty();
    if !out.changed {
        return Ok(out);
    }
    if depth == png::BitDepth::Sixteen {
        for pair in samples.chunks_exact_mut(2) {
            pair.swap(0, 1); // the decoder gave little-endian; PNG stores big-endian
        }
    }
    let image = Image {
        width: header.width,
        height: header.height,
        colour,
        depth,
        samples: &samples,
    };
    out.bytes = png_out::write(&image, bytes)?;
    Ok(out)
}

/// Exact palette lookup of every pixel; any colour outside the palette leaves the file alone.
fn colour_to_index(
    img: &MaskImage,
    px: &[u8],
    ctx: &Ctx,
    out: &mut Rewritten,
) -> Result<Vec<u8>, LeftAlone> {
    let palette = ctx
        .palette
        .as_ref()
        .ok_or("a colour mask, but no palette: pass --preset or --palette")?;
    if img.dtype != DType::U8 {
        return Err("a 16-bit colour mask: colours are matched on 8-bit masks only".into());
    }
    let ch = img.channels;
    let mut ids = Vec::with_capacity(img.width * img.height);
    let mut counts: BTreeMap<[u8; 3], u64> = BTreeMap::new();
    let mut unknown: BTreeMap<[u8; 3], u64> = BTreeMap::new();
    let mut lookup = palette.lookup();
    for p in px.chunks_exact(ch) {
        let c = [p[0], p[1], p[2]];
        let id = lookup.id(c);
        match id {
            Some(id) if (0..=255).contains(&id) => {
                ids.push(id as u8);
                *counts.entry(c).or_insert(0) += 1;
            }
            Some(id) => {
                return Err(format!(
                    "colour {c:?} maps to {id}, which an 8-bit PNG cannot hold"
                ))
            }
            None => *unknown.entry(c).or_insert(0) += 1,
        }
    }
    if !unknown.is_empty() {
        let n: u64 = unknown.values().sum();
        let mut top: Vec<_> = unknown.into_iter().collect();
        top.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let shown: Vec<String> = top
            .iter()
            .take(5)
            .map(|(c, k)| format!("({}, {}, {}) x{k}", c[0], c[1], c[2]))
            .collect();
        return Err(format!(
            "{n} pixels have colours that are not in the palette ({}); not guessed: re-export the mask without anti-aliasing or resizing",
            shown.join(", ")
        ));
    }
    out.colours = counts
        .into_iter()
        .map(|(c, n)| {
            (
                format!("({}, {}, {})", c[0], c[1], c[2]),
                palette.get(&c).unwrap_or_default(),
                n,
            )
        })
        .collect();
    Ok(ids)
}

/// The first channel of a mask whose channels are all equal.
fn first_channel(img: &MaskImage, px: &[u8]) -> Result<Vec<u8>, LeftAlone> {
    let size = img.dtype.size();
    let stride = img.channels * size;
    let mut out = Vec::with_capacity(px.len() / img.channels);
    for p in px.chunks_exact(stride) {
        if (1..3).any(|c| p[c * size..(c + 1) * size] != p[..size]) {
            return Err("the colour channels differ: not a grey mask saved as RGB".into());
        }
        out.extend_from_slice(&p[..size]);
    }
    Ok(out)
}

fn fill_artefacts(
    samples: &mut [u8],
    img: &MaskImage,
    depth: png::BitDepth,
    r: &Repair,
    ctx: &Ctx,
    out: &mut Rewritten,
) {
    if !ctx.fill_artefacts {
        out.notes.push(format!(
            "resize artefacts (ids {:?}) left as they are: re-export this mask with nearest-neighbour resizing",
            r.values
        ));
        return;
    }
    let wide = depth == png::BitDepth::Sixteen;
    let mut ids: Vec<i64> = if wide {
        samples
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as i64)
            .collect()
    } else {
        samples.iter().map(|&v| v as i64).collect()
    };
    let filled = majority::fill(&mut ids, img.width, img.height, &r.values);
    for (i, v) in ids.iter().enumerate() {
        if wide {
            samples[2 * i..2 * i + 2].copy_from_slice(&(*v as u16).to_le_bytes());
        } else {
            samples[i] = *v as u8;
        }
    }
    let n: u64 = filled.moved.values().sum();
    out.notes.push(format!(
        "APPROXIMATION: {n} resize-artefact pixels replaced by the majority of their labelled neighbours{}",
        if filled.left > 0 {
            format!("; {} pixels had no labelled neighbour and were left", filled.left)
        } else {
            String::new()
        }
    ));
    out.moved
        .extend(
            filled
                .moved
                .into_iter()
                .map(|((from, to), pixels)| Moved { from, to, pixels }),
        );
}

fn rewrite_npy(bytes: &[u8], repairs: &[Repair]) -> Result<Rewritten, LeftAlone> {
    let h = labelguard_io::parse_npy(bytes).map_err(|e| format!("cannot be read: {e}"))?;
    if repairs.iter().any(|r| !r.kind.is_value_map()) {
        return Err(
            ".npy arrays get value repairs only (no colour or neighbourhood repairs)".into(),
        );
    }
    let n: usize = h.shape.iter().product();
    let end = h
        .data_offset
        .checked_add(n * h.dtype.size())
        .filter(|&e| e <= bytes.len())
        .ok_or("the .npy array is truncated")?;
    let mut out = Rewritten {
        bytes: bytes.to_vec(),
        ..Rewritten::default()
    };
    let data = &mut out.bytes[h.data_offset..end];
    let map = ValueMap::new(repairs);
    let what = format!("an .npy array of {}", h.dtype.torch_name());
    out.moved = match h.dtype {
        DType::U8 => remap_u8(&map, data, 255, &what),
        DType::U16 => remap_u16(&map, data, false, &what),
        DType::I8 => remap_signed(&map, data, 1, &what),
        DType::I16 => remap_signed(&map, data, 2, &what),
        DType::I32 => remap_signed(&map, data, 4, &what),
        DType::I64 => remap_signed(&map, data, 8, &what),
        other => {
            return Err(format!(
                "an .npy array of {other}: only integer ids are remapped"
            ))
        }
    }
    .map_err(|e| e.to_string())?;
    out.changed = !out.moved.is_empty();
    Ok(out)
}
