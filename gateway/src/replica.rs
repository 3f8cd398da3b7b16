//! [`Replica`]: one leaf of a group of replicas, with what the group chooses by: its calls
//! still outstanding and its recent answer times ([`LatencyWindow`]).
//!
//! A call counts as outstanding from its start until it ends or is dropped. An answer's time
//! goes into the window; a failure's does not (a refused connection is fast and says nothing
//! of how fast the replica answers) but empties it: the replica that comes back may be
//! another (restarted, moved), measured afresh. A call dropped unanswered (a hedge that
//! lost) puts in the time it had waited, a lower bound, so a replica that keeps losing looks
//! as slow as it is.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::de::DeserializeOwned;
use tokio::time::Instant;

use crate::latency::LatencyWindow;
use crate::remote::{LeafHealth, RemoteLeaf};

/// A replica: a leaf and its figures, shared by its clones.
#[derive(Clone, Debug)]
pub(crate) struct Replica {
    leaf: RemoteLeaf,
    outstanding: Arc<AtomicUsize>,
    latency: Arc<Mutex<LatencyWindow>>,
}

impl Replica {
    /// The replica `leaf`, nothing asked yet.
    pub(crate) fn new(leaf: RemoteLeaf) -> Self {
        Self {
            leaf,
            outstanding: Arc::default(),
            latency: Arc::default(),
        }
    }

    /// Its leaf.
    pub(crate) fn leaf(&self) -> &RemoteLeaf {
        &self.leaf
    }

    /// The same replica with its leaf changed by `change` (its figures kept).
    pub(crate) fn map_leaf(self, change: impl FnOnce(RemoteLeaf) -> RemoteLeaf) -> Self {
        Self {
            leaf: change(self.leaf),
            ..self
        }
    }

    /// Its calls started and not yet ended or dropped.
    pub(crate) fn outstanding(&self) -> usize {
        self.outstanding.load(Ordering::Relaxed)
    }

    /// Its recent answer times.
    pub(crate) fn latency(&self) -> LatencyWindow {
        self.latency
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether it may be chosen first: not found down by its last call or probe.
    pub(crate) fn is_up(&self) -> bool {
        !matches!(self.leaf.health(), LeafHealth::Failed(_))
    }

    /// Asks it (see [`RemoteLeaf::call`]), counted as outstanding meanwhile and timed.
    pub(crate) async fn call<A: DeserializeOwned>(
        &self,
        path: &str,
        body: Vec<u8>,
    ) -> Result<A, String> {
        let mut flight = InFlight::start(self);
        let answer = self.leaf.call(path, body).await;
        flight.end(answer.is_ok());
        answer
    }

    /// Keeps `took` among its recent answer times, or forgets them all (`None`: it failed).
    fn record(&self, took: Option<Duration>) {
        let mut window = self.latency.lock().unwrap_or_else(PoisonError::into_inner);
        match took {
            Some(took) => window.record(took),
            None => window.clear(),
        }
    }
}

/// A call under way: counted as outstanding until dropped.
struct InFlight<'a> {
    replica: &'a Replica,
    started: Instant,
    ended: bool,
}

impl<'a> InFlight<'a> {
    fn start(replica: &'a Replica) -> Self {
        replica.outstanding.fetch_add(1, Ordering::Relaxed);
        Self {
            replica,
            started: Instant::now(),
            ended: false,
        }
    }

    /// The call ended: its time kept if it was answered, else the replica's forgotten.
    fn end(&mut self, answered: bool) {
        self.ended = true;
        self.replica
            .record(answered.then(|| self.started.elapsed()));
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.replica.outstanding.fetch_sub(1, Ordering::Relaxed);
        if !self.ended {
            // Dropped unanswered: it had waited this long at least.
            self.replica.record(Some(self.started.elapsed()));
        }
    }
}
