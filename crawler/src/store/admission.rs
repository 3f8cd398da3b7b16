//! Trap admission: the trap rules a URL must pass to be queued, with the stateful ones (the
//! per-host budget, the distinct query strings per path) counted in `meta` in the batch that
//! queues it, and the URLs kept out counted per rule and recorded as skipped.

use std::collections::{BTreeMap, HashMap};

use rocksdb::WriteBatch;
use shared::record::{Record, SkipRecord};
use shared::store::{Cf, HOST_QUEUED_PREFIX, PATH_QUERIES_PREFIX, meta_key};
use shared::{CanonicalUrl, StoreError};
use tracing::debug;
use xxhash_rust::xxh3::xxh3_64;

use super::PageStore;
use crate::traps::{TrapRule, TrapRules};

/// URLs kept out by trap rules that one run records with their reason (the counts in
/// [`PageStore::trapped`] go on): a trap can make links without end, the store must not.
pub(crate) const MAX_SKIP_RECORDS_PER_RUN: u64 = 100_000;

impl PageStore {
    /// Sets the trap rules new URLs must pass to be queued.
    pub fn set_trap_rules(&mut self, traps: TrapRules) {
        self.traps = traps;
    }

    /// URLs kept out by each trap rule in this run, by rule name.
    pub fn trapped(&self) -> &BTreeMap<&'static str, u64> {
        &self.trapped
    }

    /// Counts `count` URLs kept out by `rule` before they reached the store (links too long
    /// to be URLs at all).
    pub fn note_trapped(&mut self, rule: TrapRule, count: u64) {
        if count > 0 {
            *self.trapped.entry(rule.name()).or_default() += count;
            // Kept for `crawler status`, written with the next counters.
            *self
                .counters
                .trapped
                .entry(rule.name().to_string())
                .or_default() += count;
        }
    }

    /// The trap rules for a URL about to be queued; when it passes, its host's budget count
    /// and its path's query count grow in `batch`. (A URL kept out is not marked seen: a run
    /// with looser rules may queue it.)
    pub(super) fn admit(
        &mut self,
        batch: &mut WriteBatch,
        url: &CanonicalUrl,
        path_queries: &mut HashMap<Vec<u8>, u32>,
    ) -> Result<Result<(), TrapRule>, StoreError> {
        if let Err(rule) = self.traps.check(url) {
            return Ok(Err(rule));
        }
        let origin = url.origin();
        let host_key = meta_key(HOST_QUEUED_PREFIX, origin.as_bytes());
        let host_count = match self.host_queued.get(&origin) {
            Some(&count) => count,
            None => self.read_count(&host_key)?,
        };
        let budget = self.traps.budget(url.host());
        if budget > 0 && host_count >= budget {
            return Ok(Err(TrapRule::HostBudget));
        }
        if url.as_url().query().is_some() {
            let path = format!("{origin}{}", url.as_url().path());
            let path_key = meta_key(PATH_QUERIES_PREFIX, &xxh3_64(path.as_bytes()).to_be_bytes());
            let count = match path_queries.get(&path_key) {
                Some(&count) => u64::from(count),
                None => self.read_count(&path_key)?,
            };
            let cap = u64::from(self.traps.max_queries_per_path);
            if cap > 0 && count >= cap {
                return Ok(Err(TrapRule::QueryCap));
            }
            let count = u32::try_from(count + 1).unwrap_or(u32::MAX);
            path_queries.insert(path_key.clone(), count);
            batch.put_cf(self.cf(Cf::Meta), &path_key, u64::from(count).to_be_bytes());
        }
        self.host_queued.insert(origin, host_count + 1);
        batch.put_cf(self.cf(Cf::Meta), &host_key, (host_count + 1).to_be_bytes());
        Ok(Ok(()))
    }

    /// A count kept in `meta` (0 when absent).
    pub(super) fn read_count(&self, key: &[u8]) -> Result<u64, StoreError> {
        Ok(self
            .db
            .get_pinned_cf(self.cf(Cf::Meta), key)?
            .and_then(|bytes| <[u8; 8]>::try_from(bytes.as_ref()).ok())
            .map_or(0, u64::from_be_bytes))
    }

    /// A URL `rule` kept out: counted, and recorded as skipped (up to
    /// [`MAX_SKIP_RECORDS_PER_RUN`] a run) in `batch`.
    pub(super) fn keep_out(&mut self, batch: &mut WriteBatch, url: &CanonicalUrl, rule: TrapRule) {
        debug!(%url, rule = rule.name(), "not queued: trap rule");
        self.note_trapped(rule, 1);
        if self.skips_recorded < MAX_SKIP_RECORDS_PER_RUN {
            self.skips_recorded += 1;
            let record = SkipRecord {
                reason: rule.skip_reason(),
                at_ms: shared::now_ms(),
            };
            batch.put_cf(
                self.cf(Cf::Skipped),
                url.as_str().as_bytes(),
                record.encode(),
            );
        }
    }
}
