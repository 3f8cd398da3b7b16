//! When the crawler let each request go, read from its `crawler::sent` debug events (see
//! `Fetcher::wait_turn`): the crawler's side of a politeness gap. The test web logs when a
//! request *arrives*, and a request let go on time can arrive late, right behind the next
//! one, when the machine is short of CPU (a new connection, the test web's own tasks
//! waiting for a thread): arrival order is not what the crawler controls.
//!
//! A crawler in a child process writes these events to its log (`RUST_LOG` with
//! `crawler::sent=debug`), which [`Sends::read`] reads. In-process crawlers run on a
//! [`SendLog::runtime`], whose threads write the same lines into the log's buffer, which
//! [`SendLog::take`] reads with the same parser.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tracing::dispatcher::{DefaultGuard, Dispatch};
use tracing_subscriber::filter::{EnvFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::{Layer, fmt};

/// The target of the crawler's send events.
const TARGET: &str = "crawler::sent";

/// One request let go: when (µs since the Unix epoch, the crawler's clock) and, from a
/// cluster worker, its address's turn (µs since the Unix epoch on Redis's clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    /// When the crawler let it go.
    pub at_us: u128,
    /// The turn Redis booked for it across workers; `None` from a single crawler.
    pub turn_us: Option<u128>,
}

/// Every request one crawler (or the workers of one test) let go, by URL.
/// When this process is starved of CPU, the web reads (and logs) requests that arrived apart
/// at the same moment, as the soak saw: eight requests to one address logged within 3 ms,
/// which the crawler's send gate cannot let go.
#[derive(Default)]
pub struct Sends(HashMap<String, Vec<Send>>);

impl Sends {
    /// The sends a crawler's log file records (none if it cannot be read).
    pub fn read(log: &Path) -> Sends {
        Sends::parse(&std::fs::read_to_string(log).unwrap_or_default())
    }

    /// The sends in a log's text: its lines of the `crawler::sent` target, with or without
    /// terminal colours; other lines are skipped.
    pub fn parse(text: &str) -> Sends {
        let mut sends: HashMap<String, Vec<Send>> = HashMap::new();
        for line in text.lines().filter(|l| l.contains(TARGET)) {
            let line = without_ansi(line);
            let field = |name: &str| {
                let at = line.find(&format!("{name}="))? + name.len() + 1;
                let value = line[at..].split_whitespace().next()?;
                Some(value.trim_matches('"').to_string())
            };
            if let (Some(url), Some(at)) = (field("url"), field("at_us"))
                && let Ok(at_us) = at.parse()
            {
                let turn_us = field("turn_us").and_then(|t| t.parse().ok());
                sends.entry(url).or_default().push(Send { at_us, turn_us });
            }
        }
        Sends(sends)
    }

    /// How many sends the log holds.
    pub fn count(&self) -> usize {
        self.0.values().map(Vec::len).sum()
    }

    /// How many times `url` was sent.
    pub fn count_of(&self, url: &str) -> usize {
        self.0.get(url).map_or(0, Vec::len)
    }

    /// Every send with its URL, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Send)> {
        self.0
            .iter()
            .flat_map(|(url, sends)| sends.iter().map(move |&send| (url.as_str(), send)))
    }

    /// The shortest time between a send of `a` and a send of `b` (in either order: two
    /// requests may arrive in another order than they were sent), if both were sent.
    pub fn gap(&self, a: &str, b: &str) -> Option<Duration> {
        let (a, b) = (self.0.get(a)?, self.0.get(b)?);
        a.iter()
            .flat_map(|ta| b.iter().map(move |tb| ta.at_us.abs_diff(tb.at_us)))
            .min()
            .map(micros)
    }
}

/// A duration of `us` microseconds (saturating).
pub fn micros(us: u128) -> Duration {
    Duration::from_micros(u64::try_from(us).unwrap_or(u64::MAX))
}

/// `line` without its terminal colour codes (`ESC [ ... m`).
fn without_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The `crawler::sent` lines written by the threads of one test's runtime, so in-process
/// crawlers log their sends as a child's log would, apart from the other tests of this
/// binary (each on threads of its own runtime). With `E2E_LOG` set, the runtime's events
/// also go to stderr, filtered by `RUST_LOG`.
#[derive(Clone, Default)]
pub struct SendLog {
    lines: Arc<Mutex<Vec<u8>>>,
}

thread_local! {
    /// The dispatcher a [`SendLog::runtime`] thread logs through, for the thread's life.
    static THREAD_LOG: RefCell<Option<DefaultGuard>> = const { RefCell::new(None) };
}

impl SendLog {
    /// An empty log.
    pub fn new() -> SendLog {
        SendLog::default()
    }

    /// The events' destination: send lines into this log, everything to stderr with
    /// `E2E_LOG`.
    fn dispatch(&self) -> Dispatch {
        let lines = self.lines.clone();
        let sends = fmt::layer()
            .with_ansi(false)
            .with_writer(move || Writer(lines.clone()))
            .with_filter(Targets::new().with_target(TARGET, tracing::Level::DEBUG));
        let stderr = std::env::var_os("E2E_LOG").is_some().then(|| {
            fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(EnvFilter::from_default_env())
        });
        Dispatch::new(tracing_subscriber::registry().with(sends).with(stderr))
    }

