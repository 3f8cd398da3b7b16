//! The language facet: how many of a query's matches are in each language ([`LangCounts`],
//! a tantivy collector over the `lang` fast field).
//!
//! A segment whose documents are all in one language (every segment of a one-language site)
//! is counted as [`tantivy::collector::Count`] counts, without reading the column per match.

use std::collections::BTreeMap;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::StrColumn;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

/// Counts matches by the value of the `lang` fast field.
pub(crate) struct LangCounts;

/// Matches by language, most first (ties by code).
pub(crate) type Counts = Vec<(String, u64)>;

/// One segment's counting.
pub(crate) struct SegmentCounts {
    column: Option<StrColumn>,
    /// The column has one value, for every document: every match is in that language.
    single: bool,
    /// Matches by term ordinal (by the one value when `single`).
    counts: Vec<u64>,
}

impl Collector for LangCounts {
    type Fruit = Counts;
    type Child = SegmentCounts;

    fn for_segment(
        &self,
        _segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentCounts> {
        let column = reader.fast_fields().str(index_format::fields::LANG)?;
        let (single, terms) = match &column {
            Some(column) => (
                column.num_terms() == 1 && column.ords().get_cardinality().is_full(),
                column.num_terms(),
            ),
            None => (false, 0),
        };
        Ok(SegmentCounts {
            column,
            single,
            counts: vec![0; terms],
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Counts>) -> tantivy::Result<Counts> {
        Ok(merge(fruits))
    }
}

impl SegmentCollector for SegmentCounts {
    type Fruit = Counts;

    fn collect(&mut self, doc: DocId, _score: Score) {
        if self.single {
            self.counts[0] += 1;
        } else if let Some(column) = &self.column
            && let Some(ord) = column.term_ords(doc).next()
            && let Some(count) = self.counts.get_mut(ord as usize)
        {
            *count += 1;
        }
    }

    fn harvest(self) -> Counts {
        let Some(column) = self.column else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut value = String::new();
        for (ord, &count) in self.counts.iter().enumerate() {
            if count > 0 && column.ord_to_str(ord as u64, &mut value).unwrap_or(false) {
                out.push((value.clone(), count));
            }
        }
        out
    }
}

/// Counts of several segments or shards added up, most first.
pub(crate) fn merge(parts: impl IntoIterator<Item = Counts>) -> Counts {
    let mut sums: BTreeMap<String, u64> = BTreeMap::new();
    for (value, count) in parts.into_iter().flatten() {
        *sums.entry(value).or_default() += count;
    }
    let mut out: Counts = sums.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}
