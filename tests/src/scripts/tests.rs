//! `scripts.test` over loopback with reqwest: each path answers with its status and type,
//! the request log sees each, and the pages' bytes hold only their static links and words.

use std::collections::HashSet;

use super::*;
use crate::TestWeb;
use crate::reply::{HTML_UTF8, TEXT_UTF8};

/// A client that sends `scripts.test` to the test web.
fn client(web: &TestWeb) -> reqwest::Client {
    // reqwest is built without a crypto provider; another test may have installed it.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .resolve("scripts.test", web.addr())
        .build()
        .expect("a client")
}

/// Status, `Content-Type` and body of `path` on `scripts.test`.
async fn get(web: &TestWeb, client: &reqwest::Client, path: &str) -> (u16, String, Vec<u8>) {
    let response = client
        .get(web.url("scripts.test", path))
        .send()
        .await
        .expect("the test web answers");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = response.bytes().await.expect("a whole body").to_vec();
    (status, content_type, body)
}

#[tokio::test]
async fn every_page_and_subresource_answers_with_its_status_and_type_and_is_logged() {
    let web = TestWeb::start().await;
    let client = client(&web);
    let mut asked = Vec::new();
    for (path, status, content_type) in [
        ("/robots.txt", 200, TEXT_UTF8),
        ("/", 200, HTML_UTF8),
        ("/built/one", 200, HTML_UTF8),
        ("/built/four", 200, HTML_UTF8),
        (SCRIPTS_LOOP, 200, HTML_UTF8),
        (SCRIPTS_ENDLESS, 200, HTML_UTF8),
        (SCRIPTS_AFTER_ENDLESS, 200, HTML_UTF8),
        ("/static/app.js", 200, "text/javascript; charset=utf-8"),
        ("/static/site.css", 200, "text/css; charset=utf-8"),
        ("/api/menu.json", 200, "application/json"),
        ("/api/tick?n=7", 200, "application/json"),
        ("/private/secret.js", 200, "text/javascript; charset=utf-8"),
        ("/private/data.json", 200, "application/json"),
        ("/img/pixel.png", 200, "image/png"),
        ("/fonts/face.woff2", 200, "font/woff2"),
        ("/ws", 404, TEXT_UTF8),
        ("/built/five", 404, TEXT_UTF8),
    ] {
        let answer = get(&web, &client, path).await;
        assert_eq!(
            (answer.0, answer.1.as_str()),
            (status, content_type),
            "{path}"
        );
        asked.push(path);
    }

    let (_, _, robots) = get(&web, &client, "/robots.txt").await;
    assert_eq!(robots, b"User-agent: *\nDisallow: /private/\n");
    let (_, _, pixel) = get(&web, &client, "/img/pixel.png").await;
    let pixel = image::load_from_memory_with_format(&pixel, image::ImageFormat::Png)
        .expect("the pixel is a PNG");
    assert_eq!((pixel.width(), pixel.height()), (1, 1));
    let (_, _, menu) = get(&web, &client, "/api/menu.json").await;
    let menu: serde_json::Value = serde_json::from_slice(&menu).expect("the menu is JSON");
    assert_eq!(menu["link"], "/built/four");
    assert!(
        menu["text"]
            .as_str()
            .is_some_and(|text| text.contains("tamarindel"))
    );
    for data in ["/private/data.json", "/api/tick?x=1"] {
        let (_, _, body) = get(&web, &client, data).await;
        serde_json::from_slice::<serde_json::Value>(&body).expect("JSON");
    }

    let log = web.requests_to("scripts.test");
    asked.extend(["/robots.txt", "/img/pixel.png", "/api/menu.json"]);
    asked.extend(["/private/data.json", "/api/tick?x=1"]);
    assert_eq!(log.targets(), asked, "every request, in arrival order");
    assert_eq!(log.count_path(SCRIPTS_TICK), 2);
    assert_eq!(
        log.under(SCRIPTS_DISALLOWED_PREFIX),
        [
            "/private/secret.js",
            "/private/data.json",
            "/private/data.json"
        ]
    );
    assert!(
        web.requests_to("sample.test").is_empty(),
        "no other host is asked"
    );
}

#[tokio::test]
async fn the_home_page_holds_one_static_link_and_no_word_or_path_its_scripts_write() {
    let web = TestWeb::start().await;
    let client = client(&web);
    let (_, _, home) = get(&web, &client, "/").await;
    let home = String::from_utf8(home).expect("UTF-8");
    assert_eq!(home.matches("<a ").count(), 1, "{home}");
    assert_eq!(home.matches("<a href=\"/endless\">").count(), 1);
    assert!(home.contains(SCRIPTS_STATIC_WORD));
    assert!(home.contains("<title>"));
    for hidden in SCRIPTS_WORDS_AFTER_RENDER
        .iter()
        .chain(&SCRIPTS_FORBIDDEN_WORDS)
        .chain(SCRIPTS_BUILT.iter().map(|page| &page.path))
    {
        assert!(!home.contains(hidden), "{hidden} is in the bytes of /");
    }
    for asked in SCRIPTS_DISALLOWED
        .iter()
        .chain(&SCRIPTS_BLOCKED_BY_DEFAULT)
        .chain(&SCRIPTS_ALLOWED_SUBRESOURCES)
    {
        assert!(home.contains(asked), "/ asks for {asked}");
    }
}

#[tokio::test]
async fn the_script_written_pages_hold_only_their_static_links_and_words() {
    let web = TestWeb::start().await;
    let client = client(&web);
    let written: Vec<ScriptedPage> = SCRIPTS_BUILT
        .into_iter()
        .chain([ScriptedPage {
            path: SCRIPTS_AFTER_ENDLESS,
            word: SCRIPTS_AFTER_ENDLESS_WORD,
        }])
        .collect();
    let words: HashSet<&str> = SCRIPTS_WORDS_AFTER_RENDER.into_iter().collect();
    for page in written {
        let (_, _, body) = get(&web, &client, page.path).await;
        let body = String::from_utf8(body).expect("UTF-8");
        assert!(!body.contains(page.word), "{}: {body}", page.path);
        assert!(
            words.contains(page.word),
            "{} is a rendered word",
            page.word
        );
        let links = if page.path == "/built/two" { 2 } else { 1 };
        assert_eq!(body.matches("<a ").count(), links, "{}", page.path);
        assert!(body.contains("<a href=\"/\">"), "{}", page.path);
    }
    for (path, word, link) in [
        (SCRIPTS_LOOP, SCRIPTS_LOOP_WORD, "/"),
        (SCRIPTS_ENDLESS, SCRIPTS_ENDLESS_WORD, SCRIPTS_AFTER_ENDLESS),
    ] {
        let (_, _, body) = get(&web, &client, path).await;
        let body = String::from_utf8(body).expect("UTF-8");
        assert!(body.contains(word), "{path} shows {word} without scripts");
        assert_eq!(body.matches("<a ").count(), 1, "{path}");
        assert!(body.contains(&format!("<a href=\"{link}\">")), "{path}");
    }
}

#[test]
fn the_pixel_is_a_one_by_one_png() {
    let decoded =
        image::load_from_memory_with_format(&pixel_png(), image::ImageFormat::Png).expect("a PNG");
    assert_eq!((decoded.width(), decoded.height()), (1, 1));
}
