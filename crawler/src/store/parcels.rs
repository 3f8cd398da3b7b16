//! Parcels of links between partitions, delivered at least once and applied exactly once,
//! whatever Redis loses.
//!
//! **Sending.** The outbox's links become parcels, one per target partition, each numbered
//! per (source, target) from 1 without gaps ([`PageStore::parcel_outbox`]). The same batch
//! deletes the links from the outbox and keeps the parcels in the `sent` family, where they
//! stay, and are sent again when it may have been lost ([`PageStore::unconfirmed`]), until
//! the target confirms them ([`PageStore::confirmed`]). A parcel Redis accepted and then
//! lost (a restart without its data, a failover to a replica behind) is thus sent again.
//!
//! **Applying.** The target keeps, per source, the number up to which every parcel is applied
//! (its mark), and the parcels applied past a gap in the numbers ([`PageStore::apply_parcels`]).
//! A parcel at or below the mark, or applied past a gap before, is skipped: a link counts one
//! in-link however often its parcel arrives. The mark is what the target confirms, so a
//! parcel lost before others that arrived holds the confirmation back until it is sent again.

use std::collections::{BTreeMap, HashMap};

use rocksdb::{Direction, IteratorMode, WriteBatch};
use shared::CanonicalUrl;
use shared::StoreError;
use shared::partition::PartitionId;
use shared::record::{FrontierEntry, LinkParcel, OutboxLink, Record};
use shared::store::{
    Cf, PARCEL_AHEAD_PREFIX, PARCEL_MARK_PREFIX, PARCEL_NEXT_PREFIX, meta_key, outbox_key, sent_key,
};

use super::{PageStore, QueuedUrl};

/// A parcel that arrived in this partition's stream.
#[derive(Clone, Debug)]
pub(crate) struct ArrivedParcel {
    /// The sending partition; `None` for seeds.
    pub(crate) source: Option<PartitionId>,
    /// Its number among the source's parcels to this partition; 0: not numbered (seeds, and
    /// parcels of an older format), applied every time it arrives.
    pub(crate) number: u64,
    pub(crate) links: Vec<FrontierEntry>,
}

impl From<LinkParcel> for ArrivedParcel {
    fn from(parcel: LinkParcel) -> Self {
        Self {
            source: parcel.source.map(PartitionId::new),
            number: parcel.number,
            links: parcel.links,
        }
    }
}

/// Per source partition, the number up to which every parcel it sent here is applied.
pub(crate) type Marks = Vec<(PartitionId, u64)>;

/// Where a send of unconfirmed parcels goes on from: the last (target, number) it took.
pub(crate) type SentCursor = (u32, u64);

impl PageStore {
    /// Makes parcels of up to `limit` outbox links, oldest first, one per target partition:
    /// numbered, kept in `sent` and deleted from the outbox in one batch. Returns them to be
    /// sent; nothing when the outbox is empty or the store is no partition.
    pub(crate) fn parcel_outbox(
        &mut self,
        limit: usize,
    ) -> Result<Vec<(PartitionId, LinkParcel)>, StoreError> {
        let Some(route) = self.route else {
            return Ok(Vec::new());
        };
        let links = self.outbox(limit)?;
        let Some(&(last, _)) = links.last() else {
            return Ok(Vec::new());
        };
        let count = links.len() as u64;
        let mut by_target: BTreeMap<u32, Vec<FrontierEntry>> = BTreeMap::new();
        for (_, OutboxLink { target, entry }) in links {
            by_target.entry(target).or_default().push(entry);
        }
        let mut batch = WriteBatch::default();
        batch.delete_range_cf(
            self.cf(Cf::Outbox),
            outbox_key(0),
            outbox_key(last.saturating_add(1)),
        );
        let mut parcels = Vec::with_capacity(by_target.len());
        for (target, links) in by_target {
            let next_key = meta_key(PARCEL_NEXT_PREFIX, &target.to_be_bytes());
            let number = self.read_count(&next_key)?.max(1);
            let parcel = LinkParcel {
                source: Some(route.own().get()),
                number,
                links,
            };
            batch.put_cf(self.cf(Cf::Sent), sent_key(target, number), parcel.encode());
            batch.put_cf(self.cf(Cf::Meta), next_key, (number + 1).to_be_bytes());
            parcels.push((PartitionId::new(target), parcel));
        }
        self.write(batch)?;
        self.outbox_len = self.outbox_len.saturating_sub(count);
        self.unconfirmed = true;
        Ok(parcels)
    }

