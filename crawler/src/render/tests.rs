//! The renderer against Debian's real Chromium and a small HTTP server on loopback: what
//! the server is asked for is what the crawler fetched for the page.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use shared::config::{RawCrawlerConfig, RenderMode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::kind::Kinds;
use crate::politeness::Spacing;

/// Paths asked for, in order.
type Log = Arc<Mutex<Vec<String>>>;

/// Serves `files` (path -> (content type, body)) on a loopback port; everything else is a
/// 404. Each answer closes its connection.
async fn serve(files: HashMap<&'static str, (&'static str, String)>) -> (u16, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let log: Log = Arc::default();
    let files = Arc::new(files);
    let seen = Arc::clone(&log);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let files = Arc::clone(&files);
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16_384 {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                seen.lock().unwrap().push(target.clone());
                let path = target.split('?').next().unwrap_or("/");
                let (status, kind, body) = match files.get(path) {
                    Some((kind, body)) => ("200 OK", *kind, body.clone()),
                    None => ("404 Not Found", "text/plain", "no".to_string()),
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    (port, log)
}

fn config(edit: impl FnOnce(&mut RawCrawlerConfig)) -> CrawlerConfig {
    let mut raw = RawCrawlerConfig {
        allow_loopback: true,
        delay_ms: 0,
        render: "always".into(),
        render_timeout_ms: 20_000,
        ..RawCrawlerConfig::default()
    };
    raw.resolve
        .insert("a.test".into(), "127.0.0.1".parse().unwrap());
    edit(&mut raw);
    raw.validate().unwrap()
}

struct Setup {
    renderer: Renderer,
    fetcher: Fetcher,
}

/// One of the [`BROWSERS`] a test may run.
async fn browser_turn() -> tokio::sync::SemaphorePermit<'static> {
    BROWSERS.acquire().await.expect("never closed")
}

/// Browsers these tests run at once: each is a few processes, and the tests run beside
/// the rest of the suite on two cores.
static BROWSERS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

fn setup(config: &CrawlerConfig) -> Setup {
    let renderer = Renderer::new(config).unwrap().expect("render is on");
    let kinds = Kinds::new(config, None);
    let fetcher = Fetcher::new(config, kinds).unwrap();
    Setup { renderer, fetcher }
}

async fn render(setup: &Setup, port: u16, path: &str, body: &str) -> Rendered {
    let url = CanonicalUrl::parse(&format!("http://a.test:{port}{path}")).unwrap();
    let own = OriginRules {
        robots: Arc::new(crate::robots_fetch::policy_of_body(
            b"User-agent: *\nDisallow: /private/\n",
            "siftbot",
        )),
        spacing: Spacing {
            origin_gap: Duration::ZERO,
            address: None,
        },
    };
    let headers = [("content-type".to_string(), "text/html".to_string())];
    let request = RenderRequest {
        url: &url,
        headers: &headers,
        body: body.as_bytes(),
        own,
    };
    setup.renderer.render(&setup.fetcher, request).await
}

const BUILDING_PAGE: &str = r#"<!doctype html><html><head><title>t</title>
<link rel="stylesheet" href="/site.css"></head><body><p>static words</p>
<img src="/pic.png">
<script src="/app.js"></script>
<script src="/private/secret.js"></script>
<script>
const a = document.createElement('a'); a.href = '/built'; a.textContent = 'built';
document.body.appendChild(a);
const p = document.createElement('p'); p.textContent = 'zephyrine'; document.body.appendChild(p);
fetch('/data.json').then(r => r.json()).then(j => {
  const q = document.createElement('p'); q.textContent = j.word; document.body.appendChild(q);
});
fetch('/private/data.json').catch(() => {});
</script></body></html>"#;

fn building_site() -> HashMap<&'static str, (&'static str, String)> {
    HashMap::from([
        (
            "/app.js",
            (
                "application/javascript",
                "document.body.insertAdjacentHTML('beforeend', '<p>larkspurian</p>');".into(),
            ),
        ),
        ("/site.css", ("text/css", "p { color: black }".into())),
        (
            "/data.json",
            ("application/json", r#"{"word": "tamarindel"}"#.into()),
        ),
        (
            "/private/secret.js",
            (
                "application/javascript",
                "document.body.insertAdjacentHTML('beforeend', '<p>forbidden</p>');".into(),
            ),
        ),
        ("/pic.png", ("image/png", "not really".into())),
        ("/", ("text/html", BUILDING_PAGE.into())),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_build_links_and_text_from_requests_the_crawler_answers() {
    let (port, log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    let setup = setup(&config(|_| {}));
    let rendered = render(&setup, port, "/", BUILDING_PAGE).await;
    let document = rendered.document.expect("rendered");
    for built in ["zephyrine", "larkspurian", "tamarindel", "href=\"/built\""] {
        assert!(document.contains(built), "{built} missing from {document}");
    }
    assert!(!document.contains("forbidden"), "a disallowed script ran");
    let mut asked = log.lock().unwrap().clone();
    asked.sort();
    assert_eq!(
        asked,
        ["/app.js", "/data.json", "/site.css"],
        "the page itself comes from the crawl's fetch; robots.txt, images kept out"
    );
    assert_eq!(rendered.requests, 3);
    assert_eq!(
        rendered.refused, 3,
        "the disallowed script and data, the favicon (images are not even asked for)"
    );
    assert_eq!(rendered.sent.len(), 3);
}

/// A page whose script holds its load back past the settle time, then fetches 50 ms after it
/// has loaded.
const LATE_LOADING_PAGE: &str = r#"<!doctype html><html><head><title>t</title></head>
<body><p>static words</p>
<script>
const until = Date.now() + 800; while (Date.now() < until) {}
window.addEventListener('load', () => setTimeout(() => {
  fetch('/data.json').then(r => r.json()).then(j => {
    const q = document.createElement('p'); q.textContent = j.word; document.body.appendChild(q);
  });
}, 50));
</script></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_that_fetch_once_loaded_have_the_settle_time_however_late_the_load() {
    let (port, log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    // The page's last answer (its document) comes 800 ms before its load event: were quiet
    // counted from it, the page would be read as it loads, before its fetch.
    let setup = setup(&config(|c| c.render_settle_ms = 200));
    let rendered = render(&setup, port, "/late", LATE_LOADING_PAGE).await;
    let document = rendered.document.expect("rendered");
    assert!(document.contains("tamarindel"), "{document}");
    assert_eq!(log.lock().unwrap().clone(), ["/data.json"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_whose_script_navigates_away_is_read_as_it_was() {
    let (port, log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    // Once loaded, the script sends the page elsewhere; the navigation is refused, and the
    // document read is the page's own (a refusal that committed an error page in its place
    // made the read fail, or read the error page).
    let leaving = "<html><body><p>quillwort</p><script>\
        addEventListener('load', () => { location.href = '/elsewhere'; });\
        </script></body></html>";
    let setup = setup(&config(|c| c.render_settle_ms = 300));
    for _ in 0..3 {
        let rendered = render(&setup, port, "/leaving", leaving).await;
        let document = rendered.document.expect("rendered");
        assert!(document.contains("quillwort"), "{document}");
    }
    assert!(log.lock().unwrap().is_empty(), "nothing reached the site");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_and_style_sheets_are_fetched_once_per_run() {
    let (port, log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    let setup = setup(&config(|_| {}));
    for _ in 0..2 {
        let rendered = render(&setup, port, "/", BUILDING_PAGE).await;
        assert!(rendered.document.is_ok());
    }
    let asked = log.lock().unwrap().clone();
    let count = |path: &str| asked.iter().filter(|p| *p == path).count();
    assert_eq!(count("/app.js"), 1, "{asked:?}");
    assert_eq!(count("/site.css"), 1);
    assert_eq!(count("/data.json"), 2, "data is asked for each time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_script_is_cut_off_at_the_deadline_and_the_next_page_renders() {
    let (port, _log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    let setup = setup(&config(|c| c.render_timeout_ms = 3_000));
    let endless = "<html><body><p>before</p><script>while (true) {}</script></body></html>";
    let started = Instant::now();
    let rendered = render(&setup, port, "/endless", endless).await;
    let reason = rendered.document.expect_err("cut off");
    assert!(reason.contains("deadline"), "{reason}");
    // The deadline, then closing the tab (3 s at most, else the browser is dropped), with
    // room for a loaded machine; the page's script alone would never end.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "cut off after {:?}",
        started.elapsed()
    );
    let next = render(&setup, port, "/", BUILDING_PAGE).await;
    assert!(next.document.expect("rendered").contains("zephyrine"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_asking_without_end_is_held_to_its_request_cap() {
    let (port, log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    let setup = setup(&config(|c| c.render_max_requests = 20));
    let looping = r#"<html><body><p>loop</p><script>
        for (let i = 0; i < 300; i++) { fetch('/data.json?i=' + i).catch(() => {}); }
        let n = 0; setInterval(() => fetch('/data.json?n=' + n++).catch(() => {}), 1);
        </script></body></html>"#;
    let rendered = render(&setup, port, "/loop", looping).await;
    assert!(rendered.document.is_ok(), "{:?}", rendered.document.err());
    let asked = log.lock().unwrap().len();
    assert_eq!(rendered.requests, 20);
    assert_eq!(asked, 20, "the server saw the cap, no more");
    assert!(rendered.refused > 0);

    // The tab, its polling page's scripts stopped, takes the next page.
    let next = render(&setup, port, "/", BUILDING_PAGE).await;
    assert!(next.document.expect("rendered").contains("zephyrine"));
    let running = setup.renderer.inner.running.lock().await;
    let tabs = running.as_ref().map(|r| r.tabs.lock().unwrap().len());
    assert_eq!(tabs, Some(1), "one tab, used for both pages");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_is_replaced_after_its_pages_and_none_is_left_when_the_renderer_goes() {
    let (port, _log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    let setup = setup(&config(|c| c.render_recycle_pages = 1));
    let profiles = setup.renderer.inner.profiles.clone();
    for _ in 0..2 {
        let rendered = render(&setup, port, "/", BUILDING_PAGE).await;
        assert!(rendered.document.is_ok());
    }
    assert_eq!(setup.renderer.inner.launches.load(Ordering::Relaxed), 2);
    drop(setup);
    let mut left = usize::MAX;
    for _ in 0..50 {
        left = browser_processes(&profiles);
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(left, 0, "browser processes of {} left", profiles.display());
}

/// Processes whose command line names a profile under `profiles`.
fn browser_processes(profiles: &std::path::Path) -> usize {
    profiles_in_use(profiles).len()
}

/// The profile each process naming one under `profiles` runs with, a process each.
fn profiles_in_use(profiles: &std::path::Path) -> Vec<String> {
    let needle = format!("--user-data-dir={}/", profiles.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            // Split at spaces too: Chromium's renderers have their arguments on one line.
            String::from_utf8_lossy(&cmdline)
                .split(['\0', ' '])
                .find(|arg| arg.starts_with(&needle))
                .map(str::to_string)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_browser_is_gone_before_its_successor_starts() {
    let (port, _log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    // Two pages at once, a browser each: every page retires the browser it ran in while
    // the other may still be rendering there.
    let setup = Arc::new(setup(&config(|c| {
        c.render_recycle_pages = 1;
        c.render_concurrency = 2;
    })));
    let profiles = setup.renderer.inner.profiles.clone();
    let rendering = Arc::new(AtomicBool::new(true));
    let sampler = tokio::spawn({
        let rendering = Arc::clone(&rendering);
        async move {
            let mut most = 0;
            while rendering.load(Ordering::Relaxed) {
                let mut live = profiles_in_use(&profiles);
                live.sort();
                live.dedup();
                most = most.max(live.len());
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            most
        }
    });
    let mut pages = tokio::task::JoinSet::new();
    for _ in 0..6 {
        let setup = Arc::clone(&setup);
        pages.spawn(async move { render(&setup, port, "/", BUILDING_PAGE).await });
    }
    while let Some(rendered) = pages.join_next().await {
        assert!(rendered.unwrap().document.is_ok());
    }
    rendering.store(false, Ordering::Relaxed);
    assert_eq!(sampler.await.unwrap(), 1, "browsers alive at once");
    let launches = setup.renderer.inner.launches.load(Ordering::Relaxed);
    assert!(
        (3..=6).contains(&launches),
        "{launches} browsers for 6 pages"
    );
}

#[test]
fn an_argument_is_found_whole_in_either_form_of_command_line() {
    let arg = b"--user-data-dir=/tmp/p/1";
    assert!(browser::holds_arg(
        b"chromium\0--user-data-dir=/tmp/p/1\0--x",
        arg
    ));
    assert!(browser::holds_arg(
        b"/usr/lib/chromium/chromium --type=renderer --user-data-dir=/tmp/p/1 --lang=en\0",
        arg
    ));
    assert!(browser::holds_arg(
        b"chromium --user-data-dir=/tmp/p/1",
        arg
    ));
    assert!(!browser::holds_arg(
        b"chromium\0--user-data-dir=/tmp/p/10\0",
        arg
    ));
    assert!(!browser::holds_arg(
        b"chromium --user-data-dir=/tmp/p/1x",
        arg
    ));
    assert!(!browser::holds_arg(b"anything", b""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browsers_memory_counts_its_renderers() {
    let (port, _log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    let setup = setup(&config(|c| c.render_settle_ms = 50));
    let rendered = render(&setup, port, "/", BUILDING_PAGE).await;
    assert!(rendered.document.is_ok());
    // The first browser's profile.
    let profile = setup.renderer.inner.profiles.join("0");
    let kinds: Vec<String> = browser::processes_of(&profile)
        .into_iter()
        .filter_map(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).ok())
        .map(|cmdline| {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let kind = cmdline
                .split(' ')
                .find_map(|arg| arg.strip_prefix("--type="));
            kind.unwrap_or("browser").to_string()
        })
        .collect();
    assert!(
        kinds.iter().any(|kind| kind == "renderer"),
        "the page's renderer is among {kinds:?}"
    );
}

#[test]
fn no_renderer_is_made_when_no_host_renders_and_a_missing_browser_is_named() {
    let never = config(|c| c.render = "never".into());
    assert!(Renderer::new(&never).unwrap().is_none());
    let missing = config(|c| c.render_browser = "no-such-browser-here".into());
    let error = Renderer::new(&missing).err().expect("refused");
    let said = error.to_string();
    assert!(
        said.contains("chromium") && said.contains("no-such-browser-here"),
        "{said}"
    );
    let mut one = config(|c| c.render = "never".into());
    one.hosts.insert(
        "a.test".into(),
        shared::config::HostOverride {
            render: Some(RenderMode::Auto),
            ..Default::default()
        },
    );
    assert!(one.renders());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_using_more_memory_than_its_bound_is_replaced() {
    let (port, _log) = serve(building_site()).await;
    let _turn = browser_turn().await;
    // The least bound allowed; a running Chromium uses more.
    let setup = setup(&config(|c| {
        c.render_max_browser_bytes = 64 << 20;
        c.render_settle_ms = 50;
    }));
    for _ in 0..MEASURE_EVERY {
        let rendered = render(&setup, port, "/", BUILDING_PAGE).await;
        assert!(rendered.document.is_ok());
    }
    let running = setup.renderer.inner.running.lock().await;
    let usable = running.as_ref().map(|r| r.usable());
    assert_eq!(
        usable,
        Some(false),
        "measured after its 16th page and retired"
    );
    drop(running);
    let rendered = render(&setup, port, "/", BUILDING_PAGE).await;
    assert!(rendered.document.is_ok());
    assert_eq!(setup.renderer.inner.launches.load(Ordering::Relaxed), 2);
}
