//! searchd over a real socket: the HTML pages and the JSON API.

use std::net::SocketAddr;

use testweb::TestWeb;

use crate::support::{Rig, Searchd, crawled_and_indexed};

/// searchd over a crawl and index of the sample site.
async fn serve_sample_site(web: &TestWeb) -> Searchd {
    Searchd::start(crawled_and_indexed(web).await).await
}

async fn get(addr: SocketAddr, path_and_query: &str) -> (u16, String) {
    let response = reqwest::get(format!("http://{addr}{path_and_query}"))
        .await
        .expect("searchd answers");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_api_answers_the_contract_shape() {
    let web = TestWeb::start().await;
    let server = serve_sample_site(&web).await;
    let word = testweb::SAMPLE_RANKED_WORD;
    let (status, body) = get(
        server.addr,
        &format!("/api/search?q={word}&page=1&per_page=1"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(json["query"], word);
    assert_eq!(json["total"], 2);
    assert_eq!(json["page"], 1);
    assert!(json["took_ms"].is_number());
    let hits = json["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "per_page=1");
    for key in ["url", "title", "snippet", "score"] {
        assert!(hits[0].get(key).is_some(), "hit has {key}: {}", hits[0]);
    }
    assert_eq!(
        hits[0]["url"],
        web.url("sample.test", testweb::SAMPLE_RANKED_PAIR.0)
    );
    assert!(
        hits[0]["snippet"]
            .as_str()
            .unwrap_or_default()
            .to_lowercase()
            .contains(word)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_pages_escape_and_never_fail() {
    let web = TestWeb::start().await;
    let server = serve_sample_site(&web).await;

    let (status, home) = get(server.addr, "/").await;
    assert_eq!(status, 200);
    assert!(
        home.contains("<form") && home.contains("name=\"q\""),
        "a search form"
    );

    let word = testweb::SAMPLE_RANKED_WORD;
    let (status, page) = get(server.addr, &format!("/search?q={word}")).await;
    assert_eq!(status, 200);
    assert!(
        page.contains(&web.url("sample.test", testweb::SAMPLE_RANKED_PAIR.0)),
        "results link to the page"
    );
    assert!(page.contains("<mark>"), "query terms are highlighted");

    let posted = reqwest::Client::new()
        .post(format!("http://{}/search", server.addr))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("q={word}"))
        .send()
        .await
        .expect("POST answers");
    assert_eq!(posted.status().as_u16(), 200);
    assert!(
        posted
            .text()
            .await
            .expect("body")
            .contains(&web.url("sample.test", testweb::SAMPLE_RANKED_PAIR.0))
    );

    let (_, echoed) = get(server.addr, "/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E").await;
    assert!(
        !echoed.contains("<script>alert(1)"),
        "the query is escaped when shown"
    );
    assert!(echoed.contains("&lt;script&gt;"));

    for malformed in ["%22unclosed", "AND%20OR", "((", "title%3A", "-", "%00", ""] {
        let (status, _) = get(server.addr, &format!("/search?q={malformed}")).await;
        assert!(
            status == 200 || status == 400,
            "query {malformed:?} answered {status}"
        );
        let (status, _) = get(server.addr, &format!("/api/search?q={malformed}")).await;
        assert!(
            status == 200 || status == 400,
            "api query {malformed:?} answered {status}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_says_why_a_page_is_missing_from_the_index() {
    let web = TestWeb::start().await;
    let server = serve_sample_site(&web).await;
    let explain = |path: &str| {
        let url = web.url("sample.test", path);
        let query: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
        format!("/explain?format=json&url={query}")
    };

    let (status, body) = get(server.addr, &explain("/private/staff-roster.html")).await;
    assert_eq!(status, 200, "{body}");
    let report: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(report["stored"], false);
    assert_eq!(report["indexed"], false);
    let verdict = report["verdict"].as_str().unwrap_or_default();
    assert!(
        verdict.contains("robots.txt line 11") && verdict.contains("Disallow: /private/"),
        "{verdict}"
    );

    let (original, duplicate) = testweb::SAMPLE_DUPLICATES;
    let (_, body) = get(server.addr, &explain(duplicate)).await;
    let report: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(report["stored"], true);
    assert_eq!(report["indexed"], false);
    assert_eq!(
        report["folded_into"],
        web.url("sample.test", original),
        "the index keeps the shorter URL of the two"
    );
    assert!(
        report["verdict"]
            .as_str()
            .unwrap_or_default()
            .contains("it is found as"),
        "{report}"
    );

    let (_, page) = get(
        server.addr,
        &explain("/private/staff-roster.html").replace("format=json&", ""),
    )
    .await;
    assert!(page.contains("not fetched"), "the HTML page says it too");

    // The crawler's own explain and report agree with the index about which copy is kept,
    // whichever of the two the crawl met first.
    let store = crawler::inspect::CrawlStores::open(server.data()).expect("store");
    let (original, duplicate) = (
        web.url("sample.test", original),
        web.url("sample.test", duplicate),
    );
    let mut out = Vec::new();
    crawler::inspect::explain(&store, &duplicate, &mut out).expect("explain");
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains(&format!("index: not on its own: found as {original}")),
        "{text}"
    );
    let mut out = Vec::new();
    crawler::inspect::explain(&store, &original, &mut out).expect("explain");
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains(&format!(
            "index: filed under this URL, with 1 copies folded in: {duplicate}"
        )),
        "{text}"
    );
    let mut out = Vec::new();
    crawler::inspect::report(&store, false, &mut out).expect("report");
    let report = String::from_utf8(out).expect("UTF-8");
    assert!(
        report.contains(&format!("{duplicate}\tfound as {original}")),
        "{report}"
    );
    assert!(
        !report.contains(&format!("{original}\t")),
        "the kept copy is not reported: {report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_grows_while_the_crawl_runs() {
    let mut rig = Rig::start().await;
    // A polite pace, so the crawl lasts long enough for builds to land during it.
    rig.config.delay_ms = 40;
    let (crawled_tx, crawled_rx) = tokio::sync::watch::channel(false);
    let live = tokio::spawn(searchd::demo::live_index::index_while(
        rig.data().to_path_buf(),
        searchd::demo::live_index::Cadence {
            first: std::time::Duration::from_millis(100),
            every: std::time::Duration::from_millis(200),
        },
        async move {
            let mut rx = crawled_rx;
            let _ = rx.wait_for(|crawled| *crawled).await;
        },
        |_| {},
    ));
    let summary = rig.crawl(&[rig.web.url("sample.test", "/")]).await;
    crawled_tx.send(true).expect("the builder listens");
    let builds = live.await.expect("builds");
    let stored = summary.pages_stored;

    assert!(
        !builds.is_empty(),
        "no build during a crawl of {stored} pages"
    );
    let first = builds[0].total_docs;
    let last = builds.last().map_or(0, |b| b.total_docs);
    assert!(
        first < last,
        "the first build ({first} documents) came early and later ones grew ({last})"
    );
    let docs: Vec<u64> = builds.iter().map(|b| b.total_docs).collect();
    assert!(docs.windows(2).all(|w| w[0] <= w[1]), "{docs:?}");
    // The index built during the crawl is a real one: searchd answers from it.
    let server = rig.serve().await;
    let word = testweb::SAMPLE_RANKED_WORD;
    let (status, body) = get(server.addr, &format!("/api/search?q={word}")).await;
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert!(json["total"].as_u64().unwrap_or(0) > 0, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_gone_on_a_recrawl_leaves_the_index_at_the_next_build() {
    let mut rig = Rig::start().await;
    // Every stored page is due again at once.
    rig.config.revisit_ms = 0;
    rig.config.min_revisit_ms = 0;
    rig.config.max_revisit_ms = 0;
    let web = &rig.web;
    let seeds = [
        web.url("fresh.test", "/"),
        web.url("fresh.test", testweb::WITHDRAWN_PATH),
    ];
    rig.crawl(&seeds).await;
    rig.index().await;
    let data = rig.data().to_path_buf();
    let searcher = gateway::Searcher::open(&data, Default::default()).expect("searcher");
    let found = |searcher: &gateway::Searcher| {
        searcher
            .search(testweb::WITHDRAWN_WORD, 1, 10)
            .expect("search")
            .total
    };
    assert_eq!(found(&searcher), 1, "the notice is searchable");

    web.set_fresh_edition(2);
    rig.crawl(&seeds).await;
    let store = rig.store();
    let gone = store
        .page(&web.url("fresh.test", testweb::WITHDRAWN_PATH))
        .expect("read")
        .expect("still stored");
    assert_eq!(gone.status, 410, "the re-crawl stored the 410");
    let fetches: Vec<u16> = store
        .history(&gone.url)
        .expect("history")
        .0
        .iter()
        .map(|fetch| fetch.status)
        .collect();
    assert_eq!(fetches, [200, 410], "its status history");
    drop(store);
    let news = web.url("fresh.test", "/news.html");
    let explained = gateway::UrlReport::gather(&searcher, &news).expect("explain");
    assert!(
        explained.indexed && explained.verdict.contains("a newer copy was stored since"),
        "{explained:?}"
    );
    let fetches: Vec<u16> = explained.history.iter().map(|f| f.status).collect();
    assert_eq!(
        fetches,
        [200, 200],
        "a new edition each time: {explained:?}"
    );
    let before = gateway::StatusReport::gather(&searcher);
    let behind = before.unindexed_writes.expect("a store and an index");
    assert!(
        behind >= 1,
        "the re-crawl's writes wait for a build: {before:?}"
    );
    assert_eq!(
        before
            .store_change
            .zip(before.indexed_change)
            .map(|(s, i)| s - i),
        Some(behind)
    );
    rig.index().await;
    searcher.refresh().expect("refresh");
    assert_eq!(
        found(&searcher),
        0,
        "gone from the index after the next build"
    );
    let after = gateway::StatusReport::gather(&searcher);
    assert_eq!(after.unindexed_writes, Some(0), "{after:?}");
    let explained = gateway::UrlReport::gather(&searcher, &news).expect("explain");
    assert_eq!(explained.verdict, "indexed: it can be found");
}

/// `/suggest` over a real crawl and build of the sample site: the OpenSearch suggestions
/// format, completions from indexed pages' titles only (not the noindex page's), the site's
/// name (every title's last part) first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_completes_from_the_titles_of_indexed_pages() {
    let web = TestWeb::start().await;
    let server = serve_sample_site(&web).await;
    let suggest = |typed: &'static str| async move {
        let response = reqwest::get(format!("http://{}/suggest?q={typed}", server.addr))
            .await
            .expect("searchd answers");
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(
            response.headers()["content-type"],
            "application/x-suggestions+json"
        );
        let body = response.text().await.expect("body");
        let answer: (String, Vec<String>) =
            serde_json::from_str(&body).expect("[query, [completions]]");
        answer
    };
    let (typed, found) = suggest("Sh").await;
    assert_eq!(typed, "Sh");
    assert_eq!(
        found.first().map(String::as_str),
        Some("shoreline field notes"),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f == "shorebirds and seabirds"),
        "{found:?}"
    );
    assert!(found.iter().all(|f| f.starts_with("sh")), "{found:?}");

    let (_, found) = suggest("tide%20p").await;
    let mut sorted = found.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["tide pool", "tide pool animals", "tide pool etiquette"],
        "{found:?}"
    );

    // The noindex page's title is no completion; the page behind it is indexed.
    let (_, found) = suggest("unreviewed").await;
    assert!(found.is_empty(), "{found:?}");
    let (_, found) = suggest("marsh").await;
    assert!(found.iter().any(|f| f == "marsh notes"), "{found:?}");
}

/// `/api/similar` and the "similar" link over a real crawl and build of the sample site: a
/// bird's likes are other birds' pages, never the page itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn similar_pages_of_a_crawled_page_are_its_neighbours() {
    let web = TestWeb::start().await;
    let server = serve_sample_site(&web).await;
    let page = web.url("sample.test", "/birds/western-gull.html");
    let (status, body) = get(
        server.addr,
        &format!(
            "/api/similar?url={}",
            reqwest::Url::parse(&page).expect("url")
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(json["similar_to"]["url"], page.as_str());
    assert!(
        !json["similar_to"]["words"]
            .as_array()
            .expect("words")
            .is_empty()
    );
    let urls: Vec<&str> = json["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| hit["url"].as_str().expect("url"))
        .collect();
    assert!(!urls.is_empty(), "{json}");
    assert!(!urls.contains(&page.as_str()), "{urls:?}");
    assert!(
        urls[..3.min(urls.len())]
            .iter()
            .any(|u| u.contains("/birds/")),
        "{urls:?} for {}",
        json["similar_to"]
    );

    let (_, html) = get(server.addr, "/search?q=gull").await;
    assert!(
        html.contains("/similar?url="),
        "every result links to its likes"
    );
}
