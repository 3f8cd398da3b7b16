//! Which image format a body is, told by its first bytes (magic numbers), never by the
//! server's word alone: a `Content-Type` is only a hint ([`ImageFormat::from_media_type`]),
//! kept to report a body that lies about itself. SVG is text, so it is sniffed as an `<svg`
//! root after an optional byte-order mark, XML prolog, comments, doctype and whitespace; it is
//! recorded but never decoded (the crawler has no rasterizer), so it gets no size and no
//! thumbnail.

/// An image format the crawler recognizes. Each is sniffed from its magic bytes; only some
/// are decoded for a thumbnail ([`ImageFormat::is_decoded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// PNG (`\x89PNG\r\n\x1a\n`), APNG included (its first frame).
    Png,
    /// JPEG (`FF D8 FF`), baseline or progressive.
    Jpeg,
    /// GIF87a or GIF89a; an animation's first frame is its thumbnail.
    Gif,
    /// WebP (`RIFF....WEBP`): lossy, lossless or extended.
    Webp,
    /// Windows bitmap (`BM`).
    Bmp,
    /// Windows icon (`00 00 01 00`); its largest image is the one measured.
    Ico,
    /// AVIF (an ISO-BMFF `ftyp` box of an AV1 image brand): measured, not decoded.
    Avif,
    /// TIFF (`II*\0` or `MM\0*`): measured, not decoded.
    Tiff,
    /// SVG (an `<svg` root element): recorded only, neither measured nor decoded.
    Svg,
}

/// How many leading bytes SVG sniffing looks through for the `<svg` root: prologs,
/// comments and doctypes longer than this are not worth recognizing.
const SVG_SNIFF_BYTES: usize = 1024;

impl ImageFormat {
    /// The format the body's first bytes say it is, or `None` when they are no image format
    /// we know (an HTML page, a PDF, an empty or truncated body).
    pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        let at = |range: std::ops::Range<usize>| bytes.get(range);
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageFormat::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageFormat::Gif)
        } else if bytes.starts_with(b"RIFF") && at(8..12) == Some(b"WEBP") {
            Some(ImageFormat::Webp)
        } else if bytes.starts_with(b"BM") && at(14..18).is_some_and(is_dib_header_size) {
            Some(ImageFormat::Bmp)
        } else if bytes.starts_with(&[0, 0, 1, 0]) && at(4..6).is_some_and(|n| n != [0, 0]) {
            Some(ImageFormat::Ico)
        } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
            Some(ImageFormat::Tiff)
        } else if at(4..8) == Some(b"ftyp") && is_avif_brand(bytes) {
            Some(ImageFormat::Avif)
        } else if is_svg(bytes) {
            Some(ImageFormat::Svg)
        } else {
            None
        }
    }

    /// The format a `Content-Type` names (parameters and case ignored), or `None` for a
    /// type that is no image format we know.
    pub fn from_media_type(content_type: &str) -> Option<ImageFormat> {
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        let format = match essence.to_ascii_lowercase().as_str() {
            "image/png" | "image/apng" | "image/x-png" => ImageFormat::Png,
            "image/jpeg" | "image/jpg" | "image/pjpeg" => ImageFormat::Jpeg,
            "image/gif" => ImageFormat::Gif,
            "image/webp" => ImageFormat::Webp,
            "image/bmp" | "image/x-bmp" | "image/x-ms-bmp" => ImageFormat::Bmp,
            "image/x-icon" | "image/vnd.microsoft.icon" | "image/ico" => ImageFormat::Ico,
            "image/avif" => ImageFormat::Avif,
            "image/tiff" | "image/tiff-fx" => ImageFormat::Tiff,
            "image/svg+xml" => ImageFormat::Svg,
            _ => return None,
        };
        Some(format)
    }

    /// The format's registered media type, as a record or a `Content-Type` names it.
    pub fn media_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
            ImageFormat::Bmp => "image/bmp",
            ImageFormat::Ico => "image/vnd.microsoft.icon",
            ImageFormat::Avif => "image/avif",
            ImageFormat::Tiff => "image/tiff",
            ImageFormat::Svg => "image/svg+xml",
        }
    }

    /// The format's short name, as records and filters say it: `png`, `jpeg`, `gif`, `webp`,
    /// `bmp`, `ico`, `avif`, `tiff`, `svg`.
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Gif => "gif",
            ImageFormat::Webp => "webp",
            ImageFormat::Bmp => "bmp",
            ImageFormat::Ico => "ico",
            ImageFormat::Avif => "avif",
            ImageFormat::Tiff => "tiff",
            ImageFormat::Svg => "svg",
        }
    }

    /// Whether the crawler decodes this format for a thumbnail (the codecs it builds).
    pub fn is_decoded(self) -> bool {
        self.codec().is_some()
    }

    /// The `image` crate's codec for this format, if the crawler builds one.
    pub(super) fn codec(self) -> Option<::image::ImageFormat> {
        match self {
            ImageFormat::Png => Some(::image::ImageFormat::Png),
            ImageFormat::Jpeg => Some(::image::ImageFormat::Jpeg),
            ImageFormat::Gif => Some(::image::ImageFormat::Gif),
            ImageFormat::Webp => Some(::image::ImageFormat::WebP),
            ImageFormat::Bmp => Some(::image::ImageFormat::Bmp),
            ImageFormat::Ico => Some(::image::ImageFormat::Ico),
            ImageFormat::Avif | ImageFormat::Tiff | ImageFormat::Svg => None,
        }
    }
}

