//! Host templates: the blocks of text a site repeats on a large share of its pages (menus,
//! breadcrumbs, banners, footers, widget labels), learned during a build and left out of
//! every document of that site, body and snippets alike.
//!
//! Learning happens in pass 1 of a build ([`TemplateLearner`]), which reads every page's
//! record anyway: pages come in URL order, so the pages of one origin (scheme, host, port)
//! come together. Of each origin, the [`SAMPLE_PAGES`] pages with the smallest xxh3 hash of
//! their URL are kept (compressed, only while that origin is read): a sample spread over the
//! whole site, the same in every build until a page with a smaller hash appears. When the
//! origin ends, the sample is parsed once ([`crate::text::block_hashes`]), and a block whose
//! text (whitespace collapsed) is on at least [`TEMPLATE_PERCENT`] of the sampled pages, and
//! on at least [`MIN_PAGES`] of them, is part of the origin's template.
//!
//! Bounded: one origin's sample at a time, at most [`MAX_BLOCKS`] hashes per template and
//! [`MAX_HOSTS`] templates (origins past that get none: their pages keep their repeated
//! text, the structural and link-density rules still apply). An origin with fewer than
//! [`MIN_PAGES`] pages has no template: nothing repeats.
//!
//! A document's fingerprint includes its origin's [`HostTemplate::digest`], so a template that
//! changes re-indexes its site's documents in an incremental build.

use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use shared::record::{CompressedBody, PageRecord};
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::text;

/// Pages sampled per origin.
pub const SAMPLE_PAGES: usize = 32;
/// Least sampled pages a block is on to be part of the template (and least pages an origin
/// has to have one).
pub const MIN_PAGES: usize = 4;
/// Least share of the sampled pages, in percent, a block is on to be part of the template.
/// Chrome is on nearly every page (90-100% measured on the SQLite, Apache, Rust and Git docs);
/// half keeps content that a few sections share (a module's boilerplate paragraph) searchable.
pub const TEMPLATE_PERCENT: usize = 50;
/// Most blocks in one template.
pub const MAX_BLOCKS: usize = 256;
/// Most origins with a template.
pub const MAX_HOSTS: usize = 100_000;

/// The blocks one origin repeats: hashes of their text, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostTemplate {
    blocks: Vec<u64>,
}

impl HostTemplate {
    /// A template of these block hashes.
    pub fn new(mut blocks: Vec<u64>) -> Self {
        blocks.sort_unstable();
        blocks.dedup();
        Self { blocks }
    }

    /// No blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// How many blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// The block of this hash is part of the template.
    pub fn contains(&self, hash: u64) -> bool {
        self.blocks.binary_search(&hash).is_ok()
    }

    /// A hash of the whole template, 0 for none (part of a document's fingerprint).
    pub fn digest(&self) -> u64 {
        if self.blocks.is_empty() {
            return 0;
        }
        let mut h = Xxh3::new();
        for block in &self.blocks {
            h.update(&block.to_le_bytes());
        }
        h.digest()
    }
}

/// Every origin's template, learned in one build.
#[derive(Clone, Debug, Default)]
pub struct Templates {
    by_origin: HashMap<String, Arc<HostTemplate>>,
    /// Origins that would have had a template past [`MAX_HOSTS`].
    pub dropped: usize,
}

impl Templates {
    /// The template of the origin of `url` (an empty one when it has none).
    pub fn of_url(&self, url: &str) -> Arc<HostTemplate> {
        self.by_origin.get(origin(url)).cloned().unwrap_or_default()
    }

    /// Origins with a template.
    pub fn hosts(&self) -> usize {
        self.by_origin.len()
    }

    /// Blocks in all templates.
    pub fn blocks(&self) -> usize {
        self.by_origin.values().map(|t| t.len()).sum()
    }
}

/// `scheme://host:port` of a URL: everything before the path (the whole string when it has
/// none).
pub fn origin(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url[after_scheme..].find(['/', '?', '#']) {
        Some(at) => &url[..after_scheme + at],
        None => url,
    }
}

/// Learns templates from pages offered in URL order: see the module docs.
#[derive(Default)]
pub struct TemplateLearner {
    templates: Templates,
    /// The origin being read, its page count and its sample so far: the pages with the
    /// smallest URL hashes (a max-heap on the hash, so the largest is dropped first).
    current: String,
    pages: usize,
    sample: BinaryHeap<(u64, String, SampledBody)>,
}

/// A sampled page's body; ordered by nothing (the heap orders by the URL hash and URL).
struct SampledBody(CompressedBody);

