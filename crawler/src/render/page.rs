//! One page's render in a [`Tab`] (a browser context of its own), every request it makes
//! paused and answered by [`PageNetwork`], and the document read once the page is quiet.
//!
//! The page's own document is answered with the body the crawl already fetched: rendering
//! costs the site no second request for it. The page is quiet once its load event has fired
//! and neither that event nor a request's answer came in the last `render_settle_ms` (scripts
//! that fetch once the page has loaded have that long, however long ago the page's last
//! request was answered); refused requests do not count, so
//! a page that asks without end (a polling loop past its request cap) still settles. Past the
//! deadline the render ends whatever the page is doing (an endless script included) and the
//! page is not rendered. A tab whose page rendered has its scripts stopped and takes the next
//! page; any other is closed with its context; a browser that does not do either in time is
//! replaced.

use std::time::Duration;

use data_encoding::BASE64;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until, timeout, timeout_at};

use super::cdp::{Cdp, CdpError, Event};
use super::network::{Answer, PageNetwork};

/// How long the browser may take to close a tab and its context.
const CLOSE_DEADLINE: Duration = Duration::from_secs(3);
/// The longest document read back, in characters (its JSON must fit in one message).
const MAX_DOCUMENT_CHARS: usize = 8 << 20;
/// How long a read of the document goes unanswered before another is sent beside it (a
/// read sent as the page's context is replaced may never be answered).
const READ_ATTEMPT: Duration = Duration::from_secs(3);

/// The page to render: its URL and the answer the crawl fetched.
pub(crate) struct PageSource<'a> {
    /// The URL.
    pub url: &'a str,
    /// The answer's headers, as fetched.
    pub headers: &'a [(String, String)],
    /// The body, as fetched.
    pub body: &'a [u8],
}

/// Why a page was not rendered.
#[derive(Debug)]
pub(crate) struct NotRendered {
    /// Said in the store and by `crawler explain`.
    pub reason: String,
}

/// A tab in a browser context of its own, with its requests paused. A tab is used for one
/// page after another (its renderer process stays warm); one whose page did not end well is
/// closed instead.
pub(crate) struct Tab {
    context: String,
    target: String,
    session: String,
    events: mpsc::Receiver<Event>,
    /// A page was rendered in it: its scripts are stopped until the next page starts.
    used: bool,
}

impl Tab {
    /// Opens a tab in a new context, every request of it paused.
    pub(crate) async fn open(cdp: &Cdp) -> Result<Tab, CdpError> {
        let context = cdp
            .call(
                None,
                "Target.createBrowserContext",
                json!({ "disposeOnDetach": true }),
            )
            .await?;
        let context = text(&context, "browserContextId");
        let target = cdp
            .call(
                None,
                "Target.createTarget",
                json!({ "url": "about:blank", "browserContextId": context }),
            )
            .await?;
        let target = text(&target, "targetId");
        let session = cdp
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target, "flatten": true }),
            )
            .await?;
        let session = text(&session, "sessionId");
        let events = cdp.events(&session);
        let tab = Tab {
            context,
            target,
            session,
            events,
            used: false,
        };
        let patterns = json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] });
        cdp.call(tab.session(), "Fetch.enable", patterns).await?;
        cdp.call(tab.session(), "Page.enable", json!({})).await?;
        Ok(tab)
    }

    fn session(&self) -> Option<&str> {
        Some(self.session.as_str())
    }

    /// Renders `page`, answering its requests with `network`, until `deadline`; the page
    /// is read once loaded and `settle` has passed without an answered request.
    pub(crate) async fn render(
        &mut self,
        cdp: &Cdp,
        page: PageSource<'_>,
        network: &mut PageNetwork,
        (deadline, settle): (Instant, Duration),
        max_document_chars: usize,
    ) -> Result<String, NotRendered> {
        let chars = max_document_chars.min(MAX_DOCUMENT_CHARS);
        self.run(cdp, page, network, (deadline, settle), chars)
            .await
            .map_err(|error| NotRendered {
                reason: error.to_string(),
            })
    }

    /// Stops the page's scripts and refuses what it still asked for, so the tab can take the
    /// next page; `false` when the browser did not in time. (Leaving for `about:blank`
    /// instead would cost a new renderer process per page.)
    pub(crate) async fn reset(&mut self, cdp: &Cdp) -> bool {
        let stop = cdp.call(
            self.session(),
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": true }),
        );
        if !matches!(timeout(CLOSE_DEADLINE, stop).await, Ok(Ok(_))) {
            return false;
        }
        while let Ok(event) = self.events.try_recv() {
            if event.method == "Fetch.requestPaused"
                && refuse(cdp, self.session(), &event.params, "Aborted")
                    .await
                    .is_err()
            {
                return false;
            }
        }
        self.used = true;
        true
    }

    /// Closes the tab and drops its context; `false` when the browser did not in time.
    pub(crate) async fn close(self, cdp: &Cdp) -> bool {
        cdp.forget(&self.session);
        let target = json!({ "targetId": self.target });
        let context = json!({ "browserContextId": self.context });
        let closed = timeout(CLOSE_DEADLINE, cdp.call(None, "Target.closeTarget", target)).await;
        let disposed = timeout(
            CLOSE_DEADLINE,
            cdp.call(None, "Target.disposeBrowserContext", context),
        )
        .await;
        matches!((closed, disposed), (Ok(Ok(_)), Ok(Ok(_))))
    }
}

