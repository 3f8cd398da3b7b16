//! A registry's metrics as `/metrics` answers them: Prometheus's text exposition format
//! (version 0.0.4), which `promtool check metrics` reads and every Prometheus scrapes.

use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, prometheus_text};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;

/// The `Content-Type` of the text format.
pub const CONTENT_TYPE: &str = prometheus_text::CONTENT_TYPE;

/// The histogram buckets of a latency in seconds: 0.5 ms to 10 s.
pub const LATENCY_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Every metric of `registry` in the text format.
pub fn render(registry: &Registry) -> String {
    let mut text = String::new();
    // Writing to a String fails only if a metric's own encoding does, which the types
    // registered here never do; an empty answer then is better than a panic.
    if let Err(error) = prometheus_text::encode(&mut text, registry) {
        tracing::warn!(%error, "cannot encode the metrics");
    }
    text
}

/// The `/metrics` answer: `registry` in the text format.
pub fn answer(registry: &Registry) -> Response {
    let mut response = Response::new(render(registry).into());
    *response.status_mut() = StatusCode::OK;
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static(CONTENT_TYPE));
    response
}

/// A histogram of latencies in seconds ([`LATENCY_BUCKETS`]).
pub fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// A family of latency histograms, one per label set.
pub type LatencyFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// An empty [`LatencyFamily`].
pub fn latency_family<L: Clone + std::hash::Hash + Eq>() -> LatencyFamily<L> {
    Family::new_with_constructor(latency_histogram)
}

/// The labels of an answered request: its route's name (never its path: see
/// [`HttpMetrics::new`]) and its status code.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    status: u16,
}

/// The labels of a route's latencies.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: &'static str,
}

/// Requests a server answered, by route and status, and their latency by route:
/// `PREFIX_http_requests_total{route,status}` and
/// `PREFIX_http_request_duration_seconds{route}`.
#[derive(Clone)]
pub struct HttpMetrics {
    route_of: fn(&str) -> &'static str,
    requests: Family<RequestLabels, Counter>,
    durations: LatencyFamily<RouteLabels>,
}

impl HttpMetrics {
    /// Registers the families in `registry`. `route_of` names a request's route from its
    /// path, from a fixed list (anything else one name such as `other`), so a client that
    /// asks for a million paths adds no label value.
    pub fn new(registry: &mut Registry, route_of: fn(&str) -> &'static str) -> Self {
        let metrics = Self {
            route_of,
            requests: Family::default(),
            durations: latency_family(),
        };
        registry.register(
            "http_requests",
            "HTTP requests answered, by route and status code",
            metrics.requests.clone(),
        );
        registry.register_with_unit(
            "http_request_duration",
            "Time from a request's arrival to its answer, by route",
            Unit::Seconds,
            metrics.durations.clone(),
        );
        metrics
    }

    /// Counts an answer to a request for `path`.
    pub fn answered(&self, path: &str, status: u16, took: Duration) {
        let route = (self.route_of)(path);
        self.requests
            .get_or_create(&RequestLabels { route, status })
            .inc();
        self.durations
            .get_or_create(&RouteLabels { route })
            .observe(took.as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use prometheus_client::metrics::counter::Counter;

    use super::*;

    #[test]
    fn a_counter_is_written_with_its_help_type_and_total() {
        let mut registry = Registry::default();
        let counter: Counter = Counter::default();
        registry.register("sift_things", "Things seen", counter.clone());
        counter.inc_by(3);
        assert_eq!(
            render(&registry),
            "# HELP sift_things_total Things seen.\n# TYPE sift_things_total counter\n\
             sift_things_total 3\n"
        );
    }
}
