//! `Showings`: which pages show each image, the store's `images` family (page -> the images
//! it shows) inverted to image -> the pages showing it.
//!
//! Only a page that is (a copy of) a document shows an image here: a `noindex` page, a
//! redirect or an error answer lends no text. The inversion keeps no text: per page showing
//! images, its URL, its document, its in-link count and its title (cut at
//! [`MAX_TITLE_CHARS`]); per image URL shown, an 8-byte key (xxh3 of the URL), two counters and
//! at most [`MAX_REFS`] references of 8 bytes (page, position in the page's list). So memory
//! is at most about 300 bytes an image plus 300 bytes a page showing images, whatever their
//! alt texts and surroundings; the texts are read back from the store one image at a time
//! ([`super::document`]). An image shown on more than [`MAX_REFS`] pages keeps those with the
//! most in-links (the first ones, in scan order, among equals), so its best page is always
//! among them; `pages` still counts every page.

use std::collections::HashMap;

use shared::docplan::{DocId, DocPlan};
use xxhash_rust::xxh3::xxh3_64;

use crate::Error;
use crate::linkgraph::LinkGraph;
use crate::source::Source;

/// References kept per image: the pages whose alt text, title and surroundings it is
/// indexed by.
pub(crate) const MAX_REFS: usize = 32;

/// A page title kept for the images it shows, at most, in characters.
pub(crate) const MAX_TITLE_CHARS: usize = 200;

/// A page that shows images.
#[derive(Debug)]
pub(crate) struct ShowingPage {
    /// Its URL: the key of its `images` record.
    pub(crate) url: String,
    /// The store (shard) holding it: an index into the build's sources.
    pub(crate) shard: usize,
    /// Its document.
    pub(crate) doc: DocId,
    /// Distinct pages linking to its document.
    pub(crate) in_links: u64,
    /// Its title, cut.
    pub(crate) title: String,
}

/// One place an image is shown: a page and the image's position in its list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ref {
    /// The page, an index into [`Showings::page`].
    pub(crate) page: u32,
    /// The image's position in the page's `images` record.
    pub(crate) position: u16,
}

/// The pages showing one image.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    /// Distinct pages showing it.
    pub(crate) pages: u32,
    /// The last page counted (pages come one at a time, so a page showing it twice counts
    /// once).
    last_page: Option<u32>,
    /// Where it is shown, at most [`MAX_REFS`].
    pub(crate) refs: Vec<Ref>,
}

/// Every image shown by a page of the plan, with the pages showing it.
#[derive(Debug, Default)]
pub(crate) struct Showings {
    pages: Vec<ShowingPage>,
    images: HashMap<u64, Shown>,
}

impl Showings {
    /// Reads every source's `images` records (`sources[i]` is shard `i`).
    pub(crate) fn collect(
        sources: &[&Source],
        plan: &DocPlan,
        graph: &LinkGraph,
    ) -> Result<Self, Error> {
        let mut showings = Self::default();
        for (shard, source) in sources.iter().enumerate() {
            for item in source.all_page_images() {
                let (url, images) = item?;
                let Some(doc) = plan.doc_of_page(&url) else {
                    continue;
                };
                let title = source
                    .page(&url)?
                    .map(|page| page.title.chars().take(MAX_TITLE_CHARS).collect())
                    .unwrap_or_default();
                let page = showings.pages.len() as u32;
                let in_links = graph.in_links(doc);
                showings.pages.push(ShowingPage {
                    url,
                    shard,
                    doc,
                    in_links,
                    title,
                });
                for (position, image) in images.0.iter().enumerate().take(usize::from(u16::MAX)) {
                    let at = Ref {
                        page,
                        position: position as u16,
                    };
                    showings.add(xxh3_64(image.url.as_bytes()), at, in_links);
                }
            }
        }
        Ok(showings)
    }

