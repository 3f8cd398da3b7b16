//! The rewriter of cached copies, case by case: what a link becomes, what goes, and that no
//! input makes it panic.

use super::*;

/// The address every case's page was stored under.
const PAGE: &str = "http://a.test/dir/page.html";

/// The rewritten document, parsed as the copy's frame would parse it.
fn shown(html: &str) -> scraper::Html {
    let document = rewrite(html, PAGE).unwrap_or_else(|e| panic!("{html:?}: {e}"));
    scraper::Html::parse_document(&document)
}

/// The elements of `document` named `name`, in order.
fn elements<'a>(
    document: &'a scraper::Html,
    name: &'a str,
) -> impl Iterator<Item = &'a scraper::node::Element> + 'a {
    document
        .tree
        .nodes()
        .filter_map(|node| node.value().as_element())
        .filter(move |element| element.name() == name)
}

/// What the one `<a>` of `html` becomes: its `href`, `target` and `rel`.
fn one_link(html: &str) -> (Option<String>, Option<String>, Option<String>) {
    let document = shown(html);
    let links: Vec<_> = elements(&document, "a").collect();
    assert_eq!(links.len(), 1, "{html:?}");
    let attr = |name| links[0].attr(name).map(str::to_string);
    (attr("href"), attr("target"), attr("rel"))
}

/// `href` (as written in the source) becomes `expected`, opening a new tab; `None`: no
/// `href`, no `target`.
fn check_link(href: &str, expected: Option<&str>) {
    let (got, target, rel) = one_link(&format!("<p><a href=\"{href}\">x</a></p>"));
    assert_eq!(got.as_deref(), expected, "href={href:?}");
    match expected {
        Some(_) => {
            assert_eq!(target.as_deref(), Some("_blank"), "{href:?}");
            assert_eq!(rel.as_deref(), Some("noopener noreferrer"), "{href:?}");
        }
        None => assert_eq!(target, None, "{href:?}"),
    }
}

#[test]
fn links_become_absolute_and_open_a_new_tab() {
    for (href, expected) in [
        ("next.html", "http://a.test/dir/next.html"),
        ("../up.html", "http://a.test/up.html"),
        ("/root?q=1", "http://a.test/root?q=1"),
        ("//b.test/x", "http://b.test/x"),
        ("https://c.test/y?a=1&amp;b=2", "https://c.test/y?a=1&b=2"),
        ("?page=2", "http://a.test/dir/page.html?page=2"),
        ("#top", "http://a.test/dir/page.html#top"),
        ("", "http://a.test/dir/page.html"),
        ("  spaced.html\t", "http://a.test/dir/spaced.html"),
        ("HTTP://D.test/Z", "http://d.test/Z"),
        ("&#x2F;entity", "http://a.test/entity"),
        ("with space.html", "http://a.test/dir/with%20space.html"),
    ] {
        check_link(href, Some(expected));
    }
}

#[test]
fn other_schemes_and_unparsable_links_lose_their_href() {
    for href in [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " \tjava\nscript:alert(1)",
        "java&#x09;script:alert(1)",
        "&#106;avascript:alert(1)",
        "&#x6A;avascript&colon;alert(1)",
        "&#0000106&#0000097vascript:alert(1)",
        "jav&Tab;ascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "mailto:someone@a.test",
        "http://[::1",
        "http://exa mple.test/",
    ] {
        check_link(href, None);
    }
}

#[test]
fn single_quoted_and_unquoted_hrefs_are_read_like_double_quoted_ones() {
    let (href, _, _) = one_link("<a href='say\"hi\".html'>x</a>");
    assert_eq!(href.as_deref(), Some("http://a.test/dir/say%22hi%22.html"));
    let (href, _, _) = one_link("<a href=javascript:alert(1)>x</a>");
    assert_eq!(href, None);
}

#[test]
fn the_first_of_duplicate_hrefs_decides_and_none_survives_it() {
    let (href, _, _) = one_link("<a href=\"javascript:a()\" href=\"ok.html\">x</a>");
    assert_eq!(href, None, "a browser obeys the first");
    let (href, _, _) = one_link("<a href=\"ok.html\" href=\"javascript:a()\">x</a>");
    assert_eq!(href.as_deref(), Some("http://a.test/dir/ok.html"));
}

