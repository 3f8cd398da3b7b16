//! A union that moves its clauses only as far as it is asked: a word's clauses across the
//! searched fields, inside a conjunction of words.
//!
//! tantivy's union of `Should` clauses buffers ahead: each time it is moved it scores every
//! clause over the next 4,096 documents, and it fills that window as soon as it is built. A
//! word inside a conjunction is only ever asked "do you match this candidate?", and its
//! clauses can be costly to advance: a compound word (`min_by_key`) is a phrase in each field,
//! whose positions are read at every page holding all its parts. Here each clause is moved to
//! the candidate alone, with [`DocSet::seek_danger`] where the conjunction allows it, so a
//! phrase's positions are read at the pages the other words leave, and nowhere else.
//!
//! [`lazy_unions`] rewrites a parsed query so that every union under a conjunction is one of
//! these. A union standing alone (a one-word query) keeps tantivy's, which is faster at
//! walking every match. Scores are the same sums, added in the same order.

use tantivy::query::{BooleanQuery, EnableScoring, Explanation, Occur, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SeekDangerResult, SegmentReader, TERMINATED, Term};

/// `query` with each union (`Should` clauses only, one enough) that is a required clause of a
/// conjunction, or nested in such a union, made a [`LazyUnion`]. Other queries are kept.
pub fn lazy_unions(query: Box<dyn Query>) -> Box<dyn Query> {
    rewritten(query, false)
}

fn rewritten(query: Box<dyn Query>, in_conjunction: bool) -> Box<dyn Query> {
    let Some(boolean) = query.downcast_ref::<BooleanQuery>() else {
        return query;
    };
    let clauses = boolean.clauses();
    let is_union = boolean.get_minimum_number_should_match() <= 1
        && clauses.iter().all(|(occur, _)| *occur == Occur::Should);
    if is_union && in_conjunction {
        let clauses = clauses
            .iter()
            .map(|(_, clause)| rewritten(clause.box_clone(), true))
            .collect();
        return Box::new(LazyUnion { clauses });
    }
    let is_conjunction = clauses
        .iter()
        .filter(|(occur, _)| *occur == Occur::Must)
        .count()
        >= 2;
    let clauses = clauses
        .iter()
        .map(|(occur, clause)| {
            let required = *occur == Occur::Must && is_conjunction;
            (*occur, rewritten(clause.box_clone(), required))
        })
        .collect();
    Box::new(BooleanQuery::with_minimum_required_clauses(
        clauses,
        boolean.get_minimum_number_should_match(),
    ))
}

/// Pages matching any of the clauses, scored by the sum of those that match.
#[derive(Debug)]
pub struct LazyUnion {
    clauses: Vec<Box<dyn Query>>,
}

impl Clone for LazyUnion {
    fn clone(&self) -> Self {
        Self {
            clauses: self
                .clauses
                .iter()
                .map(|clause| clause.box_clone())
                .collect(),
        }
    }
}

