//! Colour masks (three or four channels): a grey mask saved as RGB is checked through one
//! channel; a colour-coded mask is mapped to ids with the palette (`--palette`, a preset) and
//! checked as ids, or reported with its colours when there is no palette. The LG606 findings
//! themselves are built in [`crate::checks::lg606_colour_mask`].

use super::channel::channel_view;
use super::class_ids::class_check;
use super::ctx::Ctx;
use super::result::FileResult;
use crate::checks::lg606_colour_mask as lg606;
use crate::checks::lg621_colour_not_in_class_colours as lg621;
use labelguard_core::finding::MAX_LOCATIONS;
use labelguard_core::{DType, Location, TensorView};
use labelguard_formats::read::mask::MaskImage;
use std::collections::BTreeMap;

pub(crate) fn colour_mask(
    r: &mut FileResult,
    img: &MaskImage,
    pixels: &[u8],
    ctx: &Ctx<'_>,
    aux: &mut Vec<u8>,
) {
    let (h, w, ch) = (img.height, img.width, img.channels);
    let shape = format!("[{h}, {w}, {ch}]");
    if img.dtype != DType::U8 || ch < 3 {
        r.findings
            .push(lg606::unsupported_channels(ch, img.dtype, &shape));
        return;
    }
    let px = |i: usize| [pixels[i * ch], pixels[i * ch + 1], pixels[i * ch + 2]];
    let n = h * w;
    // A dataset whose class colours are listed (`class_dict.csv`) holds colour masks as its
    // labels: a mask of grey class colours (Sky 128,128,128 and Void 0,0,0) is one of them.
    let listed = ctx.class_colours.as_deref();
    if listed.is_none()
        && (0..n).all(|i| {
            let p = px(i);
            p[0] == p[1] && p[1] == p[2]
        })
    {
        r.findings.push(lg606::grey_saved_as_colour(ch, &shape));
        let view = channel_view(img, pixels, 0, aux);
        class_check(r, &view, "mask", ctx, ctx.opts.palette.as_deref());
        return;
    }
    let Some(palette) = &ctx.palette else {
        let mut colours: BTreeMap<[u8; 3], u64> = BTreeMap::new();
        for i in 0..n {
            let c = px(i);
            if colours.len() < 4096 || colours.contains_key(&c) {
                *colours.entry(c).or_insert(0) += 1;
            }
        }
        r.findings
            .push(lg606::colours_without_palette(&shape, &colours));
        return;
    };
    // Map colours to ids; unknown colours become the ignore value so they are reported once.
    let ignore = ctx
        .opts
        .ignore_index
        .clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    // Ids as little-endian i16 when every id of the palette and the ignore value fit (2 bytes
    // a pixel: with the 3 or 4 of the pixels, under twice the decoded image), else i32 (a
    // palette has far fewer than 2^31 entries). The values are the same either way.
    let fits = |v: i64| i16::try_from(v).is_ok();
    let narrow = fits(ignore as i64)
        && palette
            .id_range()
            .is_none_or(|(lo, hi)| fits(lo) && fits(hi));
    let (dtype, width) = if narrow {
        (DType::I16, 2)
    } else {
        (DType::I32, 4)
    };
    let mut ids: Vec<u8> = Vec::with_capacity(n * width);
    let push = |ids: &mut Vec<u8>, id: i32| {
        if narrow {
            ids.extend_from_slice(&(id as i16).to_le_bytes());
        } else {
            ids.extend_from_slice(&id.to_le_bytes());
        }
    };
    let mut unknown = 0u64;
    let mut first: Vec<Location> = Vec::new();
    let mut unknown_colours: BTreeMap<[u8; 3], u64> = BTreeMap::new();
    let mut lookup = palette.lookup();
    for i in 0..n {
        let c = px(i);
        let id = lookup.id(c);
        match id {
            Some(id) => push(&mut ids, id as i32),
            None => {
                unknown += 1;
                if first.len() < MAX_LOCATIONS {
                    first.push(Location {
                        tensor: "mask".into(),
                        index: vec![i / w, i % w],
                        value: lg606::colour_text(c),
                    });
                }
                if unknown_colours.len() < 64 || unknown_colours.contains_key(&c) {
                    *unknown_colours.entry(c).or_insert(0) += 1;
                }
                push(&mut ids, ignore);
            }
        }
    }
    match listed {
        // The dataset's own colours: every pixel listed is a valid label.
        Some(file) if unknown > 0 => r.findings.push(lg621::colours_not_listed(
            file,
            n,
            first,
            &unknown_colours,
            unknown,
        )),
        Some(_) => {}
        None => r.findings.push(lg606::colours_mapped_with_palette(
            &shape,
            n,
            first,
            &unknown_colours,
            unknown,
        )),
    }
    r.bad += unknown;
    let view = TensorView::new(dtype, &[h, w], &ids).expect("one id per pixel");
    class_check(r, &view, "mask", ctx, ctx.opts.palette.as_deref());
}
