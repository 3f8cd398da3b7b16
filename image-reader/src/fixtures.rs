//! Test images, made by the `image` crate's encoders from one gradient so their true size is
//! known independently of any reader, plus the committed files in `fixtures/` that those
//! encoders cannot make (a progressive JPEG from libjpeg-turbo's `cjpeg -progressive
//! -quality 80`, a lossy WebP from `cwebp -q 70`, both of the 48 x 32 gradient), and
//! hand-built PNGs whose headers lie about their size.

use std::io::{Cursor, Write};

use ::image::codecs::gif::GifEncoder;
use ::image::codecs::jpeg::JpegEncoder;
use ::image::{DynamicImage, Frame, Rgba, RgbaImage};
use flate2::Crc;
use flate2::write::ZlibEncoder;

use super::ImageFormat;

/// The width of every gradient fixture.
pub(super) const WIDTH: u32 = 48;
/// The height of every gradient fixture.
pub(super) const HEIGHT: u32 = 32;

/// A `width` x `height` colour gradient, opaque.
pub(super) fn gradient(width: u32, height: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(::image::RgbImage::from_fn(width, height, |x, y| {
        let wave = 128.0 + 100.0 * (x as f32 / 17.0 + y as f32 / 23.0).sin();
        ::image::Rgb([
            (x * 255 / width) as u8,
            (y * 255 / height) as u8,
            wave as u8,
        ])
    }))
}

/// The image encoded by the `image` crate in `format`, at its default settings.
pub(super) fn encoded(image: &DynamicImage, format: ::image::ImageFormat) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::new());
    image
        .write_to(&mut bytes, format)
        .expect("an encodable image");
    bytes.into_inner()
}

/// The image as a baseline JPEG at an IJG `quality`.
pub(super) fn jpeg_at(image: &DynamicImage, quality: u8) -> Vec<u8> {
    let mut bytes = Vec::new();
    JpegEncoder::new_with_quality(&mut bytes, quality)
        .encode_image(image)
        .expect("an encodable image");
    bytes
}

/// A two-frame animated GIF: a red frame, then a blue one.
pub(super) fn animated_gif(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut encoder = GifEncoder::new(&mut bytes);
        for colour in [[255, 0, 0, 255], [0, 0, 255, 255]] {
            let frame = RgbaImage::from_pixel(width, height, Rgba(colour));
            encoder
                .encode_frame(Frame::new(frame))
                .expect("an encodable frame");
        }
    }
    bytes
}

/// A committed fixture file's bytes.
pub(super) fn file(name: &str) -> Vec<u8> {
    let path = format!("{}/src/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every 48 x 32 fixture (small, so that cutting each at every length stays quick): a name, its bytes and its format.
pub(super) fn all() -> Vec<(&'static str, Vec<u8>, ImageFormat)> {
    let image = gradient(WIDTH, HEIGHT);
    let with_alpha = DynamicImage::ImageRgba8(image.to_rgba8());
    vec![
        (
            "png",
            encoded(&image, ::image::ImageFormat::Png),
            ImageFormat::Png,
        ),
        (
            "png with alpha",
            encoded(&with_alpha, ::image::ImageFormat::Png),
            ImageFormat::Png,
        ),
        ("baseline jpeg", jpeg_at(&image, 75), ImageFormat::Jpeg),
        (
            "progressive jpeg",
            file("progressive_libjpeg_q80_48x32.jpg"),
            ImageFormat::Jpeg,
        ),
        (
            "gif",
            encoded(&image, ::image::ImageFormat::Gif),
            ImageFormat::Gif,
        ),
        (
            "animated gif",
            animated_gif(WIDTH, HEIGHT),
            ImageFormat::Gif,
        ),
        (
            "lossless webp",
            encoded(&with_alpha, ::image::ImageFormat::WebP),
            ImageFormat::Webp,
        ),
        (
            "lossy webp",
            file("lossy_cwebp_q70_48x32.webp"),
            ImageFormat::Webp,
        ),
        (
            "bmp",
            encoded(&image, ::image::ImageFormat::Bmp),
            ImageFormat::Bmp,
        ),
        (
            "ico",
            encoded(&with_alpha, ::image::ImageFormat::Ico),
            ImageFormat::Ico,
        ),
    ]
}

/// A PNG chunk: length, type, data and CRC.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut crc = Crc::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    png.extend_from_slice(&crc.sum().to_be_bytes());
}

/// A valid 8-bit greyscale PNG declaring `width` x `height`, whose image data is `rows`
/// (each row's filter byte and pixels) as zlib writes them.
pub(super) fn png_declaring(width: u32, height: u32, rows: &[u8]) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 0, 0, 0, 0]); // depth 8, greyscale, deflate, filter 0, no interlace
    chunk(&mut png, b"IHDR", &header);
    let mut zlib = ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    zlib.write_all(rows).expect("writing to memory");
    chunk(
        &mut png,
        b"IDAT",
        &zlib.finish().expect("writing to memory"),
    );
    chunk(&mut png, b"IEND", &[]);
    png
}

/// A decompression bomb: a valid PNG of `side` x `side` black greyscale pixels, every one of
/// them in its compressed data (zeros deflate about a thousand to one).
pub(super) fn zero_bomb(side: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&side.to_be_bytes());
    header.extend_from_slice(&side.to_be_bytes());
    header.extend_from_slice(&[8, 0, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    let row = vec![0u8; side as usize + 1];
    let mut zlib = ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    for _ in 0..side {
        zlib.write_all(&row).expect("writing to memory");
    }
    chunk(
        &mut png,
        b"IDAT",
        &zlib.finish().expect("writing to memory"),
    );
    chunk(&mut png, b"IEND", &[]);
    png
}
