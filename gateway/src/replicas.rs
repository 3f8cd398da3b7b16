//! [`LeafGroup`]: the replicas of one set of shards (`searchd serve --leaf URL1|URL2`; a
//! plain `--leaf URL` is a group of one), and which of them a root asks.
//!
//! Every call a root makes to a group (each round of a search: statistics, best documents,
//! results; and a document, a cached copy, completions, a page's words) goes through
//! [`LeafGroup::ask`]:
//!
//! - the choice: the replicas that are up, fewest outstanding calls first, then the lower
//!   recent p95 (one not measured yet first, so that it is), then in turn; the replicas found down
//!   (by the probe of `/leaf/status` every second, or by their last call) after them, asked
//!   only when every one that is up has failed, until one answers again;
//! - failover and the hedge (`hedge`): a replica that fails hands the call to the next at
//!   once; one that has not answered within its recent p95 (`latency`) gets the next one
//!   that is up asked beside it, the first answer taken;
//! - the whole call within the leaf timeout: the group is missing from an answer (its name,
//!   `URL1|URL2`, in `missing_shards`) only when no replica answered.
//!
//! The rounds of one search may go to different replicas of a group: they hold the same
//! shards (the same partitions, from the same builds), so a shard's number and the
//! statistics are the same on each. A replica that has loaded a newer generation than
//! another for a while may give a round's answer from it: the answer is still whole.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use service::health::Readiness;

use crate::hedge::{Step, first_answer};
use crate::metrics::SearchMetrics;
use crate::remote::{LeafHealth, RemoteLeaf};
use crate::replica::Replica;

/// What separates the replicas of a group in `--leaf URL1|URL2`.
pub const REPLICA_SEPARATOR: char = '|';

/// Time a call waits for its answer beyond the leaf timeout before giving up on the task.
const GRACE: Duration = Duration::from_millis(50);

/// Replicas of the same shards, asked as one leaf; see the module docs.
#[derive(Clone, Debug)]
pub struct LeafGroup {
    /// The replicas' addresses, joined by [`REPLICA_SEPARATOR`].
    name: String,
    replicas: Vec<Replica>,
    /// Whose turn it is among replicas that are otherwise alike.
    turn: Arc<AtomicUsize>,
}

/// A call to a group on its way.
pub struct Pending<A> {
    receiver: Receiver<Result<A, String>>,
    deadline: Instant,
    group: String,
}

/// One replica's state, as `/status` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplicaState {
    /// Its address.
    pub url: String,
    /// `up` (it answered its last call or probe), `down` (it did not) or `unknown` (not
    /// asked yet).
    pub state: &'static str,
    /// Why it is down.
    pub failure: Option<String>,
    /// Its calls under way.
    pub outstanding: usize,
    /// The 95th percentile of its recent answer times, in milliseconds, once measured.
    pub p95_ms: Option<f64>,
}

/// A group's state, as `/status` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupState {
    /// The group, as given (`URL1|URL2`).
    pub group: String,
    /// Each replica's state.
    pub replicas: Vec<ReplicaState>,
}

impl From<RemoteLeaf> for LeafGroup {
    /// A group of one.
    fn from(leaf: RemoteLeaf) -> Self {
        Self {
            name: leaf.base().to_string(),
            replicas: vec![Replica::new(leaf)],
            turn: Arc::default(),
        }
    }
}

impl LeafGroup {
    /// The group of the replicas `spec` names (`URL1|URL2`, or one URL), each made by
    /// `leaf`; an empty address or one `leaf` refuses is the error.
    pub fn parse(
        spec: &str,
        leaf: impl FnMut(&str) -> Result<RemoteLeaf, String>,
    ) -> Result<Self, String> {
        let urls: Vec<&str> = spec.split(REPLICA_SEPARATOR).map(str::trim).collect();
        if urls.iter().any(|url| url.is_empty()) {
            return Err(format!("leaf {spec:?}: an empty replica address"));
        }
        let leaves = urls.into_iter().map(leaf).collect::<Result<Vec<_>, _>>()?;
        let name = leaves
            .iter()
            .map(RemoteLeaf::base)
            .collect::<Vec<_>>()
            .join(&REPLICA_SEPARATOR.to_string());
        Ok(Self {
            name,
            replicas: leaves.into_iter().map(Replica::new).collect(),
            turn: Arc::default(),
        })
    }

