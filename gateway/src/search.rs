//! [`Searcher`]: runs queries over every index shard it reaches and follows new generations.
//!
//! The shards are the local ones ([`LocalShards`]: `DATA/index`, or one per partition of a
//! partitioned `DATA`) and any remote leaves, each a group of replicas ([`LeafGroup`],
//! `searchd serve --leaf URL` or `--leaf URL1|URL2`) asked as one.
//! A query goes to all of them in three rounds, so the answer is the one a single index
//! holding every document would give:
//!
//! 1. the statistics of the query's terms from each, summed ([`ShardStats`]);
//! 2. each shard's best documents scored with those sums (BM25 times the link signals, which
//!    the indexer already made global); merged best first, then near-copies folded, namesakes
//!    and repeats of one host demoted on the merged list (`ranking`);
//! 3. the results of the page asked for, with snippets, each from the shard that holds it.
//!
//! Fewer than [`FEW_FULL_MATCHES`] pages with every word: the pages with most of them follow
//! in looser tiers ([`Matching::AtLeast`]), below every full match, each hit marked
//! [`Hit::all_words`]; when none has every word the answer says
//! [`partial`](SearchResults::partial). On the merged list, a near-copy under the same page
//! name folds under the better result, and the translations of one page (one `translations`
//! key) fold into one result at the best one's rank, shown in the language the browser asks
//! for first ([`Preferred`]), the others in [`Hit::also_in`].
//!
//! A group of remote leaves none of whose replicas answers in time (`[searchd]
//! leaf_timeout_ms`) is left out and named in [`SearchResults::missing_shards`]: the answer
//! is partial, never an error. Each round's call to a group may go to another of its
//! replicas (see `replicas`): they hold the same shards.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use shared::config::RankingConfig;

use crate::accept_language::Preferred;
use crate::answers::{Answers, Question};
use crate::facets::Facets;
use crate::hit::{Hit, Order, QuerySpec, Ranking};
use crate::leaf::{HitsRequest, LocalShards, TopAnswer, TopHit, TopRequest};
use crate::merge::{Found, demotions, merge, translations};
use crate::metrics::SearchMetrics;
use crate::query::{Matching, UserQuery};
use crate::ranking::Candidate;
use crate::replicas::{LeafGroup, Pending};
use crate::search_error::SearchError;
use crate::shard::{IndexFacts, shards_of};
use crate::stats::{Hosts, ShardStats};
use crate::synonyms::{Synonyms, query_words};

pub use crate::results::{MAX_OFFSET, MAX_PER_PAGE, SearchResults};

/// Searches the shards of a data directory and remote leaves; see the module docs.
pub struct Searcher {
    data: PathBuf,
    local: LocalShards,
    leaves: Vec<LeafGroup>,
    answers: Answers,
    metrics: SearchMetrics,
    /// The synonyms file, if any, and the groups last read from it.
    synonyms: (Option<PathBuf>, RwLock<Arc<Synonyms>>),
}

impl Searcher {
    /// A searcher over the index of `data` (`data/index`, or every partition's shard under
    /// `data/partitions`), which need not exist yet (searches then fail with
    /// [`SearchError::NoIndex`] until it does). Fails when a `CURRENT` names a generation
    /// that cannot be opened.
    pub fn open(data: &Path, ranking: RankingConfig) -> Result<Self, SearchError> {
        let max_query_len = shared::config::RawSearchdConfig::default().max_query_len;
        let searcher = Self {
            data: data.to_path_buf(),
            local: LocalShards::new(shards_of(data)?, ranking, max_query_len),
            leaves: Vec::new(),
            answers: Answers::new(0),
            metrics: SearchMetrics::default(),
            synonyms: (None, RwLock::default()),
        };
        searcher.refresh()?;
        Ok(searcher)
    }

    /// Searches a word of a group of `file`'s synonyms with the others (`[searchd]
    /// synonyms`), the file read again with each new index generation; a file that cannot
    /// be read or is refused is the error, one line.
    pub fn with_synonyms(mut self, file: Option<PathBuf>) -> Result<Self, SearchError> {
        let groups = match &file {
            Some(path) => Synonyms::load(path).map_err(SearchError::Synonyms)?,
            None => Synonyms::default(),
        };
        if !groups.is_empty() {
            tracing::info!(groups = groups.len(), file = ?file, "synonyms read");
        }
        self.synonyms = (file, RwLock::new(Arc::new(groups)));
        self.answers.clear();
        Ok(self)
    }

