//! Index builds while a crawl is still running, so search answers within seconds of the
//! start and grows as pages arrive (`searchd demo`).
//!
//! Each build is the indexer's incremental build over a read-only snapshot of the store
//! (the crawler keeps writing it), on one parser and one indexing thread
//! ([`indexer::build_beside`]), so a build never waits for the crawl nor the crawl for a
//! build, and the crawl keeps a core; searchd picks each commit up by itself. Builds come at growing intervals
//! ([`Cadence`]): the first is cheap and shows results fast, later ones, which touch more
//! documents, come seldom and leave the crawl most of the machine.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use indexer::{BuildMode, BuildSummary};

/// When the builds come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cadence {
    /// Wait before the first build.
    pub first: Duration,
    /// Each wait is the last one times this, up to `max`.
    pub growth: u32,
    /// The longest wait between two builds.
    pub max: Duration,
}

impl Cadence {
    /// The demo's: a first build after 3 s, then 12, 30, 30 ... s apart. On 2 cores a
    /// build of the Rust docs takes a core for seconds; builds every few seconds took a
    /// third of the machine from a crawl of a thousand pages a second.
    pub const DEMO: Cadence = Cadence {
        first: Duration::from_secs(3),
        growth: 4,
        max: Duration::from_secs(30),
    };

    /// The wait after one of `wait`.
    fn next(self, wait: Duration) -> Duration {
        (wait * self.growth).min(self.max)
    }
}

/// Builds the index of `data` incrementally at `cadence` until `done` completes, telling
/// `on_build` of each build; a build under way when `done` completes is finished first.
/// A failed build is logged and the next one tried: the final build after the crawl says
/// what is wrong if it persists. Returns the builds made.
pub async fn index_while(
    data: PathBuf,
    cadence: Cadence,
    done: impl Future<Output = ()>,
    mut on_build: impl FnMut(&BuildSummary),
) -> Vec<BuildSummary> {
    let mut builds = Vec::new();
    let mut wait = cadence.first;
    let mut done = std::pin::pin!(done);
    loop {
        tokio::select! {
            () = &mut done => return builds,
            () = tokio::time::sleep(wait) => {}
        }
        let data = data.clone();
        let built = tokio::task::spawn_blocking(move || {
            indexer::build_beside(&data, BuildMode::Incremental)
        })
        .await;
        match built {
            Ok(Ok(summary)) => {
                on_build(&summary);
                builds.push(summary);
            }
            Ok(Err(error)) => tracing::warn!(%error, "index build during the crawl failed"),
            Err(error) => tracing::warn!(%error, "index build during the crawl stopped"),
        }
        wait = cadence.next(wait);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_up_to_the_longest() {
        let cadence = Cadence::DEMO;
        let mut wait = cadence.first;
        let mut waits = vec![wait];
        for _ in 0..5 {
            wait = cadence.next(wait);
            waits.push(wait);
        }
        let secs: Vec<u64> = waits.iter().map(Duration::as_secs).collect();
        assert_eq!(secs, [3, 12, 30, 30, 30, 30]);
    }
}
