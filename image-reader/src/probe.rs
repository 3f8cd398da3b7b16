//! An image's format and pixel size, read from its first bytes without decoding anything:
//! the header fields (`imagesize` for most formats, after our own sniffing; our own reading
//! where it would misread one), and for JPEG the quality its quantization tables imply.
//!
//! `imagesize` reads from a `Cursor` with bounds-checked reads and seeks, so a truncated body
//! is an I/O error there, not a panic (`tests.rs` cuts every fixture at every length). It
//! is called under `catch_unwind` all the same: a panic in a dependency on bytes from the web
//! becomes [`ProbeError::Unreadable`], never a dead blocking thread. Two of its readings are
//! corrected here: a PNG whose first chunk is not `IHDR` is refused (it reads offset 16
//! blindly), and a BMP's height is read signed (a top-down bitmap stores it negative) with
//! the 16-bit core header understood; a lossy WebP's two scaling bits are masked off its
//! 14-bit sizes.

use std::io::Cursor;

use thiserror::Error;

use super::format::ImageFormat;
use super::quality::jpeg_quality;

/// The largest side, in pixels, that is believed: no real image is a million pixels wide,
/// and a header that says so is a lie or an attack, refused as [`ProbeError::AbsurdSize`].
pub const ABSURD_SIDE: u32 = 1 << 20;

/// What an image's first bytes say about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageFacts {
    /// The format sniffed from the magic bytes.
    pub format: ImageFormat,
    /// Width in pixels (for an icon, of its largest image), at least 1.
    pub width: u32,
    /// Height in pixels, at least 1.
    pub height: u32,
    /// For a JPEG, the IJG quality (1-100) its luminance quantization table matches best;
    /// `None` for other formats or a JPEG without a table before its first scan.
    pub jpeg_quality: Option<u8>,
}

impl ImageFacts {
    /// Width times height, without overflow.
    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }
}

/// Why no size could be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ProbeError {
    /// The bytes are no image format we know, whatever the server said.
    #[error("not an image (no known image format's magic bytes)")]
    NotAnImage,
    /// An SVG: a document, not pixels; it has no pixel size to read.
    #[error("an SVG has no pixel size (it is recorded, not rasterized)")]
    Vector,
    /// The header is cut short or malformed: the size is not in the bytes.
    #[error("the {format:?} header is truncated or malformed")]
    Unreadable {
        /// The sniffed format.
        format: ImageFormat,
    },
    /// The header declares a zero side or one over [`ABSURD_SIDE`].
    #[error("the {format:?} header declares an absurd size, {width} x {height}")]
    AbsurdSize {
        /// The sniffed format.
        format: ImageFormat,
        /// The declared width.
        width: u64,
        /// The declared height.
        height: u64,
    },
}

/// Reads the format, width and height (and a JPEG's quality) from the body's first bytes.
pub fn probe(bytes: &[u8]) -> Result<ImageFacts, ProbeError> {
    let format = ImageFormat::sniff(bytes).ok_or(ProbeError::NotAnImage)?;
    let (width, height) = match format {
        ImageFormat::Svg => return Err(ProbeError::Vector),
        ImageFormat::Bmp => bmp_size(bytes),
        ImageFormat::Png if bytes.get(12..16) != Some(b"IHDR") => None,
        _ => header_size(format, bytes),
    }
    .ok_or(ProbeError::Unreadable { format })?;
    let believable = |side: u64| (1..=u64::from(ABSURD_SIDE)).contains(&side);
    if !believable(width) || !believable(height) {
        return Err(ProbeError::AbsurdSize {
            format,
            width,
            height,
        });
    }
    let jpeg_quality = match format {
        ImageFormat::Jpeg => jpeg_quality(bytes),
        _ => None,
    };
    Ok(ImageFacts {
        format,
        // Both are within ABSURD_SIDE, so they fit.
        width: u32::try_from(width).unwrap_or(ABSURD_SIDE),
        height: u32::try_from(height).unwrap_or(ABSURD_SIDE),
        jpeg_quality,
    })
}

/// The size `imagesize` reads for a format we sniffed (its own detection is not asked).
fn header_size(format: ImageFormat, bytes: &[u8]) -> Option<(u64, u64)> {
    let kind = match format {
        ImageFormat::Png => imagesize::ImageType::Png,
        ImageFormat::Jpeg => imagesize::ImageType::Jpeg,
        ImageFormat::Gif => imagesize::ImageType::Gif,
        ImageFormat::Webp => imagesize::ImageType::Webp,
        ImageFormat::Ico => imagesize::ImageType::Ico,
        ImageFormat::Tiff => imagesize::ImageType::Tiff,
        ImageFormat::Avif => imagesize::ImageType::Heif(imagesize::Compression::Av1),
        ImageFormat::Bmp | ImageFormat::Svg => return None,
    };
    let mut cursor = Cursor::new(bytes);
    // Every reader seeks to its header fields but WebP's, which reads on from where
    // `imagesize`'s own detection stops: after `RIFF`, the length and `WEBP`.
    if format == ImageFormat::Webp {
        cursor.set_position(12);
    }
    let read = std::panic::catch_unwind(move || kind.reader_size(&mut cursor));
    let size = read.ok()?.ok()?;
    let (mut width, mut height) = (size.width as u64, size.height as u64);
    if format == ImageFormat::Webp && bytes.get(12..16) == Some(b"VP8 ") {
        // A lossy frame's sizes are 14 bits; the top two are an upscaling hint.
        (width, height) = (width & 0x3FFF, height & 0x3FFF);
    }
    Some((width, height))
}

