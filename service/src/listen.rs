//! The metrics listener of a program with no HTTP of its own (`crawler crawl|worker
//! --metrics-listen ADDR`): `/metrics`, `/healthz` and `/readyz` on an address of their own,
//! off unless asked for, and on loopback unless an address says otherwise.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use warp::Filter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use crate::health::{Readiness, alive};
use crate::metrics::{HttpMetrics, answer};
use crate::server::{Limits, serve};

/// Where `--metrics-listen` binds: `PORT` alone is `127.0.0.1:PORT`; `ADDR:PORT` (or
/// `[V6]:PORT`) is that address, which a non-loopback address makes reachable from other
/// machines, on purpose.
pub fn parse_listen(spec: &str) -> Result<SocketAddr, String> {
    let spec = spec.trim();
    if let Ok(port) = spec.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    spec.parse().map_err(|_| {
        format!("{spec:?} is not a port or an address with a port (9184, 127.0.0.1:9184)")
    })
}

/// Binds the listener at `addr`; a taken port is a one-line error naming the address.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, String> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen for metrics on {addr}: {e}"))
}

/// The route names of this listener's requests.
fn route_of(path: &str) -> &'static str {
    match path {
        "/metrics" => "/metrics",
        "/healthz" => "/healthz",
        "/readyz" => "/readyz",
        _ => "other",
    }
}

/// Serves `registry` at `/metrics`, `/healthz` and `/readyz` (asking `ready`) on `listener`
/// until `shutdown` completes. The listener's own requests are counted in `registry` too
/// (`PREFIX_http_requests_total`).
pub async fn serve_metrics(
    listener: TcpListener,
    registry: Registry,
    ready: impl Fn() -> Readiness + Clone + Send + Sync + 'static,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let mut registry = registry;
    let http = HttpMetrics::new(&mut registry, route_of);
    let registry = Arc::new(registry);
    let metrics = warp::path!("metrics")
        .and(warp::get())
        .map(move || answer(&registry));
    let healthz = warp::path!("healthz").and(warp::get()).map(alive);
    let readyz = warp::path!("readyz")
        .and(warp::get())
        .map(move || ready().answer());
    let routes = metrics
        .or(healthz)
        .unify()
        .or(readyz)
        .unify()
        .recover(|_| async {
            Ok::<_, std::convert::Infallible>(
                warp::reply::with_status("not found\n", StatusCode::NOT_FOUND).into_response(),
            )
        })
        .unify();
    serve(
        listener,
        routes,
        Limits::monitoring(),
        overloaded,
        Some(http),
        shutdown,
    )
    .await;
}

/// A request that ran out of time.
fn overloaded(_path: &str) -> Response {
    warp::reply::with_status("busy\n", StatusCode::SERVICE_UNAVAILABLE).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_alone_is_loopback_and_an_address_is_kept() {
        assert_eq!(parse_listen("9184").unwrap().to_string(), "127.0.0.1:9184");
        assert_eq!(
            parse_listen("0.0.0.0:9184").unwrap().to_string(),
            "0.0.0.0:9184"
        );
        assert_eq!(parse_listen("[::1]:80").unwrap().to_string(), "[::1]:80");
        assert!(parse_listen("localhost").is_err());
        assert!(parse_listen("70000").is_err());
    }

    #[tokio::test]
    async fn a_taken_port_is_one_line_naming_the_address() {
        let first = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = first.local_addr().unwrap();
        let error = bind(addr).await.unwrap_err();
        assert!(
            error.starts_with(&format!("cannot listen for metrics on {addr}: ")),
            "{error}"
        );
        assert_eq!(error.lines().count(), 1);
    }
}
