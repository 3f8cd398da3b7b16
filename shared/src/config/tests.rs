//! The conversion raw -> validated, and the errors of each kind of bad file or value.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::kind::{ContentKind, KindSet};
use crate::one_line_error;

/// The error of `text` as a config file, on one line, after checking it is one line that
/// names the file.
fn file_error(text: &str) -> (ConfigError, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sift.toml");
    std::fs::write(&path, text).unwrap();
    let error = Config::load(Some(&path)).expect_err(text);
    let line = one_line_error(&error);
    assert!(!line.contains('\n'), "one line: {line}");
    assert!(
        line.contains(&path.display().to_string()),
        "names the file: {line}"
    );
    (error, line)
}

#[test]
fn defaults_are_valid_and_typed() {
    let config = Config::load(None).unwrap();
    let c = &config.crawler;
    assert_eq!(c.delay, Duration::from_secs(1));
    assert_eq!(c.host_concurrency.get(), 1);
    assert_eq!(c.ip_concurrency.map(|n| n.get()), Some(8));
    assert_eq!(c.connect_timeout, Duration::from_secs(10));
    assert_eq!(c.max_retry_after, Duration::from_secs(3600));
    assert_eq!(c.max_revisit, Duration::from_secs(30 * 86_400));
    assert_eq!(c.page_attempts.get(), 3);
    assert_eq!(c.info_url.host_str(), Some("github.com"));
    assert!(c.deny_urls.is_empty() && c.allow_urls.is_empty());
    let s = &config.searchd;
    assert_eq!(s.listen, SocketAddr::from(([127, 0, 0, 1], 8080)));
    assert_eq!(s.header_timeout, Duration::from_secs(10));
    assert_eq!(s.per_page.get(), 10);
}

#[test]
fn file_values_become_typed_values() {
    let raw = parse::parse(
        r#"
[crawler]
delay_ms = 5
ip_concurrency = 0
deny_hosts = ["*.Ads.test"]
deny_urls = ["/print/"]
resolve = { "A.test" = "127.0.0.1" }
[crawler.hosts."Docs.Test"]
delay_ms = 0
concurrency = 4
allow_urls = ["^http://docs\\.test/book/"]
kinds = ["HTML", "image"]
render = "Always"
[searchd]
listen = "0.0.0.0:9000"
request_timeout_ms = 1500
"#,
        Path::new("t.toml"),
    )
    .unwrap();
    let config = raw.validate().unwrap();
    let c = &config.crawler;
    assert_eq!(c.delay, Duration::from_millis(5));
    assert_eq!(c.ip_concurrency, None, "0: no per-address limit");
    assert_eq!(c.deny_hosts, ["ads.test"]);
    assert!(c.deny_urls.any_match("http://a.test/print/x"));
    assert!(!c.deny_urls.any_match("http://a.test/x"));
    assert_eq!(c.resolve["a.test"].to_string(), "127.0.0.1");
    let docs = &c.hosts["docs.test"];
    assert_eq!(docs.delay, Some(Duration::ZERO));
    assert_eq!(docs.concurrency.map(|n| n.get()), Some(4));
    assert!(docs.allow_urls.any_match("http://docs.test/book/a.html"));
    assert!(docs.deny_urls.is_empty());
    let (html, image, pdf) = (ContentKind::Html, ContentKind::Image, ContentKind::Pdf);
    assert_eq!(c.kinds_for("docs.test"), KindSet::of(&[html, image]));
    assert_eq!(
        c.kinds_for("a.test"),
        KindSet::of(&[html, pdf]),
        "the crawl's"
    );
    assert_eq!(c.render_for("docs.test"), RenderMode::Always);
    assert_eq!(c.render_for("a.test"), RenderMode::Never, "off by default");
    assert!(c.renders(), "one host renders: a browser is needed");
    assert_eq!(
        config.searchd.listen,
        SocketAddr::from(([0, 0, 0, 0], 9000))
    );
    assert_eq!(config.searchd.request_timeout, Duration::from_millis(1500));
    assert_eq!(
        config.crawler.max_retry_after,
        Duration::from_secs(3600),
        "a default"
    );
}

