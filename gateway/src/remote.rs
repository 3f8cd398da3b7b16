//! [`RemoteLeaf`]: a `searchd leaf` on another machine (or process), asked over HTTP.
//!
//! Each call is JSON posted to the leaf's `/leaf/...` routes (see `leaf_routes`), sent on the
//! server's runtime while the root's own shards work, and waited for at most the leaf timeout
//! (`[searchd] leaf_timeout_ms`). A call that fails, answers other than 2xx or is late is
//! an [`Err`] naming the leaf: the root leaves that leaf out and marks its answer partial.
//!
//! Every call is timed and counted (`searchd_leaf_request_duration_seconds`,
//! `searchd_leaf_failures_total`), and its outcome is the leaf's [`LeafHealth`], which the
//! root's `/readyz` reads: the server probes each leaf's `/leaf/status` every second, so an
//! idle root knows too.

use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::metrics::SearchMetrics;

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::runtime::Handle;

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
    /// The leaf at `base` (`http://host:port`), each call cut off after `timeout`, sent on
    /// `runtime`. Fails on an address that is not an `http` or `https` URL.
    pub fn new(base: &str, timeout: Duration, runtime: Handle) -> Result<Self, String> {
        let parsed = url::Url::parse(base).map_err(|e| format!("leaf {base:?}: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(format!("leaf {base:?}: not an http:// or https:// address"));
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()
            .map_err(|e| format!("leaf {base}: {e}"))?;
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
            Err(error) => Err(error.to_string()),
        };
        self.record(started.elapsed(), answer.err());
    }

    /// Counts a call that took `took` and keeps its outcome as the leaf's health.
    fn record(&self, took: Duration, failure: Option<String>) {
        record(&self.metrics, &self.health, &self.base, took, failure);
    }

    /// Its base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Posts `body` to `path` (`/leaf/stats` ...) and returns at once; `Pending::wait`
    /// gives the answer.
    pub fn ask<A: DeserializeOwned + Send + 'static>(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> Pending<A> {
        let (sender, receiver) = sync_channel(1);
        let url = format!("{}{path}", self.base);
        let pending = Pending {
            receiver,
            deadline: Instant::now() + self.timeout + Duration::from_millis(50),
            leaf: self.base.clone(),
        };
        let body = match serde_json::to_vec(body) {
            Ok(body) => body,
            Err(error) => {
                let _ = sender.send(Err(error.to_string()));
                return pending;
            }
        };
        let client = self.client.clone();
        let token = self.token.as_ref().map(LeafToken::header);
        let (metrics, health, base) = (
            self.metrics.clone(),
            Arc::clone(&self.health),
            self.base.clone(),
        );
        let timeout = self.timeout;
        self.runtime.spawn(async move {
            let started = Instant::now();
            let answer = tokio::time::timeout(timeout, post(&client, &url, token, body))
                .await
                .unwrap_or_else(|_| Err("no answer in time".into()));
            let failure = answer.as_ref().err().cloned();
            record(&metrics, &health, &base, started.elapsed(), failure);
            let _ = sender.send(answer);
        });
        pending
    }
}

/// Counts a call to the leaf at `base` and keeps its outcome in `health`.
fn record(
    metrics: &SearchMetrics,
    health: &Mutex<LeafHealth>,
    base: &str,
    took: Duration,
    failure: Option<String>,
) {
    metrics.leaf_call(base, took, failure.is_some());
    *health.lock().unwrap_or_else(PoisonError::into_inner) = match failure {
        None => LeafHealth::Answered,
        Some(why) => LeafHealth::Failed(why),
    };
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
    let response = request.send().await.map_err(|e| e.to_string())?;
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

/// A call on its way.
pub struct Pending<A> {
    receiver: Receiver<Result<A, String>>,
    deadline: Instant,
    leaf: String,
}

impl<A> Pending<A> {
    /// The answer, or why there is none (naming the leaf), by the call's deadline.
    pub fn wait(self) -> Result<A, String> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        match self.receiver.recv_timeout(left) {
            Ok(answer) => answer.map_err(|e| format!("leaf {}: {e}", self.leaf)),
            Err(RecvTimeoutError::Timeout) => Err(format!("leaf {}: no answer in time", self.leaf)),
            Err(RecvTimeoutError::Disconnected) => {
                Err(format!("leaf {}: the call was dropped", self.leaf))
            }
        }
    }
}