/// Why a render ended without a document.
#[derive(Debug, thiserror::Error)]
enum Failed {
    #[error("the render deadline passed ({0})")]
    Deadline(String),
    #[error("the page's renderer crashed")]
    Crashed,
    #[error("navigation failed: {0}")]
    Navigation(String),
    #[error("the browser failed: {0}")]
    Browser(#[from] CdpError),
    #[error("the browser stopped sending events")]
    EventsEnded,
}

impl Tab {
    async fn run(
        &mut self,
        cdp: &Cdp,
        page: PageSource<'_>,
        network: &mut PageNetwork,
        (deadline, settle): (Instant, Duration),
        max_chars: usize,
    ) -> Result<String, Failed> {
        let session = Some(self.session.as_str());
        if self.used {
            let start = cdp.call(
                session,
                "Emulation.setScriptExecutionDisabled",
                json!({ "value": false }),
            );
            timeout_at(deadline, start)
                .await
                .map_err(|_| Failed::Deadline("starting the tab's scripts again".into()))??;
        }
        // What the tab's page before this one still sent after its reset (a late load event,
        // a request its scripts made before they stopped) is not this page's: a stale load
        // event would end the wait before this page has loaded, a stale document request
        // would be answered as this page's document.
        while let Ok(stale) = self.events.try_recv() {
            if stale.method == "Fetch.requestPaused" {
                refuse(cdp, session, &stale.params, "Aborted").await?;
            }
        }
        let navigate = cdp.call(session, "Page.navigate", json!({ "url": page.url }));
        tokio::pin!(navigate);
        let mut navigated = false;
        let mut document_answered = false;
        let mut loaded = false;
        // The last request answered, or the load event if later: quiet is counted from it.
        let mut last_activity = Instant::now();
        let mut events = 0u32;
        loop {
            let quiet_at = last_activity + settle;
            tokio::select! {
                () = sleep_until(deadline) => {
                    return Err(Failed::Deadline(format!(
                        "waiting: navigated {navigated}, document answered {document_answered}, \
                         loaded {loaded}, {events} events"
                    )));
                }
                () = sleep_until(quiet_at), if loaded => break,
                answer = &mut navigate, if !navigated => {
                    navigated = true;
                    let answer = answer?;
                    if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
                        return Err(Failed::Navigation(error.to_string()));
                    }
                }
                event = self.events.recv() => {
                    events += 1;
                    let Some(Event { method, params }) = event else {
                        return Err(Failed::EventsEnded);
                    };
                    match method.as_str() {
                        "Fetch.requestPaused" => {
                            let answered = if !document_answered && is_document(&params) {
                                document_answered = true;
                                fulfill(cdp, session, &params, 200, page.headers, page.body).await?;
                                true
                            } else if is_document(&params) && is_main_frame(&params, &self.target) {
                                // A script navigating the page away: the page is what was fetched.
                                // Starting a navigation can stop the page's own loading, so its
                                // load event may never come: the wait for quiet starts now.
                                // Aborted, not blocked: a blocked navigation commits the
                                // browser's error page in the document's place.
                                refuse(cdp, session, &params, "Aborted").await?;
                                loaded = true;
                                false
                            } else {
                                let paused = Paused::of(&params);
                                let answer = timeout_at(
                                    deadline,
                                    network.answer(&paused.method, &paused.url, &paused.resource_type),
                                )
                                .await
                                .map_err(|_| Failed::Deadline(format!("answering {}", paused.url)))?;
                                match answer {
                                    Answer::Reply(reply) => {
                                        fulfill(cdp, session, &params, reply.status, &reply.headers, &reply.body)
                                            .await?;
                                        true
                                    }
                                    Answer::Refused(refusal) => {
                                        refuse(cdp, session, &params, refusal.error_reason()).await?;
                                        false
                                    }
                                }
                            };
                            if answered {
                                last_activity = Instant::now();
                            }
                        }
                        "Page.loadEventFired" => {
                            loaded = true;
                            last_activity = Instant::now();
                        }
                        "Inspector.targetCrashed" => return Err(Failed::Crashed),
                        _ => {}
                    }
                }
            }
        }
        let expression = format!(
            "(() => {{ const d = document.documentElement; if (!d) return ''; \
         const h = d.outerHTML; return h.length > {max_chars} ? h.slice(0, {max_chars}) : h; }})()"
        );
        // While the document is read, the page's scripts go on: a request they make (a
        // script setting `location` without end) is refused at once, since one left paused
        // was seen to hold the read up to the deadline; and a read that goes unanswered (one
        // sent as the page's context is replaced) is asked again beside it, the first answer
        // taken.
        let read = || {
            let left = deadline.saturating_duration_since(Instant::now());
            Box::pin(cdp.call(
                session,
                "Runtime.evaluate",
                json!({
                    "expression": &expression,
                    "returnByValue": true,
                    "timeout": left.as_millis() as u64,
                }),
            ))
        };
        let mut reads = FuturesUnordered::new();
        reads.push(read());
        let mut again_at = Instant::now() + READ_ATTEMPT;
        let result = loop {
            tokio::select! {
                Some(answer) = reads.next() => break answer?,
                () = sleep_until(deadline) => {
                    return Err(Failed::Deadline("reading the document".into()));
                }
                () = sleep_until(again_at) => {
                    reads.push(read());
                    again_at += READ_ATTEMPT;
                }
                event = self.events.recv() => match event {
                    None => return Err(Failed::EventsEnded),
                    Some(Event { method, params }) => match method.as_str() {
                        "Fetch.requestPaused" => {
                            // Aborted: a navigation blocked commits the browser's error
                            // page, and the read fails or reads it.
                            refuse(cdp, session, &params, "Aborted").await?;
                        }
                        "Inspector.targetCrashed" => return Err(Failed::Crashed),
                        _ => {}
                    },
                },
            }
        };
        Ok(result
            .pointer("/result/value")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string())
    }
}

