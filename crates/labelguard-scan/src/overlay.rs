//! An overlay picture ([`Overlay`]: a mask's classes with its bad pixels marked, drawn by
//! [`crate::analyze::overlay`]) and its PNG encoding, at the boundary between analysis and
//! the renderers: the encoded PNG travels inside the report (merged from shards, read back
//! from JSON), and the HTML renderer embeds it as is.

/// An 8-bit RGB picture, row-major, `width * height * 3` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overlay {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

/// The overlay as an 8-bit RGB PNG; empty if the encoder fails (it does not on valid sizes).
pub fn encode_png(overlay: &Overlay) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, overlay.width as u32, overlay.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        if let Ok(mut wr) = enc.write_header() {
            let _ = wr.write_image_data(&overlay.rgb);
        }
    }
    out
}
