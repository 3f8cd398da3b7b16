//! [`LocalShards`]: the index shards this process holds, answering a root's three questions
//! about a query: the statistics of its terms ([`LocalShards::stats`]), the best documents
//! scored with the statistics of every shard ([`LocalShards::top`]), and, for the documents
//! that made the page, the results with snippets ([`LocalShards::hits`]). The root is
//! [`crate::Searcher`]; `searchd leaf` serves the same three over HTTP (`leaf_routes`).
//!
//! A shard is asked by the query's text ([`QuerySpec`]), parsed here as a root would: the
//! tantivy query never crosses the wire. Results are named by URL (and shard), so a new
//! generation loaded between two questions finds the same documents or drops them.
//!
//! The query and its weight are made once for all shards of one schema, and kept
//! ([`Recent`]) for the next questions about the same query while the shards' searchers stay
//! the same. Each shard's best [`RERANK_DEPTH`] by the query alone get the query's bonuses
//! ([`crate::rerank`]); the best of all are merged and cut, then each summarized from fast
//! fields ([`crate::summary`]), never from its stored document. A hit of the third question
//! is read where the second found it ([`TopHit::address`]) while its URL is still there, else
//! looked up.

use std::sync::Arc;

use index_format::IndexFields;
use index_format::language::Stemming;
use serde::{Deserialize, Serialize};
use shared::config::RankingConfig;
use tantivy::collector::{Collector, Count, TopDocs};
use tantivy::query::{EnableScoring, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, Term};

use crate::analysis::{merge_held, stemmings_held};
use crate::columns::Columns;
use crate::facets::{FacetCounts, Facets};
use crate::hit::{Hit, Order, QuerySpec, Ranking};
use crate::query::UserQuery;
use crate::ranking::{depth_prior, prose_prior, rank_boost, thin_prior};
use crate::recent::Recent;
use crate::rerank::{BonusWeights, RERANK_DEPTH, Ranked};
use crate::search_error::SearchError;
use crate::shard::{IndexFacts, Loaded, Shard};
use crate::snippet::{Passages, SnippetFields};
use crate::stats::{Hosts, QueryTerms, Scoring, ShardStats};
use crate::stored::StoredPage;
use crate::summary::Summaries;
pub use crate::summary::TopHit;
use crate::top::{SortKey, top_collector};

/// The second question: the best `limit` documents of each shard for `spec`, scored with
/// `stats` (the sum over every shard); `hosts` asks for each document's host.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TopRequest {
    /// The query.
    pub spec: QuerySpec,
    /// The statistics of every shard, summed.
    pub stats: ShardStats,
    /// Documents wanted from each shard.
    pub limit: usize,
    /// Whether each document's host is wanted (host crowding).
    pub hosts: bool,
}

/// The answer to a [`TopRequest`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TopAnswer {
    /// Matching documents in all.
    pub total: u64,
    /// The best of this process's shards together, best first (at most the limit asked).
    pub hits: Vec<TopHit>,
    /// Matching documents by language, kind, site and year (a leaf of an older version sends
    /// none: its matches are then in no facet).
    #[serde(default)]
    pub facets: Facets,
}

/// The third question: the results of these documents, with snippets (and explained).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HitsRequest {
    /// The query.
    pub spec: QuerySpec,
    /// The statistics of every shard, summed (for explanations).
    pub stats: ShardStats,
    /// The documents: shard and URL.
    pub wanted: Vec<(u32, String)>,
    /// Where each of `wanted` was found, when by this process (never sent; see
    /// [`TopHit::address`]).
    #[serde(skip)]
    pub found_at: Vec<Option<DocAddress>>,
    /// Whether each score is explained.
    pub explain: bool,
}

/// A lookup of one document by URL: its canonical URL, or (`copies`) a copy it holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DocumentRequest {
    /// The URL.
    pub url: String,
    /// Look among the copies documents hold, not their URLs.
    pub copies: bool,
}

/// A loaded shard, numbered within this process, with a searcher on it and a query.
#[derive(Clone)]
struct Prepared {
    number: u32,
    loaded: Arc<Loaded>,
    searcher: tantivy::Searcher,
    query: Arc<Ranked>,
}

