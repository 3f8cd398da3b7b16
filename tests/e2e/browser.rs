//! searchd in a real browser: Debian's headless `chromium`, driven through `chromedriver` by
//! fantoccini. A person's path: the home page, a query typed and submitted, ranked results,
//! then a hostile page's cached copy (`hostile.test`, whose every script would set
//! [`testweb::HOSTILE_MARKER`] and request [`testweb::HOSTILE_BEACON`]), checked to run none
//! of them, nor its meta refresh; its links are absolute and open in a new tab, its
//! `javascript:` link has no address left.
//!
//! A second path narrows a search of `dates.test` and `almanac.test` by two facets (a year,
//! then a site) and sorts it by date, each by a click on the results page.
//!
//! The browser talks to 127.0.0.1 only: searchd's address, and `hostile.test` pinned to the
//! test web's (for the copy's image and any beacon); every other name fails to resolve.
//! Missing `chromium` or `chromedriver` fails the test, saying what to install.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use testweb::{
    ARCHIVE_AUTUMN, ARCHIVE_SPRING, DATED_JSON_LD, HOSTILE_BEACON, HOSTILE_CALM, HOSTILE_HEADING,
    HOSTILE_LINK_ID, HOSTILE_MARKER, HOSTILE_MISSING_IMAGE, HOSTILE_PAGE, HOSTILE_RELATIVE_LINK_ID,
    HOSTILE_TITLE, HOSTILE_WORD, TestWeb,
};

use crate::support::{Searchd, crawl, crawled, crawler_config, index};

/// The test web's host with the hostile page.
const HOST: &str = "hostile.test";
/// What to install when the browser is missing.
const INSTALL: &str = "bash tests/setup (apt-get install chromium chromium-driver)";
/// Longest wait for chromedriver to answer `/status`.
const DRIVER_START: Duration = Duration::from_secs(15);
/// Longest wait for one page, element or condition in the browser.
const WAIT: Duration = Duration::from_secs(20);
/// Longest the whole browser session may take.
const SESSION: Duration = Duration::from_secs(120);
/// How long a clicked `javascript:` link is given to run (it must not).
const CLICK_GRACE: Duration = Duration::from_millis(300);
/// How long after loading the copy's meta refresh (delay 0) is given to navigate (it must
/// not).
const REFRESH_GRACE: Duration = Duration::from_millis(300);

/// Crawls and indexes `hostile.test`, serves it, and walks it in the browser; then checks
/// what reached the test web and the headers searchd sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_searches_and_shows_a_hostile_copy_without_running_it() {
    let (chromium, chromedriver) = (installed("chromium"), installed("chromedriver"));
    let web = TestWeb::start().await;
    let data = crawled(&web, HOST).await;
    index(data.path()).await;
    let searchd = Searchd::start(data).await;
    let ranked = searchd.api_ranking(HOSTILE_WORD).await;
    assert_eq!(
        sorted(ranked.clone()),
        sorted(vec![
            web.url(HOST, HOSTILE_PAGE),
            web.url(HOST, HOSTILE_CALM)
        ]),
        "the index holds both pages with the word"
    );

    let driver = Chromedriver::start(&chromedriver).await;
    let client = driver.session(&chromium).await;
    let browsed = tokio::time::timeout(SESSION, browse(&client, &web, &searchd, &ranked)).await;
    // Quit the browser; when `browse` panics, the driver's guard kills it instead.
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    browsed.unwrap_or_else(|_| panic!("the browser session took over {SESSION:?}"));
    drop(driver);

    assert_no_beacon(&web);
    assert_csp(&searchd, &web.url(HOST, HOSTILE_PAGE)).await;
    assert_copy_rewritten(&searchd, &web.url(HOST, HOSTILE_PAGE)).await;
}

/// Crawls and indexes the two almanac sites, and in the browser narrows "almanac" by a year
/// and a site, then sorts it by date: each step a link of the results page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_narrows_a_search_by_two_facets_and_sorts_it_by_date() {
    let (chromium, chromedriver) = (installed("chromium"), installed("chromedriver"));
    let web = TestWeb::start().await;
    let data = tempfile::tempdir().expect("tempdir");
    let seeds = [web.url("dates.test", "/"), web.url("almanac.test", "/")];
    crawl(data.path(), &seeds, crawler_config(&web)).await;
    index(data.path()).await;
    let searchd = Searchd::start(data).await;
    let driver = Chromedriver::start(&chromedriver).await;
    let client = driver.session(&chromium).await;
    let narrowed = tokio::time::timeout(SESSION, narrow(&client, &web, &searchd)).await;
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    narrowed.unwrap_or_else(|_| panic!("the browser session took over {SESSION:?}"));
}

