//! `Searcher`: runs queries against the current index generation and follows new ones.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use indexer::IndexFields;
use shared::config::RankingConfig;
use tantivy::collector::{Count, TopDocs};
use tantivy::schema::Value;
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, IndexReader, ReloadPolicy, Score, SegmentReader, TantivyDocument};

use crate::error::AppError;
use crate::query::UserQuery;

/// Most results per page.
pub const MAX_PER_PAGE: usize = 50;
/// Deepest result reachable by paging.
pub const MAX_OFFSET: usize = 1000;
/// Longest snippet, in characters.
const SNIPPET_CHARS: usize = 200;

/// A snippet: plain text and the byte ranges of the query terms in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippet {
    /// The text.
    pub text: String,
    /// Byte ranges to highlight.
    pub highlights: Vec<Range<usize>>,
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
    /// A passage with the query terms.
    pub snippet: Snippet,
    /// Relevance: BM25 times the link boost.
    pub score: Score,
}

/// One page of results.
#[derive(Clone, Debug)]
pub struct SearchResults {
    /// The query as typed.
    pub query: String,
    /// Matching documents in all.
    pub total: u64,
    /// Time taken, in milliseconds.
    pub took_ms: f64,
    /// Page number, from 1.
    pub page: usize,
    /// Results per page.
    pub per_page: usize,
    /// Results, best first.
    pub hits: Vec<Hit>,
}

struct Loaded {
    generation: String,
    index: tantivy::Index,
    reader: IndexReader,
    fields: IndexFields,
}

/// Searches the index of a data directory; [`Searcher::refresh`] switches to a new
/// generation when the indexer wrote one.
pub struct Searcher {
    data: PathBuf,
    ranking: RankingConfig,
    max_query_len: usize,
    loaded: RwLock<Option<Arc<Loaded>>>,
}

impl Searcher {
    /// A searcher over `data/index` (which need not exist yet).
    pub fn open(data: &Path, ranking: RankingConfig) -> Result<Self, AppError> {
        let searcher = Self {
            data: data.to_path_buf(),
            ranking,
            max_query_len: shared::config::SearchdConfig::default().max_query_len,
            loaded: RwLock::new(None),
        };
        searcher.refresh()?;
        Ok(searcher)
    }

    /// Sets the longest query accepted, in bytes.
    pub fn with_max_query_len(mut self, max: usize) -> Self {
        self.max_query_len = max;
        self
    }

    /// The data directory.
    pub fn data(&self) -> &Path {
        &self.data
    }

    /// Opens the current generation if it is not the one loaded; true when it switched.
    pub fn refresh(&self) -> Result<bool, AppError> {
        let current = indexer::current_generation(&self.data)?;
        let loaded_generation = self.current().map(|l| l.generation.clone());
        if current.is_none() || current == loaded_generation {
            return Ok(false);
        }
        let Some(opened) = indexer::open_current(&self.data)? else {
            return Ok(false);
        };
        let reader = opened
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        let loaded = Loaded {
            generation: opened.generation,
            index: opened.index,
            reader,
            fields: opened.fields,
        };
        tracing::info!(generation = %loaded.generation, "index generation loaded");
        if let Ok(mut slot) = self.loaded.write() {
            *slot = Some(Arc::new(loaded));
        }
        Ok(true)
    }

    fn current(&self) -> Option<Arc<Loaded>> {
        self.loaded.read().ok().and_then(|slot| slot.clone())
    }

    /// The loaded generation and its document count, if an index is loaded.
    pub fn index_facts(&self) -> Option<(String, u64)> {
        self.current()
            .map(|l| (l.generation.clone(), l.reader.searcher().num_docs()))
    }

    /// Runs a query; `page` counts from 1.
    pub fn search(
        &self,
        raw: &str,
        page: usize,
        per_page: usize,
    ) -> Result<SearchResults, AppError> {
        let started = Instant::now();
        let loaded = self.current().ok_or(AppError::NoIndex)?;
        let per_page = per_page.clamp(1, MAX_PER_PAGE);
        let page = page.clamp(1, MAX_OFFSET / per_page + 1);
        let user_query = UserQuery::parse(raw, self.max_query_len);
        if user_query.is_empty() {
            return Err(AppError::EmptyQuery);
        }
        let query = user_query.to_query(&loaded.index, &loaded.fields, &self.ranking);
        let searcher = loaded.reader.searcher();
        let weight = self.ranking.link_weight;
        let top = TopDocs::with_limit(per_page)
            .and_offset((page - 1) * per_page)
            .tweak_score(move |segment: &SegmentReader| {
                let inlinks = segment
                    .fast_fields()
                    .u64(shared::fields::INLINKS)
                    .ok()
                    .map(|c| c.first_or_default_col(0));
                move |doc, score: Score| {
                    let n = inlinks.as_ref().map_or(0, |c| c.get_val(doc));
                    score * (1.0 + weight * (1.0 + n as f32).ln())
                }
            });
        let (total, top_docs) = searcher.search(&query, &(Count, top))?;

        let mut snippets = SnippetGenerator::create(&searcher, &*query, loaded.fields.body)?;
        snippets.set_max_num_chars(SNIPPET_CHARS);
        let mut hits = Vec::with_capacity(top_docs.len());
        for (score, address) in top_docs {
            hits.push(self.hit(&searcher, &loaded.fields, &snippets, address, score)?);
        }
        Ok(SearchResults {
            query: raw.to_string(),
            total: total as u64,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
            page,
            per_page,
            hits,
        })
    }

    fn hit(
        &self,
        searcher: &tantivy::Searcher,
        fields: &IndexFields,
        snippets: &SnippetGenerator,
        address: DocAddress,
        score: Score,
    ) -> Result<Hit, AppError> {
        let doc: TantivyDocument = searcher.doc(address)?;
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let nosnippet = doc
            .get_first(fields.nosnippet)
            .and_then(|v| v.as_u64())
            .unwrap_or(0)
            == 1;
        let snippet = if nosnippet {
            Snippet::default()
        } else {
            let found = snippets.snippet_from_doc(&doc);
            if found.is_empty() {
                let description: String = text(fields.description)
                    .chars()
                    .take(SNIPPET_CHARS)
                    .collect();
                Snippet {
                    text: description,
                    highlights: Vec::new(),
                }
            } else {
                Snippet {
                    text: found.fragment().to_string(),
                    highlights: found.highlighted().to_vec(),
                }
            }
        };
        Ok(Hit {
            url: text(fields.url),
            title: text(fields.title),
            host: text(fields.host),
            snippet,
            score,
        })
    }
}
