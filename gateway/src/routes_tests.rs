//! The server over a real socket, started in-process on port 0 with [`crate::run`]: statuses,
//! escaping, the JSON shape and the error answers.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use shared::config::{RankingConfig, RawSearchdConfig, SearchdConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::handlers::AppState;
use crate::search::Searcher;
use crate::testutil::{data_with, shore};

pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: String,
}

pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

pub(crate) async fn start(data: &Path) -> Server {
    start_with(data, RawSearchdConfig::default().validate().unwrap()).await
}

async fn start_with(data: &Path, config: SearchdConfig) -> Server {
    let searcher = Searcher::open(data, RankingConfig::default()).expect("searcher");
    serve(searcher, &config).await
}

/// Serves `searcher` with `config` on a free loopback port, until the [`Server`] is dropped.
pub(crate) async fn serve(searcher: Searcher, config: &SearchdConfig) -> Server {
    let state = Arc::new(AppState::new(searcher, config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let limits = crate::limits(config);
    tokio::spawn(crate::run(listener, state, limits, async {
        let _ = stopped.await;
    }));
    Server { addr, _stop: stop }
}

/// One HTTP/1.1 request on its own connection.
async fn request(addr: SocketAddr, head: &str, body: &str) -> Answer {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let request = format!(
        "{head}\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a full answer");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let body = if headers.get("transfer-encoding").map(String::as_str) == Some("chunked") {
        dechunk(body)
    } else {
        body.to_string()
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

pub(crate) async fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, &format!("GET {path} HTTP/1.1"), "").await
}

pub(crate) fn json(answer: &Answer) -> serde_json::Value {
    assert!(
        answer.headers["content-type"].contains("application/json"),
        "{:?}",
        answer.headers
    );
    serde_json::from_str(&answer.body).expect("JSON body")
}

/// The keys of a JSON object, sorted (none for another value).
pub(crate) fn sorted_keys(value: &serde_json::Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .map(|object| object.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    keys
}

#[tokio::test]
async fn json_api_has_the_contract_shape() {
    let data = data_with(&shore());
    let server = start(data.path()).await;
    let answer = get(server.addr, "/api/search?q=heron&page=1&per_page=2").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let value = json(&answer);
    let keys = sorted_keys(&value);
    // DESIGN.md's keys, plus `partial` (issue 5: no page had every word), `suggestion`
    // ("did you mean") and `facets` (issue 39: the matches by language).
    assert_eq!(
        keys,
        [
            "facets",
            "hits",
            "page",
            "partial",
            "query",
            "suggestion",
            "took_ms",
            "total"
        ]
    );
    assert_eq!(value["partial"], false);
    assert!(value["suggestion"].is_null());
    assert_eq!(value["query"], "heron");
    assert_eq!(value["total"], 3);
    assert_eq!(
        value["facets"]["lang"],
        serde_json::json!([{"value": "en", "count": 3}])
    );
    // Issue 44's facets, counted over the 3 matches though 2 are shown: the shore's pages
    // are HTML on two hosts, none dated.
    assert_eq!(
        sorted_keys(&value["facets"]),
        ["kind", "lang", "site", "year"]
    );
    assert_eq!(
        value["facets"]["kind"],
        serde_json::json!([{"value": "html", "count": 3}])
    );
    assert_eq!(
        value["facets"]["site"],
        serde_json::json!([
            // Ties by value.
            {"value": "birds.test", "count": 1},
            {"value": "tides.test", "count": 1},
            {"value": "www.tides.test", "count": 1},
        ])
    );
    assert_eq!(value["facets"]["year"], serde_json::json!([]));
    assert_eq!(value["page"], 1);
    assert!(value["took_ms"].is_number());
    let hits = value["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 2);
    for hit in hits {
        let keys = sorted_keys(hit);
        // DESIGN.md's keys, plus `all_words` (issue 23: pages with most of the words follow)
        // `kind` (issue 24: what the result was made from), `lang` (issue 39), `published`
        // and `modified` (issue 44: null here, the test pages have no dates).
        assert_eq!(
            keys,
            [
                "all_words",
                "kind",
                "lang",
                "modified",
                "published",
                "score",
                "snippet",
                "title",
                "url"
            ]
        );
        assert_eq!(
            (&hit["published"], &hit["modified"]),
            (&serde_json::json!(null), &serde_json::json!(null))
        );
        assert_eq!(hit["kind"], "html");
        assert_eq!(hit["lang"], "en", "{hit}");
    }
    assert!(hits[0]["score"].as_f64() >= hits[1]["score"].as_f64());
    assert!(
        !hits[0]["snippet"]
            .as_str()
            .unwrap_or_default()
            .contains('<'),
        "JSON snippets are plain text"
    );

    let explained = json(&get(server.addr, "/api/search?q=heron&explain=1").await);
    assert!(explained["hits"][0]["explain"]["link_boost"].is_number());

    let empty = get(server.addr, "/api/search?q=").await;
    assert_eq!(empty.status, 200);
    assert_eq!(json(&empty)["total"], 0);

    let missing = get(server.addr, "/api/nothing").await;
    assert_eq!(missing.status, 404);
    assert!(json(&missing)["error"].is_string());
}

#[tokio::test]
async fn html_pages_escape_everything_from_the_web() {
    let data = data_with(&shore());
    let server = start(data.path()).await;

    let home = get(server.addr, "/").await;
    assert_eq!(home.status, 200);
    assert!(home.body.contains("<form") && home.body.contains("name=\"q\""));
    assert!(home.body.contains("application/opensearchdescription+xml"));
    assert!(home.headers["content-security-policy"].contains("default-src 'none'"));

    let page = get(server.addr, "/search?q=private+log").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains("Private log &lt;script&gt;alert(1)&lt;/script&gt;")
    );
    assert!(!page.body.contains("<script>"), "{}", page.body);

    let page = get(
        server.addr,
        "/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E+heron",
    )
    .await;
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("<script>alert"), "{}", page.body);

    let page = get(server.addr, "/search?q=tide").await;
    assert!(page.body.contains("<mark>"), "{}", page.body);
    assert!(page.body.contains("results in"));

    let posted = request(
        server.addr,
        "POST /search HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded",
        "q=oystercatcher",
    )
    .await;
    assert_eq!(posted.status, 200);
    assert!(posted.body.contains("http://birds.test/oystercatcher"));

    let empty = get(server.addr, "/search?q=").await;
    assert_eq!(empty.status, 200);
    assert!(empty.body.contains("Type something"));

    for malformed in [
        "%22unclosed",
        "AND%20OR",
        "((",
        "title%3A",
        "-",
        "%00",
        "%FF%FE",
        // Issue 20: these answered 500.
        "title%3A*",
        "inurl%3A*",
        "heron%20title%3A*%20tide",
        "%3C~intitle%3A",
        "heron%20%3C~intitle%3A*",
    ] {
        for route in ["/search", "/api/search"] {
            let answer = get(server.addr, &format!("{route}?q={malformed}")).await;
            assert_eq!(answer.status, 200, "{route}?q={malformed}: {}", answer.body);
        }
    }
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let data = data_with(&shore());
    let server = start(data.path()).await;
    for path in [
        "/",
        "/search?q=heron",
        "/search?q=",
        "/api/search?q=heron",
        "/api/search?q=heron&page=99999999999999999999",
        "/cache?url=",
        "/cache?url=http://birds.test/heron",
        "/explain?url=http://birds.test/heron",
        "/status",
        "/status?format=json",
        "/opensearch.xml",
        "/no/such/page",
        "/api/no-such-route",
    ] {
        let answer = get(server.addr, path).await;
        let header = |name: &str| answer.headers.get(name).map(String::as_str);
        let csp = header("content-security-policy").unwrap_or_default();
        assert!(
            csp.contains("script-src 'none'") || csp.contains("default-src 'none'"),
            "{path}: CSP {csp:?}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp:?}");
        assert_eq!(header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(header("referrer-policy"), Some("no-referrer"), "{path}");
        assert_eq!(header("x-frame-options"), Some("DENY"), "{path}");
    }
}

#[tokio::test]
async fn hostile_titles_are_shown_as_inert_text() {
    const HUGE: &str = concat!(
        "Heron ",
        "very long title words repeated over and over again to fill the page ",
        "very long title words repeated over and over again to fill the page ",
        "very long title words repeated over and over again to fill the page ",
        "very long title words repeated over and over again to fill the page ",
        "END-OF-HUGE-TITLE"
    );
    let docs = [
        crate::testutil::Doc::new(
            "http://evil.test/spoof",
            "Heron facts \u{202e}gpj.exe\u{2066}",
            "heron facts for the trusting reader",
        ),
        crate::testutil::Doc::new(
            "http://evil.test/inject",
            "Heron \"><img src=x onerror=alert(1)> <script>alert(2)</script>",
            "heron injection attempt",
        ),
        crate::testutil::Doc::new("http://evil.test/huge", HUGE, "heron huge title"),
    ];
    let data = data_with(&docs);
    let server = start(data.path()).await;
    let page = get(server.addr, "/search?q=heron").await;
    assert_eq!(page.status, 200);
    let body = &page.body;
    assert!(body.contains("<bdi>Heron facts gpj.exe</bdi>"), "{body}");
    for control in ['\u{202e}', '\u{2066}'] {
        assert!(!body.contains(control), "{control:?} shown");
    }
    assert!(
        !body.contains("<img") && !body.contains("<script>"),
        "{body}"
    );
    assert!(
        body.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{body}"
    );
    assert!(!body.contains("END-OF-HUGE-TITLE"), "a huge title is cut");
    assert!(
        body.contains("to fill…</bdi></a>"),
        "cut at 200 characters: {body}"
    );
    assert_eq!(
        body.matches("href=\"http://evil.test/").count(),
        3,
        "each link keeps its whole URL"
    );
}

#[tokio::test]
async fn errors_are_friendly_pages_with_the_right_status() {
    let empty = tempfile::tempdir().expect("tempdir");
    let server = start(empty.path()).await;

    let answer = get(server.addr, "/search?q=heron").await;
    assert_eq!(answer.status, 503);
    assert!(answer.body.contains("No index yet"), "{}", answer.body);
    let answer = get(server.addr, "/api/search?q=heron").await;
    assert_eq!(answer.status, 503);
    assert!(
        json(&answer)["error"]
            .as_str()
            .unwrap_or_default()
            .contains("no index")
    );

    let answer = get(server.addr, "/nowhere").await;
    assert_eq!(answer.status, 404);
    assert!(answer.headers["content-type"].contains("text/html"));
    let answer = get(server.addr, "/cache?url=http://a.test/").await;
    assert_eq!(answer.status, 404, "{}", answer.body);
    let answer = get(server.addr, "/cache?url=not%20a%20url").await;
    assert_eq!(answer.status, 400);
    let answer = get(server.addr, "/cache").await;
    assert_eq!(answer.status, 400);
    let answer = request(server.addr, "DELETE /search HTTP/1.1", "").await;
    assert_eq!(answer.status, 405);

    let status = json(&get(server.addr, "/status?format=json").await);
    assert_eq!(status["generation"], serde_json::Value::Null);
    assert_eq!(status["docs"], 0);
    let status = get(server.addr, "/status").await;
    assert_eq!(status.status, 200);
    assert!(status.body.contains("none yet"));
}

/// A form too large for `POST /search` is answered 413 (not the 405 of the GET-only routes
/// beside it), its body read to the end: the connection then answers the next request. When
/// warp refused it unread, hyper closed the connection, and a client still writing (or
/// reusing it) got a reset instead of any answer (the query fuzz test's "error sending
/// request", once in a few thousand runs).
#[tokio::test]
async fn a_form_too_large_is_a_413_on_a_connection_that_stays_open() {
    let empty = tempfile::tempdir().expect("tempdir");
    let server = start(empty.path()).await;
    let addr = server.addr;
    let form = format!("q={}", "heron+".repeat(10_000));
    let too_large = format!(
        "POST /search HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\n\r\n{form}",
        form.len()
    );
    let wrong_type = "POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n\
         Content-Length: 6\r\n\r\nq=hero";
    let last = "GET /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(format!("{too_large}{wrong_type}{last}").as_bytes())
        .await
        .expect("send");
    let mut raw = Vec::new();
    // (A reset ends the read; what came before it is what is checked.)
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw);
    let statuses: Vec<&str> = text
        .match_indices("HTTP/1.1 ")
        .map(|(at, _)| &text[at + 9..at + 12])
        .collect();
    assert_eq!(statuses, ["413", "415", "200"], "{text:.2000}");
    assert!(text.contains("too large"), "{text:.2000}");
}

/// A body past the drain bound is answered 413 at once, saying the connection closes.
#[tokio::test]
async fn a_body_past_the_drain_bound_is_answered_with_connection_close() {
    let empty = tempfile::tempdir().expect("tempdir");
    let server = start(empty.path()).await;
    let mut stream = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let length = crate::form::DRAIN_BYTES + 2;
    let head = format!(
        "POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {length}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("send");
    // The whole body but its last byte, past the bound by one: the server has read past it and
    // answers without waiting for the rest, so the answer arrives before any reset can.
    let body = vec![b'a'; length - 1];
    stream.write_all(&body).await.expect("send body");
    let mut raw = vec![0u8; 4096];
    let n = stream.read(&mut raw).await.expect("answer");
    let text = String::from_utf8_lossy(&raw[..n]).to_ascii_lowercase();
    assert!(text.starts_with("http/1.1 413"), "{text}");
    assert!(text.contains("connection: close"), "{text}");
}

#[tokio::test]
async fn a_date_operator_that_names_no_date_is_a_400_saying_so() {
    let data = data_with(&shore());
    let server = start(data.path()).await;
    let answer = get(server.addr, "/api/search?q=heron%20after%3A2024-02-30").await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert_eq!(
        json(&answer)["error"],
        "after:2024-02-30 is not a date: write after:2024, after:2024-03 or after:2024-03-15"
    );
    // The page says it too, the value escaped.
    let answer = get(server.addr, "/search?q=before%3A%3Cb%3Ex").await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(
        answer.body.contains("before:&lt;b&gt;x is not a date"),
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("<b>x"), "{}", answer.body);
}

#[tokio::test]
async fn status_explain_and_opensearch() {
    let data = data_with(&shore());
    let image = crate::images::testutil::Img::new("http://birds.test/heron.png", 7);
    crate::images::testutil::write_images(data.path(), 1, &[image]);
    let server = start(data.path()).await;

    let answer = request(
        server.addr,
        "GET /status HTTP/1.1\r\nAccept: application/json",
        "",
    )
    .await;
    let status = json(&answer);
    assert_eq!(status["generation"], "gen-000001");
    assert_eq!(status["docs"], 5);
    // Every file of the generation, its image index's included.
    let generation = data.path().join("index/gen-000001");
    let files = |dir: &std::path::Path| -> Vec<std::fs::Metadata> {
        std::fs::read_dir(dir)
            .expect("a directory")
            .map(|entry| entry.expect("entry").metadata().expect("metadata"))
            .collect()
    };
    let top = files(&generation);
    let images = files(&generation.join("images"));
    assert!(!images.is_empty(), "the image index is there");
    let on_disk: u64 = top
        .iter()
        .chain(&images)
        .filter(|meta| meta.is_file())
        .map(|meta| meta.len())
        .sum();
    assert_eq!(status["index_bytes"], on_disk);
    assert!(on_disk > 0);
    let committed = status["last_commit"].as_str().unwrap_or_default();
    assert!(
        committed.len() == 20 && committed.ends_with('Z'),
        "an RFC 3339 time: {status}"
    );
    assert_eq!(
        status["pages_stored"],
        serde_json::Value::Null,
        "no store here"
    );

    let explain = json(
        &get(
            server.addr,
            "/explain?url=http://birds.test/heron&format=json",
        )
        .await,
    );
    assert_eq!(explain["indexed"], true);
    assert_eq!(explain["inlinks"], 5);
    let explain = get(server.addr, "/explain?url=http://birds.test/nope").await;
    assert_eq!(explain.status, 200);
    assert!(explain.body.contains("not stored"), "{}", explain.body);

    let answer = get(server.addr, "/opensearch.xml").await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.headers["content-type"],
        "application/opensearchdescription+xml"
    );
    assert!(
        answer
            .body
            .contains(&format!("http://{}/search?q={{searchTerms}}", server.addr))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_server_picks_up_the_first_and_next_generations() {
    let data = tempfile::tempdir().expect("tempdir");
    let server = start(data.path()).await;
    assert_eq!(get(server.addr, "/api/search?q=knot").await.status, 503);

    crate::testutil::write_generation(
        data.path(),
        1,
        &[crate::testutil::Doc::new(
            "http://a.test/knot",
            "Red knot",
            "red knot",
        )],
    );
    let total = |answer: Answer| json(&answer)["total"].as_u64();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let answer = get(server.addr, "/api/search?q=knot").await;
        if answer.status == 200 {
            assert_eq!(total(answer), Some(1));
            break;
        }
        assert!(std::time::Instant::now() < deadline, "index never loaded");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    crate::testutil::write_generation(
        data.path(),
        2,
        &[
            crate::testutil::Doc::new("http://a.test/knot", "Red knot", "red knot"),
            crate::testutil::Doc::new("http://a.test/knot2", "Knots", "knot flocks"),
        ],
    );
    loop {
        if total(get(server.addr, "/api/search?q=knot").await) == Some(2) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "new generation never loaded"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Settings with short limits, for the tests of slow and many clients.
fn tight(max_connections: usize, header_timeout_ms: u64) -> SearchdConfig {
    RawSearchdConfig {
        max_connections,
        header_timeout_ms,
        request_timeout_ms: 300,
        max_searches: 1,
        ..RawSearchdConfig::default()
    }
    .validate()
    .unwrap()
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off() {
    let data = data_with(&shore());
    let server = start_with(data.path(), tight(16, 200)).await;
    let mut slow = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: 1")
        .await
        .expect("send");
    let mut rest = Vec::new();
    // The bound only keeps a broken server from hanging the test.
    let closed = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        slow.read_to_end(&mut rest),
    )
    .await;
    assert!(closed.is_ok(), "the server keeps a half-sent request open");
    assert!(
        !String::from_utf8_lossy(&rest).contains("200 OK"),
        "no answer to half a request"
    );
    assert_eq!(get(server.addr, "/").await.status, 200, "others are served");
}

#[tokio::test]
async fn connections_past_the_limit_wait_for_a_free_one() {
    let data = data_with(&shore());
    let server = start_with(data.path(), tight(1, 60_000)).await;
    let idle = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let waiting = tokio::spawn(async move { get(server.addr, "/").await.status });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "a second connection is served");
    drop(idle);
    let status = tokio::time::timeout(std::time::Duration::from_secs(20), waiting)
        .await
        .expect("served once the first connection closes")
        .expect("task");
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_request_that_waits_too_long_for_a_search_slot_is_told_to_retry() {
    let data = data_with(&shore());
    let config = tight(16, 10_000);
    let searcher = Searcher::open(data.path(), RankingConfig::default()).expect("searcher");
    let state = Arc::new(AppState::new(searcher, &config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let limits = crate::limits(&config);
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(crate::run(listener, Arc::clone(&state), limits, async {
        let _ = stopped.await;
    }));
    // Another client's search holds the only slot.
    let held = Arc::clone(&state.searches)
        .acquire_owned()
        .await
        .expect("slot");
    let page = get(addr, "/search?q=heron").await;
    assert_eq!(page.status, 503, "{}", page.body);
    assert_eq!(
        page.headers.get("retry-after").map(String::as_str),
        Some("1")
    );
    assert!(page.body.contains("busy"), "{}", page.body);
    assert_eq!(page.headers["x-frame-options"], "DENY");
    let api = get(addr, "/api/search?q=heron").await;
    assert_eq!(api.status, 503);
    assert!(
        json(&api)["error"]
            .as_str()
            .unwrap_or_default()
            .contains("busy")
    );
    drop(held);
    assert_eq!(get(addr, "/search?q=heron").await.status, 200);
}