/// Whether four bytes (little-endian) are the size of a DIB header a BMP may have: the
/// core, info, and version 2 to 5 headers. `BM` alone starts too many other files.
fn is_dib_header_size(size: &[u8]) -> bool {
    matches!(size, [12 | 40 | 52 | 56 | 64 | 108 | 124, 0, 0, 0])
}

/// Whether an ISO-BMFF `ftyp` box names an AVIF brand, as its major brand or among the
/// compatible brands it holds within the bytes we have.
fn is_avif_brand(bytes: &[u8]) -> bool {
    let declared = bytes.get(0..4).map_or(0, |size| {
        u32::from_be_bytes([size[0], size[1], size[2], size[3]]) as usize
    });
    let end = declared.clamp(16, 64).min(bytes.len());
    let brands = bytes.get(8..end).unwrap_or_default();
    // The major brand (8..12), the minor version (12..16), then compatible brands.
    brands
        .chunks_exact(4)
        .enumerate()
        .filter(|&(index, _)| index != 1)
        .any(|(_, brand)| brand == b"avif" || brand == b"avis")
}

/// Whether the text starts, after a byte-order mark, whitespace, an XML declaration,
/// comments, processing instructions and a doctype, with an `<svg` root element.
fn is_svg(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SVG_SNIFF_BYTES)];
    let mut rest = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    loop {
        rest = rest.trim_ascii_start();
        let skipped = if rest.starts_with(b"<?") {
            after(rest, b"?>")
        } else if rest.starts_with(b"<!--") {
            after(rest, b"-->")
        } else if rest.len() >= 9 && rest[..9].eq_ignore_ascii_case(b"<!doctype") {
            after(rest, b">")
        } else {
            let tag = rest.get(..5).unwrap_or_default();
            return tag.len() == 5
                && tag[..4].eq_ignore_ascii_case(b"<svg")
                && (tag[4].is_ascii_whitespace() || tag[4] == b'>' || tag[4] == b'/');
        };
        match skipped {
            Some(next) => rest = next,
            None => return false,
        }
    }
}

/// The bytes after the first `end` in `text`, or `None` when it does not occur.
fn after<'a>(text: &'a [u8], end: &[u8]) -> Option<&'a [u8]> {
    let at = text.windows(end.len()).position(|window| window == end)?;
    text.get(at + end.len()..)
}

#[cfg(test)]
mod tests {
    use super::ImageFormat::{self, *};

    #[test]
    fn magic_bytes_name_the_format() {
        let cases: [(&[u8], Option<ImageFormat>); 15] = [
            (b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", Some(Png)),
            (b"\xFF\xD8\xFF\xE0\0\x10JFIF", Some(Jpeg)),
            (b"GIF87a\x01\0\x01\0", Some(Gif)),
            (b"GIF89a\x01\0\x01\0", Some(Gif)),
            (b"RIFF\0\0\0\0WEBPVP8 ", Some(Webp)),
            (b"RIFF\0\0\0\0WAVEfmt ", None),
            (b"BM\x3e\0\0\0\0\0\0\0\x3e\0\0\0\x28\0\0\0", Some(Bmp)),
            (b"BMW 320i for sale, one owner", None),
            (b"\0\0\x01\0\x01\0\x10\x10", Some(Ico)),
            (b"II*\0\x08\0\0\0", Some(Tiff)),
            (b"MM\0*\0\0\0\x08", Some(Tiff)),
            (b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf", Some(Avif)),
            (b"\0\0\0\x1cftypmif1\0\0\0\0mif1avifmiaf", Some(Avif)),
            (b"\0\0\0\x18ftypisom\0\0\0\0isommp41", None),
            (b"%PDF-1.7\n", None),
        ];
        for (bytes, format) in cases {
            assert_eq!(ImageFormat::sniff(bytes), format, "{bytes:?}");
        }
    }

    #[test]
    fn an_svg_root_is_found_after_a_prolog_and_nothing_else_is_an_svg() {
        let cases: [(&[u8], bool); 8] = [
            (b"<svg xmlns='http://www.w3.org/2000/svg'/>", true),
            (b"\xEF\xBB\xBF  \n<?xml version='1.0'?><!-- drawn --><!DOCTYPE svg PUBLIC '-//W3C//DTD SVG 1.1//EN' 'x'>\n<SVG>", true),
            (b"<svg>", true),
            (b"<svgfoo>", false),
            (b"<!DOCTYPE html><html><svg>", false),
            (b"<?xml version='1.0'", false),
            (b"<!-- never closed <svg>", false),
            (b"", false),
        ];
        for (bytes, svg) in cases {
            let expected = svg.then_some(Svg);
            assert_eq!(
                ImageFormat::sniff(bytes),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn media_types_name_formats_whatever_their_case_and_parameters() {
        assert_eq!(
            ImageFormat::from_media_type("image/PNG; charset=binary"),
            Some(Png)
        );
        assert_eq!(ImageFormat::from_media_type(" image/svg+xml "), Some(Svg));
        assert_eq!(ImageFormat::from_media_type("image/x-icon"), Some(Ico));
        assert_eq!(ImageFormat::from_media_type("text/html"), None);
        for format in [Png, Jpeg, Gif, Webp, Bmp, Ico, Avif, Tiff, Svg] {
            assert_eq!(
                ImageFormat::from_media_type(format.media_type()),
                Some(format)
            );
            // The short name is within the media type's subtype (`vnd.microsoft.icon`).
            let subtype = format.media_type().trim_start_matches("image/");
            assert!(subtype.contains(format.name()), "{format:?}");
        }
    }
}