#[test]
fn the_pages_base_href_decides_when_it_is_http() {
    let html = "<head><base href=\"https://cdn.test/base/\"></head><a href=\"x.html\">x</a>";
    assert_eq!(
        one_link(html).0.as_deref(),
        Some("https://cdn.test/base/x.html")
    );
    // A base later in the page counts for the links before it, as in a browser.
    let html = "<a href=\"x.html\">x</a><base href=\"/other/\">";
    assert_eq!(
        one_link(html).0.as_deref(),
        Some("http://a.test/other/x.html")
    );
    for base in ["javascript:alert(1)//", "data:text/html,x/", "http://[bad/"] {
        let html = format!("<base href=\"{base}\"><a href=\"x.html\">x</a>");
        assert_eq!(
            one_link(&html).0.as_deref(),
            Some("http://a.test/dir/x.html"),
            "{base}"
        );
    }
}

#[test]
fn our_base_comes_first_and_the_pages_go() {
    let html = "<html><head><base href=\"https://cdn.test/b/\" target=\"_self\">\
                <base href=\"https://two.test/\"></head><body><img src=\"i.png\"></body></html>";
    let document = rewrite(html, PAGE).expect("rewritten");
    assert!(
        document.starts_with("<base href=\"https://cdn.test/b/\" target=\"_blank\">"),
        "{document}"
    );
    assert_eq!(elements(&shown(html), "base").count(), 1, "{document}");
    assert!(document.contains("<img src=\"i.png\">"), "{document}");
}

#[test]
fn svg_links_are_rewritten_too() {
    let document = shown(
        "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a>\
         <a href=\"p.html\"><text>y</text></a></svg>",
    );
    let links: Vec<_> = elements(&document, "a").collect();
    assert_eq!(links.len(), 2);
    assert!(
        links[0].attrs().all(|(name, _)| !name.ends_with("href")),
        "{:?}",
        links[0]
    );
    assert_eq!(links[1].attr("href"), Some("http://a.test/dir/p.html"));
}

#[test]
fn area_links_follow_the_same_rules() {
    let document =
        shown("<map name=m><area href=\"a.html\" alt=a><area href=\"javascript:x()\" alt=b></map>");
    let areas: Vec<_> = elements(&document, "area").collect();
    assert_eq!(areas[0].attr("href"), Some("http://a.test/dir/a.html"));
    assert_eq!(areas[0].attr("target"), Some("_blank"));
    assert_eq!(areas[1].attr("href"), None);
}

#[test]
fn active_elements_are_removed_with_their_content() {
    let html = "<head><meta http-equiv=\"refresh\" content=\"0;url=http://elsewhere.test/\">\
                <META HTTP-EQUIV=Refresh CONTENT=\"5\">\
                <meta http-equiv=\"set-cookie\" content=\"a=b\">\
                <meta name=\"referrer\" content=\"unsafe-url\">\
                <meta charset=\"utf-8\"><meta name=\"description\" content=\"kept\">\
                <script>alert('head')</script><script src=\"x.js\"></script>\
                <link rel=\"stylesheet\" href=\"s.css\"><link rel=\"prefetch\" href=\"p\">\
                <link rel=\"preload\" href=\"q\" as=\"script\"></head>\
                <body><p>kept text</p><noscript><a href=\"javascript:x\">n</a></noscript>\
                <iframe src=\"http://evil.test/\">fallback</iframe><frame src=\"f.html\">\
                <object data=\"o.swf\"><param name=a value=b>inner</object>\
                <embed src=\"e.swf\"><applet code=\"A\"></applet>\
                <svg><script>alert('svg')</script>\
                <animate attributeName=\"href\" to=\"javascript:alert(1)\"/>\
                <set attributeName=\"href\" to=\"javascript:alert(1)\"/></svg>\
                <p>after the svg</p><set>an unknown HTML element</set></body>";
    let document = rewrite(html, PAGE).expect("rewritten");
    let lowered = document.to_ascii_lowercase();
    for gone in [
        "http-equiv",
        "refresh",
        "set-cookie",
        "unsafe-url",
        "<script",
        "alert(",
        "x.js",
        "prefetch",
        "preload",
        "<noscript",
        "<iframe",
        "evil.test",
        "fallback",
        "<frame",
        "<object",
        "o.swf",
        "<embed",
        "<applet",
        "<animate",
        "<set attributename",
        "javascript:",
    ] {
        assert!(!lowered.contains(gone), "{gone:?} left in {document}");
    }
    for kept in [
        "<meta charset=\"utf-8\">",
        "<meta name=\"description\" content=\"kept\">",
        "<link rel=\"stylesheet\" href=\"s.css\">",
        "<p>kept text</p>",
        "<p>after the svg</p>",
        "<set>an unknown HTML element</set>",
    ] {
        assert!(document.contains(kept), "{kept:?} lost from {document}");
    }
}

