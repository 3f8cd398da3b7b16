//! How a shard chooses its best documents for round 2 of a search: the
//! [`top_collector`], keyed by [`SortKey`] (relevance, or the page's date then relevance
//! for `sort=date`).

use std::sync::Arc;

use shared::config::RankingConfig;
use tantivy::collector::{Collector, TopDocs};
use tantivy::{DocAddress, Score, SegmentReader};

use crate::columns::{Columns, SegmentSignals};

/// What a shard's best are chosen by: the page's date (`by_date`: seconds, [`UNDATED`] for
/// none; else 0 for all), then its score.
pub(crate) type SortKey = (i64, Score);

/// The date key of a page with none: below every date.
const UNDATED: i64 = i64::MIN;

/// The best `limit` documents by BM25, times the page's signals (read from `columns`) when
/// `weights` are given; `by_date`: the newest, ties by that score.
pub(crate) fn top_collector(
    limit: usize,
    weights: Option<RankingConfig>,
    columns: Arc<Columns>,
    by_date: bool,
) -> impl Collector<Fruit = Vec<(SortKey, DocAddress)>> {
    TopDocs::with_limit(limit.max(1)).tweak_score(move |segment: &SegmentReader| {
        let reads = columns.of_reader(segment);
        let signals = match reads {
            Some(reads) => reads.signals.clone(),
            None => SegmentSignals::of(segment),
        };
        let dates = by_date
            .then(|| match reads {
                Some(reads) => reads.summary.date.clone(),
                None => segment.fast_fields().i64(index_format::fields::DATE).ok(),
            })
            .flatten();
        let weights = weights.clone();
        move |doc, score: Score| {
            let score = match &weights {
                Some(weights) => score * signals.multiplier(doc, weights),
                None => score,
            };
            let date = match &dates {
                Some(dates) => dates.first(doc).unwrap_or(UNDATED),
                None if by_date => UNDATED,
                None => 0,
            };
            (date, score)
        }
    })
}