    /// Its name: the replicas' addresses joined by `|`, as `missing_shards` names it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its replicas' leaves.
    pub fn leaves(&self) -> impl Iterator<Item = &RemoteLeaf> {
        self.replicas.iter().map(Replica::leaf)
    }

    /// The same group, its calls counted in `metrics`.
    pub(crate) fn counted_in(self, metrics: SearchMetrics) -> Self {
        Self {
            replicas: self
                .replicas
                .into_iter()
                .map(|replica| replica.map_leaf(|leaf| leaf.counted_in(metrics.clone())))
                .collect(),
            ..self
        }
    }

    /// Posts `body` to `path` (`/leaf/stats` ...) of the replica chosen, with failover and
    /// a hedge (see the module docs), and returns at once; [`Pending::wait`] gives the
    /// answer.
    pub fn ask<A: DeserializeOwned + Send + 'static>(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> Pending<A> {
        let (sender, receiver) = sync_channel(1);
        let timeout = self.timeout();
        let pending = Pending {
            receiver,
            deadline: Instant::now() + timeout + GRACE,
            group: self.name.clone(),
        };
        let body = match serde_json::to_vec(body) {
            Ok(body) => body,
            Err(error) => {
                let _ = sender.send(Err(error.to_string()));
                return pending;
            }
        };
        let order = self.order();
        let steps: Vec<Step> = order
            .iter()
            .map(|replica| Step {
                patience: replica.latency().p95(),
                up: replica.is_up(),
            })
            .collect();
        let path = path.to_string();
        let group = self.name.clone();
        let Some(first) = self.replicas.first() else {
            let _ = sender.send(Err("no replica".into()));
            return pending;
        };
        first.leaf().runtime().spawn(async move {
            let ask = |i: usize| {
                let (replica, path, body) = (order[i].clone(), path.clone(), body.clone());
                async move { replica.call::<A>(&path, body).await }
            };
            let answer = tokio::time::timeout(timeout, first_answer(&steps, ask))
                .await
                .unwrap_or_else(|_| Err(vec![format!("leaf {group}: no answer in time")]))
                .map_err(|failures| failures.join("; "));
            let _ = sender.send(answer);
        });
        pending
    }

    /// The longest a call to it may take: its slowest replica's leaf timeout.
    fn timeout(&self) -> Duration {
        self.leaves()
            .map(RemoteLeaf::timeout)
            .max()
            .unwrap_or_default()
    }

    /// Its replicas in the order a call tries them (see [`choose`]).
    fn order(&self) -> Vec<Replica> {
        let seen: Vec<Seen> = self
            .replicas
            .iter()
            .map(|replica| Seen {
                up: replica.is_up(),
                outstanding: replica.outstanding(),
                p95: replica.latency().measured_p95().unwrap_or_default(),
            })
            .collect();
        let turn = self.turn.fetch_add(1, Ordering::Relaxed);
        choose(&seen, turn)
            .into_iter()
            .map(|i| self.replicas[i].clone())
            .collect()
    }

    /// Each replica's state.
    pub fn state(&self) -> GroupState {
        GroupState {
            group: self.name.clone(),
            replicas: self
                .replicas
                .iter()
                .map(|replica| {
                    let (state, failure) = match replica.leaf().health() {
                        LeafHealth::Answered => ("up", None),
                        LeafHealth::Failed(why) => ("down", Some(why)),
                        LeafHealth::Unknown => ("unknown", None),
                    };
                    ReplicaState {
                        url: replica.leaf().base().to_string(),
                        state,
                        failure,
                        outstanding: replica.outstanding(),
                        p95_ms: replica
                            .latency()
                            .measured_p95()
                            .map(|p95| p95.as_secs_f64() * 1000.0),
                    }
                })
                .collect(),
        }
    }

    /// Whether it can answer (`/readyz`): a group of one while its leaf answers; a group of
    /// several while any replica does. Each replica's state is said.
    pub(crate) fn readiness(&self) -> Readiness {
        let state = self.state();
        let said: Vec<String> = state.replicas.iter().map(ReplicaState::said).collect();
        let answering = self
            .leaves()
            .any(|leaf| leaf.health() == LeafHealth::Answered);
        match (said.as_slice(), answering) {
            ([one], true) => Readiness::Ready(one.clone()),
            ([one], false) => Readiness::NotReady(one.clone()),
            (_, true) => Readiness::Ready(format!("replicas {}: {}", self.name, said.join(", "))),
            (_, false) => Readiness::NotReady(format!(
                "no replica of {} answers: {}",
                self.name,
                said.join(", ")
            )),
        }
    }
}

