//! Two-phase ranking: a query's bonuses scored over the best pages of a first pass only.
//!
//! A query's bonuses (its words together in a field, within one section of a page, typed with
//! their accents, abbreviated in a title or URL: [`crate::query`]) only order the pages that
//! match; they never decide which do. Asked as `Should` clauses beside the query, they were
//! worked out for every page holding the words (a phrase's positions read for each), a fifth
//! of a query's CPU. So a shard finds its best [`RERANK_DEPTH`] pages by the query alone (BM25
//! times the page's signals, [`crate::columns::SegmentSignals`]), then adds to each of those the bonuses it
//! earns, times its signals, and keeps the best: each of those pages scores what the query
//! and its bonuses in one would give it ([`Bonuses::joined`], what an explanation shows). A
//! page below the first pass's best that its bonuses would have lifted into the results is
//! the price; the judged sets of `bench/relevance` say it is not paid.
//!
//! Each bonus is checked at the candidates alone, in document order: a phrase's positions
//! are read for a candidate that holds all its words, and for no other page.

use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, EnableScoring, Occur, Query, Weight,
};
use tantivy::{DocId, DocSet, Score, SeekDangerResult, SegmentReader};

/// How many of a shard's best pages by the query alone get their bonuses (at least as many
/// as the results asked for).
pub const RERANK_DEPTH: usize = 200;

/// A query in two parts: what decides and scores the matches, and what reorders the best.
pub struct Ranked {
    /// The pages that match, and their scores by the first pass.
    pub matches: Box<dyn Query>,
    /// What the best of them earn on top.
    pub bonuses: Bonuses,
}

impl Ranked {
    /// A query without bonuses.
    pub fn plain(matches: Box<dyn Query>) -> Self {
        Self {
            matches,
            bonuses: Bonuses::default(),
        }
    }

    /// Both parts as one query (see [`Bonuses::joined`]).
    pub fn joined(&self) -> Box<dyn Query> {
        self.bonuses.joined(&*self.matches)
    }
}

/// Clauses that add to a matching page's score without deciding whether it matches, each
/// with its boost; in groups that each count only for the pages of a filter (the pages of
/// one stemming, see [`crate::analysis::Analyses`]).
#[derive(Default)]
pub struct Bonuses {
    groups: Vec<BonusGroup>,
}

struct BonusGroup {
    /// The pages the group counts for; `None`: every page.
    only: Option<Box<dyn Query>>,
    clauses: Vec<(Box<dyn Query>, Score)>,
}

impl Bonuses {
    /// Adds `clauses` (queries and their boosts), counted for the pages of `only` (every page
    /// when `None`).
    pub fn add(&mut self, only: Option<Box<dyn Query>>, clauses: Vec<(Box<dyn Query>, Score)>) {
        if !clauses.is_empty() {
            self.groups.push(BonusGroup { only, clauses });
        }
    }

    /// Whether there is no bonus to score.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// `matches` with these bonuses as one query, scoring every page as the two phases score
    /// the pages that reach the second: what explains a score, and lists a query's terms.
    pub fn joined(&self, matches: &dyn Query) -> Box<dyn Query> {
        if self.is_empty() {
            return matches.box_clone();
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, matches.box_clone())];
        for group in &self.groups {
            let boosted = group.clauses.iter().map(|(query, boost)| {
                let boosted: Box<dyn Query> = Box::new(BoostQuery::new(query.box_clone(), *boost));
                (Occur::Should, boosted)
            });
            match &group.only {
                None => clauses.extend(boosted),
                Some(only) => {
                    let filter = ConstScoreQuery::new(only.box_clone(), 0.0);
                    let group: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
                        (Occur::Must, Box::new(BooleanQuery::new(boosted.collect()))),
                        (Occur::Must, Box::new(filter)),
                    ]));
                    clauses.push((Occur::Should, group));
                }
            }
        }
        Box::new(BooleanQuery::new(clauses))
    }

    /// The bonuses' weights, scored as `scoring` says (filters are not scored).
    pub fn weights(&self, scoring: EnableScoring) -> tantivy::Result<BonusWeights> {
        let unscored = EnableScoring::Disabled {
            schema: scoring.schema(),
            searcher_opt: scoring.searcher(),
        };
        let groups = self
            .groups
            .iter()
            .map(|group| {
                let only = match &group.only {
                    Some(only) => Some(only.weight(unscored)?),
                    None => None,
                };
                let clauses = group
                    .clauses
                    .iter()
                    .map(|(query, boost)| Ok((query.weight(scoring)?, *boost)))
                    .collect::<tantivy::Result<Vec<_>>>()?;
                Ok(GroupWeights { only, clauses })
            })
            .collect::<tantivy::Result<Vec<_>>>()?;
        Ok(BonusWeights { groups })
    }
}

/// [`Bonuses`] ready to score a shard's pages.
pub struct BonusWeights {
    groups: Vec<GroupWeights>,
}

/// A [`BonusGroup`]'s weights.
struct GroupWeights {
    only: Option<Box<dyn Weight>>,
    clauses: Vec<(Box<dyn Weight>, Score)>,
}

impl BonusWeights {
    /// Whether no page can earn a bonus.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The bonus (before the page's signals) each of `docs`, documents of `reader` in
    /// ascending order, earns.
    pub fn of(&self, reader: &SegmentReader, docs: &[DocId]) -> tantivy::Result<Vec<Score>> {
        let mut bonuses = vec![0.0; docs.len()];
        for GroupWeights { only, clauses } in &self.groups {
            let mut counted = vec![only.is_none(); docs.len()];
            if let Some(only) = only {
                each_match(&**only, reader, docs, 0.0, |i, _| counted[i] = true)?;
            }
            for (weight, boost) in clauses {
                each_match(&**weight, reader, docs, *boost, |i, score| {
                    if counted[i] {
                        bonuses[i] += score;
                    }
                })?;
            }
        }
        Ok(bonuses)
    }
}

/// Calls `found` with the place in `docs` (ascending) and the score of each document that
/// `weight` matches. A scorer is only asked whether it holds each document, never to find
/// the next one it holds: a phrase is checked at the candidates and nowhere else.
fn each_match(
    weight: &dyn Weight,
    reader: &SegmentReader,
    docs: &[DocId],
    boost: Score,
    mut found: impl FnMut(usize, Score),
) -> tantivy::Result<()> {
    let Some(&first) = docs.first() else {
        return Ok(());
    };
    let (mut result, mut scorer) = weight.scorer_danger(reader, first, boost)?;
    // Below this, no document can match: what the last miss said of the documents after it.
    let mut next_possible = 0;
    for (i, &doc) in docs.iter().enumerate() {
        if i > 0 {
            if doc < next_possible {
                continue;
            }
            result = scorer.seek_danger(doc);
        }
        match result {
            SeekDangerResult::Found => {
                found(i, scorer.score());
                next_possible = doc + 1;
            }
            SeekDangerResult::SeekLowerBound(bound) => next_possible = bound,
        }
    }
    Ok(())
}
