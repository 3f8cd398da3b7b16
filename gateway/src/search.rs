//! [`Searcher`]: runs queries against the current index generation and follows new ones.
//!
//! The searcher holds the loaded generation behind a lock that is only taken to clone an
//! `Arc`, so a query never waits for a reload and a reload never waits for a query: a query
//! that started on the old generation finishes on it. [`Searcher::refresh`] (called every
//! second by the server) reopens when `DATA/index/CURRENT` names another generation or was
//! rewritten; within a generation, tantivy's reader follows the indexer's commits by itself
//! (`ReloadPolicy::OnCommitWithDelay`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Instant, SystemTime};

use index_format::IndexFields;
use shared::config::RankingConfig;
use tantivy::collector::{Count, TopDocs};
use tantivy::columnar::ColumnValues;
use tantivy::query::{Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, IndexReader, ReloadPolicy, Score, SegmentReader, TantivyDocument, Term};

use crate::query::{Matching, UserQuery};
use crate::ranking::{
    Candidate, PageSignals, THIN_WORDS, demote_namesakes, demote_repeats, depth_prior, prose_prior,
    rank_boost, thin_prior,
};
use crate::search_error::SearchError;
use crate::snippet::{Passages, Snippet, SnippetFields};

/// Most results per page.
pub const MAX_PER_PAGE: usize = 50;
/// Deepest first result reachable by paging (0-based offset).
pub const MAX_OFFSET: usize = 1000;

/// How results are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ranking {
    /// Every text field with its boost, the link boost and host crowding.
    #[default]
    Full,
    /// Plain BM25 over the body text alone, nothing else (`ranking=bm25`): the baseline the
    /// relevance benchmark measures the full ranking against.
    Bm25Body,
}

impl Ranking {
    /// From the API's `ranking` parameter: `bm25` is the baseline, anything else the full
    /// ranking.
    pub fn from_param(value: &str) -> Self {
        if value.eq_ignore_ascii_case("bm25") {
            Ranking::Bm25Body
        } else {
            Ranking::Full
        }
    }
}

/// One result.
#[derive(Clone, Debug)]
pub struct Hit {
    /// The page's URL.
    pub url: String,
    /// Its title (may be empty).
    pub title: String,
    /// Its host.
    pub host: String,
    /// A passage with the query terms (empty for `nosnippet` pages).
    pub snippet: Snippet,
    /// Relevance: BM25 times the link boost, times the host-crowding demotion.
    pub score: Score,
    /// Its query-independent signals (in-links, depth, PageRank level, code share, words).
    pub signals: PageSignals,
    /// When the page was fetched, ms since the Unix epoch.
    pub fetched_at_ms: u64,
    /// How the score was computed, when asked for (`explain=1`).
    pub explanation: Option<serde_json::Value>,
}

/// One page of results.
#[derive(Clone, Debug, Default)]
pub struct SearchResults {
    /// The query as typed, cut to the length limit.
    pub query: String,
    /// True when the query had nothing to search for (empty, or only punctuation).
    pub nothing_to_search: bool,
    /// Matching documents in all.
    pub total: u64,
    /// No page had every word: these are the pages with some of them.
    pub partial: bool,
    /// The query with rare or unknown words replaced by common ones one or two edits away
    /// ("did you mean"), when there are such words.
    pub suggestion: Option<String>,
    /// Time taken, in milliseconds.
    pub took_ms: f64,
    /// Page number, from 1 (after capping).
    pub page: usize,
    /// Results per page (after capping).
    pub per_page: usize,
    /// Results, best first.
    pub hits: Vec<Hit>,
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

/// The loaded generation, in the figures `/status` shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexFacts {
    /// Its name (`gen-NNNNNN`).
    pub generation: String,
    /// Documents in it, as of the last commit the reader saw.
    pub docs: u64,
}

struct Loaded {
    generation: String,
    marker_stamp: Option<SystemTime>,
    index: tantivy::Index,
    reader: IndexReader,
    fields: IndexFields,
}

