//! One file in, findings and a class histogram out.
//!
//! The fast path for a clean mask is: read, decode, histogram. Only when the histogram shows
//! an id outside `[0, C-1]` (and not `ignore_index`) does the file get the detailed pass, and
//! that pass is `labelguard_core::class_ids`, the same analysis the `check` command and the
//! Python guards use, so a scan names the same causes (LG101..LG107) with the same fixes and
//! the first offending pixel as `mask[y, x]`.

use crate::config::ScanOptions;
use crate::hist::{hist_u16, hist_u8_runs, hist_values, sparse_u8, RunStats};
use crate::layout::{Item, Task};
use crate::problem::problem;
use crate::read::header::image_header;
use crate::read::mask::{check_pixels, decode_mask, png_end_problem, MaskImage, PNG_MAGIC};
use crate::read::table::{read_labels, LabelColumn, TableError};
use crate::read::{empty_file, read_file};
use labelguard_core::finding::{shape_str, ValueCount, MAX_LOCATIONS};
use labelguard_core::ops::common::{float_ids_hint, is_binary};
use labelguard_core::rules::*;
use labelguard_core::{class_ids, DType, Finding, Location, Severity, TensorView, Verdict};
use std::collections::{BTreeMap, HashMap};

/// What kind of file a result is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Mask,
    Array,
    Table,
    Image,
    ClassWeights,
    Other,
}

/// The outcome of one item.
#[derive(Clone, Debug)]
pub struct FileResult {
    pub display: String,
    pub split: String,
    pub kind: FileKind,
    pub shape: Option<Vec<usize>>,
    pub findings: Vec<Finding>,
    /// Elements (pixels, rows, samples) that entered the histogram.
    pub elements: u64,
    /// Elements that PyTorch would reject (out-of-range ids, unknown labels).
    pub bad: u64,
    pub histogram: Vec<(i64, u64)>,
    pub hist_overflow: u64,
    /// Histogram unit: pixels for masks and arrays, samples for tables and images.
    pub samples: bool,
    /// A PNG picture marking the bad pixels, when overlays were asked for.
    pub overlay: Option<Vec<u8>>,
    /// The findings are about the dataset as a whole (its folders), not about a file.
    pub dataset_level: bool,
}

impl FileResult {
    pub(crate) fn new(item: &Item, kind: FileKind) -> FileResult {
        FileResult {
            display: item.display.clone(),
            split: item.split.clone(),
            kind,
            shape: None,
            findings: Vec::new(),
            elements: 0,
            bad: 0,
            histogram: Vec::new(),
            hist_overflow: 0,
            samples: false,
            overlay: None,
            dataset_level: false,
        }
    }
}

/// Per-thread buffers, reused from file to file so that a scan allocates per thread, not per
/// file. Buffers that grew for a very large file are shrunk back afterwards.
#[derive(Default)]
pub struct Buffers {
    file: Vec<u8>,
    pixels: Vec<u8>,
    aux: Vec<u8>,
}

const KEEP_BYTES: usize = 64 << 20;

impl Buffers {
    fn trim(&mut self) {
        for b in [&mut self.file, &mut self.pixels, &mut self.aux] {
            if b.capacity() > KEEP_BYTES {
                b.clear();
                b.shrink_to(KEEP_BYTES);
            }
        }
    }
}

/// Settings derived once per scan.
pub struct Ctx<'a> {
    pub opts: &'a ScanOptions,
    /// Class name -> id, from `--classes` or the discovered ImageFolder classes.
    pub class_map: HashMap<String, i64>,
    pub palette: Option<crate::colours::ColourMap>,
}

impl<'a> Ctx<'a> {
    pub fn new(opts: &'a ScanOptions, class_names: &[String]) -> Ctx<'a> {
        let palette = opts
            .palette
            .as_ref()
            .map(|p| crate::colours::ColourMap::new(p, &opts.void_colours, opts.ignore_index));
        Ctx {
            opts,
            class_map: class_names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i as i64))
                .collect(),
            palette,
        }
    }

    fn max_file_bytes(&self) -> u64 {
        self.opts
            .max_pixels
            .saturating_mul(8)
            .saturating_add(1 << 20)
    }
}

/// Analyses one item.
pub fn analyze_item(item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    let mut r = match &item.task {
        Task::Problem(p) => {
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings.push(p.clone());
            r
        }
        Task::DatasetProblem(p) => {
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings.push(p.clone());
            r.dataset_level = true;
            r
        }
        Task::Mask {
            image,
            missing_image,
        } => {
            let mut r = mask_file(item, ctx, bufs);
            if let Some(expected) = missing_image {
                r.findings.push(
                    problem(
                        &LG608,
                        format!("mask without its image: {expected} does not exist"),
                    )
                    .hint("a Dataset that lists the masks raises FileNotFoundError for the image")
                    .fix("restore the image, or remove the mask"),
                );
            }
            if let (Some(image), Some(shape)) = (image, r.shape.clone()) {
                pair_check(&mut r, image, &shape);
            }
            r
        }
        Task::Array => {
            let mut r = FileResult::new(item, FileKind::Array);
            array_file(&mut r, item, ctx);
            r
        }
        Task::Table(format) => table_file(item, *format, ctx),
        Task::Image { class, .. } => image_sample(item, class, ctx),
        Task::ClassWeights => class_weights_file(item, ctx),
    };
    if item.non_utf8 {
        r.findings.push(
            problem(&LG614, "the file name is not valid UTF-8 (shown with U+FFFD)")
                .hint("Python sees it with surrogate escapes; writing it to JSON, CSV or a log raises UnicodeEncodeError")
                .fix("rename the file to UTF-8, e.g. convmv -f latin1 -t utf8 --notest"),
        );
    }
    bufs.trim();
    r
}

fn mask_file(item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Mask);
    if let Err(p) = read_file(&item.path, ctx.max_file_bytes(), &mut bufs.file) {
        r.findings.push(p);
        return r;
    }
    // An array saved under a mask's name (or scanned as a single file): read it as an array.
    let head = &bufs.file[..bufs.file.len().min(16)];
    if head.starts_with(b"\x93NUMPY")
        || head.starts_with(b"PK\x03\x04")
        || looks_like_safetensors(&bufs.file)
    {
        r.kind = FileKind::Array;
        array_file(&mut r, item, ctx);
        return r;
    }
    let mut pixels = std::mem::take(&mut bufs.pixels);
    match decode_mask(&bufs.file, ctx.opts.max_pixels, &mut pixels, &mut bufs.aux) {
        Ok(img) => {
            r.shape = Some(vec![img.height, img.width]);
            if img.format == "PNG" {
                if let Some(p) = png_end_problem(&bufs.file) {
                    r.findings.push(p);
                }
            }
            mask_pixels(&mut r, &img, &pixels, ctx, &mut bufs.aux);
        }
        Err(p) => r.findings.push(p),
    }
    bufs.pixels = pixels;
    r
}