/// The facets path: "almanac", then the year 2021, then the site `almanac.test`, then sorted
/// by date.
async fn narrow(client: &Client, web: &TestWeb, searchd: &Searchd) {
    client
        .goto(&searchd.url("/search?q=almanac"))
        .await
        .expect("the results open");
    click_link(client, "nav[aria-label=Years] a", "2021 (3)").await;
    let (spring, autumn) = (
        web.url("almanac.test", ARCHIVE_SPRING),
        web.url("almanac.test", ARCHIVE_AUTUMN),
    );
    let ld = web.url("dates.test", DATED_JSON_LD);
    assert_eq!(
        sorted(
            shown_hits(client)
                .await
                .into_iter()
                .map(|(u, _)| u)
                .collect()
        ),
        sorted(vec![spring.clone(), autumn.clone(), ld]),
        "the pages of 2021"
    );
    click_link(client, "nav[aria-label=Sites] a", "almanac.test (2)").await;
    let query = find(client, "form.search input[name=q]")
        .await
        .prop("value")
        .await
        .expect("the box's value")
        .unwrap_or_default();
    assert_eq!(query, "almanac after:2021 before:2022 site:almanac.test");
    let urls = |hits: Vec<(String, String)>| hits.into_iter().map(|(u, _)| u).collect::<Vec<_>>();
    assert_eq!(
        urls(shown_hits(client).await),
        [spring.clone(), autumn.clone()],
        "best first: spring says the word most"
    );
    click_link(client, "span.sort a", "date").await;
    assert_eq!(
        urls(shown_hits(client).await),
        [autumn, spring],
        "newest first"
    );
    let url = client.current_url().await.expect("current URL");
    assert!(
        url.query().is_some_and(|q| q.contains("sort=date")),
        "the order is in the URL: {url}"
    );
    let dates: Vec<String> = {
        let mut out = Vec::new();
        for time in client
            .find_all(Locator::Css("div.hit div.date time"))
            .await
            .expect("dates")
        {
            out.push(
                time.attr("datetime")
                    .await
                    .expect("attr")
                    .unwrap_or_default(),
            );
        }
        out
    };
    assert_eq!(
        dates,
        ["2021-08-01", "2021-02-01"],
        "each result shows its date"
    );
}