    /// Sets the longest query searched, in bytes (longer ones are cut).
    pub fn with_max_query_len(mut self, max: usize) -> Self {
        self.local.set_max_query_len(max);
        self
    }

    /// Keeps the answers of up to `answers` recent searches (0, the default: none), each
    /// answered again while the shards it was computed over are unchanged (see
    /// `crate::answers`).
    pub fn with_answer_cache(mut self, answers: usize) -> Self {
        self.answers = Answers::new(answers);
        self
    }

    /// Adds remote leaves, asked beside the local shards: groups of replicas, or single
    /// leaves (each a group of one).
    pub fn with_leaves<G: Into<LeafGroup>>(mut self, leaves: Vec<G>) -> Self {
        let counted = leaves
            .into_iter()
            .map(|l| l.into().counted_in(self.metrics.clone()));
        self.leaves.extend(counted.collect::<Vec<_>>());
        self
    }

    /// Counts its searches and its calls to remote leaves in `metrics`.
    pub(crate) fn with_metrics(mut self, metrics: SearchMetrics) -> Self {
        self.metrics = metrics;
        let leaves = std::mem::take(&mut self.leaves);
        self.with_leaves(leaves)
    }

    /// The data directory.
    pub fn data(&self) -> &Path {
        &self.data
    }

    /// The local shards' data directories (`DATA`, or each partition's).
    pub fn data_dirs(&self) -> Vec<PathBuf> {
        self.local
            .shards()
            .iter()
            .map(|shard| shard.data().to_path_buf())
            .collect()
    }

    /// The local shards, as a leaf serves them.
    pub fn local(&self) -> &LocalShards {
        &self.local
    }

    /// The remote leaves, each a group of replicas.
    pub fn leaves(&self) -> &[LeafGroup] {
        &self.leaves
    }

    /// Opens the generation each local shard's `CURRENT` names if it is not the one loaded
    /// (or `CURRENT` was rewritten); true when one switched. On error the loaded generations
    /// stay in use.
    pub fn refresh(&self) -> Result<bool, SearchError> {
        let switched = self.local.refresh();
        if !matches!(switched, Ok(false)) {
            self.reload_synonyms();
            self.answers.clear();
        }
        switched
    }

    /// Reads the synonyms file again (a new generation loaded); a file now refused keeps the
    /// groups read before, said in the log.
    fn reload_synonyms(&self) {
        let (Some(path), groups) = &self.synonyms else {
            return;
        };
        match Synonyms::load(path) {
            Ok(read) => *groups.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(read),
            Err(error) => {
                tracing::warn!(%error, "synonyms not reloaded: the groups read before are kept")
            }
        }
    }

    /// The loaded generations (of the local shards) and their size, or `None` before the
    /// first index.
    pub fn index_facts(&self) -> Option<IndexFacts> {
        self.local.facts()
    }

    /// The loaded generation of the local shard of data directory `dir`.
    pub fn facts_of(&self, dir: &Path) -> Option<IndexFacts> {
        self.local
            .shards()
            .iter()
            .find(|shard| shard.data() == dir)
            .and_then(|shard| shard.facts())
    }

    /// Runs a query; `page` counts from 1. `page` and `per_page` are capped (at most
    /// `MAX_PER_PAGE` per page, first result at most `MAX_OFFSET`). A query with nothing
    /// to search for gives no hits and sets `nothing_to_search`, without needing an index.
    pub fn search(
        &self,
        query: &str,
        page: usize,
        per_page: usize,
    ) -> Result<SearchResults, SearchError> {
        self.search_for(
            query,
            page,
            per_page,
            false,
            Ranking::Full,
            &Preferred::default(),
            Order::Relevance,
        )
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
        self.search_for(
            query,
            page,
            per_page,
            explain,
            ranking,
            &Preferred::default(),
            Order::Relevance,
        )
    }

    /// Like [`Searcher::search`], with each hit's score explained.
    pub fn search_explained(
        &self,
        query: &str,
        page: usize,
        per_page: usize,
    ) -> Result<SearchResults, SearchError> {
        self.search_for(
            query,
            page,
            per_page,
            true,
            Ranking::Full,
            &Preferred::default(),
            Order::Relevance,
        )
    }