impl ReplicaState {
    /// In words, for `/readyz` and `/status`: `leaf URL answered (0 outstanding, p95 3.1 ms)`.
    pub fn said(&self) -> String {
        let health = match (self.state, &self.failure) {
            ("up", _) => "answered".to_string(),
            (_, Some(why)) => format!("failed: {why}"),
            _ => "not asked yet".to_string(),
        };
        let p95 = self
            .p95_ms
            .map_or("p95 not measured yet".to_string(), |ms| {
                format!("p95 {ms:.1} ms")
            });
        format!(
            "leaf {} {health} ({} outstanding, {p95})",
            self.url, self.outstanding
        )
    }
}

impl<A> Pending<A> {
    /// The answer, or why there is none (naming each replica that failed, or the group), by
    /// the call's deadline.
    pub fn wait(self) -> Result<A, String> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        match self.receiver.recv_timeout(left) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("leaf {}: no answer in time", self.group))
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(format!("leaf {}: the call was dropped", self.group))
            }
        }
    }
}

/// What the choice knows of a replica.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    up: bool,
    outstanding: usize,
    /// Its measured p95; zero before it is measured.
    p95: Duration,
}

/// The order a call tries the replicas `seen` in: those up first, fewest outstanding calls
/// first, then the lower p95, replicas alike in both taken in turn from `turn`; then those
/// down, in the same order.
fn choose(seen: &[Seen], turn: usize) -> Vec<usize> {
    let n = seen.len().max(1);
    let mut order: Vec<usize> = (0..seen.len()).map(|i| (i + turn) % n).collect();
    // A stable sort: replicas alike stay in the turn's order.
    order.sort_by_key(|&i| (!seen[i].up, seen[i].outstanding, seen[i].p95));
    order
}

#[cfg(test)]
mod choice_tests {
    use super::*;

    fn seen(up: bool, outstanding: usize, p95_ms: u64) -> Seen {
        Seen {
            up,
            outstanding,
            p95: Duration::from_millis(p95_ms),
        }
    }

    fn check(replicas: &[Seen], turn: usize, expected: &[usize]) {
        assert_eq!(choose(replicas, turn), expected, "{replicas:?} turn {turn}");
    }

    #[test]
    fn fewest_outstanding_first_then_the_lower_p95_then_in_turn() {
        let (a, b) = (seen(true, 0, 5), seen(true, 2, 5));
        check(&[a, b], 0, &[0, 1]);
        check(&[b, a], 0, &[1, 0]);
        check(&[b, a], 1, &[1, 0]);
        // Outstanding before latency: the slower one that is idle goes first.
        check(&[seen(true, 1, 3), seen(true, 0, 40)], 0, &[1, 0]);
        check(&[seen(true, 1, 3), seen(true, 1, 40)], 1, &[0, 1]);
        // Alike: in turn.
        let alike = [seen(true, 0, 50), seen(true, 0, 50), seen(true, 0, 50)];
        check(&alike, 0, &[0, 1, 2]);
        check(&alike, 1, &[1, 2, 0]);
        check(&alike, 5, &[2, 0, 1]);
        // One not measured yet (zero) goes before the measured, to be measured.
        check(&[seen(true, 0, 4), seen(true, 0, 0)], 0, &[1, 0]);
    }

    #[test]
    fn a_replica_found_down_comes_last_whatever_its_figures() {
        check(&[seen(false, 0, 1), seen(true, 9, 900)], 0, &[1, 0]);
        check(&[seen(false, 0, 1), seen(true, 9, 900)], 1, &[1, 0]);
        check(
            &[seen(false, 3, 1), seen(false, 0, 1), seen(true, 1, 1)],
            0,
            &[2, 1, 0],
        );
        check(&[], 3, &[]);
    }
}
