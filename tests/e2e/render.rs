//! Rendering in Debian's headless Chromium (`render = "always"`), crawled against
//! `scripts.test`, whose pages write their links and text with scripts: what the server's
//! log shows the crawler asked for (nothing robots.txt forbids, nothing of a type not
//! fetched, the per-page cap kept, every gap at least the delay), what the store keeps
//! beside each page, and what search finds. Then `kill -9` of a crawler mid-render: no
//! browser process of it is left. And on `copies.test`: a page whose text is already stored
//! is stored as a copy without a render. And on `router.test`, a single-page app whose
//! routes all answer one shell: rendered, every route is a document of its own, found by the
//! words its script writes; not rendered, the routes stay one document.

use std::time::Duration;

use shared::record::RenderOutcome;
use testweb::{
    COPIES_NEAR_PAIR, COPIES_OTHER, ROUTER_BROKEN, ROUTER_CROSS_ORIGIN, ROUTER_HOME, ROUTER_HUGE,
    ROUTER_HUGE_BYTES, ROUTER_MANY, ROUTER_MANY_LINKS, ROUTER_NOT_FOUND_WORD, ROUTER_ROUTES,
    ROUTER_SHELL_WORD, ROUTER_UNKNOWN, ROUTER_VARIANT, ROUTER_WANDER, ROUTER_WANDER_TO,
    SCRIPTS_AFTER_ENDLESS, SCRIPTS_BLOCKED_BY_DEFAULT, SCRIPTS_BUILT, SCRIPTS_DISALLOWED_PREFIX,
    SCRIPTS_ENDLESS, SCRIPTS_FORBIDDEN_WORDS, SCRIPTS_LOOP, SCRIPTS_TICK,
    SCRIPTS_WORDS_AFTER_RENDER, TestWeb,
};

use crate::support::{Rig, stored_urls, write_config_file};

const HOST: &str = "scripts.test";
const DELAY: Duration = Duration::from_millis(150);
const MAX_REQUESTS: u32 = 12;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_built_pages_are_rendered_followed_and_searched_and_every_request_is_polite() {
    let mut rig = Rig::start().await;
    rig.config.delay_ms = DELAY.as_millis() as u64;
    rig.config.render = "always".into();
    rig.config.render_timeout_ms = 10_000;
    rig.config.render_max_requests = MAX_REQUESTS;
    rig.crawl(&[rig.web.url(HOST, "/")]).await;

    // Links only scripts write were followed: the built pages, and the loop page one of
    // them links to.
    let stored = stored_urls(rig.data());
    for path in SCRIPTS_BUILT.iter().map(|page| page.path).chain([
        SCRIPTS_LOOP,
        SCRIPTS_ENDLESS,
        SCRIPTS_AFTER_ENDLESS,
    ]) {
        assert!(
            stored.contains(&rig.web.url(HOST, path)),
            "{path} not stored: {stored:?}"
        );
    }

    // The server's log: nothing disallowed or not fetched by default, the cap, the gaps.
    let asked = rig.web.requests_to(HOST);
    assert!(
        asked.under(SCRIPTS_DISALLOWED_PREFIX).is_empty(),
        "{:?}",
        asked.targets()
    );
    for path in SCRIPTS_BLOCKED_BY_DEFAULT {
        assert!(!asked.asked_for(path), "{path} was asked for");
    }
    let ticks = asked.count_path(SCRIPTS_TICK);
    assert!(
        (1..=MAX_REQUESTS as usize).contains(&ticks),
        "{ticks} ticks asked for"
    );
    // Each request is let go a full delay after the last; its arrival may lag a little.
    assert_eq!(
        asked.first_gap_under(DELAY.mul_f64(0.9)),
        None,
        "{:?}",
        asked.targets()
    );
    assert_eq!(
        asked.count_path("/"),
        1,
        "the page is rendered from its one fetch"
    );

    // Beside each page, what its render found; the endless page was cut off and the next
    // page rendered.
    let store = rig.store();
    let record = |path: &str| {
        store
            .rendered(&rig.web.url(HOST, path))
            .expect("readable")
            .unwrap_or_else(|| panic!("no render stored for {path}"))
    };
    match record(SCRIPTS_ENDLESS).outcome {
        RenderOutcome::NotRendered { reason } => assert!(reason.contains("deadline"), "{reason}"),
        RenderOutcome::Rendered => panic!("the endless page rendered"),
    }
    let after = record(SCRIPTS_AFTER_ENDLESS);
    assert_eq!(after.outcome, RenderOutcome::Rendered);
    let home = record("/");
    let html = home.rendered_html().expect("rendered").expect("readable");
    for word in SCRIPTS_FORBIDDEN_WORDS {
        assert!(!html.contains(word), "a forbidden request ran: {word}");
    }
    assert!(home.refused >= 2, "{home:?}");

    // The rendered text is searchable.
    rig.index().await;
    let searchd = rig.serve().await;
    for word in SCRIPTS_WORDS_AFTER_RENDER {
        let hits = searchd.api_ranking(word).await;
        assert_eq!(hits.len(), 1, "{word}: {hits:?}");
    }
}

