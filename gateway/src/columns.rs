//! The fast-field columns every query reads of a segment: the page signals its scores are
//! multiplied by ([`SegmentSignals`]) and what the merge needs of its best documents
//! ([`SegmentColumns`]). Opening a column reads its header and builds its reader: done for
//! every segment of every query, that was a tenth of a query's CPU. [`ColumnCache`] opens
//! them once per searcher (a reload or a commit brings a new one), kept with the shard's
//! loaded generation, and hands them out.

use std::sync::{Arc, Mutex};

use shared::config::RankingConfig;
use tantivy::columnar::{Column, ColumnValues, StrColumn};
use tantivy::index::SegmentId;
use tantivy::{DocId, Score, SegmentReader};

use index_format::fields;

use crate::ranking::{PageSignals, THIN_WORDS};

/// The columns of every segment of one searcher.
pub(crate) struct Columns {
    /// The searcher generation they were opened for.
    generation: u64,
    /// Each segment's, in the searcher's order.
    segments: Vec<SegmentReads>,
}

/// The columns of one segment.
pub(crate) struct SegmentReads {
    id: SegmentId,
    /// Its page signals.
    pub(crate) signals: SegmentSignals,
    /// What a summary reads.
    pub(crate) summary: SegmentColumns,
}

impl Columns {
    fn open(searcher: &tantivy::Searcher) -> Self {
        Self {
            generation: searcher.generation().generation_id(),
            segments: searcher
                .segment_readers()
                .iter()
                .map(|reader| SegmentReads {
                    id: reader.segment_id(),
                    signals: SegmentSignals::of(reader),
                    summary: SegmentColumns::open(reader),
                })
                .collect(),
        }
    }

    /// The columns of the searcher's segment number `ord`.
    pub(crate) fn segment(&self, ord: u32) -> &SegmentReads {
        &self.segments[ord as usize]
    }

    /// The columns of the segment `reader` reads, if it is one of the searcher's.
    pub(crate) fn of_reader(&self, reader: &SegmentReader) -> Option<&SegmentReads> {
        let id = reader.segment_id();
        self.segments.iter().find(|segment| segment.id == id)
    }
}

/// The [`Columns`] of a generation's latest searcher.
#[derive(Default)]
pub(crate) struct ColumnCache {
    latest: Mutex<Option<Arc<Columns>>>,
}

impl ColumnCache {
    /// The columns of `searcher`, opened now if the cache holds another searcher's.
    pub(crate) fn of(&self, searcher: &tantivy::Searcher) -> Arc<Columns> {
        let generation = searcher.generation().generation_id();
        let mut latest = self
            .latest
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match &*latest {
            Some(columns) if columns.generation == generation => Arc::clone(columns),
            _ => {
                let columns = Arc::new(Columns::open(searcher));
                *latest = Some(Arc::clone(&columns));
                columns
            }
        }
    }
}

/// The columns of one segment a [`crate::summary::TopHit`] is read from.
pub(crate) struct SegmentColumns {
    pub(crate) url: Option<StrColumn>,
    pub(crate) host: Option<StrColumn>,
    pub(crate) lang: Option<StrColumn>,
    pub(crate) name: Option<Column<u64>>,
    pub(crate) simhash: Option<Column<u64>>,
    pub(crate) translations: Option<Column<u64>>,
    /// The page's date (`sort=date`); `None` in an index made before dates.
    pub(crate) date: Option<Column<i64>>,
}

impl SegmentColumns {
    fn open(reader: &SegmentReader) -> Self {
        let fast = reader.fast_fields();
        let str_column = |name| fast.str(name).ok().flatten();
        let u64_column = |name| fast.u64(name).ok();
        Self {
            url: str_column(fields::URL),
            host: str_column(fields::HOST),
            lang: str_column(fields::LANG),
            name: u64_column(fields::PAGE_NAME),
            simhash: u64_column(fields::SIMHASH),
            translations: u64_column(fields::TRANSLATIONS),
            date: fast.i64(fields::DATE).ok(),
        }
    }
}

/// The columns of one segment that a page's [`PageSignals`] are read from.
#[derive(Clone)]
pub(crate) struct SegmentSignals {
    columns: [Option<Arc<dyn ColumnValues<u64>>>; 6],
}

impl SegmentSignals {
    /// The signal columns of `segment` (an index without one reads its neutral value).
    pub(crate) fn of(segment: &SegmentReader) -> Self {
        let column = |name| {
            segment
                .fast_fields()
                .u64(name)
                .ok()
                .map(|c| c.first_or_default_col(0))
        };
        Self {
            columns: [
                column(fields::INLINKS),
                column(fields::EXTERNAL_INLINKS),
                column(fields::URL_DEPTH),
                column(fields::RANK_LEVEL),
                column(fields::CODE_PERCENT),
                column(fields::BODY_WORDS),
            ],
        }
    }

    /// The signals of document `doc`.
    pub(crate) fn of_doc(&self, doc: DocId) -> PageSignals {
        let value = |i: usize, missing| {
            self.columns[i]
                .as_ref()
                .map_or(missing, |c: &Arc<dyn ColumnValues<u64>>| c.get_val(doc))
        };
        PageSignals {
            inlinks: value(0, 0),
            external_inlinks: value(1, 0),
            depth: value(2, 0),
            rank_level: value(3, 0),
            code_percent: value(4, 0),
            // An index without the field: no page is thin.
            body_words: value(5, THIN_WORDS),
        }
    }

    /// What multiplies document `doc`'s score under `ranking`.
    pub(crate) fn multiplier(&self, doc: DocId, ranking: &RankingConfig) -> Score {
        self.of_doc(doc).multiplier(ranking)
    }
}
