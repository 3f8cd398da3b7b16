//! A thumbnail of an image: at most [`ImageLimits::thumb_side`] pixels on its long side, a
//! JPEG of a few KiB (transparency composited on white), made on the blocking pool.
//!
//! Nothing is decoded before the probed size has passed [`ImageLimits::max_pixels`], and the
//! decoder then runs under `image::Limits`: the probed width and height as strict maxima (a
//! body whose frame is larger than its header said is refused, not decoded), and
//! [`ImageLimits::max_alloc`] for everything it allocates. A decompression bomb (a small file
//! declaring a huge, uniform image) is thus refused by its header, before any allocation.
//! The resize averages every source pixel into the output pixel whose box holds it
//! (`shrink.rs`: `image`'s `resize` with `Triangle` took 40 ms on a 1200 x 800 photo, its
//! `thumbnail` 10 ms, ours 2 ms); an animated GIF's thumbnail is its first frame.
//!
//! Memory: the decoder's output is within `max_alloc`, and its working buffers scale with the
//! pixels it was allowed; a progressive JPEG's coefficients (zune-jpeg keeps about two bytes
//! a pixel per component) are outside `image`'s accounting, so the peak for the largest
//! allowed progressive JPEG is that much over its output.

use std::io::Cursor;

use ::image::codecs::jpeg::JpegEncoder;
use ::image::{ImageBuffer, ImageError, ImageReader, Limits, Pixel, RgbImage, RgbaImage};
use thiserror::Error;

use super::ImageLimits;
use super::format::ImageFormat;
use super::probe::{ImageFacts, ProbeError};
use super::shrink::{fit, shrink};

/// A thumbnail: a baseline JPEG and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thumbnail {
    /// The JPEG bytes.
    pub jpeg: Vec<u8>,
    /// Width in pixels, at most the limit's side.
    pub width: u32,
    /// Height in pixels, at most the limit's side.
    pub height: u32,
}

/// Why an image has no thumbnail. Only [`ThumbnailError::Undecodable`] and
/// [`ThumbnailError::OverLimit`] come after a decode was started.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ThumbnailError {
    /// No size could be read, so nothing was decoded.
    #[error("no thumbnail: {0}")]
    Unmeasured(ProbeError),
    /// A format the crawler records but does not decode (SVG, AVIF, TIFF).
    #[error("no thumbnail: {0:?} is not decoded by the crawler")]
    NotDecoded(ImageFormat),
    /// The declared size is over the pixel limit: refused before any decoding.
    #[error("no thumbnail: {width} x {height} is over the limit of {max_pixels} pixels")]
    TooManyPixels {
        /// The declared width.
        width: u32,
        /// The declared height.
        height: u32,
        /// The limit it is over.
        max_pixels: u64,
    },
    /// The decoder needed more than the limits allow (memory, or a frame larger than the
    /// header declared).
    #[error("no thumbnail: decoding went over a limit: {0}")]
    OverLimit(String),
    /// The decoder found the body truncated or malformed.
    #[error("no thumbnail: the image does not decode: {0}")]
    Undecodable(String),
    /// The thumbnail could not be encoded.
    #[error("no thumbnail: encoding it failed: {0}")]
    Encode(String),
}

/// Decodes the image (checked against its probed `facts` first) and makes its thumbnail.
pub fn make_thumbnail(
    bytes: &[u8],
    facts: &ImageFacts,
    limits: &ImageLimits,
) -> Result<Thumbnail, ThumbnailError> {
    let codec = facts
        .format
        .codec()
        .ok_or(ThumbnailError::NotDecoded(facts.format))?;
    if facts.pixels() > limits.max_pixels {
        return Err(ThumbnailError::TooManyPixels {
            width: facts.width,
            height: facts.height,
            max_pixels: limits.max_pixels,
        });
    }
    let mut decoder_limits = Limits::default();
    decoder_limits.max_image_width = Some(facts.width);
    decoder_limits.max_image_height = Some(facts.height);
    decoder_limits.max_alloc = Some(limits.max_alloc);
    let mut reader = ImageReader::with_format(Cursor::new(bytes), codec);
    reader.limits(decoder_limits);
    // A decoder that panics on some input is a bug upstream; here it is one undecodable
    // image, not a dead blocking thread.
    let decoded = std::panic::catch_unwind(move || reader.decode())
        .map_err(|_| ThumbnailError::Undecodable("the decoder panicked".to_owned()))?;
    let image = decoded.map_err(|error| match error {
        ImageError::Limits(_) => ThumbnailError::OverLimit(error.to_string()),
        _ => ThumbnailError::Undecodable(error.to_string()),
    })?;
    let (width, height) = fit(image.width(), image.height(), limits.thumb_side.max(1));
    let rgb = if image.color().has_alpha() {
        on_white(&shrunk(image.into_rgba8(), width, height)?)
    } else {
        shrunk(image.into_rgb8(), width, height)?
    };
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(&mut jpeg, limits.thumb_quality.clamp(1, 100))
        .encode_image(&rgb)
        .map_err(|error| ThumbnailError::Encode(error.to_string()))?;
    Ok(Thumbnail {
        jpeg,
        width: rgb.width(),
        height: rgb.height(),
    })
}

