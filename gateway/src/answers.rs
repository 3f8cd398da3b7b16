//! [`Answers`]: the answers of recent searches, kept (`[searchd] answer_cache` of them, 1,000
//! by default), since real query logs repeat: the same query, page and ranking for a user
//! preferring the same languages is answered again without searching.
//!
//! A kept answer names what it was computed over, each local shard's loaded generation and
//! the commit its searcher is on (`LocalShards::stamp`): once a shard moves on, the answer is
//! searched again. Remote leaves say nothing of their commits, so with leaves an answer is
//! kept at most [`WITH_LEAVES`]. Partial answers (a leaf missing) and explained ones are not
//! kept.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::accept_language::Preferred;
use crate::hit::{Order, Ranking};
use crate::recent::Recent;
use crate::results::SearchResults;

/// Longest an answer that remote leaves took part in is kept.
pub const WITH_LEAVES: Duration = Duration::from_secs(5);

/// What decides an answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Question {
    /// The query as shown, its spaces collapsed.
    pub(crate) query: String,
    pub(crate) page: usize,
    pub(crate) per_page: usize,
    pub(crate) ranking: Ranking,
    pub(crate) preferred: Preferred,
    pub(crate) order: Order,
}

#[derive(Clone)]
struct Kept {
    stamp: Vec<(u64, u64)>,
    at: Instant,
    results: Arc<SearchResults>,
}

/// Recent answers.
pub(crate) struct Answers {
    recent: Recent<Question, Kept>,
}

impl Answers {
    /// Keeps up to `capacity` answers (0: none).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            recent: Recent::new(capacity),
        }
    }

    /// Whether any answer is kept (a capacity above 0).
    pub(crate) fn keeps_any(&self) -> bool {
        self.recent.is_enabled()
    }

    /// The kept answer to `question`, if it was computed over the shards as `stamp` says
    /// they are now (`LocalShards::stamp`) and, with remote leaves, recently enough.
    pub(crate) fn get(
        &self,
        question: &Question,
        stamp: &[(u64, u64)],
        leaves: bool,
    ) -> Option<SearchResults> {
        if !self.recent.is_enabled() {
            return None;
        }
        let kept = self.recent.get(question)?;
        let fresh = kept.stamp == stamp && (!leaves || kept.at.elapsed() < WITH_LEAVES);
        fresh.then(|| SearchResults::clone(&kept.results))
    }

    /// Keeps `results` as the answer to `question`, computed over the shards as `stamp`
    /// (taken before searching) says.
    pub(crate) fn put(&self, question: Question, stamp: Vec<(u64, u64)>, results: &SearchResults) {
        if self.recent.is_enabled() && results.missing_shards.is_empty() {
            let kept = Kept {
                stamp,
                at: Instant::now(),
                results: Arc::new(results.clone()),
            };
            self.recent.put(question, kept);
        }
    }

    /// Drops every answer (a shard loaded another generation).
    pub(crate) fn clear(&self) {
        self.recent.clear();
    }
}
