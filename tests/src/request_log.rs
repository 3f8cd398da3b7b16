//! `RequestLog`: every request the test web received, in arrival order, bounded, with a count
//! per host and path (each request asks it, so it must not cost a scan of the log).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Most requests kept; later ones are only counted (`TestWeb::requests_dropped`). An
/// hour-long soak makes under 100,000.
pub const MAX_LOGGED_REQUESTS: usize = 200_000;

/// One request as the test web saw it, logged before it is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The `Host` header without its port, lowercased (`sample.test`); empty when absent.
    pub host: String,
    /// The request target as sent: path plus `?query` when there is one (`/a.html?x=1`).
    pub path_and_query: String,
    /// The `User-Agent` header.
    pub user_agent: Option<String>,
    /// The `From` header.
    pub from: Option<String>,
    /// The `Referer` header.
    pub referer: Option<String>,
    /// The `Accept` header.
    pub accept: Option<String>,
    /// The `Accept-Encoding` header.
    pub accept_encoding: Option<String>,
    /// The `If-None-Match` header.
    pub if_none_match: Option<String>,
    /// The `If-Modified-Since` header.
    pub if_modified_since: Option<String>,
    /// When it arrived.
    pub at: std::time::Instant,
    /// When its answer was handed to the server (a streamed body may go on after that);
    /// `None` while it is being answered.
    pub answered_at: Option<std::time::Instant>,
}

/// A thread-safe, bounded log of requests.
#[derive(Debug, Default)]
pub(crate) struct RequestLog {
    entries: Mutex<Entries>,
    dropped: AtomicU64,
}

/// The kept requests, and how many of them asked each host for each path.
#[derive(Debug, Default)]
struct Entries {
    requests: Vec<Request>,
    counts: HashMap<(String, String), usize>,
}

impl RequestLog {
    fn entries(&self) -> MutexGuard<'_, Entries> {
        // A panic while holding the lock cannot leave the log half-pushed: keep going.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends a request and returns its place, or counts it as dropped once the log is full.
    pub(crate) fn push(&self, request: Request) -> Option<usize> {
        let mut entries = self.entries();
        if entries.requests.len() < MAX_LOGGED_REQUESTS {
            *entries
                .counts
                .entry((request.host.clone(), request.path_and_query.clone()))
                .or_default() += 1;
            entries.requests.push(request);
            Some(entries.requests.len() - 1)
        } else {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            None
        }
    }

    /// Notes when the request at `index` was answered.
    pub(crate) fn answered(&self, index: usize, at: std::time::Instant) {
        if let Some(request) = self.entries().requests.get_mut(index) {
            request.answered_at = Some(at);
        }
    }

    /// A copy of every kept request, in arrival order.
    pub(crate) fn snapshot(&self) -> Vec<Request> {
        self.entries().requests.clone()
    }

    /// How many kept requests match `host` (port ignored) and `path_and_query` exactly.
    pub(crate) fn count(&self, host: &str, path_and_query: &str) -> usize {
        let key = (host_name(host), path_and_query.to_string());
        self.entries().counts.get(&key).copied().unwrap_or(0)
    }

    /// Requests not kept because the log was full.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// The host name of a `Host` header value: lowercased, port removed (`Sample.TEST:8080` ->
/// `sample.test`, `[::1]:80` -> `[::1]`).
pub(crate) fn host_name(header: &str) -> String {
    let header = header.trim();
    let name = if header.starts_with('[') {
        header.find(']').map_or(header, |end| &header[..=end])
    } else {
        header.split(':').next().unwrap_or_default()
    };
    name.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(host: &str, path: &str) -> Request {
        Request {
            host: host.into(),
            path_and_query: path.into(),
            user_agent: None,
            from: None,
            referer: None,
            accept: None,
            accept_encoding: None,
            if_none_match: None,
            if_modified_since: None,
            at: std::time::Instant::now(),
            answered_at: None,
        }
    }

    #[test]
    fn host_names_lose_their_port_and_case() {
        for (header, expected) in [
            ("sample.test:8080", "sample.test"),
            ("Sample.TEST", "sample.test"),
            ("[::1]:80", "[::1]"),
            ("127.0.0.1:9", "127.0.0.1"),
            ("", ""),
        ] {
            assert_eq!(host_name(header), expected, "{header:?}");
        }
    }

    #[test]
    fn the_log_keeps_order_counts_and_is_bounded() {
        let log = RequestLog::default();
        log.push(request("a.test", "/"));
        log.push(request("a.test", "/x?y=1"));
        log.push(request("a.test", "/"));
        assert_eq!(log.count("a.test:1234", "/"), 2);
        assert_eq!(
            log.count("a.test", "/x"),
            0,
            "the query is part of the match"
        );
        assert_eq!(log.snapshot()[1].path_and_query, "/x?y=1");
        for _ in 0..MAX_LOGGED_REQUESTS {
            log.push(request("b.test", "/"));
        }
        assert_eq!(log.snapshot().len(), MAX_LOGGED_REQUESTS);
        assert_eq!(log.dropped(), 3);
    }
}
