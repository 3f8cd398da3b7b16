//! Image search: [`Searcher::search_images`] over the image index of every local shard's
//! loaded generation.
//!
//! Each image's score is its BM25 over alt text, page titles, surrounding words and file
//! name ([`super::query`]) times its quality prior ([`super::prior`]). Each
//! shard's best are merged best first and the same picture at several URLs (one
//! `content_hash`) is folded into its best-scored entry, then the page asked for is cut.
//! Shards are scored with their own term statistics (not summed as the web search sums
//! them), and remote leaves are not asked: image search covers the shards of this process.
//!
//! No index at all is [`SearchError::NoIndex`], as for the web search; a generation without
//! an image index has no images, an empty answer.

use std::collections::HashSet;
use std::time::Instant;

use index_format::image_fields as f;
use tantivy::collector::{Count, TopDocs};
use tantivy::{DocAddress, Score, SegmentReader};

use super::prior::ImageFacts;
use super::query::{ImageRequest, image_query};
use crate::leaf::fast_u64;
use crate::query::UserQuery;
use crate::search::{MAX_OFFSET, MAX_PER_PAGE, Searcher};
use crate::search_error::SearchError;
use crate::stored::StoredPage;

/// One image found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImageHit {
    /// The image's URL.
    pub url: String,
    /// The best page showing it.
    pub page_url: String,
    /// That page's title.
    pub title: String,
    /// Its (first) alt text: untrusted.
    pub alt: String,
    /// Width in pixels (0: not known).
    pub width: u64,
    /// Height in pixels (0: not known).
    pub height: u64,
    /// Its format (`png`, `jpeg` ...).
    pub format: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The path of its thumbnail (`/thumb/HASH`), when one is stored.
    pub thumbnail: Option<String>,
    /// Its score: text relevance times the quality prior.
    pub score: Score,
}

/// One page of image results.
#[derive(Clone, Debug, Default)]
pub struct ImageResults {
    /// The query as typed, cut to the length limit.
    pub query: String,
    /// True when the query had no words to search for.
    pub nothing_to_search: bool,
    /// Matching images in all (before the same picture at several URLs is folded).
    pub total: u64,
    /// Time taken, in milliseconds.
    pub took_ms: f64,
    /// Page number, from 1 (after capping).
    pub page: usize,
    /// Results per page (after capping).
    pub per_page: usize,
    /// Results, best first.
    pub hits: Vec<ImageHit>,
}

impl ImageResults {
    /// The last page that can be asked for.
    pub fn last_page(&self) -> usize {
        let per_page = self.per_page.max(1);
        (self.total as usize)
            .div_ceil(per_page)
            .clamp(1, MAX_OFFSET / per_page + 1)
    }
}

/// The path `/thumb/HASH` serves the thumbnail of content hash `hash` at.
pub fn thumbnail_path(hash: u64) -> String {
    format!("/thumb/{hash:016x}")
}

/// A found image: its score, the searcher (of `searchers`) and address holding it, and its
/// content hash (0: none known, never folded).
struct Found {
    score: Score,
    searcher: usize,
    address: DocAddress,
    content_hash: u64,
}

impl Searcher {
    /// Searches the images of every local shard for `request` (see the module docs). `page`
    /// and `per_page` are capped as [`Searcher::search`] caps them.
    pub fn search_images(&self, request: &ImageRequest) -> Result<ImageResults, SearchError> {
        let started = Instant::now();
        let per_page = request.per_page.clamp(1, MAX_PER_PAGE);
        let page = request.page.clamp(1, MAX_OFFSET / per_page + 1);
        let user_query = UserQuery::parse(&request.query, self.local().max_query_len());
        let mut results = ImageResults {
            query: user_query.shown.clone(),
            nothing_to_search: user_query.is_empty(),
            page,
            per_page,
            ..ImageResults::default()
        };
        if results.nothing_to_search {
            results.took_ms = started.elapsed().as_secs_f64() * 1000.0;
            return Ok(results);
        }
        let offset = (page - 1) * per_page;
        // Room below the page for the copies folding removes.
        let limit = 3 * (offset + per_page);
        let mut any_loaded = false;
        let mut searchers = Vec::new();
        let mut found = Vec::new();
        for shard in self.local().shards() {
            let Some(loaded) = shard.current() else {
                continue;
            };
            any_loaded = true;
            let Some(images) = &loaded.images else {
                continue;
            };
            let searcher = images.reader.searcher();
            let query = image_query(&images.index, &images.fields, &user_query, request);
            let collector = (
                Count,
                TopDocs::with_limit(limit).tweak_score(|segment: &SegmentReader| {
                    let prior = PriorColumns::of(segment);
                    move |doc, score: Score| score * prior.facts(doc).prior()
                }),
            );
            let (count, top) = searcher
                .search(&*query, &collector)
                .map_err(|error| SearchError::of_query(&user_query.shown, error))?;
            results.total += count as u64;
            let place = searchers.len();
            found.extend(top.into_iter().map(|(score, address)| Found {
                score,
                searcher: place,
                address,
                content_hash: fast_u64(&searcher, address, f::CONTENT_HASH),
            }));
            searchers.push((searcher, images.fields));
        }
        if !any_loaded {
            return Err(SearchError::NoIndex);
        }
        // Stable: equal scores keep shard order, then each shard's own.
        found.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut seen = HashSet::new();
        let shown = found
            .into_iter()
            .filter(|hit| hit.content_hash == 0 || seen.insert(hit.content_hash))
            .skip(offset)
            .take(per_page);
        for hit in shown {
            let (searcher, fields) = &searchers[hit.searcher];
            let doc: StoredPage = searcher.doc(hit.address)?;
            let number = |field| doc.number(field).unwrap_or(0);
            let text = |field| doc.text(field).to_string();
            let has_thumbnail = number(fields.thumbnail) == 1 && hit.content_hash != 0;
            results.hits.push(ImageHit {
                url: text(fields.url),
                page_url: text(fields.page_url),
                title: text(fields.page_title),
                alt: text(fields.alt),
                width: number(fields.width),
                height: number(fields.height),
                format: text(fields.format),
                bytes: number(fields.bytes),
                thumbnail: has_thumbnail.then(|| thumbnail_path(hit.content_hash)),
                score: hit.score,
            });
        }
        results.took_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(results)
    }
}

/// The fast-field columns the prior reads, of one segment.
struct PriorColumns {
    width: Option<tantivy::columnar::Column<u64>>,
    height: Option<tantivy::columnar::Column<u64>>,
    jpeg_quality: Option<tantivy::columnar::Column<u64>>,
    thumbnail: Option<tantivy::columnar::Column<u64>>,
}

impl PriorColumns {
    fn of(segment: &SegmentReader) -> Self {
        let column = |name| segment.fast_fields().u64(name).ok();
        Self {
            width: column(f::WIDTH),
            height: column(f::HEIGHT),
            jpeg_quality: column(f::JPEG_QUALITY),
            thumbnail: column(f::THUMBNAIL),
        }
    }

    fn facts(&self, doc: tantivy::DocId) -> ImageFacts {
        let value = |column: &Option<tantivy::columnar::Column<u64>>| {
            column.as_ref().and_then(|c| c.first(doc)).unwrap_or(0)
        };
        ImageFacts {
            width: value(&self.width),
            height: value(&self.height),
            jpeg_quality: value(&self.jpeg_quality),
            thumbnail: value(&self.thumbnail) == 1,
        }
    }
}
