//! [`SearchResults`]: one page of results, as a search gives it (and a kept answer holds it),
//! and how far a user may page.

use crate::facets::Facets;
use crate::hit::{Hit, Order, SimilarTo};
use crate::synonyms::Expansion;

/// Most results per page.
pub const MAX_PER_PAGE: usize = 50;
/// Deepest first result reachable by paging (0-based offset).
pub const MAX_OFFSET: usize = 1000;

/// One page of results.
#[derive(Clone, Debug, Default)]
pub struct SearchResults {
    /// The query as typed, cut to the length limit.
    pub query: String,
    /// True when the query had nothing to search for (empty, or only punctuation).
    pub nothing_to_search: bool,
    /// Matching documents in all.
    pub total: u64,
    /// No page had every word: these are the pages with some of them. (When a few pages have
    /// every word, pages with most of them follow, each marked by [`Hit::all_words`].)
    pub partial: bool,
    /// The remote leaves that did not answer in time (or failed): their documents are
    /// missing from this answer.
    pub missing_shards: Vec<String>,
    /// The query with rare or unknown words replaced by common ones one or two edits away
    /// ("did you mean"), when there are such words.
    pub suggestion: Option<String>,
    /// Time taken, in milliseconds.
    pub took_ms: f64,
    /// Page number, from 1 (after capping).
    pub page: usize,
    /// Results per page (after capping).
    pub per_page: usize,
    /// Results, best first (or newest first: [`SearchResults::order`]).
    pub hits: Vec<Hit>,
    /// The matches (with every word) by language, kind, site and year: the facets.
    pub facets: Facets,
    /// Few pages had every word, and pages with most of them were searched for too.
    pub looser_tiers: bool,
    /// The order the hits are in (`sort=date`: newest first).
    pub order: Order,
    /// The query's words that were searched with their synonyms too, and those synonyms.
    pub synonyms: Vec<Expansion>,
    /// The page these are the likes of (`/similar?url=`), and the words searched for them.
    pub similar_to: Option<SimilarTo>,
}

impl SearchResults {
    /// The last page that can be asked for.
    pub fn last_page(&self) -> usize {
        let per_page = self.per_page.max(1);
        (self.total as usize)
            .div_ceil(per_page)
            .clamp(1, MAX_OFFSET / per_page + 1)
    }
}