/// Searches the index of a data directory; see the module docs for reloading.
pub struct Searcher {
    data: PathBuf,
    ranking: RankingConfig,
    max_query_len: usize,
    loaded: RwLock<Option<Arc<Loaded>>>,
}

impl Searcher {
    /// A searcher over `data/index`, which need not exist yet (searches then fail with
    /// [`SearchError::NoIndex`] until it does). Fails when `CURRENT` names a generation that
    /// cannot be opened.
    pub fn open(data: &Path, ranking: RankingConfig) -> Result<Self, SearchError> {
        let searcher = Self {
            data: data.to_path_buf(),
            ranking,
            max_query_len: shared::config::RawSearchdConfig::default().max_query_len,
            loaded: RwLock::new(None),
        };
        searcher.refresh()?;
        Ok(searcher)
    }

    /// Sets the longest query searched, in bytes (longer ones are cut).
    pub fn with_max_query_len(mut self, max: usize) -> Self {
        self.max_query_len = max;
        self
    }

    /// The data directory.
    pub fn data(&self) -> &Path {
        &self.data
    }

    /// Opens the generation `CURRENT` names if it is not the one loaded (or `CURRENT` was
    /// rewritten); true when it switched. On error the loaded generation stays in use.
    pub fn refresh(&self) -> Result<bool, SearchError> {
        let marker = index_format::current_generation_marker(&self.data);
        let stamp = std::fs::metadata(&marker).and_then(|m| m.modified()).ok();
        let Some(current) = index_format::current_generation(&self.data)? else {
            return Ok(false);
        };
        if let Some(loaded) = self.current()
            && loaded.generation == current
            && loaded.marker_stamp == stamp
        {
            return Ok(false);
        }
        let Some(opened) = index_format::open_current(&self.data)? else {
            return Ok(false);
        };
        let reader = opened
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        let loaded = Loaded {
            generation: opened.generation,
            marker_stamp: stamp,
            index: opened.index,
            reader,
            fields: opened.fields,
        };
        tracing::info!(generation = %loaded.generation, "index generation loaded");
        let mut slot = self.loaded.write().unwrap_or_else(|p| p.into_inner());
        *slot = Some(Arc::new(loaded));
        Ok(true)
    }