    /// Like [`Searcher::search_ranked`], for a user who prefers the `preferred` languages: of
    /// a page's translations that match, the one in the language most preferred is shown,
    /// the others named beside it ([`Hit::also_in`]); in `order`.
    #[allow(clippy::too_many_arguments)]
    pub fn search_for(
        &self,
        raw: &str,
        page: usize,
        per_page: usize,
        explain: bool,
        ranking: Ranking,
        preferred: &Preferred,
        order: Order,
    ) -> Result<SearchResults, SearchError> {
        let started = Instant::now();
        let per_page = per_page.clamp(1, MAX_PER_PAGE);
        let page = page.clamp(1, MAX_OFFSET / per_page + 1);
        let user_query = UserQuery::parse(raw, self.local.max_query_len());
        let question = (!explain).then(|| Question {
            query: user_query
                .shown
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            page,
            per_page,
            ranking,
            preferred: preferred.clone(),
            order,
        });
        let leaves = !self.leaves.is_empty();
        let stamp = self.local.stamp();
        if let Some(question) = &question
            && self.answers.keeps_any()
        {
            let kept = self.answers.get(question, &stamp, leaves);
            self.metrics.answer_cache(kept.is_some());
            if let Some(mut kept) = kept {
                kept.query = user_query.shown;
                kept.took_ms = elapsed_ms(started);
                self.metrics.searched(&kept);
                return Ok(kept);
            }
        }
        let results = self.answer(
            user_query,
            (page, per_page),
            explain,
            ranking,
            preferred,
            order,
        )?;
        if let Some(question) = question {
            self.answers.put(question, stamp, &results);
        }
        self.metrics.searched(&results);
        Ok(results)
    }

    /// [`Searcher::search_for`] without the kept answers: `page` and `per_page` capped.
    fn answer(
        &self,
        user_query: UserQuery,
        (page, per_page): (usize, usize),
        explain: bool,
        ranking: Ranking,
        preferred: &Preferred,
        order: Order,
    ) -> Result<SearchResults, SearchError> {
        let started = Instant::now();
        if let Some(problem) = user_query.filters.problems.first() {
            return Err(SearchError::BadOperator(problem.clone()));
        }
        let mut results = SearchResults {
            query: user_query.shown.clone(),
            nothing_to_search: user_query.is_empty(),
            page,
            per_page,
            order,
            ..SearchResults::default()
        };
        if results.nothing_to_search {
            results.took_ms = elapsed_ms(started);
            return Ok(results);
        }
        if !self.local.any_loaded() && self.leaves.is_empty() {
            return Err(SearchError::NoIndex);
        }
        let full = ranking == Ranking::Full;
        let spec = QuerySpec {
            text: user_query.shown.clone(),
            matching: Matching::Compounds,
            ranking,
            order,
            synonyms: self
                .synonyms
                .1
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .expansions(query_words(&user_query.text)),
        };
        results.synonyms = spec.synonyms.clone();
        let offset = (page - 1) * per_page;
        // Room below the page for results that folding removes and host crowding moves up.
        let limit = if full {
            3 * (offset + per_page)
        } else {
            offset + per_page
        };
        let mut missing = Vec::new();
        let mut found = self.find(&spec, limit, full, &mut missing)?;
        let mut candidates = merge(&mut found, limit, full, preferred, order);
        let all_words = found.hits.len();
        results.facets = std::mem::take(&mut found.facets);
        // Each tier's query and where its documents start in `found.hits`: a hit is explained
        // (and its snippet cut) with the query that found it.
        let mut tiers: Vec<(usize, QuerySpec)> = vec![(0, spec.clone())];
        if full && found.total < FEW_FULL_MATCHES && user_query.can_match_partially() {
            // Few pages have every word: the pages with most of them follow, said so.
            let words = user_query.only_plain_words().map_or(0, |w| w.len());
            results.partial = found.total == 0;
            for needed in fewer_words(words) {
                let enough = candidates.len() >= limit.min(FEW_FULL_MATCHES as usize);
                // Pages with any one word only when no page has more of them.
                let last_resort = needed == 1 && words > 2 && !candidates.is_empty();
                if enough || last_resort {
                    break;
                }
                let tier = QuerySpec {
                    matching: Matching::AtLeast(needed),
                    ..spec.clone()
                };
                let mut more = self.find(&tier, limit, full, &mut missing)?;
                let seen: HashSet<(usize, &str)> = found
                    .hits
                    .iter()
                    .map(|(leaf, top)| (*leaf, top.url.as_str()))
                    .collect();
                more.hits
                    .retain(|(leaf, top)| !seen.contains(&(*leaf, top.url.as_str())));
                let base = found.hits.len();
                tiers.push((base, tier.clone()));
                results.looser_tiers = true;
                let room = limit.saturating_sub(candidates.len());
                candidates.extend(
                    merge(&mut more, room, full, preferred, order)
                        .into_iter()
                        .map(|mut c| {
                            c.place += base;
                            c.translations.iter_mut().for_each(|place| *place += base);
                            c
                        }),
                );
                found.hits.extend(more.hits);
                found.total = found.total.max(more.total);
            }
        }
        if full
            && page == 1
            && user_query.filters.sites.is_empty()
            && let Some(words) = user_query.only_plain_words()
        {
            results.suggestion = self.local.suggest(&words);
        }
        results.total = found.total;

        let shown: Vec<Candidate> = candidates.into_iter().skip(offset).take(per_page).collect();
        let mut hits = HashMap::new();
        for (i, (start, tier)) in tiers.iter().enumerate() {
            let end = tiers.get(i + 1).map_or(usize::MAX, |(next, _)| *next);
            let these: Vec<Candidate> = shown
                .iter()
                .filter(|c| (*start..end).contains(&c.place))
                .cloned()
                .collect();
            if !these.is_empty() {
                hits.extend(self.hits(tier, &found, &these, explain, &mut missing)?);
            }
        }
        for candidate in &shown {
            let (leaf, top) = &found.hits[candidate.place];
            let Some(mut hit) = hits.remove(&(*leaf, top.url.clone())) else {
                continue;
            };
            hit.score = candidate.score;
            hit.all_words = candidate.place < all_words;
            hit.also_in = translations(&found, candidate);
            if let Some(serde_json::Value::Object(explanation)) = &mut hit.explanation {
                for (key, value) in demotions(candidate) {
                    explanation.insert(key.into(), value);
                }
            }
            results.hits.push(hit);
        }
        missing.sort();
        missing.dedup();
        results.missing_shards = missing;
        results.took_ms = elapsed_ms(started);
        Ok(results)
    }

