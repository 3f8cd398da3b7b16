//! What the store keeps per host: halts by a circuit breaker (a `meta` key
//! `halted\0ORIGIN`, until an operator resumes it) and the cached robots.txt answer.

use rocksdb::WriteBatch;
use shared::StoreError;
use shared::record::{Record, RobotsRecord};
use shared::store::{Cf, HALTED_PREFIX, meta_key};

use super::PageStore;

impl PageStore {
    /// Marks an origin halted by its circuit breaker, with why: later runs leave it alone
    /// until [`PageStore::resume_host`].
    pub fn halt_host(&self, origin: &str, why: &str) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        batch.put_cf(
            self.cf(Cf::Meta),
            meta_key(HALTED_PREFIX, origin.as_bytes()),
            why.as_bytes(),
        );
        self.write(batch)
    }

    /// Lifts an operator's halt; returns whether the origin was halted.
    pub fn resume_host(&self, origin: &str) -> Result<bool, StoreError> {
        let key = meta_key(HALTED_PREFIX, origin.as_bytes());
        let was = self.db.get_pinned_cf(self.cf(Cf::Meta), &key)?.is_some();
        let mut batch = WriteBatch::default();
        batch.delete_cf(self.cf(Cf::Meta), key);
        self.write(batch)?;
        Ok(was)
    }

    /// Origins halted by their circuit breaker, with why.
    pub fn halted_hosts(&self) -> Result<Vec<(String, String)>, StoreError> {
        shared::store::halted_hosts(&self.db)
    }

    /// The cached robots.txt answer of an origin.
    pub fn robots(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        self.get(Cf::Robots, origin.as_bytes())
    }

    /// Caches a robots.txt answer.
    pub fn put_robots(&self, origin: &str, record: &RobotsRecord) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        batch.put_cf(self.cf(Cf::Robots), origin.as_bytes(), record.encode());
        self.write(batch)
    }
}
