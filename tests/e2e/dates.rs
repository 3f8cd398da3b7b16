//! Each page's published and modified dates, through the real crawl, build and searchd over
//! `dates.test`: read from every source in its order of trust (JSON-LD over article meta over
//! `<time>` in the content over the URL's path; `Last-Modified` for the modification only),
//! in UTC, with dates not to believe passed over; `crawler explain` says where each came
//! from, results show them (JSON and HTML), `after:`/`before:` filter by them and
//! `sort=date` orders by them.

use serde_json::Value;
use testweb::{
    DATED_HOSTILE, DATED_JSON_LD, DATED_META, DATED_NONE, DATED_PAGES, DATED_PLAIN, DATED_TIME,
    DATED_URL, DATED_WORDS,
};

use crate::support::{Rig, Searchd};

/// The body of searchd's answer to `path_and_query`.
async fn body(searchd: &Searchd, path_and_query: &str) -> String {
    reqwest::get(searchd.url(path_and_query))
        .await
        .expect("searchd answers")
        .text()
        .await
        .expect("a body")
}

/// searchd's JSON answer to `path_and_query`.
async fn json(searchd: &Searchd, path_and_query: &str) -> Value {
    serde_json::from_str(&body(searchd, path_and_query).await).expect("JSON")
}

/// A date (`YYYY-MM-DD`) and where it was read, as `crawler explain` names it.
type Dated = Option<(&'static str, &'static str)>;

/// What each page's dates are, and where each was read: (path, published, modified).
const EXPECTED: [(&str, Dated, Dated); 7] = [
    (
        DATED_JSON_LD,
        Some(("2021-05-03", "JSON-LD")),
        Some(("2021-06-01", "JSON-LD")),
    ),
    (
        DATED_META,
        Some(("2020-02-03", "article meta tag")),
        Some(("2020-02-10", "article meta tag")),
    ),
    (
        DATED_TIME,
        Some(("2019-03-04", "<time> in the content")),
        Some(("2019-04-05", "<time> in the content")),
    ),
    (DATED_URL, Some(("2018-06-07", "URL path")), None),
    (
        DATED_PLAIN,
        None,
        Some(("2022-03-15", "Last-Modified header")),
    ),
    (DATED_NONE, None, None),
    (
        DATED_HOSTILE,
        None,
        Some(("2022-03-15", "Last-Modified header")),
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dates_are_read_from_every_source_in_order_of_trust_and_shown() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("dates.test", "/")]).await;
    rig.index().await;
    let searchd = rig.serve().await;
    let crawl = rig.crawl_stores();

    for (path, published, modified) in EXPECTED {
        let url = rig.web.url("dates.test", path);
        // What the crawler stored, as `crawler explain` says it.
        let mut out = Vec::new();
        crawler::inspect::explain(&crawl, &url, &mut out).expect("explain");
        let explained = String::from_utf8(out).expect("UTF-8");
        for (name, date) in [("published", published), ("modified", modified)] {
            let line = match date {
                Some((day, source)) => format!("  {name}: {day} ({source})\n"),
                None => format!("  {name}: no date found\n"),
            };
            assert!(
                explained.contains(&line),
                "{path}: {line:?} in\n{explained}"
            );
        }

        // What search answers, by the page's own word.
        let word = DATED_WORDS[DATED_PAGES.iter().position(|p| *p == path).expect("a page")];
        let answer: Value = json(&searchd, &format!("/api/search?q={word}")).await;
        let hit = &answer["hits"][0];
        assert_eq!(hit["url"], url.as_str(), "{word}: {answer}");
        assert_eq!(
            hit["published"].as_str(),
            published.map(|(day, _)| day),
            "{path}"
        );
        assert_eq!(
            hit["modified"].as_str(),
            modified.map(|(day, _)| day),
            "{path}"
        );

        let page = body(&searchd, &format!("/search?q={word}")).await;
        match (published, modified) {
            (Some((day, _)), _) => assert!(
                page.contains(&format!(
                    "<div class=\"date\"><time datetime=\"{day}\">{day}</time>"
                )),
                "{path}: {page}"
            ),
            (None, Some((day, _))) => assert!(
                page.contains(&format!(
                    "<div class=\"date\">updated <time datetime=\"{day}\">{day}</time>"
                )),
                "{path}: {page}"
            ),
            (None, None) => assert!(!page.contains("class=\"date\""), "{path}: {page}"),
        }
    }

    // `after:` and `before:` over the pages' dates (publication, else modification); an
    // undated page is left out by either.
    for (query, expected) in [
        (
            "almanac after:2020",
            vec![DATED_JSON_LD, DATED_META, DATED_PLAIN, DATED_HOSTILE],
        ),
        ("almanac before:2020", vec![DATED_TIME, DATED_URL]),
        (
            "almanac after:2019-03-04 before:2020-02-04",
            vec![DATED_TIME, DATED_META],
        ),
        ("almanac after:2018 before:2018-06-08", vec![DATED_URL]),
        ("almanac after:2023", vec![]),
    ] {
        let answer: Value = json(
            &searchd,
            &format!("/api/search?q={}", gateway::urlencode(query)),
        )
        .await;
        let mut found: Vec<String> = answer["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .map(|hit| hit["url"].as_str().expect("a URL").to_string())
            .collect();
        found.sort();
        let mut wanted: Vec<String> = expected
            .iter()
            .map(|path| rig.web.url("dates.test", path))
            .collect();
        wanted.sort();
        assert_eq!(found, wanted, "{query}: {answer}");
    }

    // `sort=date`: newest first (the publication, else the modification), undated after
    // every dated page; the results page links both orders and keeps it in its links.
    let answer: Value = json(&searchd, "/api/search?q=almanac&sort=date&per_page=20").await;
    let days: Vec<Option<String>> = answer["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| {
            hit["published"]
                .as_str()
                .or(hit["modified"].as_str())
                .map(str::to_string)
        })
        .collect();
    let day = |d: &str| Some(d.to_string());
    assert_eq!(
        days,
        [
            day("2022-03-15"),
            day("2022-03-15"),
            day("2021-05-03"),
            day("2020-02-03"),
            day("2019-03-04"),
            day("2018-06-07"),
            None,
            None,
        ],
        "{answer}"
    );
    let page = body(&searchd, "/search?q=almanac&sort=date").await;
    assert!(
        page.contains(
            "Sort by <a href=\"/search?q=almanac&amp;page=1\">relevance</a> · <strong>date</strong>"
        ),
        "{page}"
    );
    let page = body(&searchd, "/search?q=almanac").await;
    assert!(
        page.contains("<strong>relevance</strong> · <a href=\"/search?q=almanac&amp;page=1&amp;sort=date\">date</a>"),
        "{page}"
    );
}
