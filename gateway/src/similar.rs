//! Similar pages (`/similar?url=`, `/api/similar?url=`): the words that say most about a
//! page, searched as any of them, the page itself and its copies left out.
//!
//! The shard holding the page picks its words (a remote leaf through `/leaf/terms`): its
//! title and opening text cut as the `*_exact` fields are, each word weighed by how often it
//! comes in each (a title's words count [`TITLE_WEIGHT`] times) times how rare it is in that
//! field over the shard (BM25's idf: a site's name in every title weighs nothing), leaving out words of fewer than three characters, numbers, the
//! stop words of the page's language and words no other page of the shard holds. The best [`SIMILAR_WORDS`] are searched with `OR`
//! through the usual rounds over every shard, so the ranking is the engine's own: pages
//! sharing more of the words, and the rarer ones, first. The page itself and its near-copies
//! (a body simhash within `shared::simhash::NEAR_DISTANCE` bits) are taken out.

use std::collections::HashMap;

use index_format::stop_words::StopWords;
use tantivy::Term;
use tantivy::tokenizer::TokenStream;

use crate::accept_language::Preferred;
use crate::hit::{Hit, Order, Ranking, SimilarTo, TermsRequest};
use crate::leaf::{LocalShards, find};
use crate::replicas::Pending;
use crate::search::{MAX_PER_PAGE, SearchResults, Searcher};
use crate::search_error::SearchError;
use crate::shard::Shard;
use crate::stored::StoredPage;

/// Words searched for a page's likes.
pub const SIMILAR_WORDS: usize = 20;
/// How many times a word of the title counts.
const TITLE_WEIGHT: usize = 3;
/// The shortest word chosen, in characters.
const MIN_WORD_CHARS: usize = 3;

impl LocalShards {
    /// The page at `url` (or the one holding it as a copy) and its weightiest words, if a
    /// local shard holds it.
    pub fn terms_of(&self, url: &str) -> Result<Option<SimilarTo>, SearchError> {
        for copies in [false, true] {
            for shard in self.shards() {
                if let Some(found) = terms_in(shard, url, copies)? {
                    return Ok(Some(found));
                }
            }
        }
        Ok(None)
    }
}

fn terms_in(shard: &Shard, url: &str, copies: bool) -> Result<Option<SimilarTo>, SearchError> {
    let Some(loaded) = shard.current() else {
        return Ok(None);
    };
    let fields = &loaded.fields;
    let searcher = loaded.reader.searcher();
    let field = if copies { fields.copies } else { fields.url };
    let Some(address) = find(&searcher, field, url)? else {
        return Ok(None);
    };
    let page: StoredPage = searcher.doc(address)?;
    let title = page.text(fields.title).to_string();
    let mut analyzer = loaded.index.tokenizer_for_field(fields.body_exact)?;
    let stop_words = StopWords::of(page.text(fields.lang));
    // Each word's count in the title and in the opening text, weighed by its rarity in
    // that field: a site's name in every title says nothing of the page.
    let mut counts: HashMap<String, [usize; 2]> = HashMap::new();
    for (at, text) in [title.as_str(), page.text(fields.body_start)]
        .into_iter()
        .enumerate()
    {
        let mut stream = analyzer.token_stream(text);
        while let Some(token) = stream.next() {
            let word = &token.text;
            let stop = stop_words
                .as_ref()
                .is_some_and(|stops| stops.contains(word));
            if word.chars().count() >= MIN_WORD_CHARS
                && !word.chars().all(char::is_numeric)
                && !stop
            {
                counts.entry(word.clone()).or_default()[at] += 1;
            }
        }
    }
    let docs = searcher.num_docs() as f64;
    let idf = |df: f64| (1.0 + (docs - df + 0.5) / (df + 0.5)).ln();
    let mut weighed: Vec<(f64, String)> = Vec::with_capacity(counts.len());
    for (word, [in_title, in_body]) in counts {
        let df = |field| searcher.doc_freq(&Term::from_field_text(field, &word));
        let (title_df, body_df) = (
            df(fields.title_exact)? as f64,
            df(fields.body_exact)? as f64,
        );
        // A word of this page alone finds no other page.
        if title_df < 2.0 && body_df < 2.0 {
            continue;
        }
        let weight =
            (in_title * TITLE_WEIGHT) as f64 * idf(title_df) + in_body as f64 * idf(body_df);
        weighed.push((weight, word));
    }
    weighed.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(Some(SimilarTo {
        simhash: page.number(fields.simhash).unwrap_or(0),
        url: page.text(fields.url).to_string(),
        title,
        words: weighed
            .into_iter()
            .take(SIMILAR_WORDS)
            .map(|(_, word)| word)
            .collect(),
    }))
}

impl Searcher {
    /// The page at `url` (or the one holding it as a copy) and its words, from the local
    /// shards, else the first leaf holding it.
    fn similar_source(&self, url: &str) -> Result<Option<SimilarTo>, SearchError> {
        if let Some(found) = self.local().terms_of(url)? {
            return Ok(Some(found));
        }
        let request = TermsRequest {
            url: url.to_string(),
        };
        let asked: Vec<Pending<Option<SimilarTo>>> = self
            .leaves()
            .iter()
            .map(|leaf| leaf.ask("/leaf/terms", &request))
            .collect();
        for pending in asked {
            match pending.wait() {
                Ok(Some(found)) => return Ok(Some(found)),
                Ok(None) => {}
                Err(error) => tracing::warn!(%error, "a leaf did not answer for a page's words"),
            }
        }
        Ok(None)
    }

