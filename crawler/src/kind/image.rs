//! Images: their format, size and JPEG quality read from the first bytes, and a thumbnail
//! made under explicit limits (the `image-reader` crate); the bytes themselves are not kept.
//! The same bytes at two URLs are thumbnailed once per run: a thumbnail is stored under the content
//! hash, and a hash already thumbnailed is not decoded again.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use shared::ContentKind;
use shared::config::CrawlerConfig;
use shared::record::{ImageInfo, MediaRecord, Thumbnail};

use super::{Body, Findings, KindReader, OverLimit, ReadContext};
use image_reader::{ImageFormat, ImageLimits, make_thumbnail, probe};

/// Content hashes remembered as thumbnailed, at most: 8 bytes each, a bound on the set
/// whatever the crawl's size (past it, a repeated image is thumbnailed again, and its
/// thumbnail written again under the same key).
const MAX_REMEMBERED: usize = 1 << 20;

/// Reads images.
pub(crate) struct ImageReader {
    limit: usize,
    limits: ImageLimits,
    /// Content hashes whose thumbnail this run made (its page write carries it).
    thumbnailed: Arc<Mutex<HashSet<u64>>>,
}

impl ImageReader {
    /// Reads images of up to `max_image_bytes`, within the default decoding limits.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        Self {
            limit: config.max_image_bytes,
            limits: ImageLimits::default(),
            thumbnailed: Arc::default(),
        }
    }
}

impl KindReader for ImageReader {
    fn kind(&self) -> ContentKind {
        ContentKind::Image
    }

    fn media_types(&self) -> &'static [&'static str] {
        &["image/"]
    }

    fn accept(&self) -> &'static str {
        "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,image/*;q=0.8"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        ImageFormat::sniff(head).is_some()
    }

    fn body_limit(&self) -> usize {
        self.limit
    }

    fn over_limit(&self) -> OverLimit {
        // The size is in the first bytes; a cut body still gives it.
        OverLimit::Cut
    }

    fn read(&self, body: Body, _context: ReadContext) -> BoxFuture<'static, Findings> {
        let limits = self.limits.clone();
        let thumbnailed = Arc::clone(&self.thumbnailed);
        tokio::task::spawn_blocking(move || read_image(&body, &limits, &thumbnailed))
            .map(Result::unwrap_or_default)
            .boxed()
    }
}

/// Reads one image body into its media record and, unless its content was thumbnailed
/// already, its thumbnail.
fn read_image(body: &Body, limits: &ImageLimits, thumbnailed: &Mutex<HashSet<u64>>) -> Findings {
    let content_hash = xxhash_rust::xxh3::xxh3_64(&body.bytes);
    let mut info = ImageInfo {
        bytes: body.bytes.len() as u64,
        content_hash,
        ..ImageInfo::default()
    };
    let facts = match probe(&body.bytes) {
        Ok(facts) => facts,
        Err(why) => {
            info.format = ImageFormat::sniff(&body.bytes)
                .map(|format| format.name().to_string())
                .unwrap_or_default();
            info.problem = Some(why.to_string());
            return image_findings(info, None);
        }
    };
    info.format = facts.format.name().to_string();
    info.width = facts.width;
    info.height = facts.height;
    info.jpeg_quality = facts.jpeg_quality;
    if body.truncated {
        // The size is read; the picture is not whole.
        info.problem = Some("cut at the size limit: no thumbnail".into());
        return image_findings(info, None);
    }
    let known = thumbnailed
        .lock()
        .map(|set| set.contains(&content_hash))
        .unwrap_or(false);
    if known {
        info.thumbnail = true;
        return image_findings(info, None);
    }
    let thumbnail = match make_thumbnail(&body.bytes, &facts, limits) {
        Ok(thumbnail) => thumbnail,
        Err(why) => {
            info.problem = Some(why.to_string());
            return image_findings(info, None);
        }
    };
    if let Ok(mut set) = thumbnailed.lock()
        && set.len() < MAX_REMEMBERED
    {
        set.insert(content_hash);
    }
    info.thumbnail = true;
    let thumbnail = Thumbnail {
        media_type: "image/jpeg".into(),
        width: thumbnail.width,
        height: thumbnail.height,
        bytes: thumbnail.jpeg,
    };
    image_findings(info, Some(thumbnail))
}

fn image_findings(info: ImageInfo, thumbnail: Option<Thumbnail>) -> Findings {
    Findings {
        media: Some(MediaRecord::Image(info)),
        thumbnail,
        ..Findings::default()
    }
}
