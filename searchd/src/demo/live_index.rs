//! Index builds while a crawl is still running, so search answers within seconds of the
//! start and grows as pages arrive (`searchd demo`).
//!
//! Each build is the indexer's incremental build over a read-only snapshot of the store
//! (the crawler keeps writing it), on one parser and one indexing thread
//! ([`indexer::build_beside`]), so a build never waits for the crawl nor the crawl for a
//! build, and the crawl keeps a core; searchd picks each commit up by itself. The first build
//! comes a second after the start, while the store is small, so results show within seconds;
//! later ones come seldom ([`Cadence`]): each re-indexes nearly every page stored so far.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use indexer::{BuildMode, BuildSummary};

/// When the builds come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cadence {
    /// Wait before the first build.
    pub first: Duration,
    /// Wait between the end of one build and the start of the next.
    pub every: Duration,
}

impl Cadence {
    /// The demo's: a first build after 1 s, then one every 30 s. The first build shows
    /// results within seconds and is cheap because the store is small; every build after it
    /// re-indexes nearly every page (new in-links change them), so on 2 cores each one takes
    /// CPU from the crawl: a build of the Rust docs' first 2,000 pages, their largest, takes
    /// 7 CPU seconds.
    pub const DEMO: Cadence = Cadence {
        first: Duration::from_secs(1),
        every: Duration::from_secs(30),
    };
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
        wait = cadence.every;
    }
}
