//! LG607 mask-image-size-mismatch: a mask whose size differs from its image's. The analysis
//! reads the image's header ([`labelguard_formats::read::header`]) and hands its size over; the finding is
//! decided and built here.
//! Documentation: `labelguard_core::rules::lg607_mask_image_size_mismatch`.

use labelguard_core::rules::LG607;
use labelguard_core::{Finding, Verdict};

/// The finding when the mask (`mask_shape`, `[H, W]`) and its `image` (`image_size`: width and
/// height from its header, or the finding that says why the header cannot be read) differ in
/// size, or when the image's header cannot be read.
pub fn check(
    image: &str,
    image_size: Result<(u64, u64), Finding>,
    mask_shape: &[usize],
) -> Option<Finding> {
    match image_size {
        Ok((width, height)) => {
            let (mh, mw) = (mask_shape[0] as u64, mask_shape[1] as u64);
            if (width, height) != (mw, mh) {
                let (sx, sy) = (
                    width as f64 / mw.max(1) as f64,
                    height as f64 / mh.max(1) as f64,
                );
                let hint = if (sx - sy).abs() < 0.01 {
                    format!("the image is {sx:.2}x the mask's size: one of them was resized and the other not")
                } else if (width, height) == (mh, mw) {
                    "width and height are swapped: an EXIF rotation applied to the image but not to the mask?".into()
                } else {
                    "the mask belongs to another image, or was cropped differently".into()
                };
                return Some(
                    Finding::new(
                        &LG607,
                        Verdict::Error,
                        format!(
                            "the mask is {mw}x{mh} but its image {} is {}x{}",
                            image,
                            width,
                            height
                        ),
                    )
                    .hint(hint)
                    .fix("regenerate the mask at the image's size with nearest-neighbour resizing, or pair it with the right image"),
                );
            }
            None
        }
        Err(mut f) => {
            f.message = format!("paired image {}: {}", image, f.message);
            Some(f)
        }
    }
}
