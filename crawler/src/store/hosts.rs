//! What the store keeps per host: halts by a circuit breaker (a `meta` key
//! `halted\0ORIGIN`, until an operator resumes it), the cached robots.txt answer, and
//! `render = "auto"`'s verdict (a `meta` key `render_auto\0HOST`).

use rocksdb::WriteBatch;
use shared::StoreError;
use shared::record::{Record, RobotsRecord};
use shared::store::{AUTO_RENDER_PREFIX, AutoVerdict, Cf, HALTED_PREFIX, meta_key};

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

    /// Keeps `render = "auto"`'s verdict on `host` for later runs.
    pub(crate) fn put_auto_verdict(
        &self,
        host: &str,
        verdict: AutoVerdict,
    ) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        batch.put_cf(
            self.cf(Cf::Meta),
            meta_key(AUTO_RENDER_PREFIX, host.as_bytes()),
            verdict.name(),
        );
        self.write(batch)
    }

    /// Every host's stored `render = "auto"` verdict (a value no verdict names is left out).
    pub(crate) fn auto_verdicts(&self) -> Result<Vec<(String, AutoVerdict)>, StoreError> {
        let mut verdicts = Vec::new();
        let iter = self.db.iterator_cf(
            self.cf(Cf::Meta),
            rocksdb::IteratorMode::From(AUTO_RENDER_PREFIX, rocksdb::Direction::Forward),
        );
        for item in iter {
            let (key, value) = item?;
            let Some(host) = key.strip_prefix(AUTO_RENDER_PREFIX) else {
                break;
            };
            if let Some(verdict) = std::str::from_utf8(&value)
                .ok()
                .and_then(AutoVerdict::from_name)
            {
                verdicts.push((String::from_utf8_lossy(host).into_owned(), verdict));
            }
        }
        Ok(verdicts)
    }
}
