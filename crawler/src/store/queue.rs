//! The frontier's persistent half: URLs queued (seen-set and frontier entry in one batch),
//! found again (moving up their queue), handed out, requeued after a failure, dropped or
//! ended, and read back per origin in frontier order.

use std::collections::HashMap;

use rocksdb::{Direction, IteratorMode, ReadOptions, WriteBatch};
use shared::record::{
    EntryKind, FetchEvent, FrontierEntry, Record, RevisitRecord, SkipReason, SkipRecord,
};
use shared::store::{Cf, QueuePosition, frontier_key, frontier_key_origin, frontier_origin_range};
use shared::{CanonicalUrl, StoreError};

use super::PageStore;

/// A frontier entry with its key.
#[derive(Clone, Debug)]
pub struct QueuedUrl {
    /// The key in the `frontier` column family.
    pub key: Vec<u8>,
    /// The entry.
    pub entry: FrontierEntry,
    /// The key it had before it moved up its queue (found again, see
    /// [`FrontierEntry::rank`]); `None` for a URL queued for the first time.
    pub replaces: Option<Vec<u8>>,
}

impl PageStore {
    /// Queues URLs that were never seen (seeds, sitemap URLs); returns what was queued.
    pub fn enqueue(
        &mut self,
        urls: Vec<(CanonicalUrl, FrontierEntry)>,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut batch = WriteBatch::default();
        let queued = self.queue_unseen(&mut batch, urls)?;
        self.put_counters(&mut batch);
        self.write(batch)?;
        Ok(queued)
    }

    /// A fetch of the queued entry `key` failed and will be tried again: the entry, its
    /// attempt count raised, moves behind every URL of its origin that has not failed (see
    /// [`FrontierEntry::rank`]), and the failure joins the URL's fetch history, in one batch.
    /// Returns its new key.
    pub fn requeue(
        &mut self,
        key: &[u8],
        entry: &FrontierEntry,
        url: &CanonicalUrl,
        failure: FetchEvent,
    ) -> Result<Vec<u8>, StoreError> {
        self.handed_out.remove(key);
        let position = QueuePosition {
            rank: entry.rank(),
            seq: self.counters.next_seq,
        };
        self.counters.next_seq += 1;
        let new_key = frontier_key(&url.origin(), position);
        let mut batch = WriteBatch::default();
        batch.delete_cf(self.cf(Cf::Frontier), key);
        batch.put_cf(self.cf(Cf::Frontier), &new_key, entry.encode());
        if entry.kind != EntryKind::Revisit {
            // Links to it find its entry by this position (a revisit's URL is done: none).
            batch.put_cf(
                self.cf(Cf::Seen),
                url.fingerprint().to_bytes(),
                position.to_bytes(),
            );
        }
        let earlier = self.history(url.as_str())?;
        self.add_to_history(&mut batch, url.as_str(), earlier, failure);
        self.put_counters(&mut batch);
        self.write(batch)?;
        Ok(new_key)
    }

    /// A queued entry goes to a fetch: it keeps its key until it is done.
    pub fn hand_out(&mut self, key: &[u8]) {
        self.handed_out.insert(key.to_vec());
    }

    /// Ends the frontier entry `key` in `batch`; `url` (its URL, when known) no longer
    /// waits, so links to it stop looking for its entry. Call it after anything else the
    /// batch queues: until then the entry counts as handed out and cannot move.
    pub(super) fn done(&mut self, batch: &mut WriteBatch, key: &[u8], url: Option<&str>) {
        batch.delete_cf(self.cf(Cf::Frontier), key);
        self.handed_out.remove(key);
        if let Some(url) = url {
            self.mark_seen(batch, url);
        }
    }

    /// The frontier key of `url` when it waits in the frontier (queued, not yet fetched).
    pub fn waiting_key(&self, url: &CanonicalUrl) -> Result<Option<Vec<u8>>, StoreError> {
        let seen = self
            .db
            .get_pinned_cf(self.cf(Cf::Seen), url.fingerprint().to_bytes())?
            .and_then(|value| QueuePosition::from_bytes(&value));
        Ok(seen.map(|position| frontier_key(&url.origin(), position)))
    }

