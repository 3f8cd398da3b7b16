//! [`RemoteLeaf`]: a `searchd leaf` on another machine (or process), asked over HTTP.
//!
//! Each call is JSON posted to the leaf's `/leaf/...` routes (see `leaf_routes`), sent on the
//! server's runtime while the root's own shards work, and waited for at most the leaf timeout
//! (`[searchd] leaf_timeout_ms`). A call that fails, answers other than 2xx or is late is
//! an [`Err`] naming the leaf: the root leaves that leaf out and marks its answer partial.

use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::runtime::Handle;

/// Largest answer read from a leaf.
const MAX_ANSWER_BYTES: usize = 32 << 20;

/// A remote leaf: its base URL and the client that asks it.
#[derive(Clone, Debug)]
pub struct RemoteLeaf {
    base: String,
    client: reqwest::Client,
    timeout: Duration,
    runtime: Handle,
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
        })
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
        self.runtime.spawn(async move {
            let _ = sender.send(post(&client, &url, body).await);
        });
        pending
    }
}

async fn post<A: DeserializeOwned>(
    client: &reqwest::Client,
    url: &str,
    body: Vec<u8>,
) -> Result<A, String> {
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
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