    /// Sent parcels not yet confirmed, in (target, number) order after `after` (from the
    /// first when `None`), until they hold `limit` links (at least one parcel).
    pub(crate) fn unconfirmed(
        &self,
        after: Option<SentCursor>,
        limit: usize,
    ) -> Result<Vec<(PartitionId, LinkParcel)>, StoreError> {
        let from = after.map(|(target, number)| sent_key(target, number.saturating_add(1)));
        let mode = match &from {
            Some(key) => IteratorMode::From(key, Direction::Forward),
            None => IteratorMode::Start,
        };
        let mut parcels = Vec::new();
        let mut links = 0;
        for item in self.db.iterator_cf(self.cf(Cf::Sent), mode) {
            if links >= limit {
                break;
            }
            let (key, value) = item?;
            let Some(target) = key.get(..4).and_then(|t| <[u8; 4]>::try_from(t).ok()) else {
                continue;
            };
            let parcel = LinkParcel::decode(&value)?;
            links += parcel.links.len().max(1);
            parcels.push((PartitionId::new(u32::from_be_bytes(target)), parcel));
        }
        Ok(parcels)
    }

    /// Whether parcels wait for their targets' confirmation.
    pub(crate) fn has_unconfirmed(&self) -> bool {
        self.unconfirmed
    }

    /// Reads whether `sent` holds a parcel (when the store is claimed).
    pub(super) fn count_unconfirmed(&mut self) {
        self.unconfirmed = self
            .db
            .iterator_cf(self.cf(Cf::Sent), IteratorMode::Start)
            .next()
            .is_some();
    }

    /// Each target in `marks` applied every parcel up to its number: they go from `sent`.
    pub(crate) fn confirmed(&mut self, marks: &[(PartitionId, u64)]) -> Result<(), StoreError> {
        if !self.unconfirmed || marks.is_empty() {
            return Ok(());
        }
        let mut batch = WriteBatch::default();
        for &(target, mark) in marks {
            batch.delete_range_cf(
                self.cf(Cf::Sent),
                sent_key(target.get(), 0),
                sent_key(target.get(), mark.saturating_add(1)),
            );
        }
        shared::fail_point!("crawler::store::confirmed::before_write", |_| Err(
            self.injected("crawler::store::confirmed::before_write")
        ));
        self.write(batch)?;
        self.count_unconfirmed();
        Ok(())
    }

