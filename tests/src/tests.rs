//! The test web over a real socket: host routing, the request log, streaming, shutdown.
//! Requests are raw HTTP/1.1 over a tokio `TcpStream`, so nothing here depends on a client
//! library.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

/// A parsed answer: status, lowercased header lines, body bytes (as sent on the wire).
struct Answer {
    status: u16,
    headers: String,
    body: Vec<u8>,
}

impl Answer {
    fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one request with `Connection: close` and reads the whole answer.
async fn send(web: &TestWeb, host: &str, target: &str, extra_headers: &str) -> Answer {
    let mut stream = TcpStream::connect(web.addr())
        .await
        .expect("connect to the test web");
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {host}:{}\r\n{extra_headers}Connection: close\r\n\r\n",
        web.port()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("write request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read answer");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    Answer {
        status,
        headers: head,
        body: raw[split + 4..].to_vec(),
    }
}

async fn get(web: &TestWeb, host: &str, target: &str) -> Answer {
    send(web, host, target, "").await
}

#[tokio::test]
async fn routes_by_host_header() {
    let web = TestWeb::start().await;

    let home = get(&web, "sample.test", "/").await;
    assert_eq!(home.status, 200);
    assert!(
        home.headers
            .contains("content-type: text/html; charset=utf-8")
    );
    assert!(home.body_text().contains("Shoreline Field Notes"));
    let robots = get(&web, "sample.test", "/robots.txt").await;
    assert!(
        robots
            .body_text()
            .contains("User-agent: siftbot\nDisallow: /private/\nDisallow: /drafts/")
    );
    assert_eq!(get(&web, "sample.test", "/birds/").await.status, 200);
    let no_slash = get(&web, "sample.test", "/birds").await;
    assert_eq!(no_slash.status, 301);
    assert!(no_slash.headers.contains("location: /birds/"));
    assert_eq!(get(&web, "sample.test", "/nope.html").await.status, 404);
    assert_eq!(get(&web, "sample.test", "/../Cargo.toml").await.status, 404);

    assert_eq!(get(&web, "norobots.test", "/robots.txt").await.status, 404);
    assert_eq!(get(&web, "forbidden.test", "/robots.txt").await.status, 403);
    assert_eq!(get(&web, "flaky.test", "/robots.txt").await.status, 503);
    assert_eq!(
        get(&web, "forbidden.test", "/members.html").await.status,
        200
    );
    assert_eq!(get(&web, "big.test", "/page/299.html").await.status, 200);
    assert!(
        get(&web, "ranked.test", "/doc/3.html")
            .await
            .body_text()
            .contains(RANKED_WORD)
    );
    assert_eq!(get(&web, "traps.test", "/error").await.status, 500);
    assert_eq!(get(&web, "unknown.test", "/").await.status, 404);

    let offsite = get(&web, "redirect.test", "/offsite").await;
    assert_eq!(offsite.status, 302);
    assert!(
        offsite
            .headers
            .contains(&format!("location: http://norobots.test:{}/", web.port()))
    );
    let private = get(&web, "redirect.test", "/to-private").await;
    assert!(private.headers.contains("location: http://10.0.0.1/"));
}

#[tokio::test]
async fn logs_every_request_with_its_headers() {
    let web = TestWeb::start().await;
    let headers = "User-Agent: siftbot/0.1 (+http://example.org/bot)\r\nFrom: bot@example.org\r\n\
                   Referer: http://sample.test/\r\nAccept: text/html\r\n";
    send(&web, "Sample.Test", "/about.html?x=1", headers).await;
    get(&web, "traps.test", "/nothing-here").await;
    get(&web, "sample.test", "/about.html?x=1").await;

    let log = web.requests();
    assert_eq!(log.len(), 3);
    assert_eq!(
        log[0],
        Request {
            host: "sample.test".into(),
            path_and_query: "/about.html?x=1".into(),
            user_agent: Some("siftbot/0.1 (+http://example.org/bot)".into()),
            from: Some("bot@example.org".into()),
            referer: Some("http://sample.test/".into()),
            accept: Some("text/html".into()),
            accept_encoding: None,
            if_none_match: None,
            if_modified_since: None,
            at: log[0].at,
            answered_at: log[0].answered_at,
        }
    );
    assert_eq!(log[1].host, "traps.test");
    assert_eq!(log[2].user_agent, None);
    assert_eq!(web.request_count("sample.test", "/about.html?x=1"), 2);
    assert_eq!(web.request_count("sample.test", "/about.html"), 0);
    assert_eq!(web.requests_dropped(), 0);
}

#[tokio::test]
async fn encodings_are_sent_as_declared() {
    let web = TestWeb::start().await;
    let latin1 = get(&web, "traps.test", "/latin1").await;
    assert!(
        latin1
            .headers
            .contains("content-type: text/html; charset=iso-8859-1")
    );
    assert!(latin1.body.windows(4).any(|w| w == b"caf\xe9"));
    let gzipped = get(&web, "traps.test", "/gzip").await;
    assert!(gzipped.headers.contains("content-encoding: gzip"));
    assert_eq!(&gzipped.body[..2], &[0x1f, 0x8b], "a gzip member");
}

#[tokio::test]
async fn huge_streams_without_end_and_the_server_survives_a_hang_up() {
    let web = TestWeb::start().await;
    let mut stream = TcpStream::connect(web.addr()).await.expect("connect");
    let request = format!(
        "GET /huge HTTP/1.1\r\nHost: traps.test:{}\r\n\r\n",
        web.port()
    );
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0;
    while total < 4 * 1024 * 1024 {
        let n = stream.read(&mut buffer).await.expect("read");
        assert!(n > 0, "the body never ends");
        total += n;
    }
    drop(stream);
    assert_eq!(
        get(&web, "sample.test", "/").await.status,
        200,
        "still serving"
    );
}

#[tokio::test]
async fn dropping_the_test_web_stops_it() {
    let web = TestWeb::start().await;
    let addr = web.addr();
    assert_eq!(get(&web, "big.test", "/").await.status, 200);
    drop(web);
    let mut refused = false;
    for _ in 0..100 {
        if TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused, "the listener closes after drop");
}

#[test]
fn the_example_config_lists_the_defaults() {
    let path = sample_site_dir()
        .parent()
        .expect("data/")
        .join("example.toml");
    let example = shared::config::RawConfig::load(Some(&path)).expect("data/example.toml parses");
    assert_eq!(
        format!("{example:?}"),
        format!("{:?}", shared::config::RawConfig::default())
    );
    shared::Config::load(Some(&path)).expect("data/example.toml is valid");
    let text = std::fs::read_to_string(&path).expect("readable");
    for field in [
        "agent",
        "info_url",
        "delay_ms",
        "max_body_bytes",
        "allow_loopback",
        "link_weight",
        "max_query_len",
    ] {
        assert!(
            text.contains(&format!("\n{field} = ")),
            "example.toml shows {field}"
        );
    }
}
