//! Host templates: the blocks of text a site repeats on a large share of its pages (menus,
//! breadcrumbs, banners, footers, widget labels), learned during a build and left out of
//! every document of that site, body and snippets alike.
//!
//! A site is an origin (scheme, host, port) and, within it, a *section*: the pages under one
//! first path segment (`/book/`, `/std/`, `/blog/`), since one host often serves several
//! sites made with different tools (the Rust docs: rustdoc's API pages, a dozen mdBooks).
//! Learning happens in pass 1 of a build ([`TemplateLearner`]), which reads every page's
//! record anyway: pages come in URL order, so the pages of one section come together. Of
//! each section, the [`SAMPLE_PAGES`] pages with the smallest xxh3 hash of their URL are kept
//! (compressed, only while that section is read): a sample spread over the section, the same
//! in every build until a page with a smaller hash appears. When the section ends, its
//! sample is parsed once ([`crate::text::block_hashes`]); a block on at least
//! [`TEMPLATE_PERCENT`] of them (and at least [`MIN_PAGES`]) is the section's. When the
//! origin ends, a block on that share of all its sections' sampled pages is the origin's.
//! A page's template is its section's and its origin's together. A sampled page is parsed
//! as it is indexed: a page rendered in a browser as its document after scripts (its render
//! read by the walk beside the pages), so a template that scripts write is learned.
//!
//! Bounded: one section's sample at a time, the block counts of one origin's sections
//! ([`MAX_SECTIONS`]; later sections share one sample), at most [`MAX_BLOCKS`] hashes per
//! template and [`MAX_HOSTS`] templates (sites past that get none: their pages keep their
//! repeated text, the structural and link-density rules still apply). A section with fewer
//! than [`MIN_PAGES`] pages has no template of its own: nothing repeats. At most
//! `MAX_SECTIONS * SAMPLE_PAGES` pages of an origin are parsed twice.
//!
//! A document's fingerprint includes its template's [`HostTemplate::digest`], so a template
//! that changes re-indexes its site's documents in an incremental build.

use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use shared::ContentKind;
use shared::record::{CompressedBody, PageRecord};
use xxhash_rust::xxh3::xxh3_64;

use crate::text::{self, HostTemplate};

/// Pages sampled per section.
pub const SAMPLE_PAGES: usize = 16;
/// Sections of one origin sampled apart; the pages of later ones are sampled together.
pub const MAX_SECTIONS: usize = 64;
/// Least sampled pages a block is on to be part of the template (and least pages an origin
/// has to have one).
pub const MIN_PAGES: usize = 4;
/// Least share of the sampled pages, in percent, a block is on to be part of the template.
/// Chrome is on nearly every page (90-100% measured on the SQLite, Apache, Rust and Git docs);
/// half keeps content that a few sections share (a module's boilerplate paragraph) searchable.
pub const TEMPLATE_PERCENT: usize = 50;
/// Most blocks in one template.
pub const MAX_BLOCKS: usize = 256;
/// Most templates (origins and sections).
pub const MAX_HOSTS: usize = 100_000;

/// Every site's template, learned in one build, by section (`origin/segment/`) or origin.
#[derive(Clone, Debug, Default)]
pub struct Templates {
    by_site: HashMap<String, Arc<HostTemplate>>,
    /// Sites that would have had a template past [`MAX_HOSTS`].
    pub dropped: usize,
}

impl Templates {
    /// The template of the page at `url`: its section's (with its origin's blocks), else its
    /// origin's, else an empty one.
    pub fn of_url(&self, url: &str) -> Arc<HostTemplate> {
        [section(url), origin(url)]
            .into_iter()
            .find_map(|site| self.by_site.get(site))
            .cloned()
            .unwrap_or_default()
    }

    /// Sites (origins and sections) with a template.
    pub fn hosts(&self) -> usize {
        self.by_site.len()
    }

    /// Blocks in all templates.
    pub fn blocks(&self) -> usize {
        self.by_site.values().map(|t| t.len()).sum()
    }