    fn current(&self) -> Option<Arc<Loaded>> {
        self.loaded
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The loaded generation and its size, or `None` before the first index.
    pub fn index_facts(&self) -> Option<IndexFacts> {
        self.current().map(|l| IndexFacts {
            generation: l.generation.clone(),
            docs: l.reader.searcher().num_docs(),
        })
    }

    /// Runs a query; `page` counts from 1. `page` and `per_page` are capped (at most
    /// [`MAX_PER_PAGE`] per page, first result at most [`MAX_OFFSET`]). A query with nothing
    /// to search for gives no hits and sets `nothing_to_search`, without needing an index.
    pub fn search(
        &self,
        query: &str,
        page: usize,
        per_page: usize,
    ) -> Result<SearchResults, SearchError> {
        self.run(query, page, per_page, false, Ranking::Full)
    }

    /// Like [`Searcher::search`], ordered by `ranking`, explained when `explain`.
    pub fn search_ranked(
        &self,
        query: &str,
        page: usize,
        per_page: usize,
        explain: bool,
        ranking: Ranking,
    ) -> Result<SearchResults, SearchError> {
        self.run(query, page, per_page, explain, ranking)
    }

    /// Like [`Searcher::search`], with each hit's score explained.
    pub fn search_explained(
        &self,
        query: &str,
        page: usize,
        per_page: usize,
    ) -> Result<SearchResults, SearchError> {
        self.run(query, page, per_page, true, Ranking::Full)
    }

    fn run(
        &self,
        raw: &str,
        page: usize,
        per_page: usize,
        explain: bool,
        ranking: Ranking,
    ) -> Result<SearchResults, SearchError> {
        let started = Instant::now();
        let per_page = per_page.clamp(1, MAX_PER_PAGE);
        let page = page.clamp(1, MAX_OFFSET / per_page + 1);
        let user_query = UserQuery::parse(raw, self.max_query_len);
        let mut results = SearchResults {
            query: user_query.shown.clone(),
            nothing_to_search: user_query.is_empty(),
            page,
            per_page,
            ..SearchResults::default()
        };
        if results.nothing_to_search {
            results.took_ms = elapsed_ms(started);
            return Ok(results);
        }
        let loaded = self.current().ok_or(SearchError::NoIndex)?;
        let full = ranking == Ranking::Full;
        let searcher = loaded.reader.searcher();
        let mut query = if full {
            user_query.to_query(&loaded.index, &loaded.fields, &self.ranking)
        } else {
            user_query.to_body_query(&loaded.index, &loaded.fields)
        };
        if full
            && page == 1
            && user_query.sites.is_empty()
            && let Some(words) = user_query.only_plain_words()
        {
            results.suggestion =
                crate::suggest::suggest(&loaded.index, &searcher, &loaded.fields, &words);
        }
        let offset = (page - 1) * per_page;
        let crowding = full && several_hosts(&searcher, &loaded.fields);
        // Room below the page for results that folding removes and host crowding moves up.
        let limit = if full {
            3 * (offset + per_page)
        } else {
            offset + per_page
        };
        // The baseline is BM25 alone: no signal multiplies it.
        let weights = full.then(|| self.ranking.clone());
        let top = || {
            let weights = weights.clone();
            TopDocs::with_limit(limit).tweak_score(move |segment: &SegmentReader| {
                let column = |name| {
                    segment
                        .fast_fields()
                        .u64(name)
                        .ok()
                        .map(|c| c.first_or_default_col(0))
                };
                let (inlinks, external, depth, level, code, words) = (
                    column(index_format::fields::INLINKS),
                    column(index_format::fields::EXTERNAL_INLINKS),
                    column(index_format::fields::URL_DEPTH),
                    column(index_format::fields::RANK_LEVEL),
                    column(index_format::fields::CODE_PERCENT),
                    column(index_format::fields::BODY_WORDS),
                );
                let weights = weights.clone();
                move |doc, score: Score| {
                    let Some(weights) = &weights else {
                        return score;
                    };
                    let value = |column: &Option<Arc<dyn ColumnValues<u64>>>, missing| {
                        column.as_ref().map_or(missing, |c| c.get_val(doc))
                    };
                    let signals = PageSignals {
                        inlinks: value(&inlinks, 0),
                        external_inlinks: value(&external, 0),
                        depth: value(&depth, 0),
                        rank_level: value(&level, 0),
                        code_percent: value(&code, 0),
                        // An index without the field: no page is thin.
                        body_words: value(&words, THIN_WORDS),
                    };
                    score * signals.multiplier(weights)
                }
            })
        };
        let refused = |error| SearchError::of_query(&user_query.shown, error);
        let (mut total, mut top_docs) =
            searcher.search(&*query, &(Count, top())).map_err(refused)?;
        if total == 0 && full && user_query.can_match_partially() {
            // No page has every word: the pages with the most of them, said so.
            results.partial = true;
            query = user_query.to_query_matching(
                &loaded.index,
                &loaded.fields,
                &self.ranking,
                Matching::AnyWord,
            );
            (total, top_docs) = searcher.search(&*query, &(Count, top())).map_err(refused)?;
        }
        results.total = total as u64;

        let mut docs = HashMap::new();
        let mut candidates = Vec::with_capacity(top_docs.len());
        // Results kept so far, by body simhash and page name: a later near-copy folds under them.
        let mut kept: Vec<(u64, u64)> = Vec::new();
        for (score, address) in top_docs {
            // Page names and simhashes serve folding and namesakes: the full ranking's.
            let name = if full {
                fast_u64(&searcher, address, index_format::fields::PAGE_NAME)
            } else {
                0
            };
            if full {
                let simhash = fast_u64(&searcher, address, index_format::fields::SIMHASH);
                if is_copy_of_kept(&kept, simhash, name) {
                    continue; // a near-copy of a better result: folded under it
                }
                kept.push((simhash, name));
            }
            let host = if crowding {
                text(stored(&searcher, &mut docs, address)?, loaded.fields.host)
            } else {
                String::new()
            };
            candidates.push(Candidate {
                score,
                address,
                host,
                name,
                namesakes: 0,
                repeats: 0,
            });
        }
        if full {
            demote_namesakes(&mut candidates);
        }
        if crowding {
            demote_repeats(&mut candidates);
        }

        let mut passages =
            Passages::new(&searcher, &*query, loaded.fields.body).map_err(refused)?;
        for candidate in candidates.into_iter().skip(offset).take(per_page) {
            let doc = match docs.remove(&candidate.address) {
                Some(doc) => doc,
                None => searcher.doc(candidate.address)?,
            };
            let mut hit = hit(&doc, &loaded.fields, candidate.score);
            hit.snippet = passages.snippet_for(
                &searcher,
                candidate.address,
                &doc,
                snippet_fields(&loaded.fields),
            );
            if explain {
                hit.explanation = Some(
                    self.explain(&searcher, &*query, &candidate, &hit).map_err(
                        |error| match error {
                            SearchError::Index(error) => refused(error),
                            other => other,
                        },
                    )?,
                );
            }
            results.hits.push(hit);
        }
        results.took_ms = elapsed_ms(started);
        Ok(results)
    }

    fn explain(
        &self,
        searcher: &tantivy::Searcher,
        query: &dyn Query,
        candidate: &Candidate,
        hit: &Hit,
    ) -> Result<serde_json::Value, SearchError> {
        let bm25 =
            serde_json::to_value(query.explain(searcher, candidate.address)?).unwrap_or_default();
        let fields = crate::breakdown::field_scores(&bm25, searcher.schema());
        Ok(serde_json::json!({
            "fields": fields,
            "bm25": bm25,
            "inlinks": hit.signals.inlinks,
            "external_inlinks": hit.signals.external_inlinks,
            "link_boost": hit.signals.link_boost(&self.ranking),
            "depth_prior": depth_prior(self.ranking.depth_weight, hit.signals.depth),
            "rank_level": hit.signals.rank_level,
            "pagerank_boost": rank_boost(self.ranking.pagerank_weight, hit.signals.rank_level),
            "code_percent": hit.signals.code_percent,
            "simhash": format!("{:016x}", fast_u64(searcher, candidate.address, index_format::fields::SIMHASH)),
            "prose_prior": prose_prior(self.ranking.code_weight, hit.signals.code_percent),
            "body_words": hit.signals.body_words,
            "thin_prior": thin_prior(self.ranking.thin_weight, hit.signals.body_words),
            "namesakes": candidate.namesakes,
            "namesake_demotion": crate::ranking::NAMESAKE_DEMOTION.powi(candidate.namesakes as i32),
            "host_repeats": candidate.repeats,
            "host_demotion": crate::ranking::REPEAT_DEMOTION.powi(candidate.repeats as i32),
            "score": candidate.score,
        }))
    }

    /// The indexed document of a canonical URL, if there is one (no snippet, score 0).
    pub fn document(&self, url: &str) -> Result<Option<Hit>, SearchError> {
        self.document_by(url, |fields| fields.url)
    }

    /// The indexed document that holds `url` as a copy (a page of the same content, or one
    /// naming it as `rel=canonical`, folded into it), if there is one.
    pub fn document_holding_copy(&self, url: &str) -> Result<Option<Hit>, SearchError> {
        self.document_by(url, |fields| fields.copies)
    }

    /// The first document whose `field` holds the token `url`.
    fn document_by(
        &self,
        url: &str,
        field: impl Fn(&IndexFields) -> tantivy::schema::Field,
    ) -> Result<Option<Hit>, SearchError> {
        let loaded = self.current().ok_or(SearchError::NoIndex)?;
        let searcher = loaded.reader.searcher();
        let query = TermQuery::new(
            Term::from_field_text(field(&loaded.fields), url),
            IndexRecordOption::Basic,
        );
        let found = searcher.search(&query, &TopDocs::with_limit(1).order_by_score())?;
        let Some((_, address)) = found.into_iter().next() else {
            return Ok(None);
        };
        let doc: TantivyDocument = searcher.doc(address)?;
        Ok(Some(hit(&doc, &loaded.fields, 0.0)))
    }
}

fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

fn text(doc: &TantivyDocument, field: tantivy::schema::Field) -> String {
    doc.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

fn number(doc: &TantivyDocument, field: tantivy::schema::Field) -> u64 {
    doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0)
}

fn snippet_fields(fields: &IndexFields) -> SnippetFields {
    SnippetFields {
        body_start: fields.body_start,
        description: fields.description,
        nosnippet: fields.nosnippet,
    }
}

/// A result without its snippet.
fn hit(doc: &TantivyDocument, fields: &IndexFields, score: Score) -> Hit {
    Hit {
        url: text(doc, fields.url),
        title: text(doc, fields.title),
        host: text(doc, fields.host),
        snippet: Snippet::default(),
        score,
        signals: PageSignals {
            inlinks: number(doc, fields.inlinks),
            external_inlinks: number(doc, fields.external_inlinks),
            depth: number(doc, fields.url_depth),
            rank_level: number(doc, fields.rank_level),
            code_percent: number(doc, fields.code_percent),
            body_words: number(doc, fields.body_words),
        },
        fetched_at_ms: number(doc, fields.fetched_at),
        explanation: None,
    }
}

/// Whether a result is a near-copy of one already kept: the same page name (see
/// the indexer's `page_name_key`) and body text within [`shared::simhash::NEAR_DISTANCE`] bits.
/// Mirrors of one page under several paths (`core::pin::Pin` and `std::pin::Pin`,
/// `/v1/x.html` and `/latest/x.html`) show once, under the best of them.
fn is_copy_of_kept(kept: &[(u64, u64)], simhash: u64, name: u64) -> bool {
    simhash != 0
        && name != 0
        && kept.iter().any(|&(other, other_name)| {
            other_name == name && other != 0 && shared::simhash::is_near(other, simhash)
        })
}

/// The stored document at `address`, read once.
fn stored<'a>(
    searcher: &tantivy::Searcher,
    docs: &'a mut HashMap<DocAddress, TantivyDocument>,
    address: DocAddress,
) -> Result<&'a TantivyDocument, SearchError> {
    match docs.entry(address) {
        std::collections::hash_map::Entry::Occupied(entry) => Ok(entry.into_mut()),
        std::collections::hash_map::Entry::Vacant(entry) => {
            Ok(entry.insert(searcher.doc(address)?))
        }
    }
}

/// A `u64` fast field of the document at `address` (0 when the field is missing).
fn fast_u64(searcher: &tantivy::Searcher, address: DocAddress, name: &str) -> u64 {
    searcher
        .segment_reader(address.segment_ord)
        .fast_fields()
        .u64(name)
        .ok()
        .and_then(|column| column.first(address.doc_id))
        .unwrap_or(0)
}

/// Whether the index holds pages of more than one host (host crowding has work to do).
fn several_hosts(searcher: &tantivy::Searcher, fields: &IndexFields) -> bool {
    let mut only: Option<Vec<u8>> = None;
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(fields.host) else {
            return true;
        };
        let terms = inverted.terms();
        match terms.num_terms() {
            0 => continue,
            1 => {}
            _ => return true,
        }
        let mut stream = match terms.stream() {
            Ok(stream) => stream,
            Err(_) => return true,
        };
        if stream.advance() {
            let host = stream.key().to_vec();
            match &only {
                Some(seen) if *seen != host => return true,
                Some(_) => {}
                None => only = Some(host),
            }
        }
    }
    false
}