    /// Marks `url` seen and not waiting, in `batch`.
    pub(super) fn mark_seen(&self, batch: &mut WriteBatch, url: &str) {
        if let Ok(url) = CanonicalUrl::parse(url) {
            batch.put_cf(self.cf(Cf::Seen), url.fingerprint().to_bytes(), []);
        }
    }

    /// Removes a URL from the frontier without fetching it (robots.txt, scope ...). A
    /// revisit dropped this way is due again one interval later.
    pub fn drop_queued(
        &mut self,
        key: &[u8],
        entry: &FrontierEntry,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        self.skip_queued(key, entry, None, now_ms)
    }

    /// [`PageStore::drop_queued`], recording why (`reason`) in the same write, for
    /// `crawler explain` and `crawler report`.
    pub fn skip_queued(
        &mut self,
        key: &[u8],
        entry: &FrontierEntry,
        reason: Option<SkipReason>,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        self.done(&mut batch, key, Some(&entry.url));
        if let Some(reason) = reason {
            let record = SkipRecord {
                reason,
                at_ms: now_ms,
            };
            batch.put_cf(self.cf(Cf::Skipped), entry.url.as_bytes(), record.encode());
        }
        if entry.kind == EntryKind::Revisit
            && let Some(record) = self.revisit(&entry.url)?
        {
            let next = RevisitRecord {
                queued: false,
                due_ms: now_ms.saturating_add(record.interval_ms),
                ..record
            };
            batch.put_cf(self.cf(Cf::Revisit), entry.url.as_bytes(), next.encode());
        }
        self.counters.frontier_len = self.counters.frontier_len.saturating_sub(1);
        self.put_counters(&mut batch);
        self.write(batch)?;
        Ok(())
    }

    pub(super) fn queue_unseen(
        &mut self,
        batch: &mut WriteBatch,
        urls: Vec<(CanonicalUrl, FrontierEntry)>,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut queued = Vec::new();
        let mut in_batch = std::collections::HashSet::new();
        let mut path_queries: HashMap<Vec<u8>, u32> = HashMap::new();
        for (url, entry) in urls {
            let fingerprint = url.fingerprint().to_bytes();
            if !in_batch.insert(fingerprint) {
                continue;
            }
            if let Some(target) = self.route.and_then(|route| route.elsewhere(&url)) {
                self.put_outbox(batch, target, entry);
                continue;
            }
            let seen = self
                .db
                .get_pinned_cf(self.cf(Cf::Seen), fingerprint)?
                .map(|value| QueuePosition::from_bytes(&value));
            if let Some(waiting) = seen {
                if entry.kind == EntryKind::Page
                    && let Some(position) = waiting
                    && let Some(moved) =
                        self.found_again(batch, &url, fingerprint, position, &entry)?
                {
                    queued.push(moved);
                }
                continue;
            }
            if entry.kind == EntryKind::Page
                && let Err(rule) = self.admit(batch, &url, &mut path_queries)?
            {
                self.keep_out(batch, &url, rule);
                continue;
            }
            let position = QueuePosition {
                rank: entry.rank(),
                seq: self.counters.next_seq,
            };
            let key = frontier_key(&url.origin(), position);
            self.counters.next_seq += 1;
            self.counters.frontier_len += 1;
            batch.put_cf(self.cf(Cf::Seen), fingerprint, position.to_bytes());
            batch.put_cf(self.cf(Cf::Frontier), &key, entry.encode());
            self.lower_floor(&key);
            queued.push(QueuedUrl {
                key,
                entry,
                replaces: None,
            });
        }
        Ok(queued)
    }

