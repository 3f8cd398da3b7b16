//! Page chrome left out of snippets, on hand-written pages of five kinds of sites
//! (`fixtures/`): a docs site with `div` menus, a manual with breadcrumbs and a language bar,
//! rustdoc with its widgets, an mdBook with a theme picker, and a blog with a skip link.
//! Each fixture is one site's page layout; `{TITLE}` and `{CONTENT}` (and `{LANG}`, a
//! language the page is also in) vary from page to page, as they do on a real site.

use super::HostTemplate;
use super::blocks::block_hash;
use super::{PageText, extract, extract_with};
use crate::template::{TemplateLearner, offer_static};
use index_format::BODY_START_BYTES;
use shared::record::{CompressedBody, PageRecord};

const DIV_MENU_DOCS: &str = include_str!("fixtures/div_menu_docs.html");
const MANUAL_BREADCRUMBS: &str = include_str!("fixtures/manual_breadcrumbs.html");
const RUSTDOC_WIDGETS: &str = include_str!("fixtures/rustdoc_widgets.html");
const MDBOOK_THEME_PICKER: &str = include_str!("fixtures/mdbook_theme_picker.html");
const BLOG_SKIP_LINK: &str = include_str!("fixtures/blog_skip_link.html");

/// Page `i` of a site laid out as `fixture`.
fn page(fixture: &str, i: usize) -> String {
    let languages = ["es", "fr", "ko", "pt", "ru", "tr", "zh", "it", "nl", "pl"];
    fixture
        .replace("{TITLE}", &format!("Title{i}"))
        .replace(
            "{CONTENT}",
            &format!("Content{i} explains how the frobnicator works, in full sentences."),
        )
        .replace("{LANG}", languages[i % languages.len()])
}

/// The template learned from eight pages of the site.
fn learned(fixture: &str) -> HostTemplate {
    let mut learner = TemplateLearner::new();
    for i in 0..8 {
        let html = page(fixture, i);
        offer_static(
            &mut learner,
            &PageRecord {
                url: format!("http://site.test/page{i}.html"),
                status: 200,
                body: CompressedBody::compress(&html),
                body_len: html.len() as u64,
                ..PageRecord::default()
            },
        );
    }
    (*learner.finish().of_url("http://site.test/new.html")).clone()
}

/// Page 9 of the site, its host's template left out; its snippet source starts with
/// `starts`, the page's own text, and none of `chrome` is before its content.
fn check(fixture: &str, starts: &str, chrome: &[&str]) -> PageText {
    let template = learned(fixture);
    let text = extract_with(&page(fixture, 9), &template);
    let source = text.snippet_source(BODY_START_BYTES);
    assert!(
        source.starts_with(starts),
        "snippet source starts {:?}, not {starts:?}",
        &source[..source.len().min(160)]
    );
    let content = source.find("Content9").expect("the content is there");
    for words in chrome {
        if let Some(at) = source.find(words) {
            assert!(
                at > content,
                "{words:?} comes before the content: {source:?}"
            );
        }
    }
    text
}

#[test]
fn a_docs_site_with_div_menus_and_a_search_picker() {
    let text = check(
        DIV_MENU_DOCS,
        "Title9 1. Title9 syntax Content9 explains",
        &[
            "Small. Fast.",
            "Home",
            "Search Documentation",
            "Go",
            "public domain",
        ],
    );
    // The tagline, the menu (its unclosed items each inside the one before, as a parser
    // without a tree reads them) and the footer are the template: out of the searchable
    // body too.
    assert!(!text.body.contains("Choose any three"), "{}", text.body);
    assert!(!text.body.contains("last modified"), "{}", text.body);
    assert!(!text.body.contains("Search Changelog"), "{}", text.body);
    assert!(!text.body.contains("Download"), "{}", text.body);
    // Without a template, the menu is link-dense: kept, behind the content.
    let alone = extract(&page(DIV_MENU_DOCS, 9));
    let source = alone.snippet_source(BODY_START_BYTES);
    assert!(
        source.find("Content9") < source.find("Documentation Download"),
        "{source}"
    );
}

#[test]
fn a_manual_with_breadcrumbs_and_a_language_bar() {
    let text = check(
        MANUAL_BREADCRUMBS,
        "Title9 Content9 explains",
        &[
            "Modules | Directives",
            "HTTP Server > Documentation",
            "Available Languages",
            "Section one",
            "Copyright",
        ],
    );
    // The language bar differs from page to page (not the template) but is link-dense.
    assert!(text.body.contains("Available Languages"), "{}", text.body);
    assert!(!text.body.contains("Copyright 2025"), "{}", text.body);
    // A sentence with one link is prose, in its place.
    let source = text.snippet_source(BODY_START_BYTES);
    assert!(
        source.contains("full sentences. The Title9 directive is described below"),
        "{source}"
    );
}