    /// A multi-threaded runtime (`threads` workers) each of whose threads, and the thread
    /// that calls [`SendLog::block_on`], logs sends here.
    pub fn runtime(&self, threads: usize) -> Runtime {
        let dispatch = self.dispatch();
        let for_threads = dispatch.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .on_thread_start(move || {
                let guard = tracing::dispatcher::set_default(&for_threads);
                THREAD_LOG.with(|log| *log.borrow_mut() = Some(guard));
            })
            .on_thread_stop(|| {
                THREAD_LOG.with(|log| log.borrow_mut().take());
            })
            .build()
            .expect("the test runtime starts");
        Runtime { runtime, dispatch }
    }

    /// The sends logged since the last call, parsed; the log is emptied.
    pub fn take(&self) -> Sends {
        let bytes = std::mem::take(&mut *self.lines.lock().unwrap_or_else(PoisonError::into_inner));
        Sends::parse(&String::from_utf8_lossy(&bytes))
    }
}

/// A runtime whose threads log sends into a [`SendLog`].
pub struct Runtime {
    runtime: tokio::runtime::Runtime,
    dispatch: Dispatch,
}

impl Runtime {
    /// Runs `future` to its end on the runtime, this thread logging into the log too.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        tracing::dispatcher::with_default(&self.dispatch, || self.runtime.block_on(future))
    }
}

/// Appends each formatted event (one `write_all`) to the log's buffer.
struct Writer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Writer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crawler's event, as `Fetcher::wait_turn` logs it (a single crawler's: no turn).
    fn sent(url: &str, at_us: u128) {
        sent_in_turn(url, None, at_us);
    }

    /// The event with a worker's turn.
    fn sent_in_turn(url: &str, turn_us: Option<u64>, at_us: u128) {
        tracing::debug!(target: "crawler::sent", url, turn_us, at_us, "sent");
    }

    /// What a `fmt` subscriber at debug level writes for two sends and an event of another
    /// target with the same fields, with terminal colours or without.
    fn logged(ansi: bool) -> String {
        let log = SendLog::new();
        let lines = log.lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(ansi)
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(move || Writer(lines.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            sent("http://a.test:8080/x?y=1", 1_000);
            tracing::info!(target: "crawler::crawl", url = "http://c.test:8080/", at_us = 7, "done");
            sent_in_turn("http://b.test:8080/", Some(4_400), 4_500);
        });
        let bytes = log.lines.lock().expect("not poisoned").clone();
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn send_lines_are_read_with_or_without_colours_and_other_targets_skipped() {
        for ansi in [false, true] {
            let text = logged(ansi);
            assert_eq!(text.contains('\u{1b}'), ansi, "{text}");
            let sends = Sends::parse(&text);
            assert_eq!(sends.count(), 2, "{text}");
            assert_eq!(sends.count_of("http://a.test:8080/x?y=1"), 1, "{text}");
            assert_eq!(sends.count_of("http://c.test:8080/"), 0, "{text}");
            let mut all: Vec<(&str, Send)> = sends.iter().collect();
            all.sort_unstable_by_key(|(url, _)| *url);
            assert_eq!(
                all,
                [
                    (
                        "http://a.test:8080/x?y=1",
                        Send {
                            at_us: 1_000,
                            turn_us: None
                        }
                    ),
                    (
                        "http://b.test:8080/",
                        Send {
                            at_us: 4_500,
                            turn_us: Some(4_400)
                        }
                    )
                ],
                "{text}"
            );
            assert_eq!(
                sends.gap("http://b.test:8080/", "http://a.test:8080/x?y=1"),
                Some(Duration::from_micros(3_500))
            );
        }
    }

    #[test]
    fn sends_on_a_runtime_s_threads_are_logged_and_those_of_other_threads_are_not() {
        let log = SendLog::new();
        log.runtime(2).block_on(async {
            sent("http://main.test/", 1);
            tokio::spawn(async {
                sent("http://task.test/", 2);
                tokio::spawn(async { sent("http://nested.test/", 3) })
                    .await
                    .expect("nested task");
            })
            .await
            .expect("task");
            tokio::task::spawn_blocking(|| sent("http://blocking.test/", 4))
                .await
                .expect("blocking task");
        });
        std::thread::spawn(|| sent("http://elsewhere.test/", 5))
            .join()
            .expect("other thread");
        let sends = log.take();
        let mut urls: Vec<&str> = sends.iter().map(|(url, _)| url).collect();
        urls.sort_unstable();
        assert_eq!(
            urls,
            [
                "http://blocking.test/",
                "http://main.test/",
                "http://nested.test/",
                "http://task.test/"
            ]
        );
        assert_eq!(log.take().count(), 0, "taking empties the log");
    }
}