    /// Queues the links of parcels other partitions (or seed lists) sent, in one batch that
    /// also moves each source's mark: a numbered parcel at or below its source's mark, or
    /// applied past a gap before, is skipped. Returns what was queued, and the marks of the
    /// sources of numbered parcels (to confirm, also when every parcel was skipped: the
    /// sender sent them again for want of a confirmation).
    pub(crate) fn apply_parcels(
        &mut self,
        parcels: Vec<ArrivedParcel>,
    ) -> Result<(Vec<QueuedUrl>, Marks), StoreError> {
        let mut marks: BTreeMap<PartitionId, u64> = BTreeMap::new();
        // Parcels applied past a gap, as this batch leaves them: true kept, false deleted.
        let mut ahead: HashMap<(PartitionId, u64), bool> = HashMap::new();
        let mut batch = WriteBatch::default();
        let mut entries = Vec::new();
        for parcel in parcels {
            if let Some(source) = parcel.source.filter(|_| parcel.number > 0) {
                let mark = match marks.get(&source) {
                    Some(&mark) => mark,
                    None => self.read_count(&mark_key(source))?,
                };
                let number = parcel.number;
                if number <= mark || self.is_ahead(&ahead, source, number)? {
                    marks.insert(source, mark);
                    continue;
                }
                if number == mark + 1 {
                    let mut mark = number;
                    while self.is_ahead(&ahead, source, mark + 1)? {
                        mark += 1;
                        ahead.insert((source, mark), false);
                        batch.delete_cf(self.cf(Cf::Meta), ahead_key(source, mark));
                    }
                    marks.insert(source, mark);
                } else {
                    marks.insert(source, mark);
                    ahead.insert((source, number), true);
                    batch.put_cf(self.cf(Cf::Meta), ahead_key(source, number), []);
                }
            }
            entries.extend(
                parcel
                    .links
                    .into_iter()
                    .filter_map(|entry| Some((CanonicalUrl::parse(&entry.url).ok()?, entry))),
            );
        }
        let queued = self.queue_unseen(&mut batch, entries)?;
        for (&source, mark) in &marks {
            batch.put_cf(self.cf(Cf::Meta), mark_key(source), mark.to_be_bytes());
        }
        self.put_counters(&mut batch);
        self.write(batch)?;
        Ok((queued, marks.into_iter().collect()))
    }

    /// Raises each source's mark to what an earlier holder of this partition confirmed to it
    /// (`confirmed`, as Redis has it). Those parcels were applied to a store this one is not
    /// (one lost with its disk: this one starts in its place) and their senders have let
    /// them go: waiting for them would hold the mark back for ever, and with it the senders'
    /// confirmations and the crawl's end. Parcels applied past the old
    /// mark up to the new one are forgotten; the mark moves on over those applied after it.
    /// Returns the marks raised.
    pub(crate) fn raise_marks(&mut self, confirmed: &Marks) -> Result<Marks, StoreError> {
        let mut batch = WriteBatch::default();
        let mut raised = Marks::new();
        for &(source, confirmed) in confirmed {
            let mark = self.read_count(&mark_key(source))?;
            if confirmed <= mark {
                continue;
            }
            batch.delete_range_cf(
                self.cf(Cf::Meta),
                ahead_key(source, mark.saturating_add(1)),
                ahead_key(source, confirmed.saturating_add(1)),
            );
            let mut mark = confirmed;
            while mark < u64::MAX && self.is_ahead(&HashMap::new(), source, mark + 1)? {
                mark += 1;
                batch.delete_cf(self.cf(Cf::Meta), ahead_key(source, mark));
            }
            batch.put_cf(self.cf(Cf::Meta), mark_key(source), mark.to_be_bytes());
            raised.push((source, mark));
        }
        if !raised.is_empty() {
            self.write(batch)?;
        }
        Ok(raised)
    }

    /// Whether parcel `number` of `source` was applied past a gap: as this batch left it, or
    /// as the store has it.
    fn is_ahead(
        &self,
        batch: &HashMap<(PartitionId, u64), bool>,
        source: PartitionId,
        number: u64,
    ) -> Result<bool, StoreError> {
        if let Some(&kept) = batch.get(&(source, number)) {
            return Ok(kept);
        }
        Ok(self
            .db
            .get_pinned_cf(self.cf(Cf::Meta), ahead_key(source, number))?
            .is_some())
    }
}

/// The `meta` key of `source`'s mark.
fn mark_key(source: PartitionId) -> Vec<u8> {
    meta_key(PARCEL_MARK_PREFIX, &source.get().to_be_bytes())
}

/// The `meta` key of `source`'s parcel `number`, applied past a gap.
fn ahead_key(source: PartitionId, number: u64) -> Vec<u8> {
    let mut rest = source.get().to_be_bytes().to_vec();
    rest.extend_from_slice(&number.to_be_bytes());
    meta_key(PARCEL_AHEAD_PREFIX, &rest)
}