    /// The `per_page` pages most like the indexed page at `url` (one page of them: the
    /// likes of a page are a short list), best first, the page and its copies left out;
    /// `None` when no shard holds it. The results name the page and the words searched.
    pub fn similar(
        &self,
        url: &str,
        per_page: usize,
        preferred: &Preferred,
    ) -> Result<Option<SearchResults>, SearchError> {
        let Some(source) = self.similar_source(url)? else {
            return Ok(None);
        };
        let per_page = per_page.clamp(1, MAX_PER_PAGE - 1);
        let mut results = if source.words.is_empty() {
            SearchResults {
                page: 1,
                ..SearchResults::default()
            }
        } else {
            let query = source.words.join(" OR ");
            self.search_for(
                &query,
                1,
                per_page + 1,
                false,
                Ranking::Full,
                preferred,
                Order::Relevance,
            )?
        };
        let before = results.hits.len();
        let copy = |hit: &Hit| {
            hit.url == source.url
                || (source.simhash != 0
                    && hit.simhash != 0
                    && shared::simhash::is_near(hit.simhash, source.simhash))
        };
        results.hits.retain(|hit| !copy(hit));
        results.total = results
            .total
            .saturating_sub((before - results.hits.len()) as u64);
        results.hits.truncate(per_page);
        results.per_page = per_page;
        results.similar_to = Some(source);
        Ok(Some(results))
    }
}

#[cfg(test)]
mod tests {
    use crate::routes_tests::{get, json, start};
    use crate::testutil::{Doc, data_with};

    const HERON: &str = "The great blue heron stalks the estuary shallows at dawn, spearing \
        fish with its bill. Herons nest in colonies in tall trees near the water, and a \
        heron colony can hold hundreds of nests; the young fledge in summer.";

    fn pages() -> Vec<Doc> {
        vec![
            Doc::new(
                "http://birds.test/heron",
                "Great blue heron (Ardea herodias)",
                HERON,
            ),
            // The same page elsewhere: a copy, never one of its likes.
            Doc::new("http://mirror.test/birds/heron", "Great blue heron", HERON),
            Doc::new(
                "http://birds.test/egret",
                "Great egret",
                "The great egret stalks the estuary shallows beside the heron, spearing fish. \
                 Egrets nest in colonies with herons in tall trees near the water.",
            ),
            Doc::new(
                "http://birds.test/gull",
                "Western gull",
                "Gulls scavenge the harbor and the beach, and nest on sea cliffs.",
            ),
            Doc::new(
                "http://tides.test/tables",
                "Tide tables",
                "Low tide and high tide times for the harbor, with the phases of the moon.",
            ),
        ]
    }

    fn urls(answer: &serde_json::Value) -> Vec<&str> {
        answer["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .map(|hit| hit["url"].as_str().expect("url"))
            .collect()
    }

    #[tokio::test]
    async fn similar_pages_share_the_pages_weightiest_words_and_leave_out_the_page_and_its_copies()
    {
        let data = data_with(&pages());
        let server = start(data.path()).await;

        let answer = json(&get(server.addr, "/api/similar?url=http://birds.test/heron").await);
        assert_eq!(answer["similar_to"]["url"], "http://birds.test/heron");
        assert_eq!(
            answer["similar_to"]["title"],
            "Great blue heron (Ardea herodias)"
        );
        let words: Vec<&str> = answer["similar_to"]["words"]
            .as_array()
            .expect("words")
            .iter()
            .map(|w| w.as_str().expect("a word"))
            .collect();
        assert!(
            words.contains(&"heron") && words.contains(&"estuary"),
            "{words:?}"
        );
        // Words of the page alone (its title's Latin name) find no other page, and its
        // language's stop words say nothing of it: left out.
        for left_out in ["ardea", "herodias", "the", "with", "and"] {
            assert!(!words.contains(&left_out), "{left_out}: {words:?}");
        }
        let found = urls(&answer);
        assert_eq!(found.first(), Some(&"http://birds.test/egret"), "{answer}");
        assert!(!found.contains(&"http://birds.test/heron"), "{found:?}");
        assert!(
            !found.contains(&"http://mirror.test/birds/heron"),
            "a copy: {found:?}"
        );
        // Asked by its copy's URL: the same likes, the copy and the page still left out.
        let by_copy = json(
            &get(
                server.addr,
                "/api/similar?url=http://mirror.test/birds/heron",
            )
            .await,
        );
        assert!(
            !urls(&by_copy).iter().any(|u| u.ends_with("/heron")),
            "{by_copy}"
        );
        assert_eq!(urls(&by_copy).first(), Some(&"http://birds.test/egret"));

        let page = get(server.addr, "/similar?url=http://birds.test/heron").await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("Pages like"), "{}", page.body);
        assert!(
            page.body.contains("href=\"http://birds.test/egret\""),
            "{}",
            page.body
        );

        // Each result of a search links to its likes.
        let search = get(server.addr, "/search?q=gull").await;
        assert!(
            search
                .body
                .contains("href=\"/similar?url=http%3A%2F%2Fbirds.test%2Fgull\""),
            "{}",
            search.body
        );

        // A page the index does not hold: 404, saying so, in JSON and HTML; escaped.
        let missing = get(server.addr, "/api/similar?url=http://nowhere.test/%3Cb%3E").await;
        assert_eq!(missing.status, 404);
        assert!(
            missing.body.contains("is not in the index"),
            "{}",
            missing.body
        );
        let missing = get(server.addr, "/similar?url=http://nowhere.test/%3Cb%3E").await;
        assert_eq!(missing.status, 404);
        assert!(!missing.body.contains("<b>"), "{}", missing.body);
        assert_eq!(get(server.addr, "/api/similar").await.status, 404);
    }
}