#[test]
fn each_bad_value_names_its_key() {
    for (text, key, says) in [
        (
            "[crawler]\nagent = \"bad agent\"",
            "crawler.agent",
            "product token",
        ),
        (
            "[crawler]\ninfo_url = \"no url\"",
            "crawler.info_url",
            "not a URL",
        ),
        (
            "[crawler]\ninfo_url = \"ftp://a.org/\"",
            "crawler.info_url",
            "http",
        ),
        (
            "[crawler]\nfrom = \"nobody\"",
            "crawler.from",
            "contact address",
        ),
        (
            "[crawler]\nfrom = \"a@b.org\\r\\nX: y\"",
            "crawler.from",
            "contact",
        ),
        (
            "[crawler]\nhost_concurrency = 0",
            "crawler.host_concurrency",
            "at least 1",
        ),
        (
            "[crawler]\nmax_in_flight = 0",
            "crawler.max_in_flight",
            "at least 1",
        ),
        (
            "[crawler]\nconnect_timeout_ms = 0",
            "crawler.connect_timeout_ms",
            "at least 1",
        ),
        (
            "[crawler]\nrequest_timeout_ms = 0",
            "crawler.request_timeout_ms",
            "at least 1",
        ),
        (
            "[crawler]\npage_attempts = 0",
            "crawler.page_attempts",
            "at least 1",
        ),
        (
            "[crawler]\nrobots_attempts = 0",
            "crawler.robots_attempts",
            "at least 1",
        ),
        (
            "[crawler]\nstore_cache_bytes = 1000",
            "crawler.store_cache_bytes",
            "1 MiB",
        ),
        (
            "[crawler]\nmax_body_bytes = 10",
            "crawler.max_body_bytes",
            "1024",
        ),
        (
            "[crawler]\nmax_pdf_bytes = 10",
            "crawler.max_pdf_bytes",
            "1024",
        ),
        (
            "[crawler]\nrender = \"sometimes\"",
            "crawler.render",
            "\"sometimes\" is not a render mode (one of never, always, auto)",
        ),
        (
            "[crawler.hosts.\"a.test\"]\nrender = \"yes\"",
            "crawler.hosts.\"a.test\".render",
            "not a render mode",
        ),
        (
            "[crawler]\nrender_fetch = [\"script\", \"websocket\"]",
            "crawler.render_fetch[1]",
            "\"websocket\" is not a request type",
        ),
        (
            "[crawler]\nrender_max_browser_bytes = 1000",
            "crawler.render_max_browser_bytes",
            "64 MiB",
        ),
        (
            "[crawler]\nkinds = [\"html\", \"video\"]",
            "crawler.kinds[1]",
            "\"video\" is not a kind of content (one of html, image, pdf)",
        ),
        (
            "[crawler]\nkinds = []",
            "crawler.kinds",
            "nothing would be read",
        ),
        (
            "[crawler.hosts.\"a.test\"]\nkinds = [\"gif\"]",
            "crawler.hosts.\"a.test\".kinds[0]",
            "not a kind of content",
        ),
        (
            "[crawler]\nmin_revisit_ms = 10\nmax_revisit_ms = 5",
            "crawler.min_revisit_ms",
            "max_revisit_ms",
        ),
        (
            "[crawler]\nstrip_params = [\"a\", \"*\"]",
            "crawler.strip_params",
            "no parameter",
        ),
        (
            "[crawler]\ndeny_urls = [\"/ok/\", \"/(x\"]",
            "crawler.deny_urls[1]",
            "invalid regex \"/(x\": unclosed group",
        ),
        (
            "[crawler]\nallow_urls = [\"[\"]",
            "crawler.allow_urls[0]",
            "invalid regex",
        ),
        (
            "[crawler]\ndeny_hosts = [\"ok.test\", \"https://x.test/\"]",
            "crawler.deny_hosts[1]",
            "not a host name",
        ),
        (
            "[crawler]\ndeny_hosts = [\" \"]",
            "crawler.deny_hosts[0]",
            "names no host",
        ),
        (
            "[crawler.hosts.\"docs.test\"]\ndeny_urls = [\"a\", \"b\", \"((\"]",
            "crawler.hosts.\"docs.test\".deny_urls[2]",
            "invalid regex",
        ),
        (
            "[crawler.hosts.\"docs.test\"]\nallow_urls = [\"*\"]",
            "crawler.hosts.\"docs.test\".allow_urls[0]",
            "invalid regex",
        ),
        (
            "[crawler.hosts.\"docs.test\"]\nconcurrency = 0",
            "crawler.hosts.\"docs.test\".concurrency",
            "at least 1",
        ),
        (
            "[crawler.hosts.\"docs.test:8080\"]\ndelay_ms = 0",
            "crawler.hosts.\"docs.test:8080\"",
            "no scheme or port",
        ),
        (
            "[crawler.hosts.\"Docs.test\"]\n[crawler.hosts.\"docs.test\"]",
            "crawler.hosts.\"docs.test\"",
            "another spelling",
        ),
        (
            "[crawler.resolve]\n\"a b.test\" = \"127.0.0.1\"",
            "crawler.resolve.\"a b.test\"",
            "not a host name",
        ),
        (
            "[searchd]\nlisten = \"localhost\"",
            "searchd.listen",
            "address and port",
        ),
        ("[searchd]\nper_page = 0", "searchd.per_page", "at least 1"),
        (
            "[searchd]\nmax_query_len = 0",
            "searchd.max_query_len",
            "at least 1",
        ),
        (
            "[searchd]\nmax_connections = 0",
            "searchd.max_connections",
            "at least 1",
        ),
        (
            "[searchd]\nmax_searches = 0",
            "searchd.max_searches",
            "at least 1",
        ),
        (
            "[searchd]\nheader_timeout_ms = 0",
            "searchd.header_timeout_ms",
            "at least 1",
        ),
        (
            "[searchd]\nrequest_timeout_ms = 0",
            "searchd.request_timeout_ms",
            "at least 1",
        ),
        (
            "[ranking]\ntitle_boost = nan",
            "ranking.title_boost",
            "not a weight",
        ),
        (
            "[ranking]\nlink_weight = -1.0",
            "ranking.link_weight",
            "not a weight",
        ),
        (
            "[ranking]\nthin_weight = inf",
            "ranking.thin_weight",
            "not a weight",
        ),
    ] {
        let (error, line) = file_error(text);
        let ConfigError::Invalid { source, .. } = &error else {
            panic!("{text}: a bad value, not {error:?}");
        };
        assert_eq!(source.key, key, "{text}");
        assert!(line.contains(&format!("{key}: ")), "{text}: {line}");
        assert!(line.contains(says), "{text}: {line}");
    }
}