/// Processes whose command line names a browser profile of crawler process `pid`.
fn browser_processes_of(pid: u32) -> Vec<u32> {
    let needle = format!("sift-browser-{pid}/");
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(&needle))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawler_killed_mid_render_leaves_no_browser_behind() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("crawl.toml");
    write_config_file(
        &web,
        &config,
        "render = \"always\"\nrender_timeout_ms = 120000",
    );
    let data = dir.path().join("data");
    let args: Vec<String> = [
        "crawl",
        "--data",
        data.to_str().expect("utf-8 path"),
        "--seed",
        &web.url(HOST, SCRIPTS_ENDLESS),
        "--config",
        config.to_str().expect("utf-8 path"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut child = crate::resume::spawn_crawler(&args);
    let pid = child.id();

    // Wait until the endless page is being rendered.
    crate::resume::wait_while_running(
        &mut child,
        || {
            !browser_processes_of(pid).is_empty()
                && web.requests_to(HOST).asked_for(SCRIPTS_ENDLESS)
        },
        Duration::from_millis(50),
        "no browser started",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        browser_processes_of(pid),
        Vec::<u32>::new(),
        "browser processes alive 5 s after the crawler was killed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_renders_a_sample_of_each_host_and_goes_on_only_where_scripts_add() {
    let mut rig = Rig::start().await;
    rig.config.render = "auto".into();
    rig.config.render_settle_ms = 100;
    rig.crawl(&[rig.web.url(HOST, "/"), rig.web.url("sample.test", "/")])
        .await;
    let store = rig.store();
    let rendered_pages = |host: &str| {
        let prefix = rig.web.url(host, "/");
        let stored: Vec<String> = stored_urls(rig.data())
            .into_iter()
            .filter(|url| url.starts_with(&prefix))
            .collect();
        let rendered = stored
            .iter()
            .filter(|url| store.rendered(url).expect("readable").is_some())
            .count();
        (rendered, stored.len())
    };
    let (sampled, sample_pages) = rendered_pages("sample.test");
    assert!(sample_pages > 10, "{sample_pages} pages");
    assert!(
        (1..=5).contains(&sampled),
        "{sampled} of sample.test's static pages rendered: only its sample"
    );
    let (scripted, scripts_pages) = rendered_pages(HOST);
    assert!(
        scripted == scripts_pages
            && stored_urls(rig.data()).contains(&rig.web.url(HOST, SCRIPTS_BUILT[3].path)),
        "{scripted} of {scripts_pages} scripts.test pages rendered, its built pages reached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_run_starts_an_auto_host_from_the_verdict_the_store_kept() {
    let mut rig = Rig::start().await;
    rig.config.render = "auto".into();
    rig.config.render_settle_ms = 100;
    rig.config.host_concurrency = 1;
    let seed = rig.web.url("sample.test", "/");
    let rendered = |rig: &Rig| {
        let store = rig.store();
        let stored = stored_urls(rig.data());
        let rendered = stored
            .iter()
            .filter(|url| store.rendered(url).expect("readable").is_some())
            .count();
        (rendered, stored.len())
    };
    // The first run stops after a few pages past the sample, which adds nothing.
    rig.config.max_pages = 8;
    rig.crawl(std::slice::from_ref(&seed)).await;
    let (sampled, first) = rendered(&rig);
    assert!((1..=5).contains(&sampled), "{sampled} of {first} rendered");
    // The second run goes on from the verdict: no new sample, and fewer pages than one
    // re-check in so many.
    rig.config.max_pages = 0;
    rig.crawl(std::slice::from_ref(&seed)).await;
    let (after, all) = rendered(&rig);
    assert!(all > first + 5, "{all} pages after {first}");
    assert_eq!(after, sampled, "pages rendered after the second run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variants_fetched_at_once_are_rendered_once() {
    let mut rig = Rig::start().await;
    rig.config.render = "always".into();
    rig.config.render_settle_ms = 300;
    rig.config.host_concurrency = 4;
    rig.config.max_depth = 0;
    let host = "copies.test";
    let (story, _) = COPIES_NEAR_PAIR;
    // The server ignores the query: four URLs of one story, fetched at once.
    let urls: Vec<String> = ["", "?copy=1", "?copy=2", "?copy=3"]
        .iter()
        .map(|query| rig.web.url(host, &format!("{story}{query}")))
        .collect();
    rig.crawl(&urls).await;
    let store = rig.store();
    let mut rendered = Vec::new();
    for url in &urls {
        let page = store.page(url).expect("readable").expect("stored");
        match store.rendered(url).expect("readable").map(|r| r.outcome) {
            Some(RenderOutcome::Rendered) => rendered.push(url.clone()),
            Some(RenderOutcome::NotRendered { reason }) => {
                assert!(reason.contains("variant"), "{url}: {reason}");
                assert!(page.duplicate_of.is_some(), "{url} is no copy");
            }
            None => panic!("{url}: no render record"),
        }
    }
    assert_eq!(rendered.len(), 1, "rendered: {rendered:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_of_a_stored_page_is_not_rendered_again() {
    let mut rig = Rig::start().await;
    rig.config.render = "always".into();
    rig.config.render_settle_ms = 100;
    // One page at a time, so each page is stored before the next is fetched (for copies
    // fetched at once, see `variants_fetched_at_once_are_rendered_once`).
    rig.config.host_concurrency = 1;
    let host = "copies.test";
    let (story, print) = COPIES_NEAR_PAIR;
    // The server ignores the query: the same story's bytes under a second URL, as the Rust
    // docs' `?search=` links give every page.
    let story_copy = format!("{story}?copy=1");
    rig.crawl(&[rig.web.url(host, "/"), rig.web.url(host, &story_copy)])
        .await;
    let store = rig.store();
    let render = |path: &str| {
        let url = rig.web.url(host, path);
        let rendered = store.rendered(&url).expect("readable");
        let page = store.page(&url).expect("readable").expect("stored");
        (url, rendered.map(|r| r.outcome), page.duplicate_of)
    };
    // A near-duplicate and a page of the same boilerplate have text of their own.
    for path in [print, COPIES_OTHER] {
        assert_eq!(render(path).1, Some(RenderOutcome::Rendered), "{path}");
    }
    // Of the story's two URLs, the first fetched is rendered; the other is stored as its
    // copy, unrendered, naming it.
    let both = [story, story_copy.as_str()].map(render);
    let [
        (first, first_outcome, _),
        (second, second_outcome, duplicate_of),
    ] = match both {
        [a, b] if a.1 == Some(RenderOutcome::Rendered) => [a, b],
        [a, b] => [b, a],
    };
    assert_eq!(first_outcome, Some(RenderOutcome::Rendered), "{first}");
    assert_eq!(duplicate_of.as_ref(), Some(&first), "{second}");
    match second_outcome {
        Some(RenderOutcome::NotRendered { reason }) => assert!(
            reason.contains(first.as_str()) && reason.contains("copy"),
            "{second}: {reason}"
        ),
        other => panic!("{second}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_of_a_router_app_is_a_document_of_its_own_when_rendered() {
    let host = "router.test";
    let mut rig = Rig::start().await;
    rig.config.render = "always".into();
    rig.config.render_settle_ms = 100;
    // One page at a time: each route is stored before its variant is fetched.
    rig.config.host_concurrency = 1;
    rig.crawl(&[rig.web.url(host, ROUTER_HOME)]).await;
    let url = |path: &str| rig.web.url(host, path);
    let store = rig.store();

    // Every route was reached by the links its script writes, rendered, and is no copy.
    for route in ROUTER_ROUTES {
        let page = store.page(&url(route.path)).expect("readable");
        let page = page.unwrap_or_else(|| panic!("{} not stored", route.path));
        assert_eq!(page.duplicate_of, None, "{}", route.path);
        assert_eq!(page.title, route.title, "the rendered title is the page's");
        let render = store.rendered(&url(route.path)).expect("readable");
        assert_eq!(render.map(|r| r.outcome), Some(RenderOutcome::Rendered));
    }
    // The variant (the same route under a query) is its route's copy, never rendered.
    let variant = store.page(&url(ROUTER_VARIANT)).expect("readable");
    assert_eq!(
        variant.expect("the variant is stored").duplicate_of,
        Some(url(ROUTER_ROUTES[1].path))
    );
    match store.rendered(&url(ROUTER_VARIANT)).expect("readable") {
        Some(render) => match render.outcome {
            RenderOutcome::NotRendered { reason } => {
                assert!(reason.contains("variant"), "{reason}")
            }
            RenderOutcome::Rendered => panic!("the variant was rendered"),
        },
        None => panic!("no render record for the variant"),
    }

    rig.index().await;
    let searchd = rig.serve().await;
    // Each route is found by the words of its text and of its description, both written by
    // its script.
    for route in ROUTER_ROUTES {
        for word in [route.word, route.described] {
            assert_eq!(
                searchd.api_ranking(word).await,
                vec![url(route.path)],
                "{word}"
            );
        }
    }
    // searchd's `/explain` shows the route as served and after its scripts, side by side.
    let explain = |format: &'static str| {
        let target = searchd.url(&format!(
            "/explain?url={}{format}",
            gateway::urlencode(&url(ROUTER_ROUTES[1].path))
        ));
        async move {
            let answer = reqwest::get(target).await.expect("answer");
            answer.text().await.expect("body")
        }
    };
    let json: serde_json::Value =
        serde_json::from_str(&explain("&format=json").await).expect("JSON");
    let render = &json["render"];
    assert_eq!(render["outcome"], "rendered", "{json}");
    let figure = |reading: &str, name: &str| render[reading][name].as_u64().expect("a count");
    assert!(
        figure("after_scripts", "links") >= figure("static_page", "links") + 2
            && figure("after_scripts", "text_bytes") > figure("static_page", "text_bytes"),
        "{render}"
    );
    let page = explain("").await;
    assert!(
        page.contains("after scripts") && page.contains("bytes of text"),
        "{page}"
    );

    // Two unknown paths render the same "nothing here" text: one document. The broken app's
    // two routes still show only the shell, under its title: one document. (The shell's
    // paragraph and "Loading", on every page of the host, are the host's template: searched,
    // they find nothing.)
    let unknown: Vec<String> = ROUTER_UNKNOWN.iter().map(|path| url(path)).collect();
    let not_found = searchd.api_ranking(ROUTER_NOT_FOUND_WORD).await;
    assert!(
        not_found.len() == 1 && unknown.contains(&not_found[0]),
        "{not_found:?}"
    );
    let broken: Vec<String> = ROUTER_BROKEN.iter().map(|path| url(path)).collect();
    let shell_title = searchd.api_ranking("harbor").await;
    assert!(
        shell_title.len() == 1 && broken.contains(&shell_title[0]),
        "{shell_title:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_router_app_crawled_without_rendering_is_one_document() {
    let host = "router.test";
    let rig = Rig::start().await;
    let seeds: Vec<String> = ROUTER_ROUTES
        .iter()
        .map(|route| rig.web.url(host, route.path))
        .collect();
    rig.crawl(&seeds).await;
    rig.index().await;
    let searchd = rig.serve().await;
    // The four routes and the broken app's two pages are one shell: one document.
    assert_eq!(searchd.api_ranking(ROUTER_SHELL_WORD).await.len(), 1);
    for route in ROUTER_ROUTES {
        assert_eq!(
            searchd.api_ranking(route.word).await,
            Vec::<String>::new(),
            "{}",
            route.word
        );
    }
    let stored = stored_urls(rig.data());
    for seed in &seeds {
        assert!(stored.contains(seed), "{seed} not stored");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_of_megabytes_of_text_one_of_100000_links_and_one_rewriting_location_are_bounded() {
    let host = "router.test";
    let mut rig = Rig::start().await;
    rig.config.render = "always".into();
    rig.config.render_settle_ms = 100;
    rig.config.render_timeout_ms = 30_000;
    rig.config.max_depth = 0;
    let max_body = 4 << 20;
    rig.config.max_body_bytes = max_body;
    let (huge, many) = (
        rig.web.url(host, ROUTER_HUGE),
        rig.web.url(host, ROUTER_MANY),
    );
    let wander = rig.web.url(host, ROUTER_WANDER);
    rig.crawl(&[huge.clone(), many.clone(), wander.clone()])
        .await;
    let store = rig.store();

    // The document after scripts is kept up to the body limit, in characters.
    let render = store.rendered(&huge).expect("readable").expect("a render");
    assert_eq!(render.outcome, RenderOutcome::Rendered);
    let html = render
        .rendered_html()
        .expect("a document")
        .expect("readable");
    assert!(
        html.len() <= max_body && html.len() >= max_body / 2,
        "{} bytes kept of {ROUTER_HUGE_BYTES} written",
        html.len()
    );
    // The links a page keeps are bounded (extract's 50,000), and none is crawled past the
    // depth limit.
    let links = store.outlinks(&many).expect("readable").expect("outlinks");
    assert_eq!(links.0.len(), 50_000, "of {ROUTER_MANY_LINKS} written");
    assert_eq!(stored_urls(rig.data()).len(), 3);
    // A script that rewrites `location` without end: the page is rendered where it is, and
    // no navigation reaches the site.
    let render = store
        .rendered(&wander)
        .expect("readable")
        .expect("a render");
    assert_eq!(render.outcome, RenderOutcome::Rendered);
    let html = render
        .rendered_html()
        .expect("a document")
        .expect("readable");
    assert!(
        html.contains(ROUTER_SHELL_WORD),
        "the page's own document, not an error page in its place: {html}"
    );
    let asked = rig.web.requests_to(host);
    assert!(
        asked.under(ROUTER_WANDER_TO).is_empty(),
        "{:?}",
        asked.targets()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subresource_on_another_origin_waits_for_its_addresss_gap() {
    let mut rig = Rig::start().await;
    let gap = Duration::from_millis(300);
    rig.config.render = "always".into();
    rig.config.render_settle_ms = 100;
    rig.config.delay_ms = gap.as_millis() as u64;
    rig.config.ip_delay_ms = gap.as_millis() as u64;
    rig.config.max_depth = 0;
    rig.crawl(&[rig.web.url("router.test", ROUTER_HOME)]).await;
    let (other, path) = ROUTER_CROSS_ORIGIN;
    // Both hosts are 127.0.0.1: every request to either waits for the address's gap,
    // the render's request to the other origin (and its robots.txt) included.
    let mut asked: Vec<_> = rig
        .web
        .requests()
        .into_iter()
        .filter(|r| r.host == "router.test" || r.host == other)
        .collect();
    asked.sort_by_key(|r| r.at);
    assert!(
        asked
            .iter()
            .any(|r| r.host == other && r.path_and_query == path),
        "the render never asked for {other}{path}"
    );
    for pair in asked.windows(2) {
        let between = pair[1].at.duration_since(pair[0].at);
        assert!(
            between >= gap.mul_f64(0.9),
            "{}{} came {between:?} after {}{}",
            pair[1].host,
            pair[1].path_and_query,
            pair[0].host,
            pair[0].path_and_query
        );
    }
}
