//! Extraction, case by case: links (the limit, `<base>`, anchors, `<noscript>`), robots
//! META, keywords and refresh, canonical URLs (tag and header), text hashes and the main
//! text, broken HTML.

use super::*;

fn page(html: &str) -> Extracted {
    extract(
        html,
        &Url::parse("http://a.test/dir/page.html").unwrap(),
        "siftbot",
    )
}

#[test]
fn a_big_index_page_keeps_its_links_up_to_the_limit() {
    let links = |n: usize| -> String {
        (0..n)
            .map(|i| format!("<a href=\"/item/{i}.html\">item {i}</a>\n"))
            .collect()
    };
    // As big as the Rust docs' core/all.html: every link kept.
    assert_eq!(page(&links(26_109)).links.len(), 26_109);
    assert_eq!(page(&links(MAX_LINKS + 7)).links.len(), MAX_LINKS);
}

#[test]
fn links_back_to_the_page_itself_are_dropped_before_the_limit_counts() {
    let targets = |got: &Extracted| -> Vec<String> {
        got.links.iter().map(|l| l.target.to_string()).collect()
    };
    let got = page(
        r##"<a href="#top">top</a> <a href=" #L12">12</a> <a href="">here</a>
           <a href="page.html?">again</a> <a href="http://A.test:80/dir/page.html#x">same</a>
           <a href="page.html?v=2">a version</a> <a href="other.html#top">other</a>"##,
    );
    assert_eq!(
        targets(&got),
        [
            "http://a.test/dir/page.html?v=2",
            "http://a.test/dir/other.html"
        ]
    );
    // A `<base>` elsewhere makes a fragment lead to the base's page.
    let based = page(r##"<head><base href="http://b.test/root/"></head><a href="#x">x</a>"##);
    assert_eq!(targets(&based), ["http://b.test/root/"]);
    // A source page's line numbers do not use up the limit before its real links.
    let mut html: String = (0..MAX_LINKS + 10)
        .map(|i| format!("<a href=\"#{i}\">{i}</a>\n"))
        .collect();
    html.push_str(r#"<a href="next.html">next</a>"#);
    assert_eq!(targets(&page(&html)), ["http://a.test/dir/next.html"]);
}

#[test]
fn links_resolve_against_base_and_page() {
    let got = page(
        r#"<html><head><title> My
           Page </title></head><body>
           <a href="other.html">Other   page</a>
           <a href="../up.html#frag"><img alt="Up"></a>
           <a href="mailto:x@y.z">mail</a>
           <a href="/x" rel="nofollow ugc">paid</a>
           <a href="javascript:void(0)">js</a>
           </body></html>"#,
    );
    assert_eq!(got.title, "My Page");
    let links: Vec<_> = got
        .links
        .iter()
        .map(|l| (l.target.as_str(), l.anchor.as_str(), l.nofollow))
        .collect();
    assert_eq!(
        links,
        vec![
            ("http://a.test/dir/other.html", "Other page", false),
            ("http://a.test/up.html", "Up", false),
            ("http://a.test/x", "paid", true),
        ]
    );

    let based = page(r#"<head><base href="http://b.test/root/"></head><a href="x.html">x</a>"#);
    assert_eq!(based.links[0].target.as_str(), "http://b.test/root/x.html");
}

#[test]
fn robots_meta() {
    let got = page(
        r#"<meta name="ROBOTS" content="NoIndex"><meta name="siftbot" content="nofollow"><meta name="otherbot" content="noarchive"><a href="a">a</a>"#,
    );
    assert!(got.robots.noindex && got.robots.nofollow && !got.robots.noarchive);
    assert!(
        got.links[0].nofollow,
        "a nofollow page's links are nofollow"
    );
    assert!(
        page(r#"<meta name="robots" content="none">"#)
            .robots
            .noindex
    );

    let mut robots = RobotsDirectives::default();
    apply_robots_header(&mut robots, "otherbot: noindex", "siftbot");
    assert!(!robots.noindex);
    apply_robots_header(&mut robots, "SiftBot: noarchive, nosnippet", "siftbot");
    apply_robots_header(&mut robots, "unavailable_after: 2030-01-01", "siftbot");
    assert!(robots.noarchive && robots.nosnippet && !robots.noindex);
}

#[test]
fn robots_meta_most_restrictive_wins() {
    // Our own group never lifts what `robots` asked, nor the other way round.
    let got = page(
        r#"<meta name="robots" content="noindex"><meta name="SIFTBOT" content="all, index, follow"><a href="a">a</a>"#,
    );
    assert!(got.robots.noindex && !got.robots.nofollow);
    assert!(
        !got.links[0].nofollow,
        "noindex alone never stops link-following"
    );
    let got = page(
        r#"<meta name="robots" content="all"><meta name="siftbot" content="NOFOLLOW noarchive">"#,
    );
    assert!(got.robots.nofollow && got.robots.noarchive && !got.robots.noindex);
    let got = page(r#"<meta name="robots" content="index,follow">"#);
    assert_eq!(got.robots, RobotsDirectives::default());
}

#[test]
fn keywords_revisit_after_and_refresh() {
    let got = page(
        r#"<head><meta name="Keywords" content="tides,  shore birds"><meta name="revisit-after" content="7 days">
           <meta http-equiv="Refresh" content="0; URL='../moved.html'"></head>"#,
    );
    assert_eq!(got.keywords, "tides, shore birds");
    assert_eq!(got.revisit_after_secs, Some(7 * 86_400));
    assert_eq!(got.refresh_to.as_deref(), Some("http://a.test/moved.html"));

    for (content, secs) in [
        ("14", Some(14 * 86_400)),
        ("2 Weeks", Some(14 * 86_400)),
        ("1 month", Some(30 * 86_400)),
        ("12 hours", Some(12 * 3_600)),
        ("soon", None),
        ("0 days", None),
        ("99999999999999999999 years", None),
    ] {
        assert_eq!(parse_revisit_after(content), secs, "{content}");
    }
    for (content, target) in [
        ("0;url=next.html", Some("next.html")),
        ("5, URL=\"next.html\"", Some("next.html")),
        ("3; /plain", Some("/plain")),
        ("30", None),
        ("0; url=", None),
    ] {
        assert_eq!(refresh_target(content), target, "{content}");
    }
    let self_refresh = page(r#"<meta http-equiv="refresh" content="30; url=page.html">"#);
    assert_eq!(self_refresh.refresh_to, None, "a reload is no redirect");
}

#[test]
fn canonical_link() {
    let canonical = |head: &str| page(&format!("<head>{head}</head><p>x</p>")).canonical;
    for (head, expected) in [
        (
            r#"<link rel="canonical" href="../Article?utm_source=x#top">"#,
            Some("http://a.test/Article"),
        ),
        (
            r#"<link rel="canonical foo" href="/a">"#,
            Some("http://a.test/a"),
        ),
        (
            r#"<LINK REL="Foo CANONICAL" HREF="HTTP://B.test:80/a">"#,
            Some("http://b.test/a"),
        ),
        (
            r#"<link rel="canonical" href="/first"><link rel="canonical" href="/second">"#,
            Some("http://a.test/first"),
        ),
        (
            r#"<link rel="stylesheet" href="s.css"><link rel="canonical" href="/a">"#,
            Some("http://a.test/a"),
        ),
        (
            r#"<link rel="canonical" href="javascript:void(0)"><link rel="canonical" href="/a">"#,
            None,
        ),
        (r#"<link rel="canonical" href="mailto:x@a.test">"#, None),
        (r#"<link rel="canonical" href="http://[broken/">"#, None),
        (
            r#"<link rel="canonicalize" href="/a"><link rel="alternate" href="/b">"#,
            None,
        ),
        ("", None),
    ] {
        assert_eq!(canonical(head).as_deref(), expected, "{head}");
    }
    let too_long = format!(r#"<link rel="canonical" href="/{}">"#, "x".repeat(2000));
    assert_eq!(canonical(&too_long), None);

    let based = page(
        r#"<head><base href="http://b.test/root/"><link rel="canonical" href="c.html"></head>"#,
    );
    assert_eq!(
        based.canonical.as_deref(),
        Some("http://b.test/root/c.html")
    );
    let in_body = page(
        r#"<head><title>t</title></head><body><p>x</p><link rel="canonical" href="/a"></body>"#,
    );
    assert_eq!(
        in_body.canonical, None,
        "a canonical link in the body is ignored"
    );
}

#[test]
fn canonical_link_header_is_the_fallback() {
    let url = Url::parse("http://a.test/dir/page.html").unwrap();
    let with = |values: &[&str], html: Option<&str>| {
        let headers: Vec<(String, String)> = values
            .iter()
            .map(|v| ("link".to_string(), v.to_string()))
            .collect();
        canonical_with_header(html.map(String::from), &headers, &url)
    };
    for (value, expected) in [
        (
            r#"<http://a.test/c>; rel="canonical""#,
            Some("http://a.test/c"),
        ),
        (
            r#"<other.html>; REL=Canonical"#,
            Some("http://a.test/dir/other.html"),
        ),
        (
            r#"</s.css>; rel=preload; as="style, font", </c>; rel="foo canonical""#,
            Some("http://a.test/c"),
        ),
        (
            r#"</a>; title="x;y, z", </b>; rel=canonical"#,
            Some("http://a.test/b"),
        ),
        (r#"</a>; rel="alternate", </b>; rel="next""#, None),
        (r#"<javascript:alert(1)>; rel="canonical""#, None),
        (r#"</a; rel="canonical""#, None),
        (r#"rel="canonical""#, None),
    ] {
        assert_eq!(with(&[value], None).as_deref(), expected, "{value}");
    }
    assert_eq!(
        with(&[r#"</a>; rel="next""#, r#"</b>; rel=canonical"#], None).as_deref(),
        Some("http://a.test/b"),
        "a later Link header counts too"
    );
    assert_eq!(
        with(&[r#"</b>; rel=canonical"#], Some("http://a.test/html")).as_deref(),
        Some("http://a.test/html"),
        "the HTML wins"
    );
    let many = format!(
        "{}</late>; rel=canonical",
        "</x>; rel=next, ".repeat(MAX_HEADER_LINKS)
    );
    assert_eq!(with(&[many.as_str()], None), None, "bounded in links");
    let long = format!(
        "</x>; title=\"{}\", </late>; rel=canonical",
        "é".repeat(MAX_LINK_HEADER_BYTES)
    );
    assert_eq!(with(&[long.as_str()], None), None, "bounded in bytes");
}

#[test]
fn text_hash_ignores_markup_and_scripts() {
    let a = page("<p>Hello   <b>world</b></p><script>var x = 1;</script>");
    let b = page("<div>Hello\nworld</div><script>var y = 2;</script>");
    assert_eq!(a.text_hash, b.text_hash);
    assert_ne!(a.text_hash, page("<p>Hello there</p>").text_hash);
}

#[test]
fn broken_html_is_read_as_far_as_possible() {
    let got = page("<p><a href='x'>x<a href=\"y\">y</div></p>\u{0}<b><i>");
    assert!(got.links.iter().any(|l| l.target.as_str().ends_with("/y")));
}

/// The visible text of a page, as the tree builder would see it.
fn visible(html: &str) -> u64 {
    page(html).text_hash
}

#[test]
fn text_is_read_as_the_tree_builder_reads_it() {
    let hash = |text: &str| xxh3_64(text.as_bytes());
    // Words of two text nodes never run together; character references are decoded.
    assert_eq!(
        visible("<p>one<b>two</b>&amp;three</p>"),
        hash("one two &three")
    );
    assert_eq!(visible("one<!-- a comment -->two"), hash("one two"));
    // The head holds no visible text: its title, scripts, styles; text that is not
    // white space ends it, and a start tag that does not belong there too.
    assert_eq!(
        visible("<head><title>T</title><style>p{}</style> \n<meta name=x content=y>Body"),
        hash("Body")
    );
    assert_eq!(
        visible("<title>T</title><div>In</div><title>Two</title>"),
        hash("In Two")
    );
    // Raw text: markup inside a script or a textarea is text.
    assert_eq!(
        visible("<script>if (a<b) { x('<p>no</p>') }</script><textarea><b>yes</b></textarea>"),
        hash("<b>yes</b>")
    );
    // Templates hold no visible text.
    assert_eq!(
        visible("<template><p>hidden</p></template><p>shown</p>"),
        hash("shown")
    );
}

#[test]
fn navigation_and_page_furniture_are_left_out_of_the_main_text() {
    let body = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod \
                tempor incididunt ut labore et dolore magna aliqua ut enim ad minim \
                veniam quis nostrud exercitation ullamco laboris nisi ut aliquip";
    let plain = page(&format!("<main>{body}</main>"));
    let furnished = page(&format!(
        "<header>Site</header><nav><a href=/a>A</a> <a href=/b>B</a></nav>\
         <main>{body}</main><aside>Related</aside><footer>(c) us</footer>"
    ));
    assert!(plain.simhash.is_some());
    assert_eq!(plain.simhash, furnished.simhash);
    assert_ne!(plain.text_hash, furnished.text_hash);
}

#[test]
fn anchors_end_where_a_browser_ends_them() {
    let got = page(
        "<a href=/one>first <b>half</b><a href='/two?a=1&amp;b=2'>second</a> after\
         <a href=/three title=Tip></a><a href=/four><img src=i.png alt='An image'></a>\
         <area href=/five alt=Map><iframe src=/six></iframe>",
    );
    let links: Vec<_> = got
        .links
        .iter()
        .map(|l| (l.target.as_str(), l.anchor.as_str()))
        .collect();
    assert_eq!(
        links,
        vec![
            ("http://a.test/one", "first half"),
            ("http://a.test/two?a=1&b=2", "second"),
            ("http://a.test/three", "Tip"),
            ("http://a.test/four", "An image"),
            ("http://a.test/five", "Map"),
            ("http://a.test/six", ""),
        ]
    );
}

#[test]
fn links_inside_noscript_are_followed_and_its_text_is_not_the_pages() {
    // mdBook's full table of contents, for readers without scripts.
    let got = page(
        "<body><noscript><iframe src=toc.html></iframe><p>Enable scripts</p></noscript>\
         <p>Chapter</p></body>",
    );
    let links: Vec<_> = got.links.iter().map(|l| l.target.as_str()).collect();
    assert_eq!(links, vec!["http://a.test/dir/toc.html"]);
    assert_eq!(got.text_hash, xxh3_64(b"Chapter"));
}

#[test]
fn a_refresh_inside_noscript_is_a_link_not_the_pages_redirect() {
    // A site whose every page sends browsers without scripts to one fallback page: each page
    // is itself, and the fallback page one more link.
    let got = page(
        r#"<html><head><noscript><meta http-equiv="refresh" content="0; url=/noscript.html">
        </noscript><title>Layers</title></head><body><p>Layers hold images.</p></body></html>"#,
    );
    assert_eq!(got.refresh_to, None);
    let links: Vec<_> = got.links.iter().map(|l| l.target.as_str()).collect();
    assert_eq!(links, vec!["http://a.test/noscript.html"]);
    assert_eq!(got.text_hash, xxh3_64(b"Layers hold images."));

    let in_template = page(
        r#"<body><template><meta http-equiv="refresh" content="0; url=/later"></template></body>"#,
    );
    assert_eq!(in_template.refresh_to, None);
    // Outside them a refresh is still the page's redirect, after a fallback one too.
    let both = page(
        r#"<head><noscript><meta http-equiv="refresh" content="0; url=/noscript.html"></noscript>
        <meta http-equiv="refresh" content="0; url=/moved.html"></head>"#,
    );
    assert_eq!(both.refresh_to.as_deref(), Some("http://a.test/moved.html"));
}

#[test]
fn a_canonical_link_counts_only_in_the_head() {
    let after_body_text = page("<head><title>T</title></head>Text<link rel=canonical href=/other>");
    assert_eq!(after_body_text.canonical, None);
    let implied_head = page("<link rel=canonical href=/other><p>Text</p>");
    assert_eq!(
        implied_head.canonical.as_deref(),
        Some("http://a.test/other")
    );
}

#[test]
fn the_images_a_page_shows_are_read_with_their_alt_title_and_surroundings() {
    let got = page(
        r#"<html><head><meta property="og:image" content="/social/card.png"></head><body>
        <p>Before the figure come these words.
        <img src="cat.jpg" alt=" A  sleeping cat " title="Tom"> after the cat more words follow.</p>
        <img srcset="small.png 480w, large.png 1200w, medium.png 800w" alt="responsive">
        <picture><source srcset="pic.webp 1x, pic@2x.webp 2x"><img alt="from its source"></picture>
        <img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
        <img src="cat.jpg" alt="the same cat again">
        <a href="/files/diagram.SVG">the diagram</a> <a href="/files/notes.html">notes</a>
        </body></html>"#,
    );
    let shown: Vec<(&str, &str)> = got
        .images
        .iter()
        .map(|image| (image.target.as_str(), image.alt.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            ("http://a.test/social/card.png", ""),
            ("http://a.test/dir/cat.jpg", "A sleeping cat"),
            ("http://a.test/dir/large.png", "responsive"),
            ("http://a.test/dir/pic@2x.webp", "from its source"),
            ("http://a.test/files/diagram.SVG", "the diagram"),
        ],
        "og:image, src, the widest srcset candidate, a picture's source, a linked image \
         file; no data: URL, each URL once"
    );
    let cat = &got.images[1];
    assert_eq!(cat.title, "Tom");
    assert!(
        cat.context
            .starts_with("Before the figure come these words.")
            && cat.context.contains("after the cat more words follow."),
        "{}",
        cat.context
    );
    assert_eq!(got.links.len(), 2, "a linked image file is a link too");
}

#[test]
fn declared_dates_are_read_where_a_page_means_them() {
    let day = |seconds: Option<i64>| seconds.map(crate::dates::day);
    // JSON-LD in a `<template>` or `<noscript>`, a `<time>` in the page's header or nav,
    // article meta in a `<noscript>`: not the page's. A `<time>` in an article's own header
    // is. A script's text never reaches the page's text.
    let got = page(
        r#"<head><template><script type="application/ld+json">{"datePublished":"2001-01-01"}
           </script></template>
           <noscript><meta property="article:modified_time" content="2002-02-02"></noscript>
           <script type="Application/LD+JSON ">{"dateModified":"2003-03-03"}</script>
           </head><body><header><time datetime="2004-04-04">site</time></header>
           <nav><time datetime="2005-05-05">menu</time></nav>
           <article><header><time datetime="2006-06-06">byline</time></header><p>Text.</p>
           </article></body>"#,
    );
    assert_eq!(day(got.dates.json_ld_published), None);
    assert_eq!(
        day(got.dates.json_ld_modified).as_deref(),
        Some("2003-03-03")
    );
    assert_eq!(got.dates.meta_modified, None);
    assert_eq!(day(got.dates.time_published).as_deref(), Some("2006-06-06"));
    assert_eq!(got.text_bytes, "site menu byline Text.".len());

    // Scripts past the first eight, and a script past 64 KiB, are not read.
    let nine: String = (0..9)
        .map(|i| {
            let date = if i == 8 { "2007-07-07" } else { "not a date" };
            format!(r#"<script type="application/ld+json">{{"datePublished":"{date}"}}</script>"#)
        })
        .collect();
    assert_eq!(page(&nine).dates.json_ld_published, None);
    let padding = "x".repeat(crate::dates::MAX_JSON_LD_BYTES);
    let big = page(&format!(
        r#"<script type="application/ld+json">{{"datePublished":"2008-08-08","p":"{padding}"}}</script>"#
    ));
    assert_eq!(big.dates.json_ld_published, None);
}