#[test]
fn rustdoc_with_its_search_settings_and_toggles() {
    check(
        RUSTDOC_WIDGETS,
        "Title9 Struct Title9 1.0.0 · Source Content9 explains",
        &[
            "Skip to",
            "Expand description",
            "Settings",
            "Copy item path",
            "std::",
        ],
    );
}

#[test]
fn an_mdbook_with_a_theme_picker_and_shortcuts() {
    let text = check(
        MDBOOK_THEME_PICKER,
        "Title9 Content9 explains",
        &[
            "Keyboard shortcuts",
            "Toggle Table",
            "Change theme",
            "Navy",
            "The Example Book",
        ],
    );
    assert!(!text.body.contains("Navy"), "{}", text.body);
    assert!(!text.body.contains("Keyboard shortcuts"), "{}", text.body);
}

#[test]
fn a_blog_with_a_skip_link_banner_crumbs_and_theme_picker() {
    let text = check(
        BLOG_SKIP_LINK,
        "Title9 Content9 explains",
        &[
            "Jump to",
            "Notes on things",
            "Home / Posts",
            "Theme",
            "Dark",
            "★",
            "©",
        ],
    );
    // Structure alone does it, without a template.
    let alone = extract(&page(BLOG_SKIP_LINK, 9));
    assert!(
        alone
            .snippet_source(BODY_START_BYTES)
            .starts_with("Title9 Content9")
    );
    // The tag line is on every page: the template.
    assert!(alone.body.contains("Posted in a, b, c."));
    assert!(!text.body.contains("Posted in"), "{}", text.body);
}

#[test]
fn a_table_of_contents_stays_searchable_and_shows_in_snippets() {
    let toc = "<h1>Contents</h1><ul>\
               <li><a href=a.html>Installing the frobnicator</a></li>\
               <li><a href=b.html>Configuring it</a></li>\
               <li><a href=c.html>Running it in production</a></li></ul>";
    let text = extract(toc);
    assert_eq!(
        text.body,
        "Contents Installing the frobnicator Configuring it Running it in production"
    );
    assert_eq!(text.link_dense.len(), 1);
    assert_eq!(text.snippet_source(BODY_START_BYTES), text.body);
}

#[test]
fn link_density_needs_links_and_link_text() {
    // Two links in a sentence: prose. Three links and little else: a menu.
    let prose = extract(
        "<p>Read <a href=a>the guide</a> and <a href=b>the FAQ</a> before you file a bug \
         report about the frobnicator.</p><p>More.</p>",
    );
    assert!(prose.link_dense.is_empty());
    let menu =
        extract("<p><a href=a>Home</a> | <a href=b>Docs</a> | <a href=c>Blog</a></p><p>Text.</p>");
    assert_eq!(
        menu.snippet_source(BODY_START_BYTES),
        "Text. Home | Docs | Blog"
    );
    // Links without href (anchors) are not links.
    let anchors = extract("<p><a name=a>One</a> <a name=b>Two</a> <a id=c>Three</a></p><p>x</p>");
    assert!(anchors.link_dense.is_empty());
}

#[test]
fn chrome_roles_widgets_and_hidden_text_are_left_out() {
    let got = extract(
        "<div role=banner>Banner</div><div role='menubar'>File Edit</div>\
         <ul role=tablist><li>Tab one</li></ul><div role=tabpanel>Panel text</div>\
         <div role=search>Find</div><div role=dialog>Settings dialog</div>\
         <span aria-hidden=true>icon</span><span aria-hidden=false>seen</span>\
         <form><label for=x>Label</label><input id=x><select><option>Opt</option></select>\
         <textarea>typed</textarea></form><dialog>Modal</dialog>\
         <div role=contentinfo>Footer</div><div role=complementary>Aside</div>",
    );
    assert_eq!(got.body, "Panel text seen");
}

#[test]
fn a_heading_linking_to_itself_is_no_skip_link() {
    let got = extract("<h1><a href='#intro'>Introduction</a></h1><p>Text.</p>");
    assert_eq!(got.body, "Introduction Text.");
    let got = extract("<a href='#main'>Skip</a><p>Text <a href='#n'>note</a>.</p>");
    assert_eq!(got.body, "Text note.");
}

