//! How a query meets documents of several languages: [`Analyses`].
//!
//! A document's stemmed fields were cut by its language's stemmer (`index_format::language`),
//! and a query has no reliable language. So the query is cut once per stemming the index
//! holds ([`stemmings_held`]): each cut is matched against the documents of that stemming
//! only (a filter on the `stemmer` field), and the cuts are OR-ed. A document has one
//! stemming, so it meets exactly one cut, scored as a single-language index would score it:
//! `chevaux` finds a French page saying `cheval` through the French cut, while an English
//! page saying `part` is never found by the French stem of `parties`. Stemmings whose cut of
//! this query is the same (most words stem alike in most languages) share one query; an
//! index of one stemming is searched with no filter at all, exactly as before languages.

use std::sync::OnceLock;

use index_format::language::{LANGUAGES, Stemming};
use tantivy::Term;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::{TokenStream, TokenizerManager};

/// The stemmings one query is cut by, and which documents each cut is for.
pub(crate) struct Analyses {
    /// Each distinct cut: the tokenizers to cut with and the stemmings whose documents it is
    /// for (empty: every document, no filter).
    pub(crate) cuts: Vec<(&'static TokenizerManager, Vec<Stemming>)>,
}

impl Analyses {
    /// The cuts of `text` for an index holding `held` stemmings: one per distinct way the
    /// stemmed analyzers cut it.
    pub(crate) fn of(text: &str, held: &[Stemming]) -> Self {
        if held.len() <= 1 {
            let stemming = held.first().copied().unwrap_or(Stemming::DEFAULT);
            return Self {
                cuts: vec![(tokenizers(stemming), Vec::new())],
            };
        }
        let mut cuts: Vec<(Vec<String>, &'static TokenizerManager, Vec<Stemming>)> = Vec::new();
        for &stemming in held {
            let manager = tokenizers(stemming);
            let tokens = stemmed_tokens(manager, text);
            match cuts.iter_mut().find(|(cut, _, _)| *cut == tokens) {
                Some((_, _, stemmings)) => stemmings.push(stemming),
                None => cuts.push((tokens, manager, vec![stemming])),
            }
        }
        if cuts.len() == 1 {
            let (_, manager, _) = cuts.remove(0);
            return Self {
                cuts: vec![(manager, Vec::new())],
            };
        }
        Self {
            cuts: cuts
                .into_iter()
                .map(|(_, manager, stemmings)| (manager, stemmings))
                .collect(),
        }
    }

    /// `query` for each cut, limited to its documents, OR-ed (one cut: `query` as it is).
    /// `query` is handed the cut's tokenizers and the filter of its documents (`None`: every
    /// document).
    pub(crate) fn combine(
        &self,
        stemmer_field: Field,
        mut query: impl FnMut(&'static TokenizerManager, Option<Box<dyn Query>>) -> Box<dyn Query>,
    ) -> Box<dyn Query> {
        if let [(manager, stemmings)] = self.cuts.as_slice()
            && stemmings.is_empty()
        {
            return query(manager, None);
        }
        let clauses = self
            .cuts
            .iter()
            .map(|(manager, stemmings)| {
                let filter: Box<dyn Query> = Box::new(BooleanQuery::new(
                    stemmings
                        .iter()
                        .map(|s| {
                            let term = Term::from_field_text(stemmer_field, s.name());
                            let term_query: Box<dyn Query> =
                                Box::new(TermQuery::new(term, IndexRecordOption::Basic));
                            (Occur::Should, term_query)
                        })
                        .collect(),
                ));
                let cut: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
                    (Occur::Must, query(manager, Some(filter.box_clone()))),
                    (Occur::Must, Box::new(ConstScoreQuery::new(filter, 0.0))),
                ]));
                (Occur::Should, cut)
            })
            .collect();
        Box::new(BooleanQuery::new(clauses))
    }
}

/// The query tokenizers of `stemming`, made once per stemming.
pub(crate) fn tokenizers(stemming: Stemming) -> &'static TokenizerManager {
    static MANAGERS: OnceLock<Vec<(Stemming, TokenizerManager)>> = OnceLock::new();
    let managers = MANAGERS.get_or_init(|| {
        let mut stemmings: Vec<Stemming> = LANGUAGES
            .iter()
            .map(|l| Stemming::of_language(l.code))
            .collect();
        stemmings.push(Stemming::DEFAULT);
        stemmings.dedup();
        let mut managers: Vec<(Stemming, TokenizerManager)> = Vec::new();
        for stemming in stemmings {
            if managers.iter().all(|(s, _)| *s != stemming) {
                managers.push((
                    stemming,
                    index_format::tokenize::query_tokenizers_for(stemming),
                ));
            }
        }
        managers
    });
    managers
        .iter()
        .find(|(s, _)| *s == stemming)
        .or_else(|| managers.iter().find(|(s, _)| *s == Stemming::DEFAULT))
        .map(|(_, manager)| manager)
        .expect("the default stemming is always made")
}

/// `text` cut by the stemmed analyzer of `manager`.
fn stemmed_tokens(manager: &TokenizerManager, text: &str) -> Vec<String> {
    let Some(mut analyzer) = manager.get(index_format::tokenize::STEMMED) else {
        return Vec::new();
    };
    let mut stream = analyzer.token_stream(text);
    let mut tokens = Vec::new();
    while stream.advance() {
        tokens.push(stream.token().text.clone());
    }
    tokens
}

/// The stemmings of the documents `searcher` holds (from the `stemmer` field's terms); an
/// index without documents holds the default.
pub(crate) fn stemmings_held(searcher: &tantivy::Searcher, stemmer_field: Field) -> Vec<Stemming> {
    let mut held = Vec::new();
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(stemmer_field) else {
            continue;
        };
        let Ok(mut terms) = inverted.terms().stream() else {
            continue;
        };
        while terms.advance() {
            if let Some(stemming) = std::str::from_utf8(terms.key())
                .ok()
                .and_then(Stemming::from_name)
                && !held.contains(&stemming)
            {
                held.push(stemming);
            }
        }
    }
    if held.is_empty() {
        held.push(Stemming::DEFAULT);
    }
    held
}

/// Adds the stemmings of `more` that `held` lacks.
pub(crate) fn merge_held(held: &mut Vec<Stemming>, more: Vec<Stemming>) {
    for stemming in more {
        if !held.contains(&stemming) {
            held.push(stemming);
        }
    }
}
