//! One page's render: a fresh browser context and tab, every request it makes paused and
//! answered by [`PageNetwork`], and the document read once the page is quiet.
//!
//! The page's own document is answered with the body the crawl already fetched: rendering
//! costs the site no second request for it. The page is quiet once its load event has fired
//! and no request has been answered for `render_settle_ms`; refused requests do not count, so
//! a page that asks without end (a polling loop past its request cap) still settles. Past the
//! deadline the render ends whatever the page is doing (an endless script included) and the
//! page is not rendered. The tab and its context are closed in every case; a browser that
//! does not close them in time is replaced.

use std::time::Duration;

use data_encoding::BASE64;
use serde_json::{Value, json};
use tokio::time::{Instant, sleep_until, timeout, timeout_at};

use super::cdp::{Cdp, CdpError, Event};
use super::network::{Answer, PageNetwork};

/// How long the browser may take to close a tab and its context.
const CLOSE_DEADLINE: Duration = Duration::from_secs(3);
/// The longest document read back, in characters (its JSON must fit in one message).
const MAX_DOCUMENT_CHARS: usize = 8 << 20;

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

/// What a render of one page came to, and whether its browser can go on.
pub(crate) struct PageRender {
    /// The document after scripts, or why there is none.
    pub document: Result<String, NotRendered>,
    /// The browser did something wrong (its pipe broke, a tab would not close): replace it.
    pub browser_unusable: bool,
}

/// Renders `page` in a new tab of the browser behind `cdp`, answering its requests with
/// `network`, until `deadline`.
pub(crate) async fn render_page(
    cdp: &Cdp,
    page: PageSource<'_>,
    network: &mut PageNetwork,
    deadline: Instant,
    settle: Duration,
    max_document_chars: usize,
) -> PageRender {
    let opened = timeout_at(deadline, open_tab(cdp)).await;
    let tab = match opened {
        Ok(Ok(tab)) => tab,
        Ok(Err(error)) => {
            return PageRender {
                document: Err(NotRendered {
                    reason: format!("the browser failed: {error}"),
                }),
                browser_unusable: true,
            };
        }
        Err(_) => {
            return PageRender {
                document: Err(NotRendered {
                    reason: "the browser did not open a tab before the deadline".into(),
                }),
                browser_unusable: true,
            };
        }
    };
    let mut events = cdp.events(&tab.session);
    let chars = max_document_chars.min(MAX_DOCUMENT_CHARS);
    let document = match run(
        cdp,
        &tab,
        &mut events,
        page,
        network,
        (deadline, settle),
        chars,
    )
    .await
    {
        Ok(document) => Ok(document),
        Err(error) => Err(NotRendered {
            reason: error.to_string(),
        }),
    };
    cdp.forget(&tab.session);
    let closed = close_tab(cdp, &tab).await;
    PageRender {
        browser_unusable: !closed || cdp.is_broken(),
        document,
    }
}

/// A tab in its own browser context.
struct Tab {
    context: String,
    target: String,
    session: String,
}

async fn open_tab(cdp: &Cdp) -> Result<Tab, CdpError> {
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
    Ok(Tab {
        session: text(&session, "sessionId"),
        context,
        target,
    })
}

/// Closes the tab and drops its context; `false` when the browser did not in time.
async fn close_tab(cdp: &Cdp, tab: &Tab) -> bool {
    let target = json!({ "targetId": tab.target });
    let context = json!({ "browserContextId": tab.context });
    let closed = timeout(CLOSE_DEADLINE, cdp.call(None, "Target.closeTarget", target)).await;
    let disposed = timeout(
        CLOSE_DEADLINE,
        cdp.call(None, "Target.disposeBrowserContext", context),
    )
    .await;
    matches!((closed, disposed), (Ok(Ok(_)), Ok(Ok(_))))
}

/// Why a render ended without a document.
#[derive(Debug, thiserror::Error)]
enum Failed {
    #[error("the render deadline passed")]
    Deadline,
    #[error("the page's renderer crashed")]
    Crashed,
    #[error("navigation failed: {0}")]
    Navigation(String),
    #[error("the browser failed: {0}")]
    Browser(#[from] CdpError),
    #[error("the browser stopped sending events")]
    EventsEnded,
}

async fn run(
    cdp: &Cdp,
    tab: &Tab,
    events: &mut tokio::sync::mpsc::Receiver<Event>,
    page: PageSource<'_>,
    network: &mut PageNetwork,
    (deadline, settle): (Instant, Duration),
    max_chars: usize,
) -> Result<String, Failed> {
    let session = Some(tab.session.as_str());
    let patterns = json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] });
    let setup = async {
        cdp.call(session, "Fetch.enable", patterns).await?;
        cdp.call(session, "Page.enable", json!({})).await
    };
    timeout_at(deadline, setup)
        .await
        .map_err(|_| Failed::Deadline)??;

    let navigate = cdp.call(session, "Page.navigate", json!({ "url": page.url }));
    tokio::pin!(navigate);
    let mut navigated = false;
    let mut document_answered = false;
    let mut loaded = false;
    let mut last_answer = Instant::now();
    loop {
        let quiet_at = last_answer + settle;
        tokio::select! {
            () = sleep_until(deadline) => return Err(Failed::Deadline),
            () = sleep_until(quiet_at), if loaded => break,
            answer = &mut navigate, if !navigated => {
                navigated = true;
                let answer = answer?;
                if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
                    return Err(Failed::Navigation(error.to_string()));
                }
            }
            event = events.recv() => {
                let Some(Event { method, params }) = event else {
                    return Err(Failed::EventsEnded);
                };
                match method.as_str() {
                    "Fetch.requestPaused" => {
                        let answered = if !document_answered && is_document(&params) {
                            document_answered = true;
                            fulfill(cdp, session, &params, 200, page.headers, page.body).await?;
                            true
                        } else if is_document(&params) && is_main_frame(&params, tab) {
                            // A script navigating the page away: the page is what was fetched.
                            refuse(cdp, session, &params, "BlockedByClient").await?;
                            false
                        } else {
                            let paused = Paused::of(&params);
                            let answer = timeout_at(
                                deadline,
                                network.answer(&paused.method, &paused.url, &paused.resource_type),
                            )
                            .await
                            .map_err(|_| Failed::Deadline)?;
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
                            last_answer = Instant::now();
                        }
                    }
                    "Page.loadEventFired" => loaded = true,
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
    let left = deadline.saturating_duration_since(Instant::now());
    let read = cdp.call(
        session,
        "Runtime.evaluate",
        json!({
            "expression": expression,
            "returnByValue": true,
            "timeout": left.as_millis() as u64,
        }),
    );
    let result = timeout_at(deadline, read)
        .await
        .map_err(|_| Failed::Deadline)??;
    Ok(result
        .pointer("/result/value")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string())
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

/// The tab's main frame has the target's id.
fn is_main_frame(params: &Value, tab: &Tab) -> bool {
    params.get("frameId").and_then(Value::as_str) == Some(tab.target.as_str())
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