/// A paused request's facts.
struct Paused {
    method: String,
    url: String,
    resource_type: String,
}

impl Paused {
    fn of(params: &Value) -> Self {
        let field = |pointer: &str| {
            params
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Self {
            method: field("/request/method"),
            url: field("/request/url"),
            resource_type: field("/resourceType"),
        }
    }
}

fn is_document(params: &Value) -> bool {
    params.get("resourceType").and_then(Value::as_str) == Some("Document")
}

/// A tab's main frame has the tab's target id.
fn is_main_frame(params: &Value, target: &str) -> bool {
    params.get("frameId").and_then(Value::as_str) == Some(target)
}

async fn fulfill(
    cdp: &Cdp,
    session: Option<&str>,
    paused: &Value,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<(), CdpError> {
    let headers: Vec<Value> = headers
        .iter()
        .map(|(name, value)| json!({ "name": name, "value": value }))
        .collect();
    cdp.call(
        session,
        "Fetch.fulfillRequest",
        json!({
            "requestId": paused.get("requestId").cloned().unwrap_or_default(),
            "responseCode": status,
            "responseHeaders": headers,
            "body": BASE64.encode(body),
        }),
    )
    .await
    .map(drop)
    .or_else(ignore_gone_request)
}

async fn refuse(
    cdp: &Cdp,
    session: Option<&str>,
    paused: &Value,
    reason: &str,
) -> Result<(), CdpError> {
    cdp.call(
        session,
        "Fetch.failRequest",
        json!({
            "requestId": paused.get("requestId").cloned().unwrap_or_default(),
            "errorReason": reason,
        }),
    )
    .await
    .map(drop)
    .or_else(ignore_gone_request)
}

/// A request the page gave up on meanwhile (a frame removed, an aborted fetch) cannot be
/// answered; that is no failure of the render.
fn ignore_gone_request(error: CdpError) -> Result<(), CdpError> {
    match error {
        CdpError::Answer { .. } => Ok(()),
        closed @ CdpError::Closed(_) => Err(closed),
    }
}

fn text(value: &Value, field: &str) -> String {
    value
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