#[test]
fn file_errors_name_the_line_and_the_full_key() {
    for (text, line_number, key, says) in [
        ("[crawler]\ndelay_ms = = 5\n", 2, None, "extra `=`"),
        (
            "[crawler]\ndelay = 5\n",
            2,
            Some("crawler.delay"),
            "did you mean `delay_ms`?",
        ),
        (
            "[crawler]\n\n[crawler.hosts.\"docs.test\"]\nconcurency = 2\n",
            4,
            Some("crawler.hosts.\"docs.test\".concurency"),
            "did you mean `concurrency`?",
        ),
        ("[crawlr]\n", 1, Some("crawlr"), "did you mean `crawler`?"),
        (
            "[searchd]\nzzz = 1\n",
            2,
            Some("searchd.zzz"),
            "unknown key `zzz` (data/example.toml lists every key; here: listen, per_page",
        ),
        (
            "[crawler]\ndelay_ms = \"5\"\n",
            2,
            Some("crawler.delay_ms"),
            "invalid type",
        ),
        (
            "[crawler]\ndelay_ms = -5\n",
            2,
            Some("crawler.delay_ms"),
            "invalid value",
        ),
        (
            "[crawler]\ndeny_urls = [\"a\",\n  3]\n",
            3,
            Some("crawler.deny_urls[1]"),
            "invalid type",
        ),
        (
            "[crawler.resolve]\n\"a.test\" = \"1.2.3\"\n",
            2,
            Some("crawler.resolve.\"a.test\""),
            "invalid IP address",
        ),
        (
            "[crawler]\nhosts = { \"a.test\" = { delay = 1 } }\n",
            2,
            Some("crawler.hosts.\"a.test\".delay"),
            "did you mean `delay_ms`?",
        ),
    ] {
        let (error, line) = file_error(text);
        let ConfigError::Parse {
            line: at, key: k, ..
        } = &error
        else {
            panic!("{text}: a TOML error, not {error:?}");
        };
        assert_eq!((*at, k.as_deref()), (line_number, key), "{text}: {line}");
        assert!(
            line.contains(&format!("line {line_number}: ")),
            "{text}: {line}"
        );
        assert!(line.contains(says), "{text}: {line}");
    }
}

#[test]
fn a_missing_or_unreadable_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml");
    let error = Config::load(Some(&missing)).unwrap_err();
    assert!(matches!(error, ConfigError::Read { .. }), "{error:?}");
    let line = one_line_error(&error);
    assert!(
        line.starts_with(&format!("cannot read config {}: ", missing.display())),
        "{line}"
    );
    let binary = dir.path().join("binary.toml");
    std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
    let line = one_line_error(&Config::load(Some(&binary)).unwrap_err());
    assert!(
        line.contains("binary.toml") && line.contains("UTF-8"),
        "{line}"
    );
    let line = one_line_error(&Config::load(Some(dir.path())).unwrap_err());
    assert!(
        line.starts_with("cannot read config "),
        "a directory: {line}"
    );
}

#[test]
fn unknown_keys_suggest_the_closest_known_key() {
    let known = ["delay_ms", "deny_urls", "allow_urls", "max_pages"];
    assert_eq!(parse::closest("delay", &known), Some("delay_ms"));
    assert_eq!(parse::closest("deny_url", &known), Some("deny_urls"));
    assert_eq!(parse::closest("alow_urls", &known), Some("allow_urls"));
    assert_eq!(parse::closest("Max_Pages", &known), Some("max_pages"));
    assert_eq!(parse::closest("colour", &known), None);
}
