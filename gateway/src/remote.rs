//! [`RemoteLeaf`]: a `searchd leaf` on another machine (or process), asked over HTTP.
//!
//! Each call is JSON posted to the leaf's `/leaf/...` routes (see `leaf_routes`), waited for
//! at most the leaf timeout (`[searchd] leaf_timeout_ms`). A call that fails, answers other
//! than 2xx or is late is an [`Err`] naming the leaf. A root asks a leaf only through its
//! group of replicas (`replicas`' [`crate::LeafGroup`], one leaf or several holding the same
//! shards), which chooses the replica, fails over and hedges.
//!
//! Every call is timed and counted (`searchd_leaf_request_duration_seconds`,
//! `searchd_leaf_failures_total`), and its outcome is the leaf's [`LeafHealth`], which the
//! root's `/readyz` reads: the server probes each leaf's `/leaf/status` every second, so an
//! idle root knows too.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::metrics::SearchMetrics;

use serde::de::DeserializeOwned;
use tokio::runtime::Handle;

use crate::leaf_ca::LeafCa;
use crate::leaf_token::LeafToken;

/// Largest answer read from a leaf.
const MAX_ANSWER_BYTES: usize = 32 << 20;

/// A remote leaf: its base URL and the client that asks it.
#[derive(Clone, Debug)]
pub struct RemoteLeaf {
    base: String,
    client: reqwest::Client,
    timeout: Duration,
    runtime: Handle,
    metrics: SearchMetrics,
    health: Arc<Mutex<LeafHealth>>,
    /// The token its calls show, if the leaves want one.
    token: Option<LeafToken>,
}

/// How a leaf's last call or probe went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeafHealth {
    /// Not asked yet.
    Unknown,
    /// It answered.
    Answered,
    /// It did not: why.
    Failed(String),
}

impl RemoteLeaf {
    /// The leaf at `base` (`http://host:port`, or `https://` with TLS), each call cut off
    /// after `timeout`, sent on `runtime`; over `https`, its certificate must be signed by
    /// one of `ca` when given, else by one the system trusts. Fails on an address that is
    /// not an `http` or `https` URL.
    pub fn new(
        base: &str,
        timeout: Duration,
        runtime: Handle,
        ca: Option<&LeafCa>,
    ) -> Result<Self, String> {
        let parsed = url::Url::parse(base).map_err(|e| format!("leaf {base:?}: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(format!("leaf {base:?}: not an http:// or https:// address"));
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout);
        if let Some(ca) = ca {
            client = client.tls_certs_only(ca.certificates().iter().cloned());
        }
        let client = client.build().map_err(|e| format!("leaf {base}: {e}"))?;
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
            client,
            timeout,
            runtime,
            metrics: SearchMetrics::default(),
            health: Arc::new(Mutex::new(LeafHealth::Unknown)),
            token: None,
        })
    }

    /// The same leaf, its calls showing `token` (`[searchd] leaf_token_file`).
    pub fn with_token(self, token: Option<LeafToken>) -> Self {
        Self { token, ..self }
    }

    /// The same leaf, its calls counted in `metrics`.
    pub(crate) fn counted_in(self, metrics: SearchMetrics) -> Self {
        Self { metrics, ..self }
    }

    /// How its last call or probe went.
    pub fn health(&self) -> LeafHealth {
        self.health
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Asks its `/leaf/status` (the index it serves) within the leaf timeout, and keeps the
    /// outcome as its health.
    pub(crate) async fn probe(&self) {
        let started = Instant::now();
        let url = format!("{}/leaf/status", self.base);
        let mut request = self.client.get(&url);
        if let Some(token) = &self.token {
            request = request.header("authorization", token.header());
        }
        let answer = match request.send().await {
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => Err(format!("answered {}", response.status())),
            Err(error) => Err(with_causes(&error)),
        };
        self.record(started.elapsed(), answer.err());
    }

    /// Counts a call that took `took` and keeps its outcome as the leaf's health.
    fn record(&self, took: Duration, failure: Option<String>) {
        self.metrics.leaf_call(&self.base, took, failure.is_some());
        *self.health.lock().unwrap_or_else(PoisonError::into_inner) = match failure {
            None => LeafHealth::Answered,
            Some(why) => LeafHealth::Failed(why),
        };
    }

    /// Its base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The longest it waits for an answer.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The runtime its calls are sent on.
    pub(crate) fn runtime(&self) -> &Handle {
        &self.runtime
    }

    /// Posts `body` (JSON) to `path` (`/leaf/stats` ...) within the leaf timeout: the answer,
    /// or why there is none, naming the leaf. The call is counted and its outcome kept as
    /// the leaf's health; a call dropped before its end (a hedge that lost) is neither.
    pub(crate) async fn call<A: DeserializeOwned>(
        &self,
        path: &str,
        body: Vec<u8>,
    ) -> Result<A, String> {
        let started = Instant::now();
        let url = format!("{}{path}", self.base);
        let token = self.token.as_ref().map(LeafToken::header);
        let answer = tokio::time::timeout(self.timeout, post(&self.client, &url, token, body))
            .await
            .unwrap_or_else(|_| Err("no answer in time".into()));
        self.record(started.elapsed(), answer.as_ref().err().cloned());
        answer.map_err(|error| format!("leaf {}: {error}", self.base))
    }
}

async fn post<A: DeserializeOwned>(
    client: &reqwest::Client,
    url: &str,
    token: Option<String>,
    body: Vec<u8>,
) -> Result<A, String> {
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .body(body);
    if let Some(token) = token {
        request = request.header("authorization", token);
    }
    let response = request.send().await.map_err(|e| with_causes(&e))?;
    let status = response.status();
    // Read a chunk at a time, so that an answer over the limit is cut off, not held.
    let mut response = response;
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(format!("answer over {MAX_ANSWER_BYTES} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
        return Err(format!("answered {status}: {text}"));
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("answer not understood: {e}"))
}

/// An error and its causes, in one line: reqwest's own says only "error sending request",
/// while the cause says why (refused, a certificate not trusted, ...).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let said = inner.to_string();
        if !line.contains(&said) {
            line.push_str(": ");
            line.push_str(&said);
        }
        cause = inner.source();
    }
    line
}
