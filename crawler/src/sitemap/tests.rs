//! The reader against XML, indexes, plain text, gzip and broken or hostile input.

use super::*;
use flate2::Compression;
use flate2::write::GzEncoder;
use std::io::Write;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

fn read(body: &[u8]) -> Sitemap {
    parse(body, &SitemapLimits::default()).unwrap()
}

/// The URLs of pages, as strings.
fn pages(sitemap: &Sitemap) -> Vec<&str> {
    match &sitemap.entries {
        SitemapEntries::Pages(pages) => pages.iter().map(|p| p.url.as_str()).collect(),
        SitemapEntries::Sitemaps(_) => panic!("not a urlset: {sitemap:?}"),
    }
}

const URLSET: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
<loc>
  https://example.com/
</loc>
<lastmod>2024-05-01</lastmod>
<changefreq>daily</changefreq>
<priority>0.8</priority>
  </url>
  <url>
<loc>https://example.com/photos</loc>
<image:image><image:loc>https://cdn.example.com/a.jpg</image:loc></image:image>
<priority>7</priority>
  </url>
  <!-- a comment -->
  <url><loc><![CDATA[http://example.com/cdata?a=1&b=2]]></loc></url>
</urlset>
"#;

const INDEX: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap>
<loc>https://example.com/sitemap-1.xml.gz</loc>
<lastmod>2024-05-01T10:00:00+00:00</lastmod>
  </sitemap>
  <sitemap><loc>https://example.com/sitemap-2.xml</loc></sitemap>
</sitemapindex>
"#;

fn check_urlset(sitemap: &Sitemap) {
    let expected = SitemapEntries::Pages(vec![
        PageEntry {
            url: Url::parse("https://example.com/").unwrap(),
            lastmod: Some("2024-05-01".into()),
            priority: Some(0.8),
        },
        PageEntry {
            url: Url::parse("https://example.com/photos").unwrap(),
            lastmod: None,
            priority: None,
        },
        PageEntry {
            url: Url::parse("http://example.com/cdata?a=1&b=2").unwrap(),
            lastmod: None,
            priority: None,
        },
    ]);
    assert_eq!(sitemap.entries, expected);
    assert_eq!(sitemap.stopped, None);
}

fn check_index(sitemap: &Sitemap) {
    let expected = SitemapEntries::Sitemaps(vec![
        ChildSitemap {
            url: Url::parse("https://example.com/sitemap-1.xml.gz").unwrap(),
            lastmod: Some("2024-05-01T10:00:00+00:00".into()),
        },
        ChildSitemap {
            url: Url::parse("https://example.com/sitemap-2.xml").unwrap(),
            lastmod: None,
        },
    ]);
    assert_eq!(sitemap.entries, expected);
    assert_eq!(sitemap.stopped, None);
}

#[test]
fn urlset() {
    check_urlset(&read(URLSET.as_bytes()));
}

#[test]
fn sitemap_index() {
    check_index(&read(INDEX.as_bytes()));
}

#[test]
fn gzip_urlset_and_index() {
    check_urlset(&read(&gzip(URLSET.as_bytes())));
    check_index(&read(&gzip(INDEX.as_bytes())));
}

#[test]
fn prefixed_namespace_and_bom() {
    let body = "\u{feff}<sm:urlset xmlns:sm=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
        <sm:url><sm:loc>https://example.com/a</sm:loc></sm:url></sm:urlset>";
    assert_eq!(pages(&read(body.as_bytes())), ["https://example.com/a"]);
}

#[test]
fn entities_are_decoded() {
    let body = "<urlset><url><loc>https://example.com/?a=1&amp;b=2&#38;c=&#x33;</loc></url>\
        <url><loc>https://example.com/q?x=1&y=2</loc></url></urlset>";
    assert_eq!(
        pages(&read(body.as_bytes())),
        [
            "https://example.com/?a=1&b=2&c=3",
            "https://example.com/q?x=1&y=2"
        ]
    );
}

#[test]
fn text_sitemap() {
    let body = "\u{feff}https://example.com/one\r\n\
        \n  http://example.com/two  \n\
        not a url\n\
        ftp://example.com/file\n\
        /relative\n\
        https://example.com/three";
    let sitemap = read(body.as_bytes());
    assert_eq!(
        pages(&sitemap),
        [
            "https://example.com/one",
            "http://example.com/two",
            "https://example.com/three"
        ]
    );
    assert_eq!(sitemap.stopped, None);
    assert_eq!(
        pages(&read(&gzip(body.as_bytes()))),
        pages(&sitemap),
        "gzip text"
    );
    let long = format!(
        "https://example.com/{}\nhttps://example.com/ok\n",
        "a".repeat(3000)
    );
    assert_eq!(pages(&read(long.as_bytes())), ["https://example.com/ok"]);
    assert_eq!(pages(&read(b"")), Vec::<&str>::new());
}

#[test]
fn non_http_locs_are_dropped() {
    let body = "<urlset>\
        <url><loc>ftp://example.com/file</loc></url>\
        <url><loc>mailto:someone@example.com</loc></url>\
        <url><loc>/relative/path</loc></url>\
        <url><loc>javascript:alert(1)</loc></url>\
        <url><loc></loc></url>\
        <url><priority>0.5</priority></url>\
        <url><loc>https://example.com/kept</loc></url>\
        </urlset>";
    assert_eq!(pages(&read(body.as_bytes())), ["https://example.com/kept"]);
}

#[test]
fn malformed_xml_keeps_what_came_before() {
    let body = "<urlset>\
        <url><loc>https://example.com/1</loc></url>\
        <url><loc>https://example.com/2</loc></url>\
        <url><loc>https://example.com/3</lo></url>\
        <url><loc>https://example.com/4</loc></url></urlset>";
    let sitemap = read(body.as_bytes());
    assert_eq!(
        pages(&sitemap),
        ["https://example.com/1", "https://example.com/2"]
    );
    assert!(
        matches!(sitemap.stopped, Some(SitemapError::Malformed { .. })),
        "{sitemap:?}"
    );
    // Cut off in transfer: between elements, or inside one.
    let cut = &URLSET[..URLSET.find("<!-- a comment").unwrap()];
    let sitemap = read(cut.as_bytes());
    assert_eq!(sitemap.entries.len(), 2);
    assert_eq!(sitemap.stopped, Some(SitemapError::Truncated));
    let cut = &URLSET[..URLSET.find("<url><loc><![CDATA").unwrap() + 20];
    let sitemap = read(cut.as_bytes());
    assert_eq!(sitemap.entries.len(), 2);
    assert!(
        matches!(sitemap.stopped, Some(SitemapError::Malformed { .. })),
        "{sitemap:?}"
    );
    // A cut gzip stream.
    let packed = gzip(URLSET.as_bytes());
    let result = parse(&packed[..packed.len() / 2], &SitemapLimits::default());
    assert!(
        matches!(
            result,
            Err(SitemapError::Gzip(_))
                | Ok(Sitemap {
                    stopped: Some(SitemapError::Gzip(_)),
                    ..
                })
        ),
        "{result:?}"
    );
    // Broken before any entry: an error.
    assert!(matches!(
        parse(b"<urlset><url><loc>x</url>", &SitemapLimits::default()),
        Err(SitemapError::Malformed { .. })
    ));
    assert_eq!(
        parse(b"<urlset><url>", &SitemapLimits::default()),
        Err(SitemapError::Truncated)
    );
    assert!(
        matches!(
            parse(b"<urlset>\xff</urlset>", &SitemapLimits::default()),
            Err(SitemapError::Malformed { .. })
        ),
        "not UTF-8"
    );
}

#[test]
fn other_documents_are_not_sitemaps() {
    for body in [
        "<!DOCTYPE html><html><body>Not found</body></html>",
        "<rss version=\"2.0\"><channel></channel></rss>",
    ] {
        assert!(
            matches!(
                parse(body.as_bytes(), &SitemapLimits::default()),
                Err(SitemapError::NotASitemap(_))
            ),
            "{body}"
        );
    }
    assert_eq!(read(b"<urlset/>").entries, SitemapEntries::Pages(vec![]));
}

#[test]
fn too_many_urls_are_cut_at_the_limit() {
    let mut body = String::from("<urlset>");
    for i in 0..10 {
        body.push_str(&format!("<url><loc>https://example.com/{i}</loc></url>"));
    }
    body.push_str("</urlset>");
    let limits = SitemapLimits {
        max_urls: 4,
        ..SitemapLimits::default()
    };
    let sitemap = parse(body.as_bytes(), &limits).unwrap();
    assert_eq!(
        pages(&sitemap),
        [
            "https://example.com/0",
            "https://example.com/1",
            "https://example.com/2",
            "https://example.com/3"
        ]
    );
    assert_eq!(
        sitemap.stopped,
        Some(SitemapError::TooManyUrls { limit: 4 })
    );

    let text: String = (0..10)
        .map(|i| format!("https://example.com/{i}\n"))
        .collect();
    let sitemap = parse(text.as_bytes(), &limits).unwrap();
    assert_eq!(sitemap.entries.len(), 4);
    assert_eq!(
        sitemap.stopped,
        Some(SitemapError::TooManyUrls { limit: 4 })
    );

    // Exactly at the limit is complete.
    let text: String = (0..4)
        .map(|i| format!("https://example.com/{i}\n"))
        .collect();
    assert_eq!(parse(text.as_bytes(), &limits).unwrap().stopped, None);
}

/// Compresses `prefix` then `zeros` zero bytes, a block at a time.
fn gzip_bomb(prefix: &[u8], zeros: usize) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(prefix).unwrap();
    let block = [0u8; 64 * 1024];
    for _ in 0..zeros / block.len() {
        encoder.write_all(&block).unwrap();
    }
    encoder.finish().unwrap()
}

#[test]
fn gzip_bomb_stops_at_the_limit() {
    let bomb = gzip_bomb(b"", 200 << 20);
    assert!(bomb.len() < 1 << 20, "the bomb is small: {}", bomb.len());
    assert_eq!(
        parse(&bomb, &SitemapLimits::default()),
        Err(SitemapError::TooLarge {
            limit: MAX_SITEMAP_BYTES
        })
    );
    // Entries before the limit are kept.
    let limits = SitemapLimits {
        max_bytes: 1 << 20,
        ..SitemapLimits::default()
    };
    let bomb = gzip_bomb(
        b"<urlset><url><loc>https://example.com/</loc></url><url><loc>",
        200 << 20,
    );
    let sitemap = parse(&bomb, &limits).unwrap();
    assert_eq!(pages(&sitemap), ["https://example.com/"]);
    assert_eq!(
        sitemap.stopped,
        Some(SitemapError::TooLarge { limit: 1 << 20 })
    );
}

#[test]
fn size_limit_applies_to_plain_bodies() {
    let body = format!("<urlset>{}</urlset>", " ".repeat(100));
    let limits = SitemapLimits {
        max_bytes: 50,
        ..SitemapLimits::default()
    };
    assert_eq!(
        parse(body.as_bytes(), &limits),
        Err(SitemapError::TooLarge { limit: 50 })
    );
    let limits = SitemapLimits {
        max_bytes: body.len() as u64,
        ..SitemapLimits::default()
    };
    assert!(
        parse(body.as_bytes(), &limits).is_ok(),
        "exactly at the limit"
    );
}
