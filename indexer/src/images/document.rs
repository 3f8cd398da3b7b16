//! The document of one image: its numbers from its media record, its words from the pages
//! showing it (their alt texts, titles, surroundings and page titles), read back from the
//! store one image at a time through [`Showings`], each text cut to a bound.

use std::collections::HashMap;

use index_format::ImageFields;
use shared::record::{ImageInfo, PageImages};
use tantivy::TantivyDocument;

use super::showings::{Ref, Showings, Shown};
use crate::Error;
use crate::document::url_words;
use crate::source::Source;

/// An alt text or title kept, at most, in characters.
pub(crate) const MAX_ALT_CHARS: usize = 300;

/// The words around an image kept per page, at most, in characters.
pub(crate) const MAX_CONTEXT_CHARS: usize = 600;

/// Pages' `images` records kept between images (consecutive images are often shown on the
/// same pages); past it the cache starts again.
const CACHED_PAGES: usize = 64;

/// The words of one image, distinct, the best page's first.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ImageText {
    /// Alt texts and titles.
    pub(crate) alts: Vec<String>,
    /// The words around it.
    pub(crate) contexts: Vec<String>,
    /// The titles of the pages showing it.
    pub(crate) page_titles: Vec<String>,
}

/// Reads images' words back from the pages showing them.
pub(crate) struct Gatherer<'a> {
    sources: &'a [&'a Source],
    showings: &'a Showings,
    cache: HashMap<u32, Option<PageImages>>,
}

impl<'a> Gatherer<'a> {
    /// Reads pages from `sources` (shard `i` is `sources[i]`), as `showings` names them.
    pub(crate) fn new(sources: &'a [&'a Source], showings: &'a Showings) -> Self {
        Self {
            sources,
            showings,
            cache: HashMap::new(),
        }
    }

    /// The words the pages in `shown` give the image at `url`, the place `best` first.
    pub(crate) fn text(
        &mut self,
        url: &str,
        shown: &Shown,
        best: Option<Ref>,
    ) -> Result<ImageText, Error> {
        let mut text = ImageText::default();
        let rest = shown.refs.iter().copied().filter(|&at| Some(at) != best);
        for at in best.into_iter().chain(rest) {
            let Some(page) = self.showings.page(at.page) else {
                continue;
            };
            push_distinct(&mut text.page_titles, &page.title, MAX_ALT_CHARS);
            let Some(images) = self.images_of(at.page)? else {
                continue;
            };
            // A key shared by two URLs (an xxh3 collision) lends no words.
            let Some(image) = images
                .0
                .get(usize::from(at.position))
                .filter(|image| image.url == url)
            else {
                continue;
            };
            push_distinct(&mut text.alts, &image.alt, MAX_ALT_CHARS);
            push_distinct(&mut text.alts, &image.title, MAX_ALT_CHARS);
            push_distinct(&mut text.contexts, &image.context, MAX_CONTEXT_CHARS);
        }
        Ok(text)
    }

    fn images_of(&mut self, page: u32) -> Result<Option<&PageImages>, Error> {
        if !self.cache.contains_key(&page) {
            if self.cache.len() >= CACHED_PAGES {
                self.cache.clear();
            }
            let images = match self.showings.page(page) {
                Some(showing) => match self.sources.get(showing.shard) {
                    Some(source) => source.page_images(&showing.url)?,
                    None => None,
                },
                None => None,
            };
            self.cache.insert(page, images);
        }
        Ok(self.cache.get(&page).and_then(Option::as_ref))
    }
}

/// Adds `text`, cut to `max` characters, unless empty or there already.
fn push_distinct(list: &mut Vec<String>, text: &str, max: usize) {
    let cut: String = text.trim().chars().take(max).collect();
    let cut = cut.trim_end().to_string();
    if !cut.is_empty() && !list.contains(&cut) {
        list.push(cut);
    }
}

/// What an image document holds besides its words.
pub(crate) struct ImageFacts<'a> {
    /// The image's URL.
    pub(crate) url: &'a str,
    /// Its media record.
    pub(crate) info: &'a ImageInfo,
    /// When it was fetched, ms since the Unix epoch.
    pub(crate) fetched_at_ms: u64,
    /// The best page showing it ("" when none does).
    pub(crate) page_url: &'a str,
    /// Pages showing it.
    pub(crate) pages: u32,
}

/// The tantivy document of an image.
pub(crate) fn image_document(
    fields: &ImageFields,
    facts: &ImageFacts<'_>,
    text: &ImageText,
) -> TantivyDocument {
    let info = facts.info;
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.url, facts.url);
    doc.add_text(fields.page_url, facts.page_url);
    doc.add_text(fields.format, &info.format);
    for alt in &text.alts {
        doc.add_text(fields.alt, alt);
    }
    for context in &text.contexts {
        doc.add_text(fields.context, context);
    }
    for title in &text.page_titles {
        doc.add_text(fields.page_title, title);
    }
    doc.add_text(fields.file_name, file_name_words(facts.url));
    doc.add_u64(fields.width, u64::from(info.width));
    doc.add_u64(fields.height, u64::from(info.height));
    doc.add_u64(fields.bytes, info.bytes);
    doc.add_u64(
        fields.jpeg_quality,
        u64::from(info.jpeg_quality.unwrap_or(0)),
    );
    doc.add_u64(fields.content_hash, info.content_hash);
    doc.add_u64(fields.thumbnail, u64::from(info.thumbnail));
    doc.add_u64(fields.pages, u64::from(facts.pages));
    doc.add_u64(fields.fetched_at, facts.fetched_at_ms);
    doc
}

/// The words of a URL's last path segment, percent-decoded: `red%20panda-2.jpg` ->
/// `red panda 2 jpg`.
pub(crate) fn file_name_words(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    let Some((_, last)) = path.split_once('/') else {
        return String::new();
    };
    let last = last.rsplit('/').next().unwrap_or_default();
    url_words(&shared::url::percent_decode_lossy(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_is_its_last_segments_words_decoded() {
        assert_eq!(
            file_name_words("http://img.test/photos/red%20panda-2.jpg?size=big"),
            "red panda 2 jpg"
        );
        assert_eq!(
            file_name_words("http://img.test/a/SnowLeopard.png"),
            "SnowLeopard Snow Leopard png"
        );
        assert_eq!(file_name_words("http://img.test/"), "");
        assert_eq!(file_name_words("http://img.test"), "");
        assert_eq!(file_name_words("http://img.test/100%"), "100");
        assert_eq!(file_name_words("http://img.test/%E2%82%AC%ff.gif"), "gif");
    }

    #[test]
    fn texts_are_kept_once_and_cut_to_their_bound() {
        let mut list = Vec::new();
        push_distinct(&mut list, " a cat ", 10);
        push_distinct(&mut list, "a cat", 10);
        push_distinct(&mut list, "", 10);
        push_distinct(&mut list, &"long ".repeat(100), 10);
        assert_eq!(list, vec!["a cat".to_string(), "long long".to_string()]);
    }
}