/// Clicks the link matching `css` whose text is `text`, and waits for the page it opens.
async fn click_link(client: &Client, css: &str, text: &str) {
    find(client, css).await;
    let mut found = None;
    let mut seen = Vec::new();
    for link in client.find_all(Locator::Css(css)).await.expect("links") {
        let shown = link.text().await.expect("link text");
        if shown == text {
            found = Some(link);
            break;
        }
        seen.push(shown);
    }
    let link = found.unwrap_or_else(|| panic!("no {css:?} link {text:?} among {seen:?}"));
    let before = client.current_url().await.expect("current URL");
    link.click().await.expect("clicking the link");
    let start = Instant::now();
    while client.current_url().await.expect("current URL") == before {
        assert!(
            start.elapsed() < WAIT,
            "{text:?} led nowhere within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    wait_until_loaded(client).await;
    find(client, "div.hit").await;
}

/// The whole path through the browser; panics at the first thing that is wrong.
async fn browse(client: &Client, web: &TestWeb, searchd: &Searchd, ranked: &[String]) {
    search_from_home(client, searchd, HOSTILE_WORD).await;
    let hits = shown_hits(client).await;
    let urls: Vec<&str> = hits.iter().map(|(url, _)| url.as_str()).collect();
    assert_eq!(
        urls, ranked,
        "the browser shows the hits in the ranking's order"
    );
    let hostile = web.url(HOST, HOSTILE_PAGE);
    let (_, title) = hits
        .iter()
        .find(|(url, _)| *url == hostile)
        .expect("the hostile page is a result");
    assert_eq!(
        title, HOSTILE_TITLE,
        "its title is shown as text, markup and all"
    );
    assert_no_marker(client, "the results page").await;

    open_cached_copy(client, &hostile).await;
    let banner = find(client, "p.notice")
        .await
        .text()
        .await
        .expect("banner text");
    assert!(
        banner.starts_with("This is the cached copy of") && banner.contains(&hostile),
        "the cached copy has its banner: {banner:?}"
    );
    assert_no_marker(client, "the cached copy's page").await;
    inside_the_copy(client, web).await;
    assert_no_marker(client, "the cached copy's page after the click").await;
    let url = client.current_url().await.expect("current URL");
    assert_eq!(
        url.fragment(),
        None,
        "the copy did not navigate its top page"
    );
    let windows = client.windows().await.expect("window handles");
    assert_eq!(windows.len(), 1, "the copy opened no window");

    // The copy's page is sandboxed as a whole, yet our own search box on it still works.
    submit_search(client, HOSTILE_WORD).await;
}

/// Opens `/`, types `word` into the search box and submits; returns once results show.
async fn search_from_home(client: &Client, searchd: &Searchd, word: &str) {
    client
        .goto(&searchd.url("/"))
        .await
        .expect("the home page opens");
    submit_search(client, word).await;
}

/// Types `word` into the page's search box and submits; returns once results show.
async fn submit_search(client: &Client, word: &str) {
    let search_box = find(client, "form.search input[name=q]").await;
    search_box.clear().await.expect("clearing the box");
    search_box.send_keys(word).await.expect("typing the query");
    find(client, "form.search button[type=submit]")
        .await
        .click()
        .await
        .expect("clicking Search");
    find(client, "div.hit").await;
    let url = client.current_url().await.expect("current URL");
    assert_eq!(url.path(), "/search", "the form led to the results: {url}");
    let count = find(client, "p.meta").await.text().await.expect("count");
    assert!(count.starts_with("2 results"), "{count:?}");
}

/// The results shown, in order: each hit's link and title text.
async fn shown_hits(client: &Client) -> Vec<(String, String)> {
    let mut hits = Vec::new();
    for link in client
        .find_all(Locator::Css("div.hit a.title"))
        .await
        .expect("result links")
    {
        let url = link.attr("href").await.expect("href").expect("a link");
        hits.push((url, link.text().await.expect("title text")));
    }
    hits
}

/// Follows the "cached" link of the hit for `url`, and waits until its copy has loaded.
async fn open_cached_copy(client: &Client, url: &str) {
    let hits = client
        .find_all(Locator::Css("div.hit"))
        .await
        .expect("hits");
    let mut cached = None;
    for hit in hits {
        let title = hit.find(Locator::Css("a.title")).await.expect("title link");
        if title.attr("href").await.expect("href").as_deref() == Some(url) {
            cached = Some(
                hit.find(Locator::LinkText("cached"))
                    .await
                    .expect("a cached link"),
            );
        }
    }
    cached
        .expect("the hit for the page")
        .click()
        .await
        .expect("clicking cached");
    find(client, "iframe.cache").await;
    let at = client.current_url().await.expect("current URL");
    assert_eq!(at.path(), "/cache", "the link led to the cached copy: {at}");
    wait_until_loaded(client).await;
}

/// Inside the copy's frame: the page is there (its heading) and stays (its meta refresh
/// did not take the frame to the live page), no script ran, its relative link is absolute and
/// opens a new tab, and its `javascript:` link has no address and runs nothing when clicked.
/// Returns to the top page.
async fn inside_the_copy(client: &Client, web: &TestWeb) {
    tokio::time::sleep(REFRESH_GRACE).await;
    assert_not_requested_by_browser(web, HOSTILE_PAGE, "the copy's meta refresh");
    find(client, "iframe.cache")
        .await
        .enter_frame()
        .await
        .expect("entering the copy's frame");
    let heading = find(client, "h1").await.text().await.expect("heading");
    assert_eq!(heading, HOSTILE_HEADING, "the frame shows the copy");
    assert_no_marker(client, "the copy").await;
    let relative = find(client, &format!("#{HOSTILE_RELATIVE_LINK_ID}")).await;
    let attr = |name: &'static str| {
        let relative = relative.clone();
        async move { relative.attr(name).await.expect("reading the link") }
    };
    assert_eq!(
        attr("href").await,
        Some(web.url(HOST, HOSTILE_CALM)),
        "the copy's relative link is absolute"
    );
    assert_eq!(attr("target").await.as_deref(), Some("_blank"));
    assert_eq!(attr("rel").await.as_deref(), Some("noopener noreferrer"));
    let javascript = find(client, &format!("#{HOSTILE_LINK_ID}")).await;
    assert_eq!(
        javascript.attr("href").await.expect("reading the link"),
        None,
        "the copy's javascript: link has no address"
    );
    javascript
        .click()
        .await
        .expect("clicking the javascript: link");
    tokio::time::sleep(CLICK_GRACE).await;
    assert_no_marker(client, "the copy after its javascript: link").await;
    client
        .enter_parent_frame()
        .await
        .expect("back to the top page");
}

/// Fails if the current document's `<html>` carries the marker a hostile script sets.
async fn assert_no_marker(client: &Client, what: &str) {
    let html = find(client, "html").await;
    let marker = html.attr(HOSTILE_MARKER).await.expect("reading <html>");
    assert_eq!(marker, None, "a hostile script ran in {what}");
}

/// Fails if the browser asked the test web's [`HOST`] for `path` (what `why` would have done).
fn assert_not_requested_by_browser(web: &TestWeb, path: &str, why: &str) {
    let asked = web
        .requests()
        .into_iter()
        .filter(|r| r.host == HOST && r.path_and_query == path)
        .any(|r| {
            r.user_agent
                .as_deref()
                .is_some_and(|ua| ua.contains("Chrome"))
        });
    assert!(
        !asked,
        "the browser asked for {HOST}{path}: {why} left the copy"
    );
}

/// Fails if any beacon of the hostile page reached the test web; proves first that the
/// browser did reach it (it asked for the copy's image), so the check can fail.
fn assert_no_beacon(web: &TestWeb) {
    let from_browser: Vec<_> = web
        .requests()
        .into_iter()
        .filter(|r| r.host == HOST)
        .filter(|r| {
            r.user_agent
                .as_deref()
                .is_some_and(|ua| ua.contains("Chrome"))
        })
        .collect();
    assert!(
        from_browser
            .iter()
            .any(|r| r.path_and_query == HOSTILE_MISSING_IMAGE),
        "the browser asked the test web for the copy's image"
    );
    let beacons: Vec<_> = from_browser
        .iter()
        .filter(|r| r.path_and_query.starts_with(HOSTILE_BEACON))
        .map(|r| r.path_and_query.as_str())
        .collect();
    assert!(beacons.is_empty(), "hostile scripts ran: {beacons:?}");
}

/// The pages' script bans, as sent: none on results pages, none in cached copies.
async fn assert_csp(searchd: &Searchd, url: &str) {
    let csp = |path: String| async move {
        let response = reqwest::get(searchd.url(&path))
            .await
            .expect("searchd answers");
        let header = response.headers().get("content-security-policy").cloned();
        header
            .and_then(|v| v.to_str().ok().map(str::to_string))
            .unwrap_or_default()
    };
    let results = csp(format!("/search?q={HOSTILE_WORD}")).await;
    assert!(results.contains("default-src 'none'"), "{results}");
    let cache = csp(format!("/cache?url={}", gateway::urlencode(url))).await;
    assert!(cache.contains("script-src 'none'"), "{cache}");
}

/// The cached copy as searchd sends it: rewritten before any browser sees it, so its refresh,
/// scripts, handlers and `javascript:` link are gone whatever a browser would make of them.
/// (Its title's `<script>` stays: a title holds text.)
async fn assert_copy_rewritten(searchd: &Searchd, url: &str) {
    let path = format!("/cache?url={}", gateway::urlencode(url));
    let body = reqwest::get(searchd.url(&path))
        .await
        .expect("searchd answers")
        .text()
        .await
        .expect("body");
    assert!(body.contains(HOSTILE_HEADING), "the copy is there: {body}");
    for gone in [
        "http-equiv",
        "javascript:",
        "onload",
        "onerror",
        "onfocus",
        "autofocus",
    ] {
        assert!(!body.contains(gone), "{gone:?} left in the copy: {body}");
    }
}

/// The URLs in a stable order, to compare as sets.
fn sorted(mut urls: Vec<String>) -> Vec<String> {
    urls.sort();
    urls
}

/// The element for a CSS selector in the current document, waiting for it within [`WAIT`].
async fn find(client: &Client, css: &str) -> Element {
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css:?} within {WAIT:?}: {e}"))
}

