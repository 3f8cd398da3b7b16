//! A progress line for people watching a crawl: pages stored, the rate since the last line,
//! the frontier and errors, printed every few seconds while the crawl runs (`searchd demo`).

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::figures;
use crate::crawl::CrawlProgress;

/// Calls `print` with a progress line every `every` until the task is aborted or the crawl
/// drops its sender.
pub async fn report(
    mut progress: watch::Receiver<CrawlProgress>,
    every: Duration,
    mut print: impl FnMut(&str),
) {
    let mut last = (Instant::now(), progress.borrow().fetched);
    let mut ticks = tokio::time::interval(every);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        if progress.has_changed().is_err() {
            return; // the crawl is over
        }
        let now = progress.borrow_and_update().clone();
        print(&line(&now, last, Instant::now()));
        last = (Instant::now(), now.fetched);
    }
}

/// One line: `now`'s figures, the rate since `(at, fetched)`.
fn line(now: &CrawlProgress, (at, fetched): (Instant, u64), when: Instant) -> String {
    let secs = when.duration_since(at).as_secs_f64().max(0.001);
    let rate = now.fetched.saturating_sub(fetched) as f64 / secs;
    format!("crawl: {}", figures(now, rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_line_every_period_with_the_rate_since_the_last() {
        let (sender, receiver) = watch::channel(CrawlProgress::default());
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&lines);
        let task = tokio::spawn(report(receiver, Duration::from_secs(2), move |l| {
            sink.lock().unwrap().push(l.to_string());
        }));
        tokio::time::sleep(Duration::from_millis(100)).await;
        sender.send_replace(CrawlProgress {
            pages_stored: 40,
            fetched: 40,
            errors: 1,
            frontier: 7,
        });
        tokio::time::sleep(Duration::from_secs(2)).await;
        drop(sender);
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert!(task.is_finished(), "ends with the crawl");
        assert_eq!(
            *lines.lock().unwrap(),
            ["crawl: 40 pages stored, 20 pages/s, 7 in the frontier, 1 errors"]
        );
    }
}
