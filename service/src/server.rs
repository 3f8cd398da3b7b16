//! The accept loop: HTTP/1.1 connections served with bounds, so slow or many clients cannot
//! exhaust the server. Connections are hyper's, serving warp's filters.
//!
//! - At most [`Limits::max_connections`] connections are open at once; past that the loop
//!   stops accepting and new clients wait in the kernel's backlog.
//! - A client gets [`Limits::header_timeout`] to send a request's headers, also between the
//!   requests of a kept-alive connection: a slowloris client or an idle connection is closed.
//! - A request (its body read and its answer built) gets [`Limits::request_timeout`]; past
//!   that it is answered `503` (searchd's searches also wait for a slot within that time).
//! - On shutdown the listener closes and the connections in flight finish first.
//! - A [`Listener`] with TLS answers HTTPS (see `tls`); the handshake is a connection's
//!   first step, within the header timeout.
//!
//! Every answer, a timed-out request's included, is counted by [`HttpMetrics`] when given:
//! by route and status, and its time by route.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_service::Service;
use warp::reply::Response;

use crate::metrics::HttpMetrics;
use crate::tls::ServerTls;

/// The bounds of `serve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time to send a request's headers (and the longest idle keep-alive).
    pub header_timeout: Duration,
    /// Time to read a request's body and answer it.
    pub request_timeout: Duration,
}

impl Limits {
    /// Limits for a listener only a monitoring system asks (`--metrics-listen`): a few
    /// connections, a few seconds each.
    pub fn monitoring() -> Self {
        Self {
            max_connections: 16,
            header_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(10),
        }
    }
}

/// Where a server listens: a bound TCP listener, answering HTTPS when it has TLS.
#[derive(Debug)]
pub struct Listener {
    tcp: TcpListener,
    tls: Option<ServerTls>,
}

impl From<TcpListener> for Listener {
    fn from(tcp: TcpListener) -> Self {
        Self { tcp, tls: None }
    }
}

impl Listener {
    /// The same listener, answering HTTPS with `tls` (plain HTTP with `None`).
    pub fn with_tls(self, tls: Option<ServerTls>) -> Self {
        Self { tls, ..self }
    }

    /// `https` or `http`.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }
}

/// Serves `routes` on `listener` within `limits` until `shutdown` completes; connections in
/// flight are finished first. `overloaded` answers a request (given its path) that ran out
/// of time. `metrics`, when given, counts every answer. With TLS, a client gets
/// [`Limits::header_timeout`] for its handshake too, and the certificate files are watched
/// for a renewal (see `tls`).
pub async fn serve<F>(
    listener: impl Into<Listener>,
    routes: F,
    limits: Limits,
    overloaded: fn(&str) -> Response,
    metrics: Option<HttpMetrics>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) where
    F: warp::Filter<Extract = (Response,), Error = Infallible> + Clone + Send + Sync + 'static,
{
    let Listener { tcp, tls } = listener.into();
    let reloader = tls.clone().map(|tls| tokio::spawn(tls.reload_forever()));
    let graceful = GracefulShutdown::new();
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = accept(&tcp, &connections) => accepted,
        };
        let Some((stream, permit)) = accepted else {
            continue;
        };
        let answering = Answering {
            service: warp::service(routes.clone()),
            limits,
            overloaded,
            metrics: metrics.clone(),
        };
        let watcher = graceful.watcher();
        let tls = tls.clone();
        tokio::spawn(async move {
            match tls {
                None => answering.serve(TokioIo::new(stream), watcher).await,
                Some(tls) => {
                    let handshake = tls.acceptor().accept(stream);
                    match tokio::time::timeout(limits.header_timeout, handshake).await {
                        Ok(Ok(stream)) => answering.serve(TokioIo::new(stream), watcher).await,
                        Ok(Err(error)) => tracing::debug!(%error, "TLS handshake failed"),
                        Err(_elapsed) => tracing::debug!("TLS handshake timed out"),
                    }
                }
            }
            drop(permit);
        });
    }
    drop(tcp);
    if let Some(reloader) = reloader {
        reloader.abort();
    }
    graceful.shutdown().await;
}

/// What answers the requests of one connection.
struct Answering<S> {
    service: S,
    limits: Limits,
    overloaded: fn(&str) -> Response,
    metrics: Option<HttpMetrics>,
}

impl<S> Answering<S>
where
    S: Service<hyper::Request<Incoming>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    /// Serves the connection `io` until it ends, within the limits; a graceful shutdown
    /// seen by `watcher` ends it after the request in flight.
    async fn serve<I>(self, io: I, watcher: Watcher)
    where
        I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    {
        let Self {
            service,
            limits,
            overloaded,
            metrics,
        } = self;
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let mut service = service.clone();
            let path = request.uri().path().to_string();
            let metrics = metrics.clone();
            async move {
                let started = Instant::now();
                let answer = tokio::time::timeout(limits.request_timeout, service.call(request));
                let response = match answer.await {
                    Ok(Ok(response)) => response,
                    Ok(Err(never)) => match never {},
                    Err(_elapsed) => overloaded(&path),
                };
                if let Some(metrics) = &metrics {
                    metrics.answered(&path, response.status().as_u16(), started.elapsed());
                }
                Ok::<_, Infallible>(response)
            }
        });
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .serve_connection(io, service);
        if let Err(error) = watcher.watch(connection).await {
            tracing::debug!(%error, "connection ended");
        }
    }
}

/// The next connection, once one of `connections` is free (`None`: a failed accept, after a
/// pause when the process is out of file descriptors).
async fn accept(
    listener: &TcpListener,
    connections: &Arc<Semaphore>,
) -> Option<(tokio::net::TcpStream, tokio::sync::OwnedSemaphorePermit)> {
    let permit = Arc::clone(connections).acquire_owned().await.ok()?;
    match listener.accept().await {
        Ok((stream, _peer)) => Some((stream, permit)),
        Err(error) => {
            tracing::warn!(%error, "cannot accept a connection");
            // EMFILE and friends: give the connections in flight time to end.
            tokio::time::sleep(Duration::from_millis(100)).await;
            None
        }
    }
}
