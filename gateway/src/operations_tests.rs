//! `/metrics`, `/healthz` and `/readyz` over a real socket: what searches count, labels that
//! never carry what a client typed, Prometheus's own checker on the answer, and readiness
//! through the first generation and the next (ready on the old one while the new loads).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::routes_tests::{get, start};
use crate::testutil::{Doc, data_with, shore, write_generation};

/// Runs Prometheus's `promtool check metrics` on `text`, failing with what it said.
pub(crate) fn promtool_check(text: &str) {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run promtool ({e}): install Debian's prometheus (`bash tests/setup`)")
        });
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write the metrics");
    let output = child.wait_with_output().expect("promtool ends");
    assert!(
        output.status.success(),
        "promtool check metrics failed:\n{}{}\n--- the metrics:\n{text}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The value of the sample `name` (with its labels as written) in `text`.
pub(crate) fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (key, value) = line.rsplit_once(' ')?;
            (key == name).then(|| value.parse().ok())?
        })
}

#[tokio::test]
async fn searches_are_counted_by_route_and_outcome_and_promtool_accepts_them() {
    let data = data_with(&shore());
    let server = start(data.path()).await;
    assert_eq!(get(server.addr, "/api/search?q=heron").await.status, 200);
    assert_eq!(get(server.addr, "/search?q=heron").await.status, 200);
    assert_eq!(get(server.addr, "/api/search?q=zqxjkv").await.status, 200);
    assert_eq!(get(server.addr, "/no/such/page-7731").await.status, 404);
    assert_eq!(get(server.addr, "/thumb/0123abcd").await.status, 404);

    let answer = get(server.addr, "/metrics").await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.headers["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let text = &answer.body;
    let value = |name: &str| sample(text, name).unwrap_or_else(|| panic!("{name}:\n{text}"));
    assert_eq!(value("searchd_queries_total"), 3.0);
    assert_eq!(value("searchd_queries_without_results_total"), 1.0);
    assert_eq!(value("searchd_query_duration_seconds_count"), 3.0);
    assert_eq!(
        value(r#"searchd_http_requests_total{route="/api/search",status="200"}"#),
        2.0
    );
    assert_eq!(
        value(r#"searchd_http_requests_total{route="/search",status="200"}"#),
        1.0
    );
    assert_eq!(
        value(r#"searchd_http_requests_total{route="other",status="404"}"#),
        1.0
    );
    assert_eq!(
        value(r#"searchd_http_requests_total{route="/thumb",status="404"}"#),
        1.0
    );
    assert_eq!(value(r#"searchd_index_generation{shard="index"}"#), 1.0);
    assert_eq!(value(r#"searchd_index_documents{shard="index"}"#), 5.0);
    assert!(value(r#"searchd_index_bytes{shard="index"}"#) > 1000.0);
    for typed in ["zqxjkv", "heron", "page-7731", "0123abcd"] {
        assert!(!text.contains(typed), "{typed} is in a label:\n{text}");
    }
    promtool_check(text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_once_a_generation_is_loaded_and_alive_before() {
    let data = tempfile::tempdir().expect("tempdir");
    let server = start(data.path()).await;
    let alive = get(server.addr, "/healthz").await;
    assert_eq!((alive.status, alive.body.as_str()), (200, "ok\n"));
    let ready = get(server.addr, "/readyz").await;
    assert_eq!(
        (ready.status, ready.body.as_str()),
        (503, "not ready: no index generation loaded yet\n")
    );

    write_generation(
        data.path(),
        1,
        &[Doc::new("http://a.test/knot", "Red knot", "red knot")],
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ready = get(server.addr, "/readyz").await;
        if ready.status == 200 {
            assert_eq!(ready.body, "ready: index gen-000001 loaded (1 documents)\n");
            break;
        }
        assert!(Instant::now() < deadline, "never ready: {}", ready.body);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // A new generation loads beside the old one: ready all along, then on the new one.
    write_generation(
        data.path(),
        2,
        &[
            Doc::new("http://a.test/knot", "Red knot", "red knot"),
            Doc::new("http://a.test/knot2", "Knots", "knot flocks"),
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ready = get(server.addr, "/readyz").await;
        assert_eq!(ready.status, 200, "not ready while loading: {}", ready.body);
        if ready.body == "ready: index gen-000002 loaded (2 documents)\n" {
            break;
        }
        assert!(Instant::now() < deadline, "never switched: {}", ready.body);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