    /// Rounds 1 and 2: statistics from every shard, then each shard's best `limit`.
    fn find(
        &self,
        spec: &QuerySpec,
        limit: usize,
        full: bool,
        missing: &mut Vec<String>,
    ) -> Result<Found, SearchError> {
        let asked: Vec<Pending<ShardStats>> = self
            .leaves
            .iter()
            .map(|leaf| leaf.ask("/leaf/stats", spec))
            .collect();
        let mut stats = if self.leaves.is_empty() {
            self.local.stats_alone(spec)?
        } else {
            self.local.stats(spec)?
        };
        // Shards without an index yet: their documents are in no answer, said as missing.
        missing.append(&mut stats.unindexed);
        let mut answering = Vec::new();
        for (i, pending) in asked.into_iter().enumerate() {
            match answered(pending.wait(), missing, &self.leaves[i]) {
                Some(mut leaf_stats) => {
                    let leaf = self.leaves[i].name();
                    missing.extend(
                        leaf_stats
                            .unindexed
                            .drain(..)
                            .map(|p| format!("{leaf}/{p}")),
                    );
                    stats = stats.plus(leaf_stats);
                    answering.push(i);
                }
                None => continue,
            }
        }
        let crowding = full && stats.hosts == Hosts::Many;
        let request = TopRequest {
            spec: spec.clone(),
            stats,
            limit,
            hosts: crowding,
        };
        let asked: Vec<(usize, Pending<TopAnswer>)> = answering
            .iter()
            .map(|&i| (i, self.leaves[i].ask("/leaf/top", &request)))
            .collect();
        let local = self.local.top(&request)?;
        let mut total = local.total;
        let mut hits: Vec<(usize, TopHit)> = local.hits.into_iter().map(|h| (0, h)).collect();
        let mut facets = vec![local.facets];
        for (i, pending) in asked {
            if let Some(answer) = answered(pending.wait(), missing, &self.leaves[i]) {
                total += answer.total;
                hits.extend(answer.hits.into_iter().map(|h| (i + 1, h)));
                facets.push(answer.facets);
            }
        }
        Ok(Found {
            stats: request.stats,
            crowding,
            total,
            hits,
            facets: Facets::merge(facets),
        })
    }