/// The image at `width` x `height`: itself if it is that size, else shrunk by box means.
fn shrunk<P: Pixel<Subpixel = u8>>(
    image: ImageBuffer<P, Vec<u8>>,
    width: u32,
    height: u32,
) -> Result<ImageBuffer<P, Vec<u8>>, ThumbnailError> {
    if image.dimensions() == (width, height) {
        return Ok(image);
    }
    shrink(&image, width, height)
        .ok_or_else(|| ThumbnailError::Encode(format!("no {width} x {height} size to shrink to")))
}

/// The image as RGB, any transparency composited over white (JPEG has no alpha, and a
/// transparent logo over black would vanish).
fn on_white(rgba: &RgbaImage) -> RgbImage {
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [red, green, blue, alpha] = rgba.get_pixel(x, y).0;
        let over = |channel: u8| {
            let (c, a) = (u32::from(channel), u32::from(alpha));
            // c·a + 255·(255 - a), divided by 255 with rounding; at most 255.
            u8::try_from((c * a + 255 * (255 - a) + 127) / 255).unwrap_or(u8::MAX)
        };
        ::image::Rgb([over(red), over(green), over(blue)])
    })
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use ::image::{DynamicImage, Rgba, RgbaImage};

    use super::super::{ImageLimits, fixtures, probe};
    use super::{Thumbnail, make_thumbnail};

    fn thumbnail_of(bytes: &[u8]) -> Thumbnail {
        let facts = probe(bytes).expect("a measurable image");
        make_thumbnail(bytes, &facts, &ImageLimits::default()).expect("a thumbnail")
    }

    /// The thumbnail decoded again, as a browser would show it.
    fn shown(thumbnail: &Thumbnail) -> DynamicImage {
        ::image::load_from_memory_with_format(&thumbnail.jpeg, ::image::ImageFormat::Jpeg)
            .expect("a thumbnail is a JPEG")
    }

    #[test]
    fn a_1200_by_800_photo_becomes_a_256_by_171_jpeg_of_a_few_kib() {
        let jpeg = fixtures::jpeg_at(&fixtures::gradient(1200, 800), 85);
        let thumbnail = thumbnail_of(&jpeg);
        assert_eq!((thumbnail.width, thumbnail.height), (256, 171));
        assert!(
            thumbnail.jpeg.len() < 12 * 1024,
            "{} bytes",
            thumbnail.jpeg.len()
        );
        let shown = shown(&thumbnail);
        assert_eq!((shown.width(), shown.height()), (256, 171));
    }

    #[test]
    fn a_tall_image_fits_its_long_side_to_256() {
        let png = fixtures::encoded(&fixtures::gradient(100, 1000), ::image::ImageFormat::Png);
        let thumbnail = thumbnail_of(&png);
        assert_eq!((thumbnail.width, thumbnail.height), (26, 256));
    }

    #[test]
    fn transparency_is_composited_on_white() {
        let mut clear = RgbaImage::from_pixel(64, 64, Rgba([0, 0, 0, 0]));
        clear.put_pixel(0, 0, Rgba([0, 0, 0, 255]));
        let png = fixtures::encoded(&DynamicImage::ImageRgba8(clear), ::image::ImageFormat::Png);
        let shown = shown(&thumbnail_of(&png)).to_rgb8();
        let [red, green, blue] = shown.get_pixel(40, 40).0;
        assert!(
            red > 245 && green > 245 && blue > 245,
            "{:?}",
            [red, green, blue]
        );
    }

    #[test]
    fn an_animated_gif_is_thumbnailed_from_its_first_frame() {
        let gif = fixtures::animated_gif(40, 30);
        let shown = shown(&thumbnail_of(&gif)).to_rgb8();
        let [red, _, blue] = shown.get_pixel(20, 15).0;
        assert!(
            red > 200 && blue < 60,
            "the first frame is red: {:?}",
            shown.get_pixel(20, 15)
        );
    }

    /// Thumbnails a second on one core for a 1200 x 800 JPEG and PNG, and how much of each
    /// is the decode (printed; no check). The decoders are built optimized even in the test
    /// profile, but the encoder and resize are generic code compiled in this crate, so
    /// measure with it optimized too:
    /// `CARGO_PROFILE_TEST_OPT_LEVEL=2 cargo test -p crawler --lib thumbnails_per_second --
    /// --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn thumbnails_per_second() {
        let photo = fixtures::gradient(1200, 800);
        let bodies = [
            (
                "JPEG q85",
                fixtures::jpeg_at(&photo, 85),
                ::image::ImageFormat::Jpeg,
            ),
            (
                "PNG",
                fixtures::encoded(&photo, ::image::ImageFormat::Png),
                ::image::ImageFormat::Png,
            ),
        ];
        for (name, bytes, format) in bodies {
            let rounds = 40;
            let started = Instant::now();
            for _ in 0..rounds {
                thumbnail_of(&bytes);
            }
            let each = started.elapsed().as_secs_f64() / f64::from(rounds);
            let started = Instant::now();
            for _ in 0..rounds {
                ::image::load_from_memory_with_format(&bytes, format).expect("a decodable image");
            }
            let decode = started.elapsed().as_secs_f64() / f64::from(rounds);
            println!(
                "{name}: 1200 x 800, {} KiB: {:.1} thumbnails/s ({:.1} ms each, {:.1} ms of it decoding)",
                bytes.len() / 1024,
                1.0 / each,
                each * 1000.0,
                decode * 1000.0
            );
        }
    }
}
