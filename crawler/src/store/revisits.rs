//! The re-crawl schedule in the store: a stored URL's `RevisitRecord`, and the due pages a
//! run queues first.

use rocksdb::{IteratorMode, WriteBatch};
use shared::fail_point;
use shared::record::{EntryKind, FrontierEntry, Record, RevisitRecord};
use shared::store::{Cf, QueuePosition, frontier_key};
use shared::{CanonicalUrl, StoreError};

use super::PageStore;

impl PageStore {
    /// The re-crawl schedule of a stored URL.
    pub fn revisit(&self, url: &str) -> Result<Option<RevisitRecord>, StoreError> {
        self.get(Cf::Revisit, url.as_bytes())
    }

    /// Queues every stored page whose next visit is due at `now_ms` (and is not queued
    /// already) as a [`EntryKind::Revisit`] entry; returns how many.
    pub fn queue_due_revisits(&mut self, now_ms: u64) -> Result<u64, StoreError> {
        let mut due = Vec::new();
        for item in self
            .db
            .iterator_cf(self.cf(Cf::Revisit), IteratorMode::Start)
        {
            let (url, value) = item?;
            let record = RevisitRecord::decode(&value)?;
            if record.due_ms <= now_ms && !record.queued {
                due.push((String::from_utf8_lossy(&url).into_owned(), record));
            }
        }
        let count = due.len() as u64;
        for chunk in due.chunks(10_000) {
            let mut batch = WriteBatch::default();
            for (url, record) in chunk {
                let Ok(canonical) = CanonicalUrl::parse(url) else {
                    continue;
                };
                let entry = FrontierEntry {
                    kind: EntryKind::Revisit,
                    ..FrontierEntry::page(url.clone(), record.depth)
                };
                let position = QueuePosition {
                    rank: entry.rank(),
                    seq: self.counters.next_seq,
                };
                let key = frontier_key(&canonical.origin(), position);
                self.counters.next_seq += 1;
                self.counters.frontier_len += 1;
                batch.put_cf(self.cf(Cf::Frontier), &key, entry.encode());
                self.lower_floor(&key);
                let queued = RevisitRecord {
                    queued: true,
                    ..record.clone()
                };
                batch.put_cf(self.cf(Cf::Revisit), url.as_bytes(), queued.encode());
            }
            self.put_counters(&mut batch);
            fail_point!("crawler::store::queue_revisits::before_write", |_| Err(
                self.injected("crawler::store::queue_revisits::before_write")
            ));
            self.write(batch)?;
        }
        Ok(count)
    }
}