/// One value per distinct query among `shards` (shards of one schema share theirs, see
/// [`LocalShards::prepared`]), made by `make` at the first shard holding it; and for each
/// shard, the place of its own value. Work that depends only on the query is done once.
fn per_query<T, E>(
    shards: &[Prepared],
    mut make: impl FnMut(&Prepared) -> Result<T, E>,
) -> Result<(Vec<T>, Vec<usize>), E> {
    let mut made = Vec::new();
    let mut own = Vec::with_capacity(shards.len());
    for (place, shard) in shards.iter().enumerate() {
        let shared = place > 0 && Arc::ptr_eq(&shards[place - 1].query, &shard.query);
        if !shared {
            made.push(make(shard)?);
        }
        own.push(made.len() - 1);
    }
    Ok((made, own))
}

/// Queries prepared lately, kept: a search asks its shards the same query three times
/// (statistics, best documents, results; and again for each looser tier), and a leaf is
/// asked the three questions one after another.
const RECENT_QUERIES: usize = 64;

/// The shards of this process, searched with its ranking settings.
pub struct LocalShards {
    shards: Vec<Shard>,
    ranking: RankingConfig,
    max_query_len: usize,
    /// The shards prepared for recent queries, each valid while every shard's searcher is
    /// the one it was made on.
    recent: Recent<QuerySpec, Vec<Prepared>>,
}

impl LocalShards {
    /// Over `shards`, with the `ranking` weights and the longest query `max_query_len`.
    pub(crate) fn new(shards: Vec<Shard>, ranking: RankingConfig, max_query_len: usize) -> Self {
        Self {
            shards,
            ranking,
            max_query_len,
            recent: Recent::new(RECENT_QUERIES),
        }
    }

    /// The longest query searched, in bytes.
    pub(crate) fn max_query_len(&self) -> usize {
        self.max_query_len
    }

    /// Sets the longest query searched.
    pub(crate) fn set_max_query_len(&mut self, max: usize) {
        self.max_query_len = max;
    }