impl Query for LazyUnion {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let weights = self
            .clauses
            .iter()
            .map(|clause| clause.weight(scoring))
            .collect::<tantivy::Result<_>>()?;
        Ok(Box::new(LazyUnionWeight { weights }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for clause in &self.clauses {
            clause.query_terms(visitor);
        }
    }
}

struct LazyUnionWeight {
    weights: Vec<Box<dyn Weight>>,
}

impl Weight for LazyUnionWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let clauses = self
            .weights
            .iter()
            .map(|weight| {
                Ok(Clause {
                    scorer: weight.scorer(reader, boost)?,
                    at: Standing::Placed,
                })
            })
            .collect::<tantivy::Result<Vec<_>>>()?;
        let doc = clauses.iter().map(Clause::lower_bound).min();
        Ok(Box::new(LazyUnionScorer {
            clauses,
            doc: doc.unwrap_or(TERMINATED),
        }))
    }

    fn scorer_danger(
        &self,
        reader: &SegmentReader,
        target: DocId,
        boost: Score,
    ) -> tantivy::Result<(SeekDangerResult, Box<dyn Scorer>)> {
        let mut found = false;
        let mut lower = TERMINATED;
        let mut clauses = Vec::with_capacity(self.weights.len());
        for weight in &self.weights {
            let (result, scorer) = weight.scorer_danger(reader, target, boost)?;
            let at = match result {
                SeekDangerResult::Found => {
                    found = true;
                    Standing::Placed
                }
                SeekDangerResult::SeekLowerBound(bound) => {
                    lower = lower.min(bound);
                    Standing::NotBefore(bound)
                }
            };
            clauses.push(Clause { scorer, at });
        }
        let result = if found {
            SeekDangerResult::Found
        } else {
            SeekDangerResult::SeekLowerBound(lower)
        };
        let scorer = LazyUnionScorer {
            clauses,
            doc: if found { target } else { lower },
        };
        Ok((result, Box::new(scorer)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(tantivy::TantivyError::InvalidArgument(format!(
                "document #({doc}) does not match"
            )));
        }
        let mut explanation = Explanation::new("sum of the clauses that match", scorer.score());
        for weight in &self.weights {
            if let Ok(detail) = weight.explain(reader, doc) {
                explanation.add_detail(detail);
            }
        }
        Ok(explanation)
    }
}

/// Where a clause's scorer stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Standing {
    /// On its `doc()`.
    Placed,
    /// Left by a [`DocSet::seek_danger`] that missed: its next match is at this document or
    /// later, and it may only be moved by `seek_danger` until one hits.
    NotBefore(DocId),
    /// Past its last match.
    Done,
}

struct Clause {
    scorer: Box<dyn Scorer>,
    at: Standing,
}

impl Clause {
    /// The clause's document when valid, else the lowest it can match.
    fn lower_bound(&self) -> DocId {
        match self.at {
            Standing::Placed => self.scorer.doc(),
            Standing::NotBefore(bound) => bound,
            Standing::Done => TERMINATED,
        }
    }

    /// Moves the clause to its first match at `target` or later, and says where that is.
    fn settle(&mut self, target: DocId) -> DocId {
        match self.at {
            Standing::Placed => {
                let doc = self.scorer.doc();
                if doc < target {
                    self.scorer.seek(target)
                } else {
                    doc
                }
            }
            Standing::NotBefore(bound) => {
                let mut candidate = bound.max(target);
                loop {
                    if candidate == TERMINATED {
                        self.at = Standing::Done;
                        return TERMINATED;
                    }
                    match self.scorer.seek_danger(candidate) {
                        SeekDangerResult::Found => {
                            self.at = Standing::Placed;
                            return candidate;
                        }
                        SeekDangerResult::SeekLowerBound(next) => candidate = next,
                    }
                }
            }
            Standing::Done => TERMINATED,
        }
    }
}

struct LazyUnionScorer {
    clauses: Vec<Clause>,
    /// The union's document, while it is valid.
    doc: DocId,
}

impl DocSet for LazyUnionScorer {
    fn advance(&mut self) -> DocId {
        if self.doc == TERMINATED {
            return TERMINATED;
        }
        self.seek(self.doc + 1)
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        self.doc = self
            .clauses
            .iter_mut()
            .map(|clause| clause.settle(target))
            .min()
            .unwrap_or(TERMINATED);
        self.doc
    }

    fn seek_danger(&mut self, target: DocId) -> SeekDangerResult {
        if target == TERMINATED {
            return SeekDangerResult::SeekLowerBound(TERMINATED);
        }
        let mut found = false;
        let mut lower = TERMINATED;
        for clause in &mut self.clauses {
            let bound = clause.lower_bound();
            if bound > target || (clause.at == Standing::Placed && bound == target) {
                found |= bound == target;
                lower = lower.min(bound);
                continue;
            }
            match clause.scorer.seek_danger(target) {
                SeekDangerResult::Found => {
                    clause.at = Standing::Placed;
                    found = true;
                }
                SeekDangerResult::SeekLowerBound(next) => {
                    clause.at = Standing::NotBefore(next);
                    lower = lower.min(next);
                }
            }
        }
        if found {
            self.doc = target;
            SeekDangerResult::Found
        } else {
            SeekDangerResult::SeekLowerBound(lower)
        }
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.clauses
            .iter()
            .map(|clause| clause.scorer.size_hint())
            .fold(0u32, u32::saturating_add)
    }

