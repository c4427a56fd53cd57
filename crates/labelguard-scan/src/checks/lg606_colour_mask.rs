//! LG606 colour-mask: a mask (or an array) with colour channels where a single-channel
//! class-index mask is expected. The analysis finds the channels and maps the colours
//! ([`crate::analyze::colour`], [`crate::analyze::array`]); the findings are built here.
//! Documentation: `labelguard_core::rules::lg606_colour_mask`.

use labelguard_core::finding::{shape_str, Fact, ValueCount};
use labelguard_core::rules::LG606;
use labelguard_core::{DType, Finding, Location, Verdict};
use std::collections::BTreeMap;

fn finding(message: String) -> Finding {
    Finding::new(&LG606, Verdict::Error, message)
}

fn rgb(c: &[u8; 3]) -> String {
    format!("({}, {}, {})", c[0], c[1], c[2])
}

/// Colours with their pixel counts, most frequent first.
pub(crate) fn by_count(colours: &BTreeMap<[u8; 3], u64>) -> Vec<ValueCount> {
    let mut v: Vec<ValueCount> = colours
        .iter()
        .map(|(c, n)| ValueCount {
            value: rgb(c),
            count: *n,
        })
        .collect();
    v.sort_by_key(|c| std::cmp::Reverse(c.count));
    v
}

/// A mask with 2+ channels that are not 8-bit RGB(A): nothing to map.
pub fn unsupported_channels(channels: usize, dtype: DType, shape: &str) -> Finding {
    finding(format!("a {channels}-channel {dtype} mask ({shape}) where a single-channel class-index mask is expected"))
        .fix("save masks as single-channel class-index PNGs")
}

/// Every pixel has equal channels: a grey class-index mask saved as RGB. The fact makes the
/// rule's repair keep the first channel.
pub fn grey_saved_as_colour(channels: usize, shape: &str) -> Finding {
    finding(format!("a grey class-index mask saved with {channels} equal channels ({shape}): loaded as is, the target has an extra channel dimension"))
        .fact(Fact::EqualChannels)
        .hint("cv2.imwrite of a 3-channel array, or Image.convert('RGB') before saving")
        .fix("keep one channel (np.array(Image.open(p))[..., 0]) or re-save the masks as 'L' PNGs")
}

/// A colour-coded mask and no palette to map it: its most common colours.
pub fn colours_without_palette(shape: &str, colours: &BTreeMap<[u8; 3], u64>) -> Finding {
    let mut f = finding(format!(
        "an RGB colour mask ({shape}, {} distinct colours) where a class-index mask is expected",
        colours.len()
    ))
    .hint("colour-coded masks (Cityscapes *_color.png, VOC masks read with cv2.imread or .convert('RGB')) hold colours, not class ids; pass --palette FILE or a --preset to map them")
    .fix("use the index masks, or map colours to ids once with the palette and save single-channel PNGs");
    // A stable sort by count over the colours in order: equal counts keep colour order.
    f.values = by_count(colours).into_iter().take(8).collect();
    f
}

/// A colour-coded mask mapped with the palette: `unknown` of `pixels` pixels have colours
/// outside it (`first` of them located, `unknown_colours` counted). With none unknown the
/// finding carries the fact that makes the rule's repair map colours to ids.
pub fn colours_mapped_with_palette(
    shape: &str,
    pixels: usize,
    first: Vec<Location>,
    unknown_colours: &BTreeMap<[u8; 3], u64>,
    unknown: u64,
) -> Finding {
    let mut f = finding(if unknown == 0 {
        format!("an RGB colour mask ({shape}) where a class-index mask is expected; every colour is in the palette")
    } else {
        format!(
            "an RGB colour mask ({shape}) where a class-index mask is expected; {unknown} of {pixels} pixels have colours that are not in the palette{}",
            first.first().map(|l| format!("; first: mask{} = {}", shape_str(&l.index), l.value)).unwrap_or_default()
        )
    })
    .hint(if unknown == 0 {
        "the colours map cleanly to class ids: convert once and save the ids".to_string()
    } else {
        "colours outside the palette come from anti-aliased or resized colour masks, JPEG compression, or another dataset's palette".to_string()
    })
    .fix("convert colours to ids with the palette (ids = lut[r, g, b]) and save single-channel PNGs; resize masks with nearest-neighbour only");
    if unknown == 0 {
        f.fact = Some(Fact::EveryColourKnown);
    } else {
        f.locations = first;
        f.count = Some(unknown);
        f.values = by_count(unknown_colours);
    }
    f
}

/// An array of shape `[.., H, W, 3|4]` (built in core: the Python guards say it in the same words).
pub use labelguard_core::rules::lg606_colour_mask::{colour_array, colours_last};

/// The colour of a pixel as the report shows it.
pub fn colour_text(c: [u8; 3]) -> String {
    rgb(&c)
}
