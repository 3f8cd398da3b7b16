//! The image routes over a real socket: `/api/images`'s shape, `/thumb/HASH`'s bytes and
//! statuses, the grid's escaping, the Web/Images tabs, bad filters, and the image policy.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::testutil::{Img, data_with_images, jpeg_like_bytes, put_thumbnail};
use crate::routes_tests::{get, json, sorted_keys, start};
use crate::testutil::{data_with, shore};

const HOSTILE_ALT: &str = "\"><script>alert(1)</script><img src=x onerror=alert(2)>heron";

fn gallery() -> Vec<Img> {
    vec![
        Img {
            alt: HOSTILE_ALT,
            page_title: "Herons <b>of</b> the bay",
            format: "jpeg",
            jpeg_quality: 80,
            width: 1024,
            height: 768,
            bytes: 123_456,
            ..Img::new("http://birds.test/heron.jpg", 0xabc)
        },
        Img {
            alt: "heron sketch",
            thumbnail: false,
            ..Img::new("http://birds.test/sketch.png", 0xdef)
        },
    ]
}

/// One GET on its own connection: the status line's code, the head, and the body's bytes.
async fn get_bytes(addr: SocketAddr, path: &str) -> (u16, String, Vec<u8>) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (status, head, raw[end + 4..].to_vec())
}

#[tokio::test]
async fn the_image_api_has_the_contract_shape() {
    let data = data_with_images(&shore(), &gallery());
    let server = start(data.path()).await;
    let answer = get(server.addr, "/api/images?q=heron").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let value = json(&answer);
    let keys = sorted_keys(&value);
    assert_eq!(keys, ["hits", "page", "query", "took_ms", "total"]);
    assert_eq!(
        (value["query"].as_str(), value["total"].as_u64()),
        (Some("heron"), Some(2))
    );
    let first = &value["hits"][0];
    let keys = sorted_keys(first);
    assert_eq!(
        keys,
        [
            "alt",
            "bytes",
            "format",
            "height",
            "page_url",
            "score",
            "thumbnail",
            "title",
            "url",
            "width"
        ]
    );
    assert_eq!(first["url"], "http://birds.test/heron.jpg");
    assert_eq!(first["page_url"], "http://birds.test/gallery");
    assert_eq!(first["alt"], HOSTILE_ALT, "JSON carries the text as it is");
    assert_eq!(
        (first["width"].as_u64(), first["height"].as_u64()),
        (Some(1024), Some(768))
    );
    assert_eq!(
        (first["format"].as_str(), first["bytes"].as_u64()),
        (Some("jpeg"), Some(123_456))
    );
    assert_eq!(first["thumbnail"], "/thumb/0000000000000abc");
    assert!(value["hits"][1]["thumbnail"].is_null());

    let filtered = json(&get(server.addr, "/api/images?q=heron&format=png&min_width=").await);
    assert_eq!(filtered["total"], 1);
    assert_eq!(filtered["hits"][0]["url"], "http://birds.test/sketch.png");

    let bad = get(server.addr, "/api/images?q=heron&min_width=wide").await;
    assert_eq!(bad.status, 400);
    assert!(
        json(&bad)["error"]
            .as_str()
            .unwrap_or_default()
            .contains("min_width")
    );
}

#[tokio::test]
async fn a_thumbnail_is_served_from_the_store_as_stored() {
    let data = data_with_images(&shore(), &gallery());
    let stored = jpeg_like_bytes();
    put_thumbnail(data.path(), 0xabc, &stored);
    let server = start(data.path()).await;

    let (status, head, body) = get_bytes(server.addr, "/thumb/0000000000000abc").await;
    assert_eq!(status, 200, "{head}");
    assert_eq!(body, stored);
    assert!(head.contains("content-type: image/jpeg"), "{head}");
    assert!(
        head.contains("cache-control: public, max-age=31536000, immutable"),
        "{head}"
    );
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");

    let (status, _, _) = get_bytes(server.addr, "/thumb/def").await;
    assert_eq!(status, 404, "no thumbnail stored under this hash");
    for bad in ["/thumb/xyz", "/thumb/123456789abcdef01", "/thumb/-1"] {
        let (status, _, _) = get_bytes(server.addr, bad).await;
        assert_eq!(status, 400, "{bad}");
    }
}