    fn cost(&self) -> u64 {
        self.clauses
            .iter()
            .map(|clause| clause.scorer.cost())
            .fold(0u64, u64::saturating_add)
    }
}

impl Scorer for LazyUnionScorer {
    fn score(&mut self) -> Score {
        let doc = self.doc;
        self.clauses
            .iter_mut()
            .filter(|clause| clause.at == Standing::Placed && clause.scorer.doc() == doc)
            .map(|clause| clause.scorer.score())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BoostQuery, PhraseQuery, TermQuery};
    use tantivy::schema::{Field, IndexRecordOption, Schema, TEXT};
    use tantivy::{DocAddress, Index, TantivyDocument};

    /// An index of `count` pages over a small vocabulary, so words meet in and out of order,
    /// in two fields, across several of the buffered union's 4,096-document windows.
    fn pages(count: u32) -> (Index, Field, Field) {
        let mut schema = Schema::builder();
        let title = schema.add_text_field("title", TEXT);
        let body = schema.add_text_field("body", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index
            .writer_with_num_threads(1, 50_000_000)
            .expect("writer");
        let words = ["min", "by", "key", "iter", "vec", "map", "sort"];
        let mut state = 7u64;
        let mut next = |modulo: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            usize::try_from((state >> 33) % modulo).expect("small")
        };
        for _ in 0..count {
            let mut doc = TantivyDocument::default();
            let text = |next: &mut dyn FnMut(u64) -> usize, length: u64| {
                let length = next(length) + 1;
                (0..length)
                    .map(|_| words[next(words.len() as u64)])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            doc.add_text(title, text(&mut next, 4));
            doc.add_text(body, text(&mut next, 12));
            writer.add_document(doc).expect("add");
        }
        writer.commit().expect("commit");
        (index, title, body)
    }

    fn term(field: Field, word: &str, boost: f32) -> Box<dyn Query> {
        let query = TermQuery::new(
            Term::from_field_text(field, word),
            IndexRecordOption::WithFreqs,
        );
        Box::new(BoostQuery::new(Box::new(query), boost))
    }

    fn phrase(field: Field, words: &[&str], boost: f32) -> Box<dyn Query> {
        let terms = words
            .iter()
            .map(|word| Term::from_field_text(field, word))
            .collect();
        Box::new(BoostQuery::new(Box::new(PhraseQuery::new(terms)), boost))
    }

    fn union(clauses: Vec<Box<dyn Query>>) -> Box<dyn Query> {
        Box::new(BooleanQuery::union(clauses))
    }

    /// Every match with its score, best first, ties by address.
    fn ranked(index: &Index, query: &dyn Query) -> Vec<(DocAddress, Score)> {
        let searcher = index.reader().expect("reader").searcher();
        let mut hits = searcher
            .search(query, &TopDocs::with_limit(100_000).order_by_score())
            .expect("search");
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        hits.into_iter()
            .map(|(score, address)| (address, score))
            .collect()
    }

    #[test]
    fn a_conjunction_of_lazy_unions_finds_and_scores_what_tantivys_unions_do() {
        let (index, title, body) = pages(10_000);
        let word = |text: &str| union(vec![term(title, text, 3.0), term(body, text, 1.0)]);
        let compound = union(vec![
            union(vec![
                phrase(title, &["min", "by", "key"], 3.0),
                phrase(body, &["min", "by", "key"], 1.0),
            ]),
            union(vec![
                term(title, "minbykey", 3.0),
                term(body, "minbykey", 1.0),
            ]),
        ]);
        let queries: Vec<Box<dyn Query>> = vec![
            Box::new(BooleanQuery::intersection(vec![
                word("iter"),
                compound.box_clone(),
            ])),
            Box::new(BooleanQuery::intersection(vec![
                compound.box_clone(),
                word("sort"),
            ])),
            Box::new(BooleanQuery::intersection(vec![
                word("vec"),
                word("map"),
                word("sort"),
            ])),
            Box::new(BooleanQuery::new(vec![
                (Occur::Must, word("vec")),
                (Occur::Must, compound),
                (Occur::MustNot, word("iter")),
            ])),
        ];
        for query in queries {
            let expected = ranked(&index, query.as_ref());
            assert!(
                expected.len() > 20,
                "{query:?} matches too few pages to tell"
            );
            let lazy = lazy_unions(query.box_clone());
            assert!(format!("{lazy:?}").contains("LazyUnion"), "{lazy:?}");
            assert_eq!(ranked(&index, lazy.as_ref()), expected, "{query:?}");
            let searcher = index.reader().expect("reader").searcher();
            assert_eq!(lazy.count(&searcher).expect("count"), expected.len());
            let (best, score) = expected[0];
            let explained = lazy.explain(&searcher, best).expect("explain");
            assert!((explained.value() - score).abs() < 1e-4, "{explained:?}");
        }
    }

    #[test]
    fn a_lazy_union_moved_every_way_stands_where_tantivys_union_matches() {
        let (index, title, body) = pages(10_000);
        let clauses = || {
            vec![
                phrase(title, &["min", "by", "key"], 3.0),
                phrase(body, &["min", "by", "key"], 1.0),
                term(title, "sort", 2.0),
            ]
        };
        let searcher = index.reader().expect("reader").searcher();
        let reader = searcher.segment_reader(0);
        let scoring = EnableScoring::enabled_from_searcher(&searcher);
        let mut reference = BooleanQuery::union(clauses())
            .weight(scoring)
            .and_then(|weight| weight.scorer(reader, 1.0))
            .expect("tantivy's union");
        let mut matches = Vec::new();
        while reference.doc() != TERMINATED {
            matches.push((reference.doc(), reference.score()));
            reference.advance();
        }
        assert!(
            matches.len() > 100,
            "too few matches to tell: {}",
            matches.len()
        );
        let weight = LazyUnion { clauses: clauses() }
            .weight(scoring)
            .expect("weight");
        let next_match = |target: DocId| matches.iter().find(|(doc, _)| *doc >= target).copied();
        // Moved by seek_danger at every third document, then by advance and seek in turn
        // each time it hits, as an intersection moves its clauses.
        let (mut result, mut scorer) = weight.scorer_danger(reader, 5, 1.0).expect("scorer");
        let mut target = 5;
        let mut moves = 0;
        while target < 9_990 {
            let expected = next_match(target);
            match result {
                SeekDangerResult::Found => {
                    let (doc, score) = expected.expect("a match");
                    assert_eq!(doc, target);
                    assert_eq!(scorer.doc(), target);
                    assert_eq!(scorer.score(), score);
                    let after = scorer.advance();
                    assert_eq!(Some(after), next_match(target + 1).map(|(doc, _)| doc));
                    let sought = scorer.seek(after + 2);
                    assert_eq!(Some(sought), next_match(after + 2).map(|(doc, _)| doc));
                    target = sought + 3;
                    moves += 1;
                }
                SeekDangerResult::SeekLowerBound(bound) => {
                    assert!(bound > target, "{bound} after {target}");
                    let doc = expected.map_or(TERMINATED, |(doc, _)| doc);
                    assert!(bound <= doc, "{bound} passes the match at {doc}");
                    target += 3;
                }
            }
            result = scorer.seek_danger(target);
        }
        assert!(moves > 20, "too few hits to tell: {moves}");
    }

    #[test]
    fn a_union_standing_alone_is_left_to_tantivy() {
        let mut schema = Schema::builder();
        let title = schema.add_text_field("title", TEXT);
        let body = schema.add_text_field("body", TEXT);
        let alone = union(vec![term(title, "vec", 2.0), term(body, "vec", 1.0)]);
        assert!(!format!("{:?}", lazy_unions(alone)).contains("LazyUnion"));
    }
}