impl PartialEq for SampledBody {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for SampledBody {}
impl PartialOrd for SampledBody {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for SampledBody {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl TemplateLearner {
    /// A learner with no templates yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Offers a stored page (pages in URL order). Pages without a body, failed fetches and
    /// `noindex` pages are not sampled.
    pub fn offer(&mut self, page: &PageRecord) {
        let page_origin = origin(&page.url);
        if page_origin != self.current {
            self.end_origin();
            self.current = page_origin.to_string();
        }
        if page.body_len == 0 || page.robots.noindex || !(200..300).contains(&page.status) {
            return;
        }
        self.pages += 1;
        let hash = xxh3_64(page.url.as_bytes());
        if self.sample.len() >= SAMPLE_PAGES {
            match self.sample.peek() {
                Some((largest, url, _)) if (hash, &page.url) < (*largest, url) => {
                    self.sample.pop();
                }
                _ => return,
            }
        }
        self.sample
            .push((hash, page.url.clone(), SampledBody(page.body.clone())));
    }

    /// Every template learned (the last origin's included).
    pub fn finish(mut self) -> Templates {
        self.end_origin();
        self.templates
    }

    /// Learns the template of the origin just read from its sample.
    fn end_origin(&mut self) {
        let sample = std::mem::take(&mut self.sample);
        let pages = std::mem::take(&mut self.pages);
        if pages < MIN_PAGES {
            return;
        }
        let mut seen: HashMap<u64, usize> = HashMap::new();
        let mut parsed = 0;
        for (_, _, SampledBody(body)) in sample {
            let Ok(html) = body.decompress() else {
                continue;
            };
            parsed += 1;
            let mut blocks = text::block_hashes(&html);
            blocks.sort_unstable();
            blocks.dedup();
            for block in blocks {
                *seen.entry(block).or_default() += 1;
            }
        }
        let least = MIN_PAGES.max((parsed * TEMPLATE_PERCENT).div_ceil(100));
        let mut common: Vec<(usize, u64)> = seen
            .into_iter()
            .filter(|&(_, on)| on >= least)
            .map(|(block, on)| (on, block))
            .collect();
        if common.is_empty() {
            return;
        }
        if self.templates.by_origin.len() >= MAX_HOSTS {
            self.templates.dropped += 1;
            return;
        }
        // The most common first, then by hash: the same template in every build.
        common.sort_unstable_by(|a, b| b.cmp(a));
        common.truncate(MAX_BLOCKS);
        let template = HostTemplate::new(common.into_iter().map(|(_, block)| block).collect());
        self.templates
            .by_origin
            .insert(std::mem::take(&mut self.current), Arc::new(template));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_scheme_host_and_port() {
        assert_eq!(origin("http://a.test/x/y"), "http://a.test");
        assert_eq!(origin("https://a.test:8080/"), "https://a.test:8080");
        assert_eq!(origin("http://a.test?q"), "http://a.test");
        assert_eq!(origin("http://a.test"), "http://a.test");
        assert_eq!(origin("no scheme/x"), "no scheme");
    }

    fn page(url: &str, html: &str) -> PageRecord {
        PageRecord {
            url: url.into(),
            status: 200,
            body: CompressedBody::compress(html),
            body_len: html.len() as u64,
            ..PageRecord::default()
        }
    }

    #[test]
    fn blocks_on_most_pages_are_learned_per_origin() {
        let mut learner = TemplateLearner::new();
        for i in 0..10 {
            let html = format!(
                "<div class=menu>Home Docs Download</div><p>Page {i} has its own text.</p>\
                 {}",
                if i < 3 { "<p>Shared by a few.</p>" } else { "" }
            );
            learner.offer(&page(&format!("http://a.test/p{i}"), &html));
        }
        for i in 0..3 {
            learner.offer(&page(
                &format!("http://small.test/p{i}"),
                "<div>Same on every page</div>",
            ));
        }
        let templates = learner.finish();
        assert_eq!(templates.hosts(), 1, "the small origin has too few pages");
        let a = templates.of_url("http://a.test/new");
        assert!(a.contains(text::blocks::block_hash("Home Docs Download")));
        assert!(!a.contains(text::blocks::block_hash("Shared by a few.")));
        assert!(!a.contains(text::blocks::block_hash("Page 1 has its own text.")));
        assert!(templates.of_url("http://small.test/p0").is_empty());
        assert_ne!(a.digest(), 0);
        assert_eq!(HostTemplate::default().digest(), 0);
    }

    #[test]
    fn the_sample_is_bounded_and_the_same_whatever_came_first() {
        let learn = |order: &[usize]| {
            let mut learner = TemplateLearner::new();
            for &i in order {
                learner.offer(&page(&format!("http://a.test/p{i:03}"), "<p>same</p>"));
            }
            assert!(learner.sample.len() <= SAMPLE_PAGES);
            let mut urls: Vec<String> = learner
                .sample
                .iter()
                .map(|(_, url, _)| url.clone())
                .collect();
            urls.sort();
            urls
        };
        let forward: Vec<usize> = (0..200).collect();
        let backward: Vec<usize> = (0..200).rev().collect();
        let sample = learn(&forward);
        assert_eq!(sample.len(), SAMPLE_PAGES);
        assert_eq!(sample, learn(&backward));
    }
}