#[tokio::test]
async fn without_a_store_a_thumbnail_is_not_found() {
    let data = data_with_images(&shore(), &gallery());
    let server = start(data.path()).await;
    let (status, _, _) = get_bytes(server.addr, "/thumb/abc").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_grid_escapes_a_hostile_alt_text_and_links_page_and_image() {
    let data = data_with_images(&shore(), &gallery());
    let server = start(data.path()).await;
    let page = get(server.addr, "/images?q=heron").await;
    assert_eq!(page.status, 200);
    let body = &page.body;
    assert!(!body.contains("<script>"), "{body}");
    assert!(!body.contains("<img src=x"), "{body}");
    assert!(!body.contains("<b>of</b>"), "{body}");
    assert!(
        body.contains("alt=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;heron\""),
        "{body}"
    );
    assert!(
        body.contains("<img src=\"/thumb/0000000000000abc\" width=\"256\" height=\"192\""),
        "{body}"
    );
    assert!(
        body.contains("href=\"http://birds.test/gallery\""),
        "{body}"
    );
    assert!(
        body.contains("href=\"http://birds.test/heron.jpg\""),
        "{body}"
    );
    assert!(body.contains("1024 × 768 · JPEG · 121 KB"), "{body}");
    assert!(
        body.contains("no preview"),
        "the sketch has no thumbnail: {body}"
    );
}

#[tokio::test]
async fn web_and_image_results_link_to_each_other_with_the_query() {
    let data = data_with_images(&shore(), &gallery());
    let server = start(data.path()).await;
    let web = get(server.addr, "/search?q=blue+heron").await;
    assert!(
        web.body
            .contains("<a href=\"/images?q=blue+heron\">Images</a>"),
        "{}",
        web.body
    );
    assert!(
        web.body
            .contains("<span class=\"current\" aria-current=\"page\">Web</span>")
    );
    let images = get(server.addr, "/images?q=blue+heron&format=png").await;
    assert!(
        images
            .body
            .contains("<a href=\"/search?q=blue+heron\">Web</a>"),
        "{}",
        images.body
    );
    assert!(
        images
            .body
            .contains("<option value=\"png\" selected>png</option>"),
        "{}",
        images.body
    );
}

#[tokio::test]
async fn bad_filters_are_a_clear_400_and_an_empty_query_asks_for_words() {
    let data = data_with_images(&shore(), &gallery());
    let server = start(data.path()).await;
    let bad = get(server.addr, "/images?q=heron&format=%3Csvg%3E").await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("format must be"), "{}", bad.body);
    assert!(!bad.body.contains("<svg>"), "{}", bad.body);
    let lenient = get(server.addr, "/images?q=heron&page=-3&per_page=x").await;
    assert_eq!(lenient.status, 200);
    let empty = get(server.addr, "/images?q=").await;
    assert_eq!(empty.status, 200);
    assert!(empty.body.contains("Type something"), "{}", empty.body);
}

#[tokio::test]
async fn pages_allow_images_from_this_server_only() {
    let data = data_with(&shore());
    let server = start(data.path()).await;
    for path in [
        "/",
        "/search?q=heron",
        "/images?q=heron",
        "/api/images?q=heron",
        "/thumb/1",
    ] {
        let answer = get(server.addr, path).await;
        let csp = &answer.headers["content-security-policy"];
        let img_src: Vec<&str> = csp
            .split(';')
            .map(str::trim)
            .filter(|d| d.starts_with("img-src"))
            .collect();
        assert_eq!(img_src, ["img-src 'self'"], "{path}: {csp}");
        assert!(csp.contains("default-src 'none'"), "{path}: {csp}");
    }
    // A generation without images: an empty answer, not an error.
    let value = json(&get(server.addr, "/api/images?q=heron").await);
    assert_eq!(
        (
            value["total"].as_u64(),
            value["hits"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
}