    /// The shards.
    pub(crate) fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// Loads new generations of every shard; true when any switched. Every shard is tried;
    /// the first error is returned.
    pub fn refresh(&self) -> Result<bool, SearchError> {
        let mut switched = false;
        let mut first_error = None;
        for shard in &self.shards {
            match shard.refresh() {
                Ok(s) => switched |= s,
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        if switched {
            // Let the old generations go.
            self.recent.clear();
        }
        first_error.map_or(Ok(switched), Err)
    }

    /// What the shards' answers depend on: each loaded generation and the commit its
    /// searcher is on. Equal stamps, equal answers.
    pub(crate) fn stamp(&self) -> Vec<(u64, u64)> {
        self.shards
            .iter()
            .filter_map(Shard::current)
            .map(|loaded| {
                let commit = loaded.reader.searcher().generation().generation_id();
                (loaded.serial, commit)
            })
            .collect()
    }

    /// The shards crawled (a store) without an index loaded, by directory name (`p-001`):
    /// a root's own directory holding nothing, its leaves holding the shards, is none.
    pub(crate) fn unindexed(&self) -> Vec<String> {
        self.shards
            .iter()
            .filter(|shard| shard.current().is_none())
            .filter(|shard| shared::store::store_dir(shard.data()).is_dir())
            .filter_map(|shard| Some(shard.data().file_name()?.to_string_lossy().into_owned()))
            .collect()
    }

    /// Whether any shard has an index loaded.
    pub(crate) fn any_loaded(&self) -> bool {
        self.shards.iter().any(|s| s.current().is_some())
    }

    /// The loaded generations together: names (`p-NNN/gen-NNNNNN` of each when sharded) and
    /// documents summed; `None` before any index.
    pub fn facts(&self) -> Option<IndexFacts> {
        let facts: Vec<(String, IndexFacts)> = self
            .shards
            .iter()
            .filter_map(|shard| {
                let name = shard.data().file_name()?.to_string_lossy().into_owned();
                Some((name, shard.facts()?))
            })
            .collect();
        match facts.as_slice() {
            [] => None,
            [(_, only)] if self.shards.len() == 1 => Some(only.clone()),
            _ => Some(IndexFacts {
                generation: facts
                    .iter()
                    .map(|(name, f)| format!("{name}/{}", f.generation))
                    .collect::<Vec<_>>()
                    .join(", "),
                docs: facts.iter().map(|(_, f)| f.docs).sum(),
            }),
        }
    }

    fn query(&self, loaded: &Loaded, spec: &QuerySpec, held: &[Stemming]) -> Ranked {
        let mut user_query = UserQuery::parse(&spec.text, self.max_query_len);
        user_query.synonyms = spec.synonyms.clone();
        match spec.ranking {
            Ranking::Full => user_query.to_query_matching(
                &loaded.index,
                &loaded.fields,
                &self.ranking,
                spec.matching,
                held,
            ),
            Ranking::Bm25Body => {
                Ranked::plain(user_query.to_body_query(&loaded.index, &loaded.fields, held))
            }
        }
    }

    /// Every loaded shard (by number) with `spec`'s query on it. A query depends only on the
    /// schema and its analyzers, so it is built once for the shards that share a schema (all
    /// of them, from one indexer), not once per shard; and once for the rounds of a search
    /// while the shards' searchers stay the same.
    fn prepared(&self, spec: &QuerySpec) -> Vec<Prepared> {
        let loaded: Vec<(u32, Arc<Loaded>, tantivy::Searcher)> = self
            .shards
            .iter()
            .enumerate()
            .filter_map(|(number, shard)| {
                let loaded = shard.current()?;
                let searcher = loaded.reader.searcher();
                Some((number as u32, loaded, searcher))
            })
            .collect();
        if let Some(kept) = self.recent.get(spec) {
            if same_searchers(&kept, &loaded) {
                return kept;
            }
            // A shard moved on (a commit, a generation): what was prepared before is stale.
            self.recent.clear();
        }
        // Every shard is asked with the same cuts: the stemmings any of them holds.
        let mut held = Vec::new();
        for (_, loaded, searcher) in &loaded {
            merge_held(&mut held, stemmings_held(searcher, loaded.fields.stemmer));
        }
        let mut prepared: Vec<Prepared> = Vec::with_capacity(loaded.len());
        for (number, loaded, searcher) in loaded {
            let query = match prepared.last() {
                Some(last)
                    if last.loaded.index.schema() == loaded.index.schema()
                        && last.loaded.fields == loaded.fields =>
                {
                    Arc::clone(&last.query)
                }
                _ => Arc::from(self.query(&loaded, spec, &held)),
            };
            prepared.push(Prepared {
                number,
                searcher,
                loaded,
                query,
            });
        }
        self.recent.put(spec.clone(), prepared.clone());
        prepared
    }

    /// The statistics of `spec`'s terms over every loaded shard, summed.
    pub fn stats(&self, spec: &QuerySpec) -> Result<ShardStats, SearchError> {
        let shards = self.prepared(spec);
        let (terms, terms_of) = per_query(&shards, |shard| {
            Ok::<_, SearchError>(QueryTerms::of(&*shard.query.joined()))
        })?;
        let mut sum = ShardStats::default();
        for (shard, &own) in shards.iter().zip(&terms_of) {
            let hosts = hosts(&shard.searcher, &shard.loaded.fields);
            let stats = ShardStats::of(&shard.searcher, &terms[own], hosts)
                .map_err(|error| SearchError::of_query(&spec.text, error))?;
            sum = sum.plus(stats);
        }
        sum.unindexed = self.unindexed();
        Ok(sum)
    }

    /// The statistics a root with no remote leaves scores with: when a single shard is
    /// loaded, none but its hosts, since every figure a sum lacks is the shard's own
    /// ([`Scoring`]): the same scores, without looking each of the query's terms up a first
    /// time. With several shards, [`LocalShards::stats`].
    pub(crate) fn stats_alone(&self, spec: &QuerySpec) -> Result<ShardStats, SearchError> {
        let shards = self.prepared(spec);
        match shards.as_slice() {
            [only] => Ok(ShardStats {
                hosts: hosts(&only.searcher, &only.loaded.fields),
                unindexed: self.unindexed(),
                ..ShardStats::default()
            }),
            _ => self.stats(spec),
        }
    }

    /// The best `request.limit` documents of all loaded shards together for `request`.
    /// Scored with the summed statistics, a query's weight is the same on every shard of one
    /// schema: it is made once and run over each shard's segments. Each shard's best
    /// `RERANK_DEPTH` by the query alone get their bonuses (`crate::rerank`); only the
    /// best are read from their stores: each shard's best are found first, then merged best
    /// first (ties: shard after shard, each in its own order), then cut.
    pub fn top(&self, request: &TopRequest) -> Result<TopAnswer, SearchError> {
        let full = request.spec.ranking == Ranking::Full;
        let by_date = request.spec.order == Order::Date;
        let ranking = full.then(|| self.ranking.clone());
        let refused = |error| SearchError::of_query(&request.spec.text, error);
        let shards = self.prepared(&request.spec);
        let (weights, weight_of) = per_query(&shards, |shard| {
            let scoring = Scoring {
                global: &request.stats,
                local: &shard.searcher,
            };
            let scoring =
                EnableScoring::enabled_from_statistics_provider(&scoring, &shard.searcher);
            let matches = shard.query.matches.weight(scoring).map_err(refused)?;
            let bonuses = shard.query.bonuses.weights(scoring).map_err(refused)?;
            Ok::<_, SearchError>((matches, bonuses))
        })?;
        // Newest first needs no bonuses: they only reorder the best by relevance.
        let depth = match shards.first() {
            Some(shard) if !by_date && !shard.query.bonuses.is_empty() => {
                request.limit.max(RERANK_DEPTH)
            }
            _ => request.limit,
        };
        let mut total = 0;
        let mut facets = Vec::new();
        let mut best: Vec<(SortKey, usize, DocAddress)> = Vec::new();
        let mut summaries = Vec::with_capacity(shards.len());
        for (place, shard) in shards.iter().enumerate() {
            let (matches, bonuses) = &weights[weight_of[place]];
            let columns = shard.loaded.columns.of(&shard.searcher);
            let collector = (
                Count,
                top_collector(depth, ranking.clone(), Arc::clone(&columns), by_date),
                FacetCounts,
            );
            let fruits = shard
                .searcher
                .segment_readers()
                .iter()
                .enumerate()
                .map(|(ord, reader)| collector.collect_segment(&**matches, ord as u32, reader))
                .collect::<tantivy::Result<Vec<_>>>()
                .map_err(refused)?;
            let (count, mut top, counts) = collector.merge_fruits(fruits).map_err(refused)?;
            total += count as u64;
            facets.push(counts);
            if let (false, Some(ranking)) = (by_date, &ranking) {
                rerank(&shard.searcher, &columns, bonuses, ranking, &mut top).map_err(refused)?;
            }
            top.truncate(request.limit.max(1));
            summaries.push(Summaries::new(
                &shard.searcher,
                columns,
                &shard.loaded.fields,
                full,
                request.hosts,
            ));
            best.extend(
                top.into_iter()
                    .map(|(score, address)| (score, place, address)),
            );
        }
        // Stable: equal keys keep the shard-after-shard order the root merges in.
        best.sort_by(|a, b| b.0.0.cmp(&a.0.0).then(b.0.1.total_cmp(&a.0.1)));
        best.truncate(request.limit.max(1));
        let mut answer = TopAnswer {
            total,
            hits: Vec::with_capacity(best.len()),
            facets: Facets::merge(facets),
        };
        for ((_, score), place, address) in best {
            let hit = summaries[place].of(score, shards[place].number, address)?;
            answer.hits.push(hit);
        }
        Ok(answer)
    }

    /// The results of the documents `request` names, with snippets and, when asked, how
    /// their scores were computed (the parts a root adds, demotions and the final score,
    /// left out). Their scores are 0: the root knows them. A document no longer in its
    /// shard is left out.
    pub fn hits(&self, request: &HitsRequest) -> Result<Vec<Hit>, SearchError> {
        let refused = |error| SearchError::of_query(&request.spec.text, error);
        let shards = self.prepared(&request.spec);
        // Each shard's passages of the query's terms, made at its first wanted document.
        let mut passages: Vec<Option<Passages>> = shards.iter().map(|_| None).collect();
        let mut hits = Vec::with_capacity(request.wanted.len());
        for (i, (number, url)) in request.wanted.iter().enumerate() {
            let Some(place) = shards.iter().position(|s| s.number == *number) else {
                continue;
            };
            let shard = &shards[place];
            let (searcher, fields) = (&shard.searcher, &shard.loaded.fields);
            let found_at = request.found_at.get(i).copied().flatten();
            let Some((address, doc)) = stored_page(searcher, fields.url, url, found_at)? else {
                continue;
            };
            let passages = match &mut passages[place] {
                Some(passages) => passages,
                empty => empty.insert(
                    Passages::new(searcher, &*shard.query.matches, fields.body).map_err(refused)?,
                ),
            };
            let mut hit = Hit::of(&doc, fields, 0.0);
            hit.snippet = passages.snippet_for(searcher, address, &doc, snippet_fields(fields));
            if request.explain {
                let scoring = Scoring {
                    global: &request.stats,
                    local: searcher,
                };
                let weight = shard
                    .query
                    .joined()
                    .weight(EnableScoring::enabled_from_statistics_provider(
                        &scoring, searcher,
                    ))
                    .map_err(refused)?;
                let reader = searcher.segment_reader(address.segment_ord);
                let bm25 = weight.explain(reader, address.doc_id).map_err(refused)?;
                let simhash = fast_u64(searcher, address, index_format::fields::SIMHASH);
                hit.explanation = Some(self.explanation(&bm25, searcher, &hit, simhash));
            }
            hits.push(hit);
        }
        Ok(hits)
    }

    fn explanation(
        &self,
        bm25: &tantivy::query::Explanation,
        searcher: &tantivy::Searcher,
        hit: &Hit,
        simhash: u64,
    ) -> serde_json::Value {
        let bm25 = serde_json::to_value(bm25).unwrap_or_default();
        let fields = crate::breakdown::field_scores(&bm25, searcher.schema());
        let signals = &hit.signals;
        let ranking = &self.ranking;
        serde_json::json!({
            "fields": fields,
            "bm25": bm25,
            "inlinks": signals.inlinks,
            "external_inlinks": signals.external_inlinks,
            "link_boost": signals.link_boost(ranking),
            "depth_prior": depth_prior(ranking.depth_weight, signals.depth),
            "rank_level": signals.rank_level,
            "pagerank_boost": rank_boost(ranking.pagerank_weight, signals.rank_level),
            "code_percent": signals.code_percent,
            "simhash": format!("{simhash:016x}"),
            "prose_prior": prose_prior(ranking.code_weight, signals.code_percent),
            "body_words": signals.body_words,
            "thin_prior": thin_prior(ranking.thin_weight, signals.body_words),
        })
    }

    /// The indexed document of a canonical URL (`copies`: the one holding `url` as a copy)
    /// in any shard, with no snippet and score 0.
    pub fn document(&self, url: &str, copies: bool) -> Result<Option<Hit>, SearchError> {
        let mut loaded_any = false;
        for loaded in self.shards.iter().filter_map(Shard::current) {
            loaded_any = true;
            let searcher = loaded.reader.searcher();
            let field = if copies {
                loaded.fields.copies
            } else {
                loaded.fields.url
            };
            if let Some(address) = find(&searcher, field, url)? {
                let doc: StoredPage = searcher.doc(address)?;
                return Ok(Some(Hit::of(&doc, &loaded.fields, 0.0)));
            }
        }
        if loaded_any {
            Ok(None)
        } else {
            Err(SearchError::NoIndex)
        }
    }

    /// "Did you mean": the query's `words` respelled from the largest shard's body text.
    pub(crate) fn suggest(&self, words: &[&str]) -> Option<String> {
        let loaded = self
            .shards
            .iter()
            .filter_map(Shard::current)
            .max_by_key(|l| l.reader.searcher().num_docs())?;
        let searcher = loaded.reader.searcher();
        crate::suggest::suggest(&loaded.index, &searcher, &loaded.fields, words)
    }
}

/// Whether `kept` was prepared on these shards' generations and searchers.
fn same_searchers(kept: &[Prepared], loaded: &[(u32, Arc<Loaded>, tantivy::Searcher)]) -> bool {
    kept.len() == loaded.len()
        && kept
            .iter()
            .zip(loaded)
            .all(|(kept, (number, loaded, searcher))| {
                kept.number == *number
                    && Arc::ptr_eq(&kept.loaded, loaded)
                    && kept.searcher.generation().generation_id()
                        == searcher.generation().generation_id()
            })
}

/// Adds to each of `top` (a shard's best by the query alone, best first, keyed by score
/// alone) the bonuses it earns times its signals, and sorts them again, best first (ties
/// keep their order).
fn rerank(
    searcher: &tantivy::Searcher,
    columns: &Columns,
    bonuses: &BonusWeights,
    ranking: &RankingConfig,
    top: &mut [(SortKey, DocAddress)],
) -> tantivy::Result<()> {
    if bonuses.is_empty() {
        return Ok(());
    }
    let mut order: Vec<(DocAddress, usize)> = top
        .iter()
        .enumerate()
        .map(|(i, (_, address))| (*address, i))
        .collect();
    order.sort_unstable();
    for segment in order.chunk_by(|a, b| a.0.segment_ord == b.0.segment_ord) {
        let reader = searcher.segment_reader(segment[0].0.segment_ord);
        let docs: Vec<DocId> = segment.iter().map(|(address, _)| address.doc_id).collect();
        let earned = bonuses.of(reader, &docs)?;
        let signals = &columns.segment(segment[0].0.segment_ord).signals;
        for (&(address, i), bonus) in segment.iter().zip(earned) {
            if bonus != 0.0 {
                top[i].0.1 += bonus * signals.multiplier(address.doc_id, ranking);
            }
        }
    }
    top.sort_by(|a, b| b.0.1.total_cmp(&a.0.1));
    Ok(())
}

/// The stored page whose URL (`url_field`) is `url`, and where it is: read at `found_at`
/// when that holds it (where the same query's round 2 found it, in this searcher), else
/// looked up.
fn stored_page(
    searcher: &tantivy::Searcher,
    url_field: tantivy::schema::Field,
    url: &str,
    found_at: Option<DocAddress>,
) -> Result<Option<(DocAddress, StoredPage)>, SearchError> {
    let live = |address: DocAddress| {
        let readers = searcher.segment_readers();
        readers
            .get(address.segment_ord as usize)
            .is_some_and(|reader| {
                address.doc_id < reader.max_doc() && !reader.is_deleted(address.doc_id)
            })
    };
    if let Some(address) = found_at.filter(|&address| live(address)) {
        let page: StoredPage = searcher.doc(address)?;
        if page.text(url_field) == url {
            return Ok(Some((address, page)));
        }
    }
    match find(searcher, url_field, url)? {
        Some(address) => Ok(Some((address, searcher.doc(address)?))),
        None => Ok(None),
    }
}

/// The first document whose `field` holds the token `value`.
pub(crate) fn find(
    searcher: &tantivy::Searcher,
    field: tantivy::schema::Field,
    value: &str,
) -> Result<Option<DocAddress>, SearchError> {
    let query = TermQuery::new(
        Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    );
    let found = searcher.search(&query, &TopDocs::with_limit(1).order_by_score())?;
    Ok(found.into_iter().next().map(|(_, address)| address))
}

fn snippet_fields(fields: &IndexFields) -> SnippetFields {
    SnippetFields {
        body_start: fields.body_start,
        description: fields.description,
        nosnippet: fields.nosnippet,
        lang: fields.lang,
    }
}

/// A `u64` fast field of the document at `address` (0 when the field is missing).
pub(crate) fn fast_u64(searcher: &tantivy::Searcher, address: DocAddress, name: &str) -> u64 {
    searcher
        .segment_reader(address.segment_ord)
        .fast_fields()
        .u64(name)
        .ok()
        .and_then(|column| column.first(address.doc_id))
        .unwrap_or(0)
}

/// The hosts of an index's documents: none, one (which), or several.
fn hosts(searcher: &tantivy::Searcher, fields: &IndexFields) -> Hosts {
    let mut found = Hosts::None;
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(fields.host) else {
            return Hosts::Many;
        };
        let terms = inverted.terms();
        match terms.num_terms() {
            0 => continue,
            1 => {}
            _ => return Hosts::Many,
        }
        let mut stream = match terms.stream() {
            Ok(stream) => stream,
            Err(_) => return Hosts::Many,
        };
        if stream.advance() {
            let host = String::from_utf8_lossy(stream.key()).into_owned();
            found = found.and(Hosts::One(host));
            if found == Hosts::Many {
                return found;
            }
        }
    }
    found
}