#[test]
fn template_blocks_are_left_out_wherever_they_are() {
    let template = HostTemplate::new(vec![
        block_hash("Home Docs Blog"),
        block_hash("Footer text"),
    ]);
    let got = extract_with(
        "<div>Home Docs Blog</div><main><p>Own <b>text</b>.</p><pre>code</pre></main>\
         <div><p>Footer text</p></div><div>Home Docs Blog and more</div>",
        &template,
    );
    assert_eq!(got.body, "Own text. code Home Docs Blog and more");
    assert_eq!(
        got.template_bytes,
        "Home Docs Blog".len() + " Footer text".len()
    );
    // "Own", "text" and "." (split by the inline element), "code".
    assert_eq!(got.content_words(), 4);
    assert_eq!(got.code_bytes, " code".len());
}

#[test]
fn a_removed_block_takes_its_code_and_words_with_it() {
    let template = HostTemplate::new(vec![block_hash("shared listing")]);
    let got = extract_with(
        "<main><p>mine</p><div><pre>shared listing</pre></div></main>",
        &template,
    );
    assert_eq!(got.body, "mine");
    assert_eq!(got.code_bytes, 0);
    assert_eq!(got.content_words(), 1);
}

#[test]
fn the_snippet_source_is_cut_at_a_character() {
    let page = format!("<p>a{}</p>", "é".repeat(BODY_START_BYTES));
    let source = extract(&page).snippet_source(BODY_START_BYTES);
    assert_eq!(source.len(), BODY_START_BYTES - 1);
    assert!(source.ends_with('é'));
    let menu = extract("<p>body</p><p><a href=a>x</a><a href=b>y</a><a href=c>z</a></p>");
    assert_eq!(menu.snippet_source(6), "body x");
    assert_eq!(menu.snippet_source(3), "bod");
}

#[test]
fn deep_and_unclosed_blocks_stay_bounded() {
    let nested = "<div><a href=x>link</a>".repeat(5_000) + "bottom";
    let got = extract(&nested);
    assert!(got.body.ends_with("bottom"));
    let lists = "<ul><li><a href=a>A</a><li><a href=b>B</a><li><a href=c>C</a></ul><p>after</p>";
    let got = extract(lists);
    assert_eq!(got.snippet_source(BODY_START_BYTES), "after A B C");
}

#[test]
fn a_template_block_inside_a_link_dense_one_and_headings() {
    let template = HostTemplate::new(vec![
        block_hash("Home"),
        block_hash("Synopsis"),
        block_hash("Shared footer"),
        block_hash("Syntax:"),
    ]);
    let got = extract_with(
        "<p>Own text.</p><ul><li><a href=/>Home</a></li><li><a href=/a>Alpha</a></li>\
         <li><a href=/b>Beta</a></li><li><a href=/c>Gamma</a></li></ul>\
         <h2>Synopsis</h2><p>More.</p><div>Shared footer</div>\
         <table><tr><th>Syntax:</th><td>x</td></tr></table><dl><dt>Syntax:</dt><dd>y</dd></dl>",
        &template,
    );
    // "Home" is taken out of the list, which stays link-dense; a heading or a label is
    // never template.
    assert_eq!(
        got.body,
        "Own text. Alpha Beta Gamma Synopsis More. Syntax: x Syntax: y"
    );
    assert_eq!(
        got.snippet_source(BODY_START_BYTES),
        "Own text. Synopsis More. Syntax: x Syntax: y Alpha Beta Gamma"
    );
    // A template block at the very start leaves no space in front.
    let got = extract_with("<div>Home</div><p>Text.</p>", &template);
    assert_eq!(got.body, "Text.");
}

#[test]
fn sections_move_with_the_text_when_template_blocks_go() {
    let template = HostTemplate::new(vec![
        block_hash("Site menu here"),
        block_hash("Inside Footer"),
    ]);
    let got = extract_with(
        "<div>Site menu here</div><h2>Install</h2><p>run it</p>\
         <div><h3>Inside</h3>Footer</div><h3>Use</h3><p>call it</p>",
        &template,
    );
    let starts: Vec<&str> = got
        .section_starts
        .iter()
        .map(|&at| got.body[at..].trim_start())
        .collect();
    // The template's menu before the first section and the block holding a heading go; the
    // other sections start where their headings now are.
    assert_eq!(got.body, "Install run it Use call it");
    assert_eq!(starts, ["Install run it Use call it", "Use call it"]);
}