    fn insert(&mut self, site: String, blocks: Vec<u64>) {
        if self.by_site.len() >= MAX_HOSTS {
            self.dropped += 1;
            return;
        }
        self.by_site
            .insert(site, Arc::new(HostTemplate::new(blocks)));
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

/// `scheme://host:port/segment/` of a URL whose path has a first folder, else its origin.
pub fn section(url: &str) -> &str {
    let origin = origin(url);
    let rest = &url[origin.len()..];
    match rest
        .strip_prefix('/')
        .and_then(|path| path.find(['/', '?', '#']).map(|at| (path, at)))
    {
        Some((path, at)) if path.as_bytes().get(at) == Some(&b'/') && at > 0 => {
            &url[..origin.len() + 1 + at + 1]
        }
        _ => origin,
    }
}

/// Learns templates from pages offered in URL order: see the module docs.
#[derive(Default)]
pub struct TemplateLearner {
    templates: Templates,
    /// The origin being read, its sections' block counts so far, and its sampled pages.
    origin: String,
    sections: Vec<SectionCounts>,
    origin_sampled: usize,
    /// The section being read (its key, or the origin's when past [`MAX_SECTIONS`]), its
    /// page count and its sample so far: the pages with the smallest URL hashes (a max-heap
    /// on the hash, so the largest is dropped first).
    section: String,
    pages: usize,
    sample: BinaryHeap<(u64, String, SampledBody)>,
}

/// What one section's sample held: on how many of its pages each block is.
struct SectionCounts {
    site: String,
    sampled: usize,
    blocks: HashMap<u64, usize>,
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
    /// `noindex` pages are not sampled. A page the sample takes is read as it is indexed:
    /// `rendered` gives its document after scripts when it was rendered (`None`: its stored
    /// body), so a template that scripts write is learned from what they wrote; it is asked
    /// for only then, and its error is handed back.
    pub fn offer<E>(
        &mut self,
        page: &PageRecord,
        rendered: impl FnOnce() -> Result<Option<CompressedBody>, E>,
    ) -> Result<(), E> {
        let page_origin = origin(&page.url);
        if page_origin != self.origin {
            self.end_section();
            self.end_origin();
            self.origin = page_origin.to_string();
        }
        let page_section = if self.sections.len() < MAX_SECTIONS {
            section(&page.url)
        } else {
            page_origin
        };
        if page_section != self.section {
            self.end_section();
            self.section = page_section.to_string();
        }
        if page.body_len == 0
            || page.robots.noindex
            || !(200..300).contains(&page.status)
            || page.kind != ContentKind::Html
        {
            return Ok(());
        }
        self.pages += 1;
        let hash = xxh3_64(page.url.as_bytes());
        if self.sample.len() >= SAMPLE_PAGES {
            match self.sample.peek() {
                Some((largest, url, _)) if (hash, &page.url) < (*largest, url) => {
                    self.sample.pop();
                }
                _ => return Ok(()),
            }
        }
        let body = rendered()?.unwrap_or_else(|| page.body.clone());
        self.sample
            .push((hash, page.url.clone(), SampledBody(body)));
        Ok(())
    }

    /// Every template learned (the last origin's included).
    pub fn finish(mut self) -> Templates {
        self.end_section();
        self.end_origin();
        self.templates
    }

    /// Parses the sample of the section just read and keeps its block counts.
    fn end_section(&mut self) {
        let sample = std::mem::take(&mut self.sample);
        let pages = std::mem::take(&mut self.pages);
        let site = std::mem::take(&mut self.section);
        if pages < MIN_PAGES {
            // Too few pages to show a block on MIN_PAGES of them: not parsed.
            return;
        }
        let mut counts = SectionCounts {
            site,
            sampled: 0,
            blocks: HashMap::new(),
        };
        for (_, _, SampledBody(body)) in sample {
            let Ok(html) = body.decompress() else {
                continue;
            };
            counts.sampled += 1;
            let mut blocks = text::block_hashes(&html);
            blocks.sort_unstable();
            blocks.dedup();
            for block in blocks {
                *counts.blocks.entry(block).or_default() += 1;
            }
        }
        self.origin_sampled += counts.sampled;
        // A section past the cap is read under the origin's key, maybe more than once.
        match self.sections.iter_mut().find(|s| s.site == counts.site) {
            Some(same) => {
                same.sampled += counts.sampled;
                for (block, on) in counts.blocks {
                    *same.blocks.entry(block).or_default() += on;
                }
            }
            None => self.sections.push(counts),
        }
    }

    /// Learns the templates of the origin just read and of its sections.
    fn end_origin(&mut self) {
        let sections = std::mem::take(&mut self.sections);
        let sampled = std::mem::take(&mut self.origin_sampled);
        let origin = std::mem::take(&mut self.origin);
        let mut on_origin: HashMap<u64, usize> = HashMap::new();
        for section in &sections {
            for (&block, &on) in &section.blocks {
                *on_origin.entry(block).or_default() += on;
            }
        }
        let origin_blocks = common(on_origin, sampled);
        for section in sections {
            if section.site == origin {
                continue;
            }
            let own = common(section.blocks, section.sampled);
            if own.is_empty() {
                continue;
            }
            let mut blocks = origin_blocks.clone();
            blocks.extend(own);
            blocks.truncate(MAX_BLOCKS);
            self.templates.insert(section.site, blocks);
        }
        if !origin_blocks.is_empty() {
            self.templates.insert(origin, origin_blocks);
        }
    }
}

/// The blocks on at least [`TEMPLATE_PERCENT`] (and [`MIN_PAGES`]) of `sampled` pages, the
/// most common first, then by hash (the same in every build), at most [`MAX_BLOCKS`].
fn common(on: HashMap<u64, usize>, sampled: usize) -> Vec<u64> {
    let least = MIN_PAGES.max((sampled * TEMPLATE_PERCENT).div_ceil(100));
    let mut common: Vec<(usize, u64)> = on
        .into_iter()
        .filter(|&(_, on)| on >= least)
        .map(|(block, on)| (on, block))
        .collect();
    common.sort_unstable_by(|a, b| b.cmp(a));
    common.truncate(MAX_BLOCKS);
    common.into_iter().map(|(_, block)| block).collect()
}

/// Offers `page` to `learner` as a page that was not rendered.
#[cfg(test)]
pub(crate) fn offer_static(learner: &mut TemplateLearner, page: &PageRecord) {
    let offered = learner.offer(page, || Ok::<_, std::convert::Infallible>(None));
    offered.unwrap_or_else(|never| match never {});
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

    #[test]
    fn sections_are_first_folders() {
        assert_eq!(
            section("http://a.test/book/ch1.html"),
            "http://a.test/book/"
        );
        assert_eq!(section("http://a.test/book/"), "http://a.test/book/");
        assert_eq!(
            section("http://a.test/std/vec/struct.Vec.html"),
            "http://a.test/std/"
        );
        assert_eq!(section("http://a.test/index.html"), "http://a.test");
        assert_eq!(section("http://a.test/"), "http://a.test");
        assert_eq!(section("http://a.test//x/y"), "http://a.test");
        assert_eq!(section("http://a.test/x?y=/z/"), "http://a.test");
        assert_eq!(section("http://a.test"), "http://a.test");
    }

    #[test]
    fn each_section_learns_its_own_chrome_and_shares_the_origins() {
        let mut learner = TemplateLearner::new();
        for i in 0..6 {
            let html = format!(
                "<div>Site banner text</div><div>Book theme picker</div><p>Chapter {i}</p>"
            );
            offer_static(
                &mut learner,
                &page(&format!("http://a.test/book/ch{i}.html"), &html),
            );
        }
        for i in 0..6 {
            let html =
                format!("<div>Site banner text</div><div>Expand this item</div><p>Item {i}</p>");
            offer_static(
                &mut learner,
                &page(&format!("http://a.test/std/item{i}.html"), &html),
            );
        }
        for i in 0..6 {
            let html = format!("<div>Site banner text</div><p>Guide {i}</p>");
            offer_static(
                &mut learner,
                &page(&format!("http://a.test/guide/g{i}.html"), &html),
            );
        }
        // Two pages: too few for a section of their own, they get the origin's.
        for i in 0..2 {
            let html = format!("<div>Site banner text</div><p>Page {i}</p>");
            offer_static(
                &mut learner,
                &page(&format!("http://a.test/misc/p{i}.html"), &html),
            );
        }
        let templates = learner.finish();
        let hash = text::blocks::block_hash;
        let book = templates.of_url("http://a.test/book/new.html");
        assert!(book.contains(hash("Book theme picker")));
        assert!(book.contains(hash("Site banner text")));
        assert!(!book.contains(hash("Expand this item")));
        let std = templates.of_url("http://a.test/std/x/y.html");
        assert!(std.contains(hash("Expand this item")));
        assert!(!std.contains(hash("Book theme picker")));
        let misc = templates.of_url("http://a.test/misc/p0.html");
        assert!(misc.contains(hash("Site banner text")));
        assert!(!misc.contains(hash("Expand this item")));
        assert_eq!(misc, templates.of_url("http://a.test/root.html"));
        assert!(templates.of_url("http://b.test/book/x").is_empty());
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
            offer_static(&mut learner, &page(&format!("http://a.test/p{i}"), &html));
        }
        for i in 0..3 {
            offer_static(
                &mut learner,
                &page(
                    &format!("http://small.test/p{i}"),
                    "<div>Same on every page</div>",
                ),
            );
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
                offer_static(
                    &mut learner,
                    &page(&format!("http://a.test/p{i:03}"), "<p>same</p>"),
                );
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
