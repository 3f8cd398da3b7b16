//! `HostRequests`: the requests one host of the test web received, in arrival order, and the
//! questions a politeness test asks of them: which paths were asked for, how often, and how
//! close together.
//!
//! A render test reads it after a crawl: no path under `/private/` (robots.txt forbids it),
//! no two requests closer than the host's delay, at most so many `/api/tick` requests.
//!
//! ```no_run
//! # async fn example() {
//! # let web = testweb::TestWeb::start().await;
//! # let delay = std::time::Duration::from_millis(100);
//! let scripts = web.requests_to("scripts.test");
//! assert!(scripts.under("/private/").is_empty());
//! assert_eq!(scripts.first_gap_under(delay), None);
//! assert!(scripts.count_path("/api/tick") <= 20);
//! # }
//! ```

use std::time::Duration;

use crate::request_log::Request;

/// The requests one host received, in arrival order (see [`crate::TestWeb::requests_to`]).
#[derive(Clone, Debug)]
pub struct HostRequests {
    requests: Vec<Request>,
}

/// Two requests in a row to one host and the time between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The earlier request's target (path and query).
    pub before: String,
    /// The later request's target.
    pub after: String,
    /// From the earlier request's arrival to the later one's.
    pub since_arrival: Duration,
    /// From the earlier request's answer to the later one's arrival: `None` when the earlier
    /// was not answered yet, or the later arrived before it was (two in flight at once).
    pub since_answer: Option<Duration>,
}

impl HostRequests {
    /// The requests of `log` whose host is `host` (lowercase, no port), in their order.
    pub(crate) fn of(host: &str, log: Vec<Request>) -> HostRequests {
        let host = crate::request_log::host_name(host);
        HostRequests {
            requests: log.into_iter().filter(|r| r.host == host).collect(),
        }
    }

    /// Every request, in arrival order.
    pub fn all(&self) -> &[Request] {
        &self.requests
    }

    /// How many requests there were.
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    /// Whether the host received no request.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Each request's target (path and query), in arrival order.
    pub fn targets(&self) -> Vec<&str> {
        self.requests
            .iter()
            .map(|r| r.path_and_query.as_str())
            .collect()
    }

    /// How many requests asked for `path`, whatever their query (`/api/tick` counts
    /// `/api/tick?n=1` and `/api/tick?x=2`).
    pub fn count_path(&self, path: &str) -> usize {
        self.requests
            .iter()
            .filter(|r| path_of(&r.path_and_query) == path)
            .count()
    }

    /// The targets whose path starts with `prefix` (`/private/`), in arrival order.
    pub fn under(&self, prefix: &str) -> Vec<&str> {
        self.requests
            .iter()
            .map(|r| r.path_and_query.as_str())
            .filter(|target| path_of(target).starts_with(prefix))
            .collect()
    }

    /// Whether any request asked for `path` (any query).
    pub fn asked_for(&self, path: &str) -> bool {
        self.count_path(path) > 0
    }

    /// The time between each request and the next, in arrival order.
    pub fn gaps(&self) -> Vec<Gap> {
        self.requests
            .windows(2)
            .filter_map(|pair| match pair {
                [before, after] => Some(Gap {
                    before: before.path_and_query.clone(),
                    after: after.path_and_query.clone(),
                    since_arrival: after.at.saturating_duration_since(before.at),
                    since_answer: before
                        .answered_at
                        .and_then(|answered| after.at.checked_duration_since(answered)),
                }),
                _ => None,
            })
            .collect()
    }

    /// The first pair of requests in a row that arrived less than `least` apart, if any: a
    /// crawler keeping a delay of `least` between requests to the host makes none.
    pub fn first_gap_under(&self, least: Duration) -> Option<Gap> {
        self.gaps()
            .into_iter()
            .find(|gap| gap.since_arrival < least)
    }
}

/// The path of a request target: what comes before its `?`.
fn path_of(target: &str) -> &str {
    target.split('?').next().unwrap_or(target)
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    fn request(host: &str, target: &str, at: Instant, answered_after_ms: u64) -> Request {
        Request {
            host: host.into(),
            path_and_query: target.into(),
            user_agent: None,
            from: None,
            referer: None,
            accept: None,
            accept_encoding: None,
            if_none_match: None,
            if_modified_since: None,
            at,
            answered_at: Some(at + Duration::from_millis(answered_after_ms)),
        }
    }

    #[test]
    fn one_hosts_requests_keep_their_order_and_are_counted_by_path_whatever_the_query() {
        let start = Instant::now();
        let ms = |n| start + Duration::from_millis(n);
        let log = vec![
            request("scripts.test", "/robots.txt", ms(0), 1),
            request("other.test", "/private/x", ms(5), 1),
            request("scripts.test", "/api/tick?n=0", ms(100), 10),
            request("scripts.test", "/api/tick?x=1", ms(150), 10),
            request("scripts.test", "/private/data.json", ms(400), 10),
        ];
        let scripts = HostRequests::of("Scripts.TEST:8080", log);
        assert_eq!(
            scripts.targets(),
            [
                "/robots.txt",
                "/api/tick?n=0",
                "/api/tick?x=1",
                "/private/data.json"
            ]
        );
        assert_eq!(scripts.count_path("/api/tick"), 2);
        assert_eq!(
            scripts.count_path("/api/tick?n=0"),
            0,
            "a path has no query"
        );
        assert_eq!(scripts.under("/private/"), ["/private/data.json"]);
        assert!(!scripts.asked_for("/private/x"), "another host's request");
    }

    #[test]
    fn the_first_gap_under_a_delay_names_both_requests_and_both_measures() {
        let start = Instant::now();
        let ms = |n| start + Duration::from_millis(n);
        let scripts = HostRequests::of(
            "scripts.test",
            vec![
                request("scripts.test", "/", ms(0), 30),
                request("scripts.test", "/a", ms(100), 30),
                request("scripts.test", "/b", ms(160), 30),
            ],
        );
        assert_eq!(scripts.gaps().len(), 2);
        assert_eq!(scripts.first_gap_under(Duration::from_millis(60)), None);
        assert_eq!(
            scripts.first_gap_under(Duration::from_millis(100)),
            Some(Gap {
                before: "/a".into(),
                after: "/b".into(),
                since_arrival: Duration::from_millis(60),
                since_answer: Some(Duration::from_millis(30)),
            })
        );
        let overlapping = HostRequests::of(
            "scripts.test",
            vec![
                request("scripts.test", "/", ms(0), 50),
                request("scripts.test", "/a", ms(20), 50),
            ],
        );
        assert_eq!(
            overlapping.gaps()[0].since_answer,
            None,
            "the second arrived while the first was being answered"
        );
    }
}