    /// Round 3: the results of the `shown` candidates, from the shards that hold them, by
    /// leaf and URL (a URL is in one shard of a leaf at most).
    fn hits(
        &self,
        spec: &QuerySpec,
        found: &Found,
        shown: &[Candidate],
        explain: bool,
        missing: &mut Vec<String>,
    ) -> Result<HashMap<(usize, String), Hit>, SearchError> {
        let mut wanted: Vec<Vec<(u32, String)>> = vec![Vec::new(); self.leaves.len() + 1];
        let mut found_at = Vec::new();
        for candidate in shown {
            let (leaf, top) = &found.hits[candidate.place];
            wanted[*leaf].push((top.shard, top.url.clone()));
            if *leaf == 0 {
                found_at.push(top.address);
            }
        }
        let request = |wanted: Vec<(u32, String)>, found_at| HitsRequest {
            spec: spec.clone(),
            stats: found.stats.clone(),
            wanted,
            found_at,
            explain,
        };
        let mut wanted = wanted.into_iter();
        let local = wanted.next().unwrap_or_default();
        let asked: Vec<(usize, Pending<Vec<Hit>>)> = wanted
            .enumerate()
            .filter(|(_, wanted)| !wanted.is_empty())
            .map(|(i, wanted)| {
                let request = request(wanted, Vec::new());
                (i, self.leaves[i].ask("/leaf/hits", &request))
            })
            .collect();
        let mut hits = HashMap::new();
        for hit in self.local.hits(&request(local, found_at))? {
            hits.insert((0, hit.url.clone()), hit);
        }
        for (i, pending) in asked {
            let Some(answer) = answered(pending.wait(), missing, &self.leaves[i]) else {
                continue;
            };
            for hit in answer {
                hits.insert((i + 1, hit.url.clone()), hit);
            }
        }
        Ok(hits)
    }

    /// The indexed document of a canonical URL, if there is one (no snippet, score 0).
    pub fn document(&self, url: &str) -> Result<Option<Hit>, SearchError> {
        self.document_by(url, false)
    }

    /// The indexed document that holds `url` as a copy (a page of the same content, or one
    /// naming it as `rel=canonical`, folded into it), if there is one.
    pub fn document_holding_copy(&self, url: &str) -> Result<Option<Hit>, SearchError> {
        self.document_by(url, true)
    }

    fn document_by(&self, url: &str, copies: bool) -> Result<Option<Hit>, SearchError> {
        match self.local.document(url, copies) {
            Ok(Some(hit)) => return Ok(Some(hit)),
            Err(SearchError::NoIndex) if !self.leaves.is_empty() => {}
            Err(error) => return Err(error),
            Ok(None) => {}
        }
        let request = crate::leaf::DocumentRequest {
            url: url.to_string(),
            copies,
        };
        let asked: Vec<Pending<Option<Hit>>> = self
            .leaves
            .iter()
            .map(|leaf| leaf.ask("/leaf/document", &request))
            .collect();
        let mut missing = Vec::new();
        for (i, pending) in asked.into_iter().enumerate() {
            if let Some(Some(hit)) = answered(pending.wait(), &mut missing, &self.leaves[i]) {
                return Ok(Some(hit));
            }
        }
        Ok(None)
    }
}

/// A group's answer, or `None` with the group noted as missing (and the reason logged).
fn answered<A>(
    answer: Result<A, String>,
    missing: &mut Vec<String>,
    leaf: &LeafGroup,
) -> Option<A> {
    match answer {
        Ok(answer) => Some(answer),
        Err(error) => {
            tracing::warn!(%error, "a leaf is left out of this answer");
            missing.push(leaf.name().to_string());
            None
        }
    }
}

/// Fewer pages than this with every word of a query, and the pages with most of its words
/// follow them (ranked below every full match).
pub const FEW_FULL_MATCHES: u64 = 10;

/// Most looser tiers tried after the full matches.
const MAX_LOOSER_TIERS: usize = 3;

/// How many of `words` query words the looser tiers ask for, in turn: all but one, then one
/// fewer, down to a majority ("most of the words"; one of two), at most
/// [`MAX_LOOSER_TIERS`] tiers, then any one word (the last resort, for when no page has
/// most of them).
fn fewer_words(words: usize) -> Vec<u8> {
    let words = words.min(usize::from(u8::MAX));
    let majority = words / 2 + 1;
    let mut tiers: Vec<u8> = (majority.min(words.saturating_sub(1)).max(1)..words)
        .rev()
        .take(MAX_LOOSER_TIERS)
        .map(|needed| needed as u8)
        .collect();
    if words >= 2 && tiers.last() != Some(&1) {
        tiers.push(1);
    }
    tiers
}

fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tier_tests {
    use super::fewer_words;

    #[test]
    fn looser_tiers_go_down_to_a_majority_then_any_word() {
        assert_eq!(fewer_words(1), Vec::<u8>::new());
        assert_eq!(fewer_words(2), [1]);
        assert_eq!(fewer_words(3), [2, 1]);
        assert_eq!(fewer_words(4), [3, 1]);
        assert_eq!(fewer_words(5), [4, 3, 1]);
        assert_eq!(
            fewer_words(9),
            [8, 7, 6, 1],
            "at most three tiers before the last"
        );
    }
}