    /// A URL found again while it waits at `position`: its entry counts one more in-link
    /// and keeps the shallower depth of the two. When that raises its rank it moves up its
    /// queue (same sequence number, new key), unless a fetch of it is under way; the moved
    /// entry is returned so the in-memory queue can follow.
    fn found_again(
        &self,
        batch: &mut WriteBatch,
        url: &CanonicalUrl,
        fingerprint: [u8; 16],
        position: QueuePosition,
        found: &FrontierEntry,
    ) -> Result<Option<QueuedUrl>, StoreError> {
        let origin = url.origin();
        let key = frontier_key(&origin, position);
        if self.handed_out.contains(&key) {
            return Ok(None);
        }
        let Some(mut entry) = self.get::<FrontierEntry>(Cf::Frontier, &key)? else {
            // Done by a run that did not clear its position: clear it now.
            batch.put_cf(self.cf(Cf::Seen), fingerprint, []);
            return Ok(None);
        };
        if entry.kind != EntryKind::Page {
            return Ok(None);
        }
        entry.inlinks = entry.inlinks.saturating_add(1);
        entry.depth = entry.depth.min(found.depth);
        let raised = QueuePosition {
            rank: entry.rank(),
            seq: position.seq,
        };
        if raised.rank >= position.rank {
            batch.put_cf(self.cf(Cf::Frontier), &key, entry.encode());
            return Ok(None);
        }
        let new_key = frontier_key(&origin, raised);
        batch.delete_cf(self.cf(Cf::Frontier), &key);
        batch.put_cf(self.cf(Cf::Frontier), &new_key, entry.encode());
        self.lower_floor(&new_key);
        batch.put_cf(self.cf(Cf::Seen), fingerprint, raised.to_bytes());
        Ok(Some(QueuedUrl {
            key: new_key,
            entry,
            replaces: Some(key),
        }))
    }

    /// Up to `limit` queued URLs of one origin, in frontier order, skipping `skip` keys.
    pub fn queued_for(
        &self,
        origin: &str,
        limit: usize,
        skip: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let range = frontier_origin_range(origin);
        let start = self
            .queue_floor
            .borrow()
            .get(origin)
            .cloned()
            .unwrap_or_else(|| range.start.clone());
        let mut options = ReadOptions::default();
        options.set_iterate_upper_bound(range.end.clone());
        let iter = self.db.iterator_cf_opt(
            self.cf(Cf::Frontier),
            options,
            IteratorMode::From(&start, Direction::Forward),
        );
        let mut out = Vec::new();
        let mut first = None;
        for item in iter {
            let (key, value) = item?;
            if first.is_none() {
                first = Some(key.to_vec());
            }
            if out.len() >= limit {
                break;
            }
            if skip(&key) {
                continue;
            }
            out.push(QueuedUrl {
                key: key.to_vec(),
                entry: FrontierEntry::decode(&value)?,
                replaces: None,
            });
        }
        // Nothing queued: the end of the range, above every key of the origin, until one is
        // queued.
        let floor = first.unwrap_or(range.end);
        self.queue_floor
            .borrow_mut()
            .insert(origin.to_string(), floor);
        Ok(out)
    }

    /// A frontier key was written: its origin's floor comes down to it if it was above.
    pub(super) fn lower_floor(&self, key: &[u8]) {
        let Some(origin) = frontier_key_origin(key) else {
            return;
        };
        if let Some(floor) = self.queue_floor.borrow_mut().get_mut(origin)
            && key < floor.as_slice()
        {
            *floor = key.to_vec();
        }
    }

    /// Every origin with queued URLs, with one entry each as a sample.
    pub fn queued_origins(&self) -> Result<Vec<String>, StoreError> {
        let mut origins = Vec::new();
        let mut iter = self.db.raw_iterator_cf(self.cf(Cf::Frontier));
        iter.seek_to_first();
        while let Some(key) = iter.key() {
            let Some(origin) = frontier_key_origin(key).map(str::to_string) else {
                iter.next();
                continue;
            };
            // Jump past this origin's keys.
            let next = frontier_origin_range(&origin).end;
            origins.push(origin);
            iter.seek(&next);
        }
        iter.status()?;
        Ok(origins)
    }
}
