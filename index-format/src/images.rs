//! The image index: one document per stored image URL, in `gen-NNNNNN/images/` beside the
//! page index of the same generation (so `CURRENT` switches both at once). Image search reads
//! it; the indexer rebuilds it whole at every build, in one commit.
//!
//! | field | options |
//! |---|---|
//! | `url`, `page_url`, `format` | one token (`STRING`), stored: the image, the best page showing it (most in-links), its format |
//! | `alt` | every alt text and title given to it, text with positions, stored (the first) |
//! | `context` | the words around it on the pages that show it, text, not stored |
//! | `page_title` | the titles of the pages showing it, text, stored (the best page's) |
//! | `file_name` | its URL's last segment split into words, text, not stored |
//! | `width`, `height`, `bytes`, `jpeg_quality`, `content_hash`, `fetched_at` | `u64`, fast and stored (`jpeg_quality` 0: not a JPEG; `content_hash` keys its thumbnail in the store) |
//! | `thumbnail` | `u64` 1 when a thumbnail is stored, fast and stored |
//! | `pages` | `u64` pages showing it, fast and stored |

use std::path::{Path, PathBuf};

use tantivy::schema::{FAST, Field, STORED, STRING, Schema};

use crate::Error;
use crate::schema::text as text_options;

/// Field names of the image index.
pub mod image_fields {
    /// The image's canonical URL.
    pub const URL: &str = "url";
    /// The best page showing it.
    pub const PAGE_URL: &str = "page_url";
    /// Its format (`png`, `jpeg` ...).
    pub const FORMAT: &str = "format";
    /// Alt texts and titles.
    pub const ALT: &str = "alt";
    /// Words around it.
    pub const CONTEXT: &str = "context";
    /// Titles of the pages showing it.
    pub const PAGE_TITLE: &str = "page_title";
    /// Its file name's words.
    pub const FILE_NAME: &str = "file_name";
    /// Width in pixels.
    pub const WIDTH: &str = "width";
    /// Height in pixels.
    pub const HEIGHT: &str = "height";
    /// Body bytes.
    pub const BYTES: &str = "bytes";
    /// A JPEG's quality (0: not a JPEG, or not known).
    pub const JPEG_QUALITY: &str = "jpeg_quality";
    /// xxh3-64 of its bytes: its thumbnail's key.
    pub const CONTENT_HASH: &str = "content_hash";
    /// 1 when a thumbnail is stored.
    pub const THUMBNAIL: &str = "thumbnail";
    /// Pages showing it.
    pub const PAGES: &str = "pages";
    /// Fetch time, ms since the Unix epoch.
    pub const FETCHED_AT: &str = "fetched_at";
}

/// The image index of a generation directory.
pub fn images_dir(generation_dir: &Path) -> PathBuf {
    generation_dir.join("images")
}

/// The image index's schema.
pub fn image_schema() -> Schema {
    use image_fields as f;
    let mut builder = Schema::builder();
    builder.add_text_field(f::URL, STRING | STORED);
    builder.add_text_field(f::PAGE_URL, STRING | STORED);
    builder.add_text_field(f::FORMAT, STRING | STORED);
    builder.add_text_field(f::ALT, text_options(true));
    builder.add_text_field(f::CONTEXT, text_options(false));
    builder.add_text_field(f::PAGE_TITLE, text_options(true));
    builder.add_text_field(f::FILE_NAME, text_options(false));
    for name in [
        f::WIDTH,
        f::HEIGHT,
        f::BYTES,
        f::JPEG_QUALITY,
        f::CONTENT_HASH,
        f::THUMBNAIL,
        f::PAGES,
        f::FETCHED_AT,
    ] {
        builder.add_u64_field(name, FAST | STORED);
    }
    builder.build()
}

/// Handles on every field of the image index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageFields {
    /// The image's URL.
    pub url: Field,
    /// The best page showing it.
    pub page_url: Field,
    /// Its format.
    pub format: Field,
    /// Alt texts and titles.
    pub alt: Field,
    /// Words around it.
    pub context: Field,
    /// Titles of the pages showing it.
    pub page_title: Field,
    /// Its file name's words.
    pub file_name: Field,
    /// Width in pixels.
    pub width: Field,
    /// Height in pixels.
    pub height: Field,
    /// Body bytes.
    pub bytes: Field,
    /// A JPEG's quality (0: none).
    pub jpeg_quality: Field,
    /// Its thumbnail's key.
    pub content_hash: Field,
    /// 1 when a thumbnail is stored.
    pub thumbnail: Field,
    /// Pages showing it.
    pub pages: Field,
    /// Fetch time.
    pub fetched_at: Field,
}

impl ImageFields {
    /// The handles of `schema`; an error names a field it lacks (an index of another
    /// version).
    pub fn new(schema: &Schema) -> Result<Self, Error> {
        use image_fields as f;
        let get = |name: &str| {
            schema
                .get_field(name)
                .map_err(|_| Error::MissingField(name.to_string()))
        };
        Ok(Self {
            url: get(f::URL)?,
            page_url: get(f::PAGE_URL)?,
            format: get(f::FORMAT)?,
            alt: get(f::ALT)?,
            context: get(f::CONTEXT)?,
            page_title: get(f::PAGE_TITLE)?,
            file_name: get(f::FILE_NAME)?,
            width: get(f::WIDTH)?,
            height: get(f::HEIGHT)?,
            bytes: get(f::BYTES)?,
            jpeg_quality: get(f::JPEG_QUALITY)?,
            content_hash: get(f::CONTENT_HASH)?,
            thumbnail: get(f::THUMBNAIL)?,
            pages: get(f::PAGES)?,
            fetched_at: get(f::FETCHED_AT)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_image_field_is_found() {
        let fields = ImageFields::new(&image_schema()).expect("all fields");
        assert_ne!(fields.alt, fields.context);
        assert!(
            ImageFields::new(&crate::schema()).is_err(),
            "the page schema is another"
        );
    }
}