fn looks_like_safetensors(b: &[u8]) -> bool {
    b.len() > 10 && {
        let n = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        n > 1 && n < (b.len() as u64) && b[8] == b'{'
    }
}

/// The channels of a decoded mask decide what its ids are.
fn mask_pixels(
    r: &mut FileResult,
    img: &MaskImage,
    pixels: &[u8],
    ctx: &Ctx<'_>,
    aux: &mut Vec<u8>,
) {
    let (h, w) = (img.height, img.width);
    match img.channels {
        1 => {
            let view =
                TensorView::new(img.dtype, &[h, w], pixels).expect("decoder sized the buffer");
            let palette = img.palette.as_deref().or(ctx.opts.palette.as_deref());
            class_check(r, &view, "mask", ctx, palette);
        }
        2 => {
            r.findings.push(
                Finding::new(&LG203, Verdict::Error, "a grey + alpha mask: loaded as an array it has shape [H, W, 2], an extra channel dimension")
                    .hint("the alpha channel of a mask saved from an image editor")
                    .fix("keep the first channel: np.array(Image.open(p))[..., 0], or re-save as 'L'"),
            );
            let view = channel_view(img, pixels, 0, aux);
            class_check(r, &view, "mask", ctx, ctx.opts.palette.as_deref());
        }
        _ => colour_mask(r, img, pixels, ctx, aux),
    }
}

/// One channel of an interleaved image, copied into `aux`.
fn channel_view<'a>(
    img: &MaskImage,
    pixels: &[u8],
    channel: usize,
    aux: &'a mut Vec<u8>,
) -> TensorView<'a> {
    let size = img.dtype.size();
    let stride = img.channels * size;
    aux.clear();
    aux.extend(
        pixels
            .chunks_exact(stride)
            .flat_map(|px| px[channel * size..(channel + 1) * size].iter().copied()),
    );
    TensorView::new(img.dtype, &[img.height, img.width], aux)
        .expect("one channel of the decoded image")
}

fn colour_mask(
    r: &mut FileResult,
    img: &MaskImage,
    pixels: &[u8],
    ctx: &Ctx<'_>,
    aux: &mut Vec<u8>,
) {
    let (h, w, ch) = (img.height, img.width, img.channels);
    let shape = format!("[{h}, {w}, {ch}]");
    let base = |msg: String| Finding::new(&LG606, Verdict::Error, msg);
    if img.dtype != DType::U8 || ch < 3 {
        r.findings.push(
            base(format!("a {ch}-channel {} mask ({shape}) where a single-channel class-index mask is expected", img.dtype))
                .fix("save masks as single-channel class-index PNGs"),
        );
        return;
    }
    let px = |i: usize| [pixels[i * ch], pixels[i * ch + 1], pixels[i * ch + 2]];
    let n = h * w;
    if (0..n).all(|i| {
        let p = px(i);
        p[0] == p[1] && p[1] == p[2]
    }) {
        r.findings.push(
            base(format!("a grey class-index mask saved with {ch} {} ({shape}): loaded as is, the target has an extra channel dimension", crate::repair::EQUAL_CHANNELS))
                .hint("cv2.imwrite of a 3-channel array, or Image.convert('RGB') before saving")
                .fix("keep one channel (np.array(Image.open(p))[..., 0]) or re-save the masks as 'L' PNGs"),
        );
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
        let mut top: Vec<([u8; 3], u64)> = colours.iter().map(|(c, n)| (*c, *n)).collect();
        top.sort_by_key(|c| std::cmp::Reverse(c.1));
        let mut f = base(format!(
            "an RGB colour mask ({shape}, {} distinct colours) where a class-index mask is expected",
            colours.len()
        ))
        .hint("colour-coded masks (Cityscapes *_color.png, VOC masks read with cv2.imread or .convert('RGB')) hold colours, not class ids; pass --palette FILE or a --preset to map them")
        .fix("use the index masks, or map colours to ids once with the palette and save single-channel PNGs");
        f.values = top
            .iter()
            .take(8)
            .map(|(c, n)| ValueCount {
                value: format!("({}, {}, {})", c[0], c[1], c[2]),
                count: *n,
            })
            .collect();
        r.findings.push(f);
        return;
    };
    // Map colours to ids; unknown colours become the ignore value so they are reported once.
    let ignore = ctx
        .opts
        .ignore_index
        .clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    // Ids as i32 little-endian bytes, 4 per pixel (a palette has far fewer than 2^31 entries).
    let mut ids: Vec<u8> = Vec::with_capacity(n * 4);
    let mut unknown = 0u64;
    let mut first: Vec<Location> = Vec::new();
    let mut unknown_colours: BTreeMap<[u8; 3], u64> = BTreeMap::new();
    let mut lookup = palette.lookup();
    for i in 0..n {
        let c = px(i);
        let id = lookup.id(c);
        match id {
            Some(id) => ids.extend_from_slice(&(id as i32).to_le_bytes()),
            None => {
                unknown += 1;
                if first.len() < MAX_LOCATIONS {
                    first.push(Location {
                        tensor: "mask".into(),
                        index: vec![i / w, i % w],
                        value: format!("({}, {}, {})", c[0], c[1], c[2]),
                    });
                }
                if unknown_colours.len() < 64 || unknown_colours.contains_key(&c) {
                    *unknown_colours.entry(c).or_insert(0) += 1;
                }
                ids.extend_from_slice(&ignore.to_le_bytes());
            }
        }
    }
    let mut f = base(if unknown == 0 {
        format!("an RGB colour mask ({shape}) where a class-index mask is expected; {}", crate::repair::EVERY_COLOUR_KNOWN)
    } else {
        format!(
            "an RGB colour mask ({shape}) where a class-index mask is expected; {unknown} of {n} pixels have colours that are not in the palette{}",
            first.first().map(|l| format!("; first: mask{} = {}", shape_str(&l.index), l.value)).unwrap_or_default()
        )
    })
    .hint(if unknown == 0 {
        "the colours map cleanly to class ids: convert once and save the ids".to_string()
    } else {
        "colours outside the palette come from anti-aliased or resized colour masks, JPEG compression, or another dataset's palette".to_string()
    })
    .fix("convert colours to ids with the palette (ids = lut[r, g, b]) and save single-channel PNGs; resize masks with nearest-neighbour only");
    if unknown > 0 {
        f.locations = first;
        f.count = Some(unknown);
        let mut v: Vec<ValueCount> = unknown_colours
            .iter()
            .map(|(c, n)| ValueCount {
                value: format!("({}, {}, {})", c[0], c[1], c[2]),
                count: *n,
            })
            .collect();
        v.sort_by_key(|c| std::cmp::Reverse(c.count));
        f.values = v;
        r.bad += unknown;
    }
    r.findings.push(f);
    let view = TensorView::new(DType::I32, &[h, w], &ids).expect("one id per pixel");
    class_check(r, &view, "mask", ctx, ctx.opts.palette.as_deref());
}

