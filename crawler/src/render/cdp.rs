//! The DevTools protocol over the browser's pipe: JSON messages, each ended by a NUL byte,
//! written to the browser's fd 3 and read from its fd 4 (`--remote-debugging-pipe`).
//!
//! One task reads: an answer goes to the call waiting on its `id`, an event to the channel of
//! its session (a page being rendered). One task writes. A message longer than
//! [`MAX_MESSAGE_BYTES`] or a pipe that ends breaks the connection: every call waiting and
//! every call after fails, and the browser is replaced.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

/// The longest message read from the browser: a page's serialized document is cut well
/// below it (see [`super::page`]).
pub(crate) const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// Events kept waiting for one page; past it events are dropped (a request whose pause is
/// dropped is never answered, and the page's deadline ends the render).
const EVENTS_PER_SESSION: usize = 4096;

/// Why a call failed.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum CdpError {
    /// The browser answered with an error.
    #[error("{method}: {message}")]
    Answer {
        /// The method called.
        method: String,
        /// The browser's message.
        message: String,
    },
    /// The pipe ended, or a message broke the protocol: the browser is gone or unusable.
    #[error("the browser's pipe is closed ({0})")]
    Closed(String),
}

/// An event of one session: a paused request, a load, a crash.
#[derive(Debug)]
pub(crate) struct Event {
    /// The method (`Fetch.requestPaused`, `Page.loadEventFired` ...).
    pub method: String,
    /// Its parameters.
    pub params: Value,
}

type Waiting = HashMap<u64, (String, oneshot::Sender<Result<Value, CdpError>>)>;

struct Shared {
    next_id: AtomicU64,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    waiting: Mutex<Waiting>,
    sessions: Mutex<HashMap<String, mpsc::Sender<Event>>>,
    broken: AtomicBool,
    why_broken: Mutex<String>,
}

/// A connection to one browser. Cloning shares it.
#[derive(Clone)]
pub(crate) struct Cdp {
    shared: Arc<Shared>,
}

impl Cdp {
    /// Starts the reading and writing tasks on the browser's pipe ends.
    pub(crate) fn start(
        to_browser: impl AsyncWrite + Unpin + Send + 'static,
        from_browser: impl AsyncRead + Unpin + Send + 'static,
    ) -> Self {
        let (outgoing, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            next_id: AtomicU64::new(1),
            outgoing,
            waiting: Mutex::new(HashMap::new()),
            sessions: Mutex::new(HashMap::new()),
            broken: AtomicBool::new(false),
            why_broken: Mutex::new(String::new()),
        });
        tokio::spawn(write_loop(to_browser, rx));
        tokio::spawn(read_loop(from_browser, Arc::clone(&shared)));
        Self { shared }
    }

    /// Whether the connection has broken.
    pub(crate) fn is_broken(&self) -> bool {
        self.shared.broken.load(Ordering::Acquire)
    }

    /// Calls `method` (on `session`, or on the browser) and waits for its answer.
    pub(crate) async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        let (tx, rx) = oneshot::channel();
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        lock(&self.shared.waiting).insert(id, (method.to_string(), tx));
        if self.is_broken() {
            lock(&self.shared.waiting).remove(&id);
            return Err(self.closed());
        }
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::from(session);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        if self.shared.outgoing.send(bytes).is_err() {
            lock(&self.shared.waiting).remove(&id);
            return Err(self.closed());
        }
        rx.await.unwrap_or_else(|_| Err(self.closed()))
    }

    /// The events of `session` from now on, until [`Cdp::forget`].
    pub(crate) fn events(&self, session: &str) -> mpsc::Receiver<Event> {
        let (tx, rx) = mpsc::channel(EVENTS_PER_SESSION);
        lock(&self.shared.sessions).insert(session.to_string(), tx);
        rx
    }

    /// Stops keeping `session`'s events.
    pub(crate) fn forget(&self, session: &str) {
        lock(&self.shared.sessions).remove(session);
    }

    fn closed(&self) -> CdpError {
        CdpError::Closed(lock(&self.shared.why_broken).clone())
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn write_loop(
    mut to_browser: impl AsyncWrite + Unpin,
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(bytes) = rx.recv().await {
        if to_browser.write_all(&bytes).await.is_err() || to_browser.flush().await.is_err() {
            break;
        }
    }
}

async fn read_loop(from_browser: impl AsyncRead + Unpin, shared: Arc<Shared>) {
    let mut reader = BufReader::with_capacity(1 << 16, from_browser);
    let mut message = Vec::new();
    let why = loop {
        message.clear();
        // Read to the next NUL, never more than the bound.
        let read = (&mut reader)
            .take(MAX_MESSAGE_BYTES as u64 + 1)
            .read_until(0, &mut message)
            .await;
        match read {
            Ok(0) => break "the browser closed it".to_string(),
            Err(error) => break format!("read failed: {error}"),
            Ok(_) if message.last() != Some(&0) => {
                break if message.len() > MAX_MESSAGE_BYTES {
                    format!("a message over {MAX_MESSAGE_BYTES} bytes")
                } else {
                    "the browser closed it mid-message".to_string()
                };
            }
            Ok(_) => {}
        }
        message.pop();
        match serde_json::from_slice::<Value>(&message) {
            Ok(value) => dispatch(&shared, value),
            Err(error) => break format!("a message that is not JSON ({error})"),
        }
    };
    *lock(&shared.why_broken) = why.clone();
    shared.broken.store(true, Ordering::Release);
    for (_, (_, tx)) in lock(&shared.waiting).drain() {
        let _ = tx.send(Err(CdpError::Closed(why.clone())));
    }
    lock(&shared.sessions).clear();
}

fn dispatch(shared: &Shared, mut value: Value) {
    if let Some(id) = value.get("id").and_then(Value::as_u64) {
        let Some((method, tx)) = lock(&shared.waiting).remove(&id) else {
            return;
        };
        let answer = match value.get_mut("error") {
            Some(error) => Err(CdpError::Answer {
                method,
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_string(),
            }),
            None => Ok(value.get_mut("result").map(Value::take).unwrap_or_default()),
        };
        let _ = tx.send(answer);
        return;
    }
    let (Some(method), Some(session)) = (
        value
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string),
        value
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string),
    ) else {
        return;
    };
    let event = Event {
        method,
        params: value.get_mut("params").map(Value::take).unwrap_or_default(),
    };
    if let Some(tx) = lock(&shared.sessions).get(&session) {
        let _ = tx.try_send(event);
    }
}