/// Waits within [`WAIT`] until the top document and its frames have loaded (its load event
/// waits for theirs), so every handler a copy could fire has had its chance.
async fn wait_until_loaded(client: &Client) {
    let start = Instant::now();
    loop {
        let state = client
            .execute("return document.readyState", vec![])
            .await
            .expect("reading readyState");
        if state == "complete" {
            return;
        }
        assert!(
            start.elapsed() < WAIT,
            "the page did not load within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The absolute path of a program on `PATH`; fails the test, saying what to install, when
/// it is missing.
fn installed(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!("the browser test needs {program}, which is not on PATH: {INSTALL}")
        })
}

/// A chromedriver child process on a free loopback port, in a process group of its own:
/// dropping it kills the group (chromedriver and the browser it started), then its profile
/// directory goes.
struct Chromedriver {
    child: Child,
    port: u16,
    profile: tempfile::TempDir,
}

impl Chromedriver {
    /// Starts chromedriver and waits, within [`DRIVER_START`], until `/status` says ready.
    async fn start(program: &Path) -> Chromedriver {
        let port = free_port();
        let child = Command::new(program)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e} ({INSTALL})", program.display()));
        let mut driver = Chromedriver {
            child,
            port,
            profile: tempfile::tempdir().expect("a profile directory"),
        };
        driver.wait_until_ready().await;
        driver
    }

    /// `http://127.0.0.1:{port}`.
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Polls `/status` until it reports ready; fails if the driver exits or never answers.
    async fn wait_until_ready(&mut self) {
        let status = format!("{}/status", self.url());
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(1))
            .build()
            .expect("an HTTP client");
        let start = Instant::now();
        while start.elapsed() < DRIVER_START {
            if let Ok(Some(exit)) = self.child.try_wait() {
                panic!("chromedriver exited at start ({exit}); is it installed? {INSTALL}");
            }
            if ready(&http, &status).await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("chromedriver did not answer {status} within {DRIVER_START:?}");
    }

    /// A new headless browser session, within [`WAIT`].
    async fn session(&self, chromium: &Path) -> Client {
        let capabilities = capabilities(chromium, self.profile.path());
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(capabilities);
        let url = self.url();
        tokio::time::timeout(WAIT, builder.connect(&url))
            .await
            .unwrap_or_else(|_| panic!("no browser session within {WAIT:?}"))
            .unwrap_or_else(|e| {
                panic!(
                    "chromedriver could not start {}: {e} ({INSTALL})",
                    chromium.display()
                )
            })
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // The negative id names the group the child leads.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        // In case `kill` could not run: chromedriver alone.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether chromedriver's `/status` answers `"ready": true`.
async fn ready(http: &reqwest::Client, status_url: &str) -> bool {
    let Ok(response) = http.get(status_url).send().await else {
        return false;
    };
    let Ok(body) = response.text().await else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&body)
        .is_ok_and(|status| status["value"]["ready"] == true)
}

/// A loopback port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Headless chromium with a fresh profile, nothing in the background, and every host name
/// failing to resolve but `hostile.test` (the test web, on 127.0.0.1).
fn capabilities(chromium: &Path, profile: &Path) -> serde_json::Map<String, serde_json::Value> {
    let args = [
        "--headless".to_string(),
        "--no-sandbox".to_string(),
        "--disable-gpu".to_string(),
        "--disable-quic".to_string(),
        "--no-first-run".to_string(),
        "--disable-background-networking".to_string(),
        "--disable-component-update".to_string(),
        "--disable-sync".to_string(),
        "--no-proxy-server".to_string(),
        format!("--user-data-dir={}", profile.display()),
        format!("--host-resolver-rules=MAP {HOST} 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
    ];
    serde_json::from_value(json!({
        "browserName": "chrome",
        "pageLoadStrategy": "normal",
        "timeouts": { "pageLoad": WAIT.as_millis() as u64, "script": WAIT.as_millis() as u64 },
        "goog:chromeOptions": { "binary": chromium, "args": args },
    }))
    .expect("capabilities are a JSON object")
}
