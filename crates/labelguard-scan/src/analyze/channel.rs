//! One channel of a decoded multi-channel mask (grey + alpha, a grey mask saved as RGB), as a
//! view the class-id check reads.

use labelguard_core::TensorView;
use labelguard_formats::read::mask::MaskImage;

/// One channel of an interleaved image, copied into `aux`.
pub(crate) fn channel_view<'a>(
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
