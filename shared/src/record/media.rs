//! The records of content beyond HTML: what an image or a PDF was found to be
//! ([`MediaRecord`], family `media`), an image's thumbnail ([`Thumbnail`], family `thumbs`,
//! one per distinct image content), and the images a page shows ([`PageImages`], family
//! `images`), which image search reads their alt text and surroundings from.

use serde::{Deserialize, Serialize};

use super::Record;

/// What a fetched image or PDF is. Key: its canonical URL (column family `media`), beside
/// its [`PageRecord`](super::PageRecord), written in the same batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MediaRecord {
    /// An image.
    Image(ImageInfo),
    /// A PDF.
    Pdf(PdfInfo),
}

impl Record for MediaRecord {
    const KIND: &'static str = "media";
    const VERSION: u8 = 1;
}

/// An image as read from its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageInfo {
    /// Its format by its bytes (`png`, `jpeg`, `gif`, `webp`, `svg` ...).
    pub format: String,
    /// Width in pixels (0: not known).
    pub width: u32,
    /// Height in pixels (0: not known).
    pub height: u32,
    /// Body bytes.
    pub bytes: u64,
    /// For a JPEG, the quality (1-100) its quantization tables were made for.
    pub jpeg_quality: Option<u8>,
    /// xxh3-64 of its bytes: the key of its [`Thumbnail`], shared by every URL with the same
    /// bytes.
    pub content_hash: u64,
    /// Whether a thumbnail is stored under `content_hash`.
    pub thumbnail: bool,
    /// Why it could not be read whole or thumbnailed (too many pixels, truncated, not an
    /// image ...), if so.
    pub problem: Option<String>,
}

/// How reading a PDF ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PdfStatus {
    /// Its text was read (perhaps cut at the text or page cap: see
    /// [`PdfInfo::text_truncated`]).
    #[default]
    Read,
    /// Over the size limit: not read.
    TooLarge,
    /// The reader ran past its deadline and was stopped.
    ParseTimeout,
    /// The reader died (out of memory, a crash).
    ParseCrash,
    /// Encrypted: its text cannot be read.
    Encrypted,
    /// Not a PDF that could be read (broken structure, not a PDF at all).
    Malformed,
}

impl PdfStatus {
    /// How reports and `explain` say it.
    pub fn describe(self) -> &'static str {
        match self {
            PdfStatus::Read => "read",
            PdfStatus::TooLarge => "too large",
            PdfStatus::ParseTimeout => "parse timeout",
            PdfStatus::ParseCrash => "parse crash",
            PdfStatus::Encrypted => "encrypted",
            PdfStatus::Malformed => "malformed",
        }
    }
}

/// A PDF as read. Its text is the page record's body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdfInfo {
    /// How reading it ended.
    pub status: PdfStatus,
    /// More about a status other than [`PdfStatus::Read`].
    pub problem: Option<String>,
    /// Its pages.
    pub pages: u32,
    /// The document information's author.
    pub author: String,
    /// The document information's subject.
    pub subject: String,
    /// The document information's keywords.
    pub keywords: String,
    /// The text was cut at the text or page cap.
    pub text_truncated: bool,
}

/// A small picture of an image, at most 256 pixels a side. Key: the image's content hash
/// (u64 BE, column family `thumbs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thumbnail {
    /// Its media type (`image/jpeg`).
    pub media_type: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The encoded picture.
    #[serde(with = "super::byte_string")]
    pub bytes: Vec<u8>,
}

impl Record for Thumbnail {
    const KIND: &'static str = "thumbnail";
    const VERSION: u8 = 1;
}

/// An image shown on a page, as the page shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageRef {
    /// The image's canonical URL.
    pub url: String,
    /// Its `alt` text.
    pub alt: String,
    /// Its `title`, or the caption of its `<figure>`.
    pub title: String,
    /// The words written around it on the page.
    pub context: String,
}

/// The images a page shows (`<img>`, `<picture>`, `og:image`, links to image files). Key: the
/// page's canonical URL (column family `images`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageImages(pub Vec<ImageRef>);

impl Record for PageImages {
    const KIND: &'static str = "page images";
    const VERSION: u8 = 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_records_round_trip() {
        let image = MediaRecord::Image(ImageInfo {
            format: "png".into(),
            width: 640,
            height: 480,
            bytes: 12_345,
            jpeg_quality: None,
            content_hash: 7,
            thumbnail: true,
            problem: None,
        });
        assert_eq!(MediaRecord::decode(&image.encode()).unwrap(), image);
        let pdf = MediaRecord::Pdf(PdfInfo {
            status: PdfStatus::Encrypted,
            problem: Some("/Encrypt in the trailer".into()),
            ..PdfInfo::default()
        });
        assert_eq!(MediaRecord::decode(&pdf.encode()).unwrap(), pdf);
        let thumb = Thumbnail {
            media_type: "image/jpeg".into(),
            width: 256,
            height: 192,
            bytes: vec![0xFF, 0xD8, 0xFF, 0, 1, 2],
        };
        assert_eq!(Thumbnail::decode(&thumb.encode()).unwrap(), thumb);
        let images = PageImages(vec![ImageRef {
            url: "http://a.test/cat.png".into(),
            alt: "a cat".into(),
            ..ImageRef::default()
        }]);
        assert_eq!(PageImages::decode(&images.encode()).unwrap(), images);
        assert!(
            MediaRecord::decode(&[1, 9, 9, 9]).is_err(),
            "no such variant"
        );
    }
}