#[test]
fn event_handlers_and_acting_attributes_are_removed() {
    let html = "<body onload=\"a()\" ONUNLOAD=\"b()\"><img src=\"i.png\" onerror=\"c()\" \
                alt=\"kelp\"><input autofocus onfocus=\"d()\" name=q>\
                <form action=\"https://evil.test/steal\" target=\"_top\" method=\"post\">\
                <button formaction=\"javascript:e()\" formtarget=\"_top\">go</button></form>\
                <a href=\"x.html\" ping=\"https://evil.test/ping\" onclick=\"f()\">x</a>\
                <img src=\"j.png\" referrerpolicy=\"unsafe-url\">\
                <div srcdoc=\"&lt;script&gt;\" onmouseover=\"g()\">kept</div></body>";
    let document = rewrite(html, PAGE).expect("rewritten");
    let lowered = document.to_ascii_lowercase();
    for gone in [
        "onload",
        "onunload",
        "onerror",
        "onfocus",
        "autofocus",
        "onclick",
        "onmouseover",
        "action=",
        "evil.test",
        "formtarget",
        "_top",
        "javascript:",
        "ping",
        "referrerpolicy",
        "srcdoc",
    ] {
        assert!(!lowered.contains(gone), "{gone:?} left in {document}");
    }
    for kept in [
        "<img src=\"i.png\" alt=\"kelp\">",
        "<input name=q>",
        "<form method=\"post\">",
        "<div>kept</div>",
    ] {
        assert!(document.contains(kept), "{kept:?} lost from {document}");
    }
}

#[test]
fn markup_a_tokenizer_cannot_read_unambiguously_is_an_error() {
    // In a browser `<xmp>` is ignored inside `<select>` and the script runs; a tokenizer
    // without the tree cannot know, so lol_html's strict mode refuses.
    let error = rewrite("<select><xmp><script>alert(1)</script></select>", PAGE)
        .expect_err("ambiguous markup");
    assert!(matches!(error, RewriteError::Markup(_)), "{error}");
}

#[test]
fn a_page_address_that_is_not_http_is_an_error() {
    for url in ["file:///tmp/x.html", "not a url"] {
        assert!(
            matches!(rewrite("<p>x</p>", url), Err(RewriteError::PageUrl(_))),
            "{url}"
        );
    }
}

#[test]
fn malformed_html_never_panics() {
    let pieces = [
        "<a href=\"",
        "<a href='x",
        "<",
        "</",
        "<!--",
        "-->",
        "<![CDATA[",
        "]]>",
        "<script>",
        "</script>",
        "<svg>",
        "<math>",
        "<style>",
        "</style>",
        "<textarea>",
        "<title>",
        "<noscript>",
        "<template>",
        "<select>",
        "<frameset>",
        "<base href=x>",
        "&",
        "&#",
        "&#x110000;",
        "&amp",
        "\0",
        "\u{FFFD}",
        "é",
        "<a href=javascript:x>",
        "<meta ",
        "http-equiv=refresh ",
        "content=\"0;url=x\">",
        "<plaintext>",
        "<!DOCTYPE html>",
        "\"",
        "'",
        "=",
        ">",
        " onerror=x ",
        "<img",
        "<table><tr><td>",
        "</p>",
    ];
    // A deterministic pseudo-random walk over the pieces: thousands of malformed pages.
    let mut seed: u64 = 0x5eed;
    for _ in 0..2_000 {
        let mut html = String::new();
        for _ in 0..40 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            html.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
        }
        // Either rewritten (behind our base) or refused: never a panic.
        if let Ok(document) = rewrite(&html, PAGE) {
            assert!(document.starts_with("<base href="), "{html:?}");
        }
    }
}
