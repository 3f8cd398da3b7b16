//! The facets: how many of a query's matches (all of them, not the page shown) have each
//! language, kind (`html`, `pdf`), site (host) and year ([`Facets`], counted by the
//! [`FacetCounts`] collector over the `lang`, `kind`, `host` and `date` fast fields).
//!
//! A segment whose documents all have one value of a column (every segment of a one-language
//! site, of a crawl without PDFs) counts that value once per match, without reading the
//! column. Memory is a count per value a segment's dictionary holds (its hosts, at most) and
//! per year: bounded by the index, not by the matches. A shard sends its [`SITES_KEPT`]
//! busiest sites: a host lives in one shard (a partition holds whole hosts), so the busiest
//! sites of all shards are among them, with their counts whole.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, StrColumn};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use index_format::fields;

/// Values with their counts, most first (ties by value).
pub(crate) type Counts = Vec<(String, u64)>;

/// Sites counted in an answer: the busiest.
pub const SITES_KEPT: usize = 10;

/// The years a date may fall in, from 1970 (the dates the crawler believes start in 1991).
const YEARS: usize = 256;

/// A query's matches counted by each facet's values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facets {
    /// By language (`en`, `fr`, `und`).
    #[serde(default)]
    pub lang: Counts,
    /// By what they were made from (`html`, `pdf`).
    #[serde(default)]
    pub kind: Counts,
    /// By host, the busiest [`SITES_KEPT`].
    #[serde(default)]
    pub site: Counts,
    /// By the year of their date (`2024`); undated pages are in none.
    #[serde(default)]
    pub year: Counts,
}

impl Facets {
    /// The facets of several segments or shards added up, most first; the busiest sites
    /// kept.
    pub(crate) fn merge(parts: impl IntoIterator<Item = Facets>) -> Facets {
        let mut lang = Vec::new();
        let mut kind = Vec::new();
        let mut site = Vec::new();
        let mut year = Vec::new();
        for part in parts {
            lang.push(part.lang);
            kind.push(part.kind);
            site.push(part.site);
            year.push(part.year);
        }
        let mut site = merge(site);
        site.truncate(SITES_KEPT);
        let mut year = merge(year);
        // Newest first: a year facet reads as a timeline.
        year.sort_by(|a, b| b.0.cmp(&a.0));
        Facets {
            lang: merge(lang),
            kind: merge(kind),
            site,
            year,
        }
    }
}

/// Counts a query's matches by each facet.
pub(crate) struct FacetCounts;

/// One segment's counting.
pub(crate) struct SegmentFacets {
    lang: ValueCounts,
    kind: ValueCounts,
    site: ValueCounts,
    dates: Option<Column<i64>>,
    /// Matches by year since 1970.
    years: Vec<u64>,
}

/// Matches by the value of one string column in one segment.
struct ValueCounts {
    column: Option<StrColumn>,
    /// The column has one value, for every document: every match has that value.
    single: bool,
    /// Matches by term ordinal (by the one value when `single`).
    counts: Vec<u64>,
}

impl ValueCounts {
    fn open(reader: &SegmentReader, field: &str) -> tantivy::Result<Self> {
        let column = reader.fast_fields().str(field)?;
        let (single, terms) = match &column {
            Some(column) => (
                column.num_terms() == 1 && column.ords().get_cardinality().is_full(),
                column.num_terms(),
            ),
            None => (false, 0),
        };
        Ok(Self {
            column,
            single,
            counts: vec![0; terms],
        })
    }

    fn count(&mut self, doc: DocId) {
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

impl Collector for FacetCounts {
    type Fruit = Facets;
    type Child = SegmentFacets;

    fn for_segment(
        &self,
        _segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentFacets> {
        Ok(SegmentFacets {
            lang: ValueCounts::open(reader, fields::LANG)?,
            kind: ValueCounts::open(reader, fields::KIND)?,
            site: ValueCounts::open(reader, fields::HOST)?,
            // An index made before dates has no such column: no years.
            dates: reader.fast_fields().i64(fields::DATE).ok(),
            years: vec![0; YEARS],
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Facets>) -> tantivy::Result<Facets> {
        Ok(Facets::merge(fruits))
    }
}

impl SegmentCollector for SegmentFacets {
    type Fruit = Facets;

    fn collect(&mut self, doc: DocId, _score: Score) {
        self.lang.count(doc);
        self.kind.count(doc);
        self.site.count(doc);
        if let Some(date) = self.dates.as_ref().and_then(|dates| dates.first(doc)) {
            let (year, _, _) = shared::dates::civil_from_days(date.div_euclid(86_400));
            if let Some(count) = usize::try_from(year - 1970)
                .ok()
                .and_then(|i| self.years.get_mut(i))
            {
                *count += 1;
            }
        }
    }

    fn harvest(self) -> Facets {
        let year = self
            .years
            .iter()
            .enumerate()
            .filter(|(_, count)| **count > 0)
            .map(|(i, count)| ((1970 + i).to_string(), *count))
            .collect();
        // Every site of the segment: a host spans segments, so the busiest are kept only
        // once a shard's segments are added up (`Facets::merge`).
        Facets {
            lang: self.lang.harvest(),
            kind: self.kind.harvest(),
            site: self.site.harvest(),
            year,
        }
    }
}

/// Counts of several segments or shards added up, most first.
fn merge(parts: impl IntoIterator<Item = Counts>) -> Counts {
    let mut sums: BTreeMap<String, u64> = BTreeMap::new();
    for (value, count) in parts.into_iter().flatten() {
        *sums.entry(value).or_default() += count;
    }
    let mut out: Counts = sums.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_facets_add_up_and_keep_the_busiest_sites() {
        let part = |sites: std::ops::Range<u64>, year: &str| Facets {
            lang: vec![("en".into(), sites.end - sites.start)],
            site: sites.map(|n| (format!("h{n:02}.test"), n)).collect(),
            year: vec![(year.into(), 1)],
            ..Facets::default()
        };
        let merged = Facets::merge([part(0..8, "2021"), part(8..16, "2024"), part(3..4, "2021")]);
        assert_eq!(merged.lang, [("en".to_string(), 17)]);
        let sites: Vec<&str> = merged.site.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(
            sites,
            [
                "h15.test", "h14.test", "h13.test", "h12.test", "h11.test", "h10.test", "h09.test",
                "h08.test", "h07.test", "h03.test"
            ],
            "the busiest {SITES_KEPT} (h03.test's counts added up)"
        );
        assert_eq!(merged.site[9], ("h03.test".to_string(), 6));
        assert_eq!(
            merged.year,
            [("2024".to_string(), 1), ("2021".to_string(), 2)],
            "newest first"
        );
    }
}
