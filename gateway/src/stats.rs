//! Term statistics over several shards, so every shard scores with the figures of one index
//! holding all their documents.
//!
//! BM25 needs, per query term, the documents holding it, and per field the documents and the
//! tokens in all: a shard alone would weigh a word rare where it is common elsewhere. A root
//! first asks every shard for [`ShardStats`] of the query's terms, adds them up, and hands
//! the sum to each shard's search as a tantivy [`Bm25StatisticsProvider`] ([`Scoring`]).
//! The figures are tantivy's own (`max_doc`, `total_num_tokens`, `doc_freq`), so the sum is
//! what one index over the same documents would compute. Terms are keyed by the hex of
//! their field, type and value bytes, so the figures can cross the wire.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tantivy::query::{Bm25StatisticsProvider, Query};
use tantivy::schema::Field;
use tantivy::{Searcher, Term};

/// Which hosts a shard's documents come from: host crowding has work only with several.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hosts {
    /// No documents.
    #[default]
    None,
    /// Every document is of this host.
    One(String),
    /// More than one.
    Many,
}

impl Hosts {
    /// The hosts of two shards together.
    pub fn and(self, other: Hosts) -> Hosts {
        match (self, other) {
            (Hosts::None, h) | (h, Hosts::None) => h,
            (Hosts::One(a), Hosts::One(b)) if a == b => Hosts::One(a),
            _ => Hosts::Many,
        }
    }
}

/// A shard's (or several shards' summed) statistics for one query's terms.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardStats {
    /// Documents (tantivy's `max_doc`, deleted ones included, as BM25 counts them).
    pub docs: u64,
    /// Tokens per field, by field number.
    pub tokens: BTreeMap<u32, u64>,
    /// Documents holding each term, by `term_key`.
    pub doc_freqs: BTreeMap<String, u64>,
    /// The hosts of its documents.
    pub hosts: Hosts,
    /// The shards of a leaf (or of the root) that have no index yet, by directory name
    /// (`p-001`): their documents are in none of the answers, which the root says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unindexed: Vec<String>,
}

impl ShardStats {
    /// The statistics of `searcher`'s index for `terms` (a query's), and its hosts.
    pub fn of(searcher: &Searcher, terms: &QueryTerms, hosts: Hosts) -> tantivy::Result<Self> {
        let mut stats = ShardStats {
            docs: Bm25StatisticsProvider::total_num_docs(searcher)?,
            hosts,
            ..ShardStats::default()
        };
        for &field in &terms.fields {
            let tokens = Bm25StatisticsProvider::total_num_tokens(searcher, field)?;
            stats.tokens.insert(field.field_id(), tokens);
        }
        for (term, key) in &terms.terms {
            stats
                .doc_freqs
                .insert(key.clone(), searcher.doc_freq(term)?);
        }
        Ok(stats)
    }

    /// Two shards' statistics together.
    pub fn plus(mut self, other: ShardStats) -> ShardStats {
        self.docs += other.docs;
        for (field, tokens) in other.tokens {
            *self.tokens.entry(field).or_default() += tokens;
        }
        for (term, freq) in other.doc_freqs {
            *self.doc_freqs.entry(term).or_default() += freq;
        }
        self.hosts = std::mem::take(&mut self.hosts).and(other.hosts);
        self.unindexed.extend(other.unindexed);
        self
    }
}

/// The distinct terms of a query with their keys, and the fields they are in: worked out
/// once per query, then looked up in every shard.
pub struct QueryTerms {
    terms: Vec<(Term, String)>,
    fields: Vec<Field>,
}

impl QueryTerms {
    /// The terms of `query`.
    pub fn of(query: &dyn Query) -> Self {
        let mut terms: Vec<(Term, String)> = Vec::new();
        let mut fields: Vec<Field> = Vec::new();
        query.query_terms(&mut |term, _| {
            let key = term_key(term);
            if !terms.iter().any(|(_, known)| *known == key) {
                terms.push((term.clone(), key));
            }
            if !fields.contains(&term.field()) {
                fields.push(term.field());
            }
        });
        Self { terms, fields }
    }
}

/// A term's key in [`ShardStats::doc_freqs`]: its field number, its type and its value's
/// bytes, in hex.
pub fn term_key(term: &Term) -> String {
    let mut key = format!(
        "{:x}.{:02x}.",
        term.field().field_id(),
        term.typ().to_code()
    );
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &byte in term.serialized_value_bytes() {
        key.push(HEX[usize::from(byte >> 4)] as char);
        key.push(HEX[usize::from(byte & 0xf)] as char);
    }
    key
}

/// The summed statistics as tantivy asks for them while scoring on one shard. A figure the
/// sum lacks (none should: the terms are the query's own) is the shard's own.
pub struct Scoring<'a> {
    /// The sum over every shard.
    pub global: &'a ShardStats,
    /// The shard searched.
    pub local: &'a Searcher,
}

impl Bm25StatisticsProvider for Scoring<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        match self.global.tokens.get(&field.field_id()) {
            Some(&tokens) => Ok(tokens),
            None => Bm25StatisticsProvider::total_num_tokens(self.local, field),
        }
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        let local = Bm25StatisticsProvider::total_num_docs(self.local)?;
        // Never fewer than the shard's own: a term's count must not exceed the documents.
        Ok(self.global.docs.max(local))
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        if self.global.doc_freqs.is_empty() {
            return self.local.doc_freq(term);
        }
        match self.global.doc_freqs.get(&term_key(term)) {
            Some(&freq) => Ok(freq),
            None => self.local.doc_freq(term),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_figures_add_up() {
        let one = |h: &str| Hosts::One(h.into());
        assert_eq!(Hosts::None.and(one("a")), one("a"));
        assert_eq!(one("a").and(one("a")), one("a"));
        assert_eq!(one("a").and(one("b")), Hosts::Many);
        assert_eq!(Hosts::Many.and(Hosts::None), Hosts::Many);
        let stats = |docs, freq| ShardStats {
            docs,
            tokens: BTreeMap::from([(3, docs * 10)]),
            doc_freqs: BTreeMap::from([("00ab".to_string(), freq)]),
            hosts: one("a"),
            unindexed: Vec::new(),
        };
        let sum = stats(5, 2).plus(stats(7, 1));
        assert_eq!(
            (sum.docs, sum.tokens[&3], sum.doc_freqs["00ab"]),
            (12, 120, 3)
        );
        assert_eq!(sum.hosts, one("a"));
    }
}
