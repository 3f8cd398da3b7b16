//! The reader of image bodies, for the image content kind: what an image is, how large, how
//! good, and a thumbnail, from its bytes alone. [`read_image`] is the one entry point; it
//! runs on tokio's blocking pool, never panics, and holds its memory within
//! [`ImageLimits`] whatever the bytes.
//!
//! - `format.rs`: [`ImageFormat`], sniffed from magic bytes (a `Content-Type` is a
//!   hint, kept to report a lie). SVG is recognized and recorded but never rasterized.
//! - `probe.rs`: [`probe()`], width and height from the header (no decoding), absurd
//!   sizes refused, giving [`ImageFacts`] or a [`ProbeError`].
//! - `quality.rs`: [`jpeg_quality`], the IJG quality a JPEG's tables imply.
//! - `thumbnail.rs`: [`make_thumbnail`], a JPEG of at most 256 px a side, decoded only
//!   after the probed size passed the pixel limit, under `image::Limits`; `shrink.rs`
//!   its downscaling (box means).
//!
//! The crawler's image content kind reads images through it, and so does the `image` fuzz
//! target (`fuzz/src/bodies.rs`).
//!
//! ```
//! use image_reader::{ImageLimits, ProbeError, read_image};
//! let reading = read_image(b"<!doctype html><p>not a picture", None, &ImageLimits::default());
//! assert_eq!(reading.format, None);
//! assert_eq!(reading.facts, Err(ProbeError::NotAnImage));
//! ```

#![deny(missing_docs)]

mod format;
mod probe;
mod quality;
mod shrink;
mod thumbnail;

pub use format::ImageFormat;
pub use probe::{ABSURD_SIDE, ImageFacts, ProbeError, probe};
pub use quality::jpeg_quality;
pub use thumbnail::{Thumbnail, ThumbnailError, make_thumbnail};

/// The bounds every image is read within.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    /// The largest image decoded for a thumbnail, in pixels (width times height), checked on
    /// the header's size before any decoding. Default 40 million (a 7,750 x 5,160 photo).
    pub max_pixels: u64,
    /// The most the decoder may allocate for one image, in bytes. Default 256 MiB: the
    /// largest image allowed, as 8-bit RGBA, needs 160 MB.
    pub max_alloc: u64,
    /// The thumbnail's longest side, in pixels. Default 256.
    pub thumb_side: u32,
    /// The thumbnail's JPEG quality (1-100). Default 50: a 256 x 170 photo in about 6 KiB.
    pub thumb_quality: u8,
}

impl Default for ImageLimits {
    fn default() -> Self {
        ImageLimits {
            max_pixels: 40_000_000,
            max_alloc: 256 * 1024 * 1024,
            thumb_side: 256,
            thumb_quality: 50,
        }
    }
}

/// Everything read from one image body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageReading {
    /// The format its bytes are (sniffed), or `None`: not an image, whatever it was served as.
    pub format: Option<ImageFormat>,
    /// The format the server's `Content-Type` claimed, if it named one.
    pub served_as: Option<ImageFormat>,
    /// xxh3-64 of the bytes: the same image at two URLs is one image.
    pub hash: u64,
    /// The body's length in bytes.
    pub byte_size: u64,
    /// Format, size and JPEG quality, or why they could not be read.
    pub facts: Result<ImageFacts, ProbeError>,
    /// The thumbnail, or why there is none.
    pub thumbnail: Result<Thumbnail, ThumbnailError>,
}

impl ImageReading {
    /// Whether the server claimed one image format and the bytes are another, or none.
    pub fn mislabelled(&self) -> bool {
        self.served_as.is_some() && self.served_as != self.format
    }
}

/// Reads one image body: sniffs its format (the `hinted` one, from the server's
/// `Content-Type`, is only recorded beside it), probes its size and quality, hashes it, and
/// makes its thumbnail within `limits`.
pub fn read_image(bytes: &[u8], hinted: Option<ImageFormat>, limits: &ImageLimits) -> ImageReading {
    let facts = probe(bytes);
    let thumbnail = match &facts {
        Ok(facts) => make_thumbnail(bytes, facts, limits),
        Err(why) => Err(ThumbnailError::Unmeasured(why.clone())),
    };
    ImageReading {
        format: ImageFormat::sniff(bytes),
        served_as: hinted,
        hash: xxhash_rust::xxh3::xxh3_64(bytes),
        byte_size: bytes.len() as u64,
        facts,
        thumbnail,
    }
}

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;