    fn add(&mut self, key: u64, at: Ref, in_links: u64) {
        let shown = self.images.entry(key).or_default();
        if shown.last_page != Some(at.page) {
            shown.last_page = Some(at.page);
            shown.pages = shown.pages.saturating_add(1);
        }
        if shown.refs.len() < MAX_REFS {
            shown.refs.push(at);
            return;
        }
        // Full: the new place takes the slot of the least linked page, if it has more.
        let pages = &self.pages;
        let weakest = shown
            .refs
            .iter()
            .enumerate()
            .min_by_key(|(_, r)| pages.get(r.page as usize).map_or(0, |p| p.in_links))
            .map(|(i, _)| i);
        if let Some(i) = weakest
            && let Some(slot) = shown.refs.get_mut(i)
            && pages.get(slot.page as usize).map_or(0, |p| p.in_links) < in_links
        {
            *slot = at;
        }
    }

    /// The pages showing the image at `url`, if any page of the plan does.
    pub(crate) fn of(&self, url: &str) -> Option<&Shown> {
        self.images.get(&xxh3_64(url.as_bytes()))
    }

    /// A page showing images.
    pub(crate) fn page(&self, page: u32) -> Option<&ShowingPage> {
        self.pages.get(page as usize)
    }

    /// Of the places an image is shown, the one on the page with the most in-links (the
    /// first such, in scan order).
    pub(crate) fn best(&self, shown: &Shown) -> Option<Ref> {
        let mut best: Option<(Ref, u64)> = None;
        for &at in &shown.refs {
            let links = self.page(at.page).map_or(0, |p| p.in_links);
            let better = match best {
                None => true,
                Some((now, most)) => links > most || (links == most && at.page < now.page),
            };
            if better {
                best = Some((at, links));
            }
        }
        best.map(|(at, _)| at)
    }

    /// Pages showing images.
    pub(crate) fn num_pages(&self) -> usize {
        self.pages.len()
    }

    /// Distinct image URLs shown.
    pub(crate) fn num_images(&self) -> usize {
        self.images.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn showings(in_links: &[u64]) -> Showings {
        let pages = in_links
            .iter()
            .enumerate()
            .map(|(i, &in_links)| ShowingPage {
                url: format!("http://a.test/{i}"),
                shard: 0,
                doc: i as DocId,
                in_links,
                title: String::new(),
            })
            .collect();
        Showings {
            pages,
            images: HashMap::new(),
        }
    }

    #[test]
    fn an_image_on_more_pages_than_kept_keeps_its_best_linked_pages_and_counts_all() {
        // 40 pages: page 37 has 100 in-links, the others their number.
        let links: Vec<u64> = (0..40).map(|i| if i == 37 { 100 } else { i }).collect();
        let mut s = showings(&links);
        for page in 0..40u32 {
            s.add(7, Ref { page, position: 0 }, links[page as usize]);
        }
        let shown = s.images.get(&7).unwrap();
        assert_eq!(shown.pages, 40);
        assert_eq!(shown.refs.len(), MAX_REFS);
        assert_eq!(s.best(shown).map(|r| r.page), Some(37));
        // The least linked pages went first.
        assert!(shown.refs.iter().all(|r| r.page >= 8), "{:?}", shown.refs);
    }

    #[test]
    fn a_page_showing_an_image_twice_counts_once_and_keeps_both_places() {
        let mut s = showings(&[1, 2]);
        s.add(
            9,
            Ref {
                page: 0,
                position: 0,
            },
            1,
        );
        s.add(
            9,
            Ref {
                page: 0,
                position: 4,
            },
            1,
        );
        s.add(
            9,
            Ref {
                page: 1,
                position: 2,
            },
            2,
        );
        let shown = s.images.get(&9).unwrap();
        assert_eq!(shown.pages, 2);
        assert_eq!(shown.refs.len(), 3);
    }

    #[test]
    fn among_equally_linked_pages_the_first_is_best() {
        let mut s = showings(&[3, 5, 5]);
        for page in 0..3u32 {
            s.add(1, Ref { page, position: 0 }, [3, 5, 5][page as usize]);
        }
        let shown = s.images.get(&1).unwrap();
        assert_eq!(s.best(shown).map(|r| r.page), Some(1));
    }
}