/// A BMP's size from its DIB header: 16-bit sizes in the 12-byte core header, else signed
/// 32-bit ones, a negative height meaning rows stored top-down.
fn bmp_size(bytes: &[u8]) -> Option<(u64, u64)> {
    let u16_at = |at: usize| -> Option<u64> {
        let b = bytes.get(at..at + 2)?;
        Some(u64::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let i32_at = |at: usize| -> Option<i32> {
        let b = bytes.get(at..at + 4)?;
        Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let header_size = i32_at(14)?;
    if header_size == 12 {
        return Some((u16_at(18)?, u16_at(20)?));
    }
    let width = i32_at(18)?;
    let height = i32_at(22)?;
    // A negative width is invalid: reported as such a size, refused as absurd.
    let width = if width < 0 { 0 } else { width.unsigned_abs() };
    Some((u64::from(width), u64::from(height.unsigned_abs())))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::{ImageFormat, ProbeError, probe};

    /// A 24-bit BMP of `width` x `height` blue pixels, with the info header's sizes as given
    /// (a negative height: rows stored top-down).
    fn bmp(width: i32, height: i32) -> Vec<u8> {
        let row = (width.unsigned_abs() as usize * 3).next_multiple_of(4);
        let pixels = vec![0xFF; row * height.unsigned_abs() as usize];
        let mut dib = Vec::new();
        dib.extend_from_slice(&40u32.to_le_bytes());
        dib.extend_from_slice(&width.to_le_bytes());
        dib.extend_from_slice(&height.to_le_bytes());
        dib.extend_from_slice(&1u16.to_le_bytes()); // planes
        dib.extend_from_slice(&24u16.to_le_bytes()); // bits a pixel
        dib.extend_from_slice(&[0; 24]); // no compression, sizes and palette defaulted
        let offset = 14 + dib.len() as u32;
        let mut file = b"BM".to_vec();
        file.extend_from_slice(&(offset + pixels.len() as u32).to_le_bytes());
        file.extend_from_slice(&[0; 4]);
        file.extend_from_slice(&offset.to_le_bytes());
        file.extend(dib);
        file.extend(pixels);
        file
    }

    #[test]
    fn a_top_down_bmp_is_measured_by_its_height_without_the_sign() {
        let facts = probe(&bmp(48, -32)).expect("a readable header");
        assert_eq!(
            (facts.format, facts.width, facts.height),
            (ImageFormat::Bmp, 48, 32)
        );
        // And the decoder agrees it is an image of that size.
        let decoded = ::image::load_from_memory(&bmp(48, -32)).expect("a decodable BMP");
        assert_eq!((decoded.width(), decoded.height()), (48, 32));
    }

    #[test]
    fn a_bmp_with_a_negative_width_is_an_absurd_size() {
        assert!(matches!(
            probe(&bmp(-48, 32)),
            Err(ProbeError::AbsurdSize {
                width: 0,
                height: 32,
                ..
            })
        ));
    }

    #[test]
    fn a_bmp_with_the_core_header_is_read_with_its_16_bit_sizes() {
        let mut core = b"BM\0\0\0\0\0\0\0\0\x1a\0\0\0".to_vec();
        core.extend_from_slice(&12u32.to_le_bytes());
        core.extend_from_slice(&[0x30, 0, 0x20, 0, 1, 0, 24, 0]);
        assert_eq!(probe(&core).map(|f| (f.width, f.height)), Ok((48, 32)));
    }

    #[test]
    fn a_png_whose_first_chunk_is_not_its_header_is_unreadable() {
        let mut png = fixtures::png_declaring(48, 32, &[0; 49 * 32]);
        png[12..16].copy_from_slice(b"tEXt");
        assert_eq!(
            probe(&png),
            Err(ProbeError::Unreadable {
                format: ImageFormat::Png
            })
        );
    }

    #[test]
    fn a_lossy_webps_upscaling_bits_are_not_read_as_its_size() {
        let mut webp = fixtures::file("lossy_cwebp_q70_48x32.webp");
        assert_eq!(&webp[12..16], b"VP8 ");
        // The frame header's width and height (bytes 26 to 29): set both scaling hints.
        webp[27] |= 0xC0;
        webp[29] |= 0xC0;
        assert_eq!(probe(&webp).map(|f| (f.width, f.height)), Ok((48, 32)));
    }
}