/// mmsegmentation's `reduce_zero_label`: 0 (and 255) become 255, every other id drops by one.
/// `i64::MIN` has no id below it and stays itself (still negative, still out of range) rather
/// than wrapping to `i64::MAX`.
fn reduce_zero(v: i64) -> i64 {
    if v == 0 || v == 255 {
        255
    } else {
        v.saturating_sub(1)
    }
}

/// The class-id check of a 2-D mask or an id array of any rank: histogram, then the core's
/// class-id analysis when the histogram holds a bad id, then the resize-artefact check.
fn class_check(
    r: &mut FileResult,
    view: &TensorView<'_>,
    name: &str,
    ctx: &Ctx<'_>,
    palette: Option<&[[u8; 3]]>,
) {
    let opts = ctx.opts;
    let (mut histogram, overflow, runs) = histogram_with_runs(view);
    let reduced_bytes;
    let effective: TensorView<'_>;
    if opts.reduce_zero_label {
        let mut map: BTreeMap<i64, u64> = BTreeMap::new();
        for (v, c) in &histogram {
            *map.entry(reduce_zero(*v)).or_insert(0) += c;
        }
        histogram = map.into_iter().collect();
        reduced_bytes = reduce_view(view);
        effective = reduced_bytes.view();
    } else {
        effective = view.clone();
    }
    let ignore = opts.ignore_index;
    r.elements += view.numel() as u64;
    r.hist_overflow += overflow;
    merge_hist(&mut r.histogram, &histogram);
    let mut bad_values: Vec<i64> = Vec::new();
    if let Some(c) = opts.num_classes {
        let c = c as i64;
        bad_values = histogram
            .iter()
            .filter(|(v, _)| (*v < 0 || *v >= c) && *v != ignore)
            .map(|(v, _)| *v)
            .collect();
        if !bad_values.is_empty() || overflow > 0 {
            let mut found = class_ids(&effective, name, c, ignore, Verdict::DeviceAssert);
            if opts.reduce_zero_label {
                for f in &mut found {
                    f.message
                        .push_str(" (after reduce_zero_label: 0 -> 255, v -> v-1)");
                }
            }
            r.bad += histogram
                .iter()
                .filter(|(v, _)| (*v < 0 || *v >= c) && *v != ignore)
                .map(|(_, n)| n)
                .sum::<u64>();
            r.findings.extend(found);
        }
    }
    // The 2-D artefact check runs when the run pass saw its signature (u8 masks), or always
    // for other dtypes, which have no run pass.
    let triggered = match &runs {
        Some(st) => {
            let effective_id = |raw: usize| {
                if opts.reduce_zero_label {
                    reduce_zero(raw as i64)
                } else {
                    raw as i64
                }
            };
            let counts: HashMap<i64, u64> = histogram.iter().copied().collect();
            let total: u64 = counts.values().sum();
            let rare_limit = (total / 200).max(16);
            (0..256)
                .filter(|&raw| {
                    let n = counts.get(&effective_id(raw)).copied().unwrap_or(0);
                    st.between[raw] > 0 && n <= rare_limit && st.between[raw] as u64 * 4 >= n
                })
                .count()
                >= 2
        }
        None => true,
    };
    let artefacts = if effective.dim() >= 2 && triggered {
        resize_artefacts(&effective, name, &histogram, ctx)
    } else {
        None
    };
    let mut artefact_values: Vec<i64> = artefacts
        .as_ref()
        .map(|f| {
            f.values
                .iter()
                .filter_map(|v| v.value.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    artefact_values.sort_unstable();
    if let Some(f) = artefacts {
        // The out-of-range ids are the resize's blends: the fix is the resize's, not a wider head.
        for x in r.findings.iter_mut().filter(|x| x.code == LG101.code) {
            x.fix = format!(
                "these ids are resize artefacts (LG605), not classes: {}",
                f.fix
            );
        }
        r.findings.push(f);
    }
    if opts.overlays
        && (!bad_values.is_empty() || !artefact_values.is_empty())
        && effective.dim() == 2
    {
        r.overlay = Some(overlay(
            &effective,
            &bad_values,
            &artefact_values,
            ignore,
            palette,
        ));
    }
}

/// An owned copy of a view with `reduce_zero` applied (only built when the option is on).
fn reduce_view(view: &TensorView<'_>) -> labelguard_core::Tensor {
    let dtype = view.dtype();
    let shape = view.shape().to_vec();
    let bytes: Vec<u8> = match dtype {
        DType::U8 => view
            .offsets()
            .map(|o| reduce_zero(view.read_i64(o)) as u8)
            .collect(),
        _ => view
            .offsets()
            .flat_map(|o| reduce_zero(view.read_i64(o)).to_le_bytes())
            .collect(),
    };
    let dtype = if dtype == DType::U8 {
        DType::U8
    } else {
        DType::I64
    };
    labelguard_core::Tensor::from_vec(dtype, shape, bytes).expect("same element count")
}

fn merge_hist(into: &mut Vec<(i64, u64)>, add: &[(i64, u64)]) {
    if into.is_empty() {
        into.extend_from_slice(add);
        return;
    }
    let mut m: BTreeMap<i64, u64> = into.iter().copied().collect();
    for (v, c) in add {
        *m.entry(*v).or_insert(0) += c;
    }
    *into = m.into_iter().collect();
}

/// The histogram of an integer view, with the fastest kernel for its dtype: for u8 masks
/// the run pass, which also yields the resize-artefact trigger.
pub fn histogram_with_runs(view: &TensorView<'_>) -> (Vec<(i64, u64)>, u64, Option<RunStats>) {
    if view.is_contiguous() {
        match view.dtype() {
            DType::U8 => {
                let mut bins = [0u64; 256];
                let mut runs = RunStats::default();
                hist_u8_runs(view.bytes(), &mut bins, &mut runs);
                return (sparse_u8(&bins), 0, Some(runs));
            }
            DType::U16 => {
                let data: Vec<u16> = view
                    .bytes()
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
                    .collect();
                return (hist_u16(&data), 0, None);
            }
            _ => {}
        }
    }
    let (h, overflow) = hist_values(view.offsets().map(|o| view.read_i64(o)));
    (h, overflow, None)
}

/// LG605: ids that live in one-pixel bands between two other classes, with a value between
/// theirs. Runs only when the histogram has rare ids (every interpolation artefact is rare).
fn resize_artefacts(
    view: &TensorView<'_>,
    name: &str,
    histogram: &[(i64, u64)],
    ctx: &Ctx<'_>,
) -> Option<Finding> {
    let ignore = ctx.opts.ignore_index;
    let total: u64 = histogram.iter().map(|(_, c)| c).sum();
    if histogram.len() < 3 || total < 64 {
        return None;
    }
    let rare_limit = (total / 200).max(16);
    let candidates: Vec<i64> = histogram
        .iter()
        .filter(|(v, c)| *c <= rare_limit && *v != ignore)
        .map(|(v, _)| *v)
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let shape = view.shape();
    let (h, w) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let frames = view.numel() / (h * w).max(1);
    // Values as i64 rows: masks are u8 almost always; other dtypes are widened once.
    let u8_data = (view.dtype() == DType::U8 && view.is_contiguous()).then(|| view.bytes());
    if u8_data.is_none() && view.numel() > WIDEN_LIMIT {
        return None;
    }
    let widened: Vec<i64> = if u8_data.is_some() {
        Vec::new()
    } else {
        view.offsets().map(|o| view.read_i64(o)).collect()
    };
    let get = |i: usize| -> i64 {
        match u8_data {
            Some(b) => b[i] as i64,
            None => widened[i],
        }
    };
    if h < 8 || w < 8 {
        return None;
    }
    // Only region-like masks: in a mask most pixels equal their left neighbour. Token ids,
    // random labels and noise are not masks, and their "bands" mean nothing.
    let (mut same, mut pairs) = (0usize, 0usize);
    for y in (0..h * frames).step_by(8) {
        for x in 1..w {
            same += (get(y * w + x) == get(y * w + x - 1)) as usize;
            pairs += 1;
        }
    }
    if same * 10 < pairs * 8 {
        return None;
    }
    let is_candidate: HashMap<i64, ()> = candidates.iter().map(|&v| (v, ())).collect();
    let mut thin: BTreeMap<i64, u64> = BTreeMap::new();
    let mut first: Vec<(Vec<usize>, i64)> = Vec::new();
    let between = |a: i64, v: i64, b: i64| (a < v && v < b) || (b < v && v < a);
    for f in 0..frames {
        let base = f * h * w;
        for y in 0..h {
            let row = base + y * w;
            let mut x = 0;
            while x < w {
                // Skip 32-pixel blocks that equal their left neighbour and the rows above and
                // below: no pixel in them can be a band between two classes.
                if let Some(b) = u8_data {
                    if x > 0 && x + 32 <= w && y > 0 && y + 1 < h {
                        let cur = &b[row + x..row + x + 32];
                        let v = b[row + x - 1];
                        let up = &b[row - w + x..row - w + x + 32];
                        let dn = &b[row + w + x..row + w + x + 32];
                        let diff = cur
                            .iter()
                            .zip(up)
                            .zip(dn)
                            .fold(0u8, |acc, ((&c, &u), &d)| acc | (c ^ v) | (u ^ v) | (d ^ v));
                        if diff == 0 {
                            x += 32;
                            continue;
                        }
                    }
                }
                let v = get(row + x);
                if is_candidate.contains_key(&v) {
                    let horizontal =
                        x > 0 && x + 1 < w && between(get(row + x - 1), v, get(row + x + 1));
                    let vertical =
                        y > 0 && y + 1 < h && between(get(row + x - w), v, get(row + x + w));
                    if horizontal || vertical {
                        *thin.entry(v).or_insert(0) += 1;
                        if first.len() < MAX_LOCATIONS {
                            let mut index = if frames > 1 { vec![f] } else { Vec::new() };
                            index.extend([y, x]);
                            first.push((index, v));
                        }
                    }
                }
                x += 1;
            }
        }
    }
    let counts: HashMap<i64, u64> = histogram.iter().copied().collect();
    let artefacts: Vec<(i64, u64)> = thin
        .iter()
        .filter(|(v, n)| **n * 2 >= counts[v])
        .map(|(v, n)| (*v, *n))
        .collect();
    if artefacts.len() < 2 {
        return None;
    }
    let pixels: u64 = artefacts.iter().map(|(_, n)| n).sum();
    let ids: Vec<String> = artefacts.iter().map(|(v, _)| v.to_string()).collect();
    let first: Vec<&(Vec<usize>, i64)> = first
        .iter()
        .filter(|(_, v)| artefacts.iter().any(|(a, _)| a == v))
        .collect();
    let mut f = Finding::new(
        &LG605,
        Verdict::Silent,
        format!(
            "{} ids ({}) occur mostly in one-pixel bands between two other classes, with values between theirs ({pixels} pixels){}",
            artefacts.len(),
            ids.join(", "),
            first.first().map(|(i, v)| format!("; first: {name}{} = {v}", shape_str(i))).unwrap_or_default()
        ),
    )
    .hint("the mask was resized with bilinear or bicubic interpolation, which blends class ids at every border")
    .fix("resize masks with nearest-neighbour interpolation (Image.NEAREST, InterpolationMode.NEAREST, cv2.INTER_NEAREST) and regenerate them from the originals");
    f.locations = first
        .iter()
        .map(|(i, v)| Location {
            tensor: name.to_string(),
            index: i.clone(),
            value: v.to_string(),
        })
        .collect();
    f.count = Some(pixels);
    f.values = artefacts
        .iter()
        .map(|(v, n)| ValueCount {
            value: v.to_string(),
            count: *n,
        })
        .collect();
    f.values.sort_by_key(|c| std::cmp::Reverse(c.count));
    Some(f)
}

/// A small picture of the mask: classes in their palette colours (dimmed), out-of-range
/// pixels red, resize artefacts yellow. Each output pixel covers a block of the mask and
/// shows a mark if any pixel of the block has one, so single bad pixels stay visible.
fn overlay(
    view: &TensorView<'_>,
    bad: &[i64],
    artefacts: &[i64],
    ignore: i64,
    palette: Option<&[[u8; 3]]>,
) -> Vec<u8> {
    let (h, w) = (view.shape()[0], view.shape()[1]);
    let scale = h.max(w).div_ceil(384).max(1);
    let (oh, ow) = (h.div_ceil(scale), w.div_ceil(scale));
    let mut rgb = vec![0u8; oh * ow * 3];
    let mut mark = vec![0u8; oh * ow];
    // Row-major order: the i-th offset is pixel (i / w, i % w). `bad` and `artefacts` come
    // sorted from the histogram.
    for (i, offset) in view.offsets().enumerate() {
        let (y, x) = (i / w, i % w);
        {
            let v = view.read_i64(offset);
            let o = (y / scale) * ow + x / scale;
            let m = if bad.binary_search(&v).is_ok() {
                2
            } else if artefacts.binary_search(&v).is_ok() {
                1
            } else {
                0
            };
            if m > mark[o] {
                mark[o] = m;
            }
            if y % scale == 0 && x % scale == 0 {
                let c = if v == ignore {
                    [40, 40, 40]
                } else {
                    palette
                        .and_then(|p| usize::try_from(v).ok().and_then(|i| p.get(i)).copied())
                        .unwrap_or_else(|| {
                            let g = (v.rem_euclid(19) * 12 + 30) as u8;
                            [g, g, g]
                        })
                };
                rgb[o * 3..o * 3 + 3].copy_from_slice(&[
                    c[0] / 2 + 20,
                    c[1] / 2 + 20,
                    c[2] / 2 + 20,
                ]);
            }
        }
    }
    for (i, m) in mark.iter().enumerate() {
        match m {
            2 => rgb[i * 3..i * 3 + 3].copy_from_slice(&[255, 0, 0]),
            1 => rgb[i * 3..i * 3 + 3].copy_from_slice(&[255, 220, 0]),
            _ => {}
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, ow as u32, oh as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        if let Ok(mut wr) = enc.write_header() {
            let _ = wr.write_image_data(&rgb);
        }
    }
    out
}

fn pair_check(r: &mut FileResult, image: &std::path::Path, mask_shape: &[usize]) {
    match image_header(image) {
        Ok(hdr) => {
            let (mh, mw) = (mask_shape[0] as u64, mask_shape[1] as u64);
            if (hdr.width, hdr.height) != (mw, mh) {
                let (sx, sy) = (
                    hdr.width as f64 / mw.max(1) as f64,
                    hdr.height as f64 / mh.max(1) as f64,
                );
                let hint = if (sx - sy).abs() < 0.01 {
                    format!("the image is {sx:.2}x the mask's size: one of them was resized and the other not")
                } else if (hdr.width, hdr.height) == (mh, mw) {
                    "width and height are swapped: an EXIF rotation applied to the image but not to the mask?".into()
                } else {
                    "the mask belongs to another image, or was cropped differently".into()
                };
                r.findings.push(
                    Finding::new(
                        &LG607,
                        Verdict::Error,
                        format!(
                            "the mask is {mw}x{mh} but its image {} is {}x{}",
                            image.display(),
                            hdr.width,
                            hdr.height
                        ),
                    )
                    .hint(hint)
                    .fix("regenerate the mask at the image's size with nearest-neighbour resizing, or pair it with the right image"),
                );
            }
        }
        Err(p) => {
            let mut f = p;
            f.message = format!("paired image {}: {}", image.display(), f.message);
            r.findings.push(f);
        }
    }
}

/// Largest array (elements) that is copied to a wider type for an optional pass (float ids,
/// the artefact check of non-u8 masks): 2^24 elements, 128 MiB as i64.
const WIDEN_LIMIT: usize = 1 << 24;

/// Tensor names that hold labels, when a file holds several tensors.
const LABEL_NAMES: &[&str] = &[
    "mask",
    "masks",
    "label",
    "labels",
    "target",
    "targets",
    "y",
    "seg",
    "segmentation",
    "gt",
    "annotation",
    "annotations",
    "semantic",
];

fn array_file(r: &mut FileResult, item: &Item, ctx: &Ctx<'_>) {
    let limits = labelguard_io::Limits {
        max_tensor_bytes: ctx.opts.max_pixels.saturating_mul(8),
        max_tensors: 4096,
    };
    let tensors = match labelguard_io::read_tensors(&item.path, &limits) {
        Ok(t) => t,
        Err(e) => {
            r.findings.push(io_read_problem(e));
            return;
        }
    };
    if tensors.is_empty() {
        r.findings
            .push(problem(&LG603, "holds no arrays").fix("regenerate the file"));
        return;
    }
    let labelled: Vec<&labelguard_io::NamedTensor> = tensors
        .iter()
        .filter(|t| LABEL_NAMES.contains(&t.name.to_ascii_lowercase().as_str()))
        .collect();
    let chosen: Vec<&labelguard_io::NamedTensor> = if tensors.len() > 1 && !labelled.is_empty() {
        labelled
    } else {
        tensors.iter().collect()
    };
    for t in chosen {
        let view = t.tensor.view();
        if r.shape.is_none() {
            r.shape = Some(view.shape().to_vec());
        }
        array_tensor(r, &view, &t.name, ctx);
    }
}

fn io_read_problem(e: labelguard_io::ReadError) -> Finding {
    use labelguard_io::ReadError as E;
    match e {
        E::Io { error, .. } => crate::walk::io_problem("cannot read", &error),
        E::UnknownFormat { .. } => problem(
            &LG602,
            "not a .npy, .npz or .safetensors file (wrong magic bytes)",
        )
        .fix("replace it with the real array, or exclude it"),
        E::TooLarge { message, .. } => problem(&LG604, format!("{message}; not read"))
            .fix("raise --max-pixels if this is a real label array"),
        E::Malformed { message, .. } => {
            if message.contains("empty") {
                empty_file()
            } else {
                problem(&LG602, format!("corrupt array file: {message}")).fix("regenerate the file")
            }
        }
    }
}

fn array_tensor(r: &mut FileResult, view: &TensorView<'_>, name: &str, ctx: &Ctx<'_>) {
    let shape = view.shape().to_vec();
    let numel = view.numel() as u64;
    if numel == 0 {
        r.findings.push(
            problem(
                &LG603,
                format!("{name} has shape {} and no elements", shape_str(&shape)),
            )
            .fix("regenerate the file"),
        );
        return;
    }
    if numel > ctx.opts.max_pixels {
        r.findings.push(
            problem(
                &LG604,
                format!(
                    "{name} has {numel} elements, more than the limit of {}; not read",
                    ctx.opts.max_pixels
                ),
            )
            .fix("raise --max-pixels if this is a real label array"),
        );
        return;
    }
    let c = ctx.opts.num_classes.map(|c| c as usize);
    let dtype = view.dtype();
    if dtype.is_floating() || dtype == DType::Bool {
        let mut f = Finding::new(
            &LG201,
            Verdict::Error,
            format!("{name} is {dtype}: class-index targets must be integers (cross_entropy raises 'expected scalar type Long')"),
        )
        .fix(format!("store integer ids: {name}.astype(np.int64) after checking that the values are whole, or rebuild them from the masks"));
        if dtype != DType::Bool {
            f = f.maybe_hint(float_ids_hint(view));
        }
        r.findings.push(f);
        // Whole-number floats still describe classes: count them so the histogram is right
        // (for arrays up to WIDEN_LIMIT elements, so that the copy stays small).
        let whole = |v: f64| v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15;
        if view.numel() <= WIDEN_LIMIT && view.offsets().all(|o| whole(view.read_f64(o))) {
            let bytes: Vec<u8> = view
                .offsets()
                .flat_map(|o| (view.read_f64(o) as i64).to_le_bytes())
                .collect();
            let ids = TensorView::new(DType::I64, &shape, &bytes).expect("same element count");
            shaped_ids(r, &ids, name, ctx, c);
        }
        return;
    }
    shaped_ids(r, view, name, ctx, c);
}

/// The shape rules of a class-index target, then the class check on the squeezed ids.
fn shaped_ids(
    r: &mut FileResult,
    view: &TensorView<'_>,
    name: &str,
    ctx: &Ctx<'_>,
    c: Option<usize>,
) {
    let shape = view.shape().to_vec();
    let rank = shape.len();
    let squeeze = |r: &mut FileResult, dim: usize, fix: &str| {
        r.findings.push(
            Finding::new(
                &LG203,
                Verdict::Error,
                format!("{name} has shape {} with a size-1 dimension {dim}: a class-index target has none", shape_str(&shape)),
            )
            .hint("masks read as single-channel images, or labels read as a one-column table, keep this dimension")
            .fix(fix.to_string()),
        );
    };
    let one_hot = |r: &mut FileResult, dim: usize| {
        r.findings.push(
            Finding::new(
                &LG202,
                Verdict::Error,
                format!("{name} has shape {} and holds only 0 and 1 along dimension {dim} ({} classes): a one-hot target where class indices are expected", shape_str(&shape), shape[dim]),
            )
            .fix(format!("take the index: {name}.argmax({dim}); or train on the one-hot form as probabilities with a float target")),
        );
    };
    let binary = || is_binary(view);
    if rank == 0 || rank >= 5 {
        r.findings.push(
            Finding::new(
                &LG210,
                Verdict::Error,
                format!(
                    "{name} has shape {}: a class-index target is [N], [H, W] or [N, H, W]",
                    shape_str(&shape)
                ),
            )
            .fix("reshape or split the array"),
        );
        return;
    }
    let mut removed: Option<usize> = None;
    match rank {
        2 if shape[1] == 1 && shape[0] > 1 => {
            squeeze(r, 1, &format!("{name}.squeeze(1)"));
            removed = Some(1);
        }
        3 | 4 if shape[rank - 1] == 1 => {
            squeeze(r, rank - 1, &format!("{name}.squeeze(-1)"));
            removed = Some(rank - 1);
        }
        4 if shape[1] == 1 => {
            squeeze(r, 1, &format!("{name}.squeeze(1)"));
            removed = Some(1);
        }
        3 | 4 => {
            let last = shape[rank - 1];
            let chan_first = if rank == 4 { shape[1] } else { shape[0] };
            let is_c = |n: usize| c == Some(n) || (c.is_none() && n > 1);
            if is_c(last) && last <= 1024 && binary() {
                one_hot(r, rank - 1);
                return;
            }
            if rank == 4 && is_c(chan_first) && binary() {
                one_hot(r, 1);
                return;
            }
            if rank == 3 && c == Some(chan_first) && binary() {
                one_hot(r, 0);
                return;
            }
            if (last == 3 || last == 4) && shape[rank - 2] >= 8 {
                r.findings.push(
                    Finding::new(
                        &LG606,
                        Verdict::Error,
                        format!("{name} has shape {} with {last} channels last: an RGB colour mask where class ids are expected", shape_str(&shape)),
                    )
                    .hint("an image-like array (H, W, 3) of colours; class ids need one value per pixel")
                    .fix("map colours to ids with the palette, or save the index mask instead"),
                );
                return;
            }
            if rank == 4 {
                r.findings.push(
                    Finding::new(&LG210, Verdict::Error, format!("{name} has shape {}: a 4-D class-index target is not supported by cross_entropy", shape_str(&shape)))
                        .fix("reshape to [N, H, W]"),
                );
                return;
            }
        }
        _ => {}
    }
    let squeezed;
    let ids = match removed {
        Some(d) => {
            let mut dims = shape.clone();
            dims.remove(d);
            let mut strides = view.strides().to_vec();
            strides.remove(d);
            squeezed = TensorView::with_strides(view.dtype(), &dims, &strides, view.bytes())
                .expect("same storage");
            &squeezed
        }
        None => view,
    };
    class_check(r, ids, name, ctx, ctx.opts.palette.as_deref());
}

fn table_file(item: &Item, format: crate::read::table::TableFormat, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Table);
    r.samples = true;
    let opts = ctx.opts;
    let map = (!ctx.class_map.is_empty()).then_some(&ctx.class_map);
    let col = match read_labels(
        &item.path,
        format,
        opts.label_column.as_deref(),
        map,
        opts.ignore_index,
        opts.max_rows,
    ) {
        Ok(c) => c,
        Err(TableError::MissingColumn { wanted, available }) => {
            r.findings.push(
                problem(
                    &LG613,
                    format!(
                        "no column '{wanted}'; the table has: {}",
                        available.join(", ")
                    ),
                )
                .fix(format!(
                    "pass --label-column with one of: {}",
                    available.join(", ")
                )),
            );
            return r;
        }
        Err(TableError::Problem(p)) => {
            r.findings.push(p);
            return r;
        }
    };
    table_findings(&mut r, &col, ctx);
    r
}

fn table_findings(r: &mut FileResult, col: &LabelColumn, ctx: &Ctx<'_>) {
    let name = col.column.as_str();
    r.shape = Some(vec![col.ids.len()]);
    if col.ids.is_empty() {
        r.findings.push(
            problem(&LG603, format!("column '{name}' has no rows")).fix("regenerate the table"),
        );
        return;
    }
    if let Some(n) = col.truncated_at {
        r.findings.push(
            Finding::new(
                &LG604,
                Verdict::Ok,
                format!("more than {n} rows: only the first {n} were checked"),
            )
            .severity(Severity::Warning)
            .fix("raise --max-rows to check the whole table"),
        );
    }
    if col.unknown > 0 {
        let have_classes = !ctx.class_map.is_empty();
        let first = &col.unknown_first[0];
        let shown = |t: &str| {
            if t.is_empty() {
                "(empty)".to_string()
            } else {
                format!("'{t}'")
            }
        };
        let mut f = Finding::new(
            &LG612,
            Verdict::Error,
            format!(
                "{} of {} labels in '{name}' are not class ids{}; first: {name}[{}] = {}",
                col.unknown,
                col.ids.len(),
                if have_classes { " or class names from the classes file" } else { "" },
                first.row,
                shown(&first.text)
            ),
        )
        .hint(if have_classes {
            "names missing from the classes file (a typo, a new class, different capitalisation) or empty cells"
        } else {
            "text labels need a name -> id table: pass --classes FILE (one class name per line)"
        })
        .fix("correct or drop these rows, or add the names to the classes file and the model head");
        f.locations = col
            .unknown_first
            .iter()
            .map(|b| Location {
                tensor: name.to_string(),
                index: vec![b.row],
                value: shown(&b.text),
            })
            .collect();
        f.count = Some(col.unknown);
        f.values = col
            .unknown_values
            .iter()
            .map(|(v, n)| ValueCount {
                value: shown(v),
                count: *n,
            })
            .collect();
        r.bad += col.unknown;
        r.findings.push(f);
    }
    if col.floats > 0 {
        let first = &col.float_first[0];
        let mut f = Finding::new(
            &LG201,
            Verdict::Error,
            format!("{} in '{name}' {} floating-point numbers ({} with a fraction); first: {name}[{}] = {}", labelguard_core::finding::count(col.floats, "label"), labelguard_core::finding::is_are(col.floats), col.fractional, first.row, first.text),
        )
        .hint(if col.fractional == 0 {
            "whole numbers written as floats: pandas turns an integer column with a missing value into float64"
        } else {
            "fractional labels are not class ids: regression targets or probabilities?"
        })
        .fix(format!("fill or drop missing rows and store integers: df['{name}'] = df['{name}'].astype('int64')"));
        f.locations = col
            .float_first
            .iter()
            .map(|b| Location {
                tensor: name.to_string(),
                index: vec![b.row],
                value: b.text.clone(),
            })
            .collect();
        f.count = Some(col.floats);
        r.findings.push(f);
    }
    let bytes: Vec<u8> = col.ids.iter().flat_map(|v| v.to_le_bytes()).collect();
    let view = TensorView::new(DType::I64, &[col.ids.len()], &bytes).expect("one id per row");
    class_check(r, &view, name, ctx, None);
    // Rows that were not ids carry the ignore value: they are counted as unknown, not as classes.
    r.histogram
        .retain(|(v, _)| *v != ctx.opts.ignore_index || col.unknown + col.fractional == 0);
}

fn image_sample(item: &Item, class: &str, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Image);
    r.samples = true;
    match image_header(&item.path) {
        Ok(h) => {
            if let Err(p) = check_pixels(h.format, h.width, h.height, 1, ctx.opts.max_pixels) {
                r.findings.push(p);
                return r;
            }
            r.shape = Some(vec![h.height as usize, h.width as usize]);
            let id = ctx.class_map.get(class).copied().unwrap_or(-1);
            r.histogram = vec![(id, 1)];
            r.elements = 1;
        }
        Err(p) => r.findings.push(p),
    }
    r
}

/// Numbers from a weights file: JSON or Python list (`[1.0, nan, ...]`), whitespace or comma
/// separated text, or a 1-D `.npy`.
pub fn read_weights(path: &std::path::Path) -> Result<Vec<f64>, Finding> {
    let mut buf = Vec::new();
    read_file(path, 64 << 20, &mut buf)?;
    if buf.starts_with(b"\x93NUMPY") || buf.starts_with(b"PK\x03\x04") {
        let t = labelguard_io::read_tensors(path, &labelguard_io::Limits::default())
            .map_err(io_read_problem)?;
        let first = t
            .first()
            .ok_or_else(|| problem(&LG603, "holds no arrays"))?;
        return Ok(first.tensor.view().to_f64_vec());
    }
    if buf.starts_with(PNG_MAGIC) {
        return Err(problem(&LG602, "is an image, not a list of class weights"));
    }
    let text = String::from_utf8_lossy(&buf);
    let body = match (text.find('['), text.rfind(']')) {
        (Some(a), Some(b)) if a < b => &text[a + 1..b],
        _ => &text[..],
    };
    let mut out = Vec::new();
    for tok in body
        .split(|c: char| c == ',' || c.is_whitespace() || c == '[' || c == ']')
        .filter(|t| !t.is_empty())
    {
        let t = tok.trim_matches(|c| c == '"' || c == '\'');
        let v = match t.to_ascii_lowercase().as_str() {
            "nan" | "float('nan')" | "null" | "none" => f64::NAN,
            "inf" | "infinity" => f64::INFINITY,
            "-inf" | "-infinity" => f64::NEG_INFINITY,
            _ => t.parse::<f64>().map_err(|_| {
                problem(&LG602, format!("'{t}' is not a number: a class-weight file is a list of numbers (JSON, a Python list, text or .npy)"))
            })?,
        };
        out.push(v);
    }
    if out.is_empty() {
        return Err(problem(&LG603, "holds no weights"));
    }
    Ok(out)
}

fn class_weights_file(item: &Item, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::ClassWeights);
    let weights = match read_weights(&item.path) {
        Ok(w) => w,
        Err(p) => {
            r.findings.push(p);
            return r;
        }
    };
    r.shape = Some(vec![weights.len()]);
    let bytes: Vec<u8> = weights.iter().flat_map(|v| v.to_le_bytes()).collect();
    let view = TensorView::new(DType::F64, &[weights.len()], &bytes).expect("one value per weight");
    if let Some(c) = ctx.opts.num_classes {
        let (n, c) = (weights.len(), c as usize);
        if n != c {
            let hint = if n == c + 1 {
                "one entry too many: a weight for the background or the void label (255) was included".to_string()
            } else if n == 256 {
                "256 entries: weights computed over every u8 value, void included".to_string()
            } else if n + 1 == c {
                "one entry too few: the background class (0) or the last class was left out"
                    .to_string()
            } else {
                format!("computed for a {n}-class label set")
            };
            r.findings.push(
                Finding::new(
                    &LG301,
                    Verdict::Error,
                    format!("the class-weight file has {n} entries but there are {c} classes: weight tensor should be defined either for all {c} classes or no classes"),
                )
                .hint(hint)
                .fix(format!("compute one weight per class 0..{}, leaving out the ignore value (the scan's suggestion: --write-weights FILE)", c - 1)),
            );
        }
    }
    if let Some(f) = labelguard_core::ops::common::weight_values(&view, "weight") {
        r.findings.push(f);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx_opts(c: u32, ignore: i64) -> ScanOptions {
        ScanOptions {
            num_classes: Some(c),
            ignore_index: ignore,
            ..ScanOptions::default()
        }
    }

    fn result() -> FileResult {
        FileResult {
            display: "m.png".into(),
            split: "train".into(),
            kind: FileKind::Mask,
            shape: None,
            findings: vec![],
            elements: 0,
            bad: 0,
            histogram: vec![],
            hist_overflow: 0,
            samples: false,
            overlay: None,
            dataset_level: false,
        }
    }

    #[test]
    fn clean_masks_only_histogram_and_bad_ones_get_core_findings() {
        let opts = ctx_opts(19, 255);
        let ctx = Ctx::new(&opts, &[]);
        let mut data = vec![3u8; 64 * 64];
        data[10] = 255;
        let view = TensorView::new(DType::U8, &[64, 64], &data).unwrap();
        let mut r = result();
        class_check(&mut r, &view, "mask", &ctx, None);
        assert!(r.findings.is_empty());
        assert_eq!(r.histogram, vec![(3, 4095), (255, 1)]);
        data[64 * 5 + 7] = 26;
        let view = TensorView::new(DType::U8, &[64, 64], &data).unwrap();
        let mut r = result();
        class_check(&mut r, &view, "mask", &ctx, None);
        assert_eq!(r.findings.len(), 1);
        assert_eq!(r.findings[0].code, "LG105");
        assert_eq!(r.findings[0].locations[0].index, vec![5, 7]);
        assert_eq!(r.bad, 1);
    }

    #[test]
    fn reduce_zero_label_remaps_before_checking() {
        let opts = ScanOptions {
            reduce_zero_label: true,
            ..ctx_opts(150, 255)
        };
        let ctx = Ctx::new(&opts, &[]);
        let data: Vec<u8> = (0..=150).cycle().take(151 * 4).collect();
        let view = TensorView::new(DType::U8, &[4, 151], &data).unwrap();
        let mut r = result();
        class_check(&mut r, &view, "mask", &ctx, None);
        assert!(
            r.findings
                .iter()
                .all(|f| f.code != "LG101" && f.code != "LG106"),
            "{:?}",
            r.findings
        );
        let opts = ctx_opts(150, 255);
        let ctx = Ctx::new(&opts, &[]);
        let mut r = result();
        class_check(&mut r, &view, "mask", &ctx, None);
        assert_eq!(r.findings[0].code, "LG106");
    }

    /// A 3-class mask (ids 0, 10, 20 in vertical stripes) downscaled with a linear filter: the
    /// borders get the blended ids in between.
    #[test]
    fn bilinear_borders_are_resize_artefacts() {
        let (h, w) = (40usize, 400usize);
        let mut data = vec![0u8; h * w];
        for y in 0..h {
            for x in 0..w {
                data[y * w + x] = match x {
                    0..=129 => 0,
                    130 => 5,
                    131..=269 => 10,
                    270 => 15,
                    _ => 20,
                };
            }
        }
        let opts = ctx_opts(21, 255);
        let ctx = Ctx::new(&opts, &[]);
        let view = TensorView::new(DType::U8, &[h, w], &data).unwrap();
        let mut r = result();
        class_check(&mut r, &view, "mask", &ctx, None);
        let f = r
            .findings
            .iter()
            .find(|f| f.code == "LG605")
            .expect("LG605");
        assert_eq!(f.count, Some(80));
        assert_eq!(f.locations[0].index, vec![0, 130]);
        // The same mask resized with nearest-neighbour has no bands: nothing to report.
        let clean: Vec<u8> = data
            .iter()
            .map(|&v| {
                if v == 5 {
                    0
                } else if v == 15 {
                    10
                } else {
                    v
                }
            })
            .collect();
        let view = TensorView::new(DType::U8, &[h, w], &clean).unwrap();
        let mut r = result();
        class_check(&mut r, &view, "mask", &ctx, None);
        assert!(r.findings.is_empty());
    }

    #[test]
    fn weights_files_parse_in_every_common_form() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.json");
        std::fs::write(&p, "[1.0, 2.5, NaN, -1]").unwrap();
        let w = read_weights(&p).unwrap();
        assert_eq!(w.len(), 4);
        assert!(w[2].is_nan());
        std::fs::write(&p, "weights = torch.tensor([0.5, 1, inf])\n").unwrap();
        assert_eq!(read_weights(&p).unwrap()[2], f64::INFINITY);
        std::fs::write(&p, "1 2\n3\n").unwrap();
        assert_eq!(read_weights(&p).unwrap(), vec![1.0, 2.0, 3.0]);
        std::fs::write(&p, "[1, two]").unwrap();
        assert_eq!(read_weights(&p).unwrap_err().code, "LG602");
    }
}
