//! Image-search fixtures: a real image index (tantivy, `index_format::image_schema()`) in
//! a generation's `images/` directory, and thumbnails in a real RocksDB content store,
//! written as the crawler writes them (family `thumbs`, keyed by the content hash).

#![allow(clippy::unwrap_used)] // test set-up fails loudly on purpose

use std::path::Path;

use index_format::ImageFields;
use shared::record::{Record, Thumbnail};
use shared::store::{Cf, MemoryBudget, open_options, store_dir};
use tantivy::{Index, TantivyDocument};

use crate::testutil::{Doc, write_generation};

/// One image of a test image index.
#[derive(Clone, Debug)]
pub struct Img {
    pub url: &'static str,
    pub page_url: &'static str,
    pub format: &'static str,
    pub alt: &'static str,
    pub context: &'static str,
    pub page_title: &'static str,
    pub file_name: &'static str,
    pub width: u64,
    pub height: u64,
    pub bytes: u64,
    pub jpeg_quality: u64,
    pub content_hash: u64,
    pub thumbnail: bool,
}

impl Img {
    /// A good 800 x 600 PNG at `url` with a thumbnail, its content hash `hash`.
    pub fn new(url: &'static str, hash: u64) -> Self {
        Img {
            url,
            page_url: "http://birds.test/gallery",
            format: "png",
            alt: "",
            context: "",
            page_title: "",
            file_name: "",
            width: 800,
            height: 600,
            bytes: 50_000,
            jpeg_quality: 0,
            content_hash: hash,
            thumbnail: true,
        }
    }
}

fn to_document(img: &Img, f: &ImageFields) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    doc.add_text(f.url, img.url);
    doc.add_text(f.page_url, img.page_url);
    doc.add_text(f.format, img.format);
    doc.add_text(f.alt, img.alt);
    doc.add_text(f.context, img.context);
    doc.add_text(f.page_title, img.page_title);
    doc.add_text(f.file_name, img.file_name);
    doc.add_u64(f.width, img.width);
    doc.add_u64(f.height, img.height);
    doc.add_u64(f.bytes, img.bytes);
    doc.add_u64(f.jpeg_quality, img.jpeg_quality);
    doc.add_u64(f.content_hash, img.content_hash);
    doc.add_u64(f.thumbnail, u64::from(img.thumbnail));
    doc.add_u64(f.pages, 1);
    doc.add_u64(f.fetched_at, 1_700_000_000_000);
    doc
}

/// Writes the image index of generation `number` of `data` (whose page index must exist).
pub fn write_images(data: &Path, number: u32, images: &[Img]) {
    let generation = index_format::generation_dir(data, &format!("gen-{number:06}"));
    let dir = index_format::images_dir(&generation);
    std::fs::create_dir_all(&dir).unwrap();
    let index = Index::create_in_dir(&dir, index_format::image_schema()).unwrap();
    index_format::tokenize::register(&index);
    let fields = ImageFields::new(&index.schema()).unwrap();
    let mut writer = index.writer(15_000_000).unwrap();
    for img in images {
        writer.add_document(to_document(img, &fields)).unwrap();
    }
    writer.commit().unwrap();
}

/// A data directory with one generation: a page index of `pages` and an image index of
/// `images`.
pub fn data_with_images(pages: &[Doc], images: &[Img]) -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    write_generation(data.path(), 1, pages);
    write_images(data.path(), 1, images);
    data
}

/// Stores `bytes` as the thumbnail of content hash `hash` in the store of `data`.
pub fn put_thumbnail(data: &Path, hash: u64, bytes: &[u8]) {
    let budget = MemoryBudget::default();
    let db = rocksdb::DB::open_cf_descriptors(
        &open_options(&budget),
        store_dir(data),
        Cf::descriptors(&budget),
    )
    .unwrap();
    let thumbnail = Thumbnail {
        media_type: "image/jpeg".into(),
        width: 64,
        height: 48,
        bytes: bytes.to_vec(),
    };
    let family = db.cf_handle(Cf::Thumbs.name()).unwrap();
    db.put_cf(family, hash.to_be_bytes(), thumbnail.encode())
        .unwrap();
    db.flush_cf(family).unwrap();
}

/// Bytes that start as a JPEG does (SOI, APP0 "JFIF") and hold every byte value: what a
/// thumbnail is sent as must arrive unchanged.
pub fn jpeg_like_bytes() -> Vec<u8> {
    let mut bytes = vec![
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, b'J', b'F', b'I', b'F', 0x00,
    ];
    bytes.extend(0..=255u8);
    bytes.extend([0xFF, 0xD9]);
    bytes
}
