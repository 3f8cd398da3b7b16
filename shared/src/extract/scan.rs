//! One streaming pass over a page with the WHATWG tokenizer of [`crate::html`] (character
//! references decoded as a browser decodes them), without building a document tree: the tree
//! and its allocations were most of a crawl's CPU, and what the crawler reads needs only the
//! few pieces of tree-builder knowledge kept here.
//!
//! What the tree builder would decide and this pass decides alike:
//! - raw text: `<script>`, `<style>`, `<title>`, `<textarea>`, `<iframe>`, `<xmp>`,
//!   `<noembed>`, `<noframes>` and `<plaintext>` switch the tokenizer to their raw states, so
//!   markup inside them is text;
//! - `<noscript>` is read as a browser without scripts reads it (we run none): its markup
//!   counts, so its links are followed (mdBook's only full table of contents is an
//!   `<iframe src=toc.html>` there), and its text is left out of the page's text as before;
//!   a `<meta>` in it is marked [`Meta::in_fallback`] (a refresh there is no redirect of the
//!   page: a browser running scripts never follows it);
//! - the head ends at `</head>`, `<body>`, a start tag that does not belong in a head, or
//!   text other than white space (which then belongs to the body);
//! - a new `<a>` ends the open one (the adoption agency's result for nested links);
//! - a comment or a tag ends a text node: words of two nodes never run together.
//!
//! The page's dates are read in the same pass ([`DeclaredDates`]): JSON-LD scripts (the
//! only script text kept, at most [`MAX_JSON_LD_SCRIPTS`] of [`MAX_JSON_LD_BYTES`] each),
//! `article:` meta properties, and `<time datetime>` in the main content: inside `<article>`
//! or `<main>`, or outside navigation, the page's header and footer, and sidebars.
//!
//! What it does not model: implied end tags of `nav`/`header`/`footer`/`aside` and
//! `template` (each ends at its own end tag or at the end of the page), foreign content
//! (SVG/MathML), and the re-opening of formatting elements.

use crate::dates::{DeclaredDates, MAX_JSON_LD_BYTES};
use crate::html::{Content, Head, PageReader, StartTag, text_ends_head};

/// Raw text kept of one anchor or title before it is collapsed: far above any real one, a
/// bound on what a page without end tags can make us hold.
const MAX_RAW_TEXT: usize = 64 * 1024;

/// JSON-LD scripts read at most from one page.
pub(crate) const MAX_JSON_LD_SCRIPTS: usize = 8;

/// Links read at most, before they are resolved and deduplicated (the caller keeps at most
/// `MAX_LINKS` of them).
pub(crate) const MAX_RAW_LINKS: usize = 4 * super::MAX_LINKS;

/// A `<meta>` element that has a `content` attribute.
#[derive(Debug, Default)]
pub(crate) struct Meta {
    /// Its `name`, if any.
    pub name: Option<String>,
    /// Its `http-equiv`, if any.
    pub http_equiv: Option<String>,
    /// Its `content`.
    pub content: String,
    /// Whether it stands inside `<noscript>` or `<template>`: markup for browsers without
    /// scripts (or never rendered), not the page as a browser running scripts shows it.
    pub in_fallback: bool,
}

/// A link as written: `a[href]`, `area[href]`, `frame[src]`, `iframe[src]`.
#[derive(Debug, Default)]
pub(crate) struct RawLink {
    /// The `href` (or `src`), character references decoded.
    pub href: String,
    /// Its `rel` attribute.
    pub rel: String,
    /// The text inside it, as written (not collapsed, at most [`MAX_RAW_TEXT`] bytes).
    pub text: String,
    /// The first `alt` or `title` of the element itself or an element inside it: the
    /// anchor of an image link.
    pub alt: Option<String>,
}

/// An image the page shows, as written: `<img>` (its `src`, else the widest `srcset`
/// candidate, else a `srcset` of the `<picture>` around it), `og:image`.
#[derive(Debug, Default)]
pub(crate) struct RawImage {
    /// Its URL as written, character references decoded.
    pub src: String,
    /// Its `alt`.
    pub alt: String,
    /// Its `title`.
    pub title: String,
    /// Where it stands in [`Scanned::visible`] (a byte offset): the words around it are
    /// read from there.
    pub at: usize,
}

/// What one pass reads.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    /// The first `<base href>`.
    pub base_href: Option<String>,
    /// The text of the first `<title>`, as written.
    pub title: Option<String>,
    /// Every `<meta>` with a `content` attribute, in order.
    pub metas: Vec<Meta>,
    /// The `href` of the first `<link rel=canonical href>` in the head.
    pub canonical_href: Option<String>,
    /// Links in document order (at most [`MAX_RAW_LINKS`]).
    pub links: Vec<RawLink>,
    /// Links past [`MAX_RAW_LINKS`], not read.
    pub links_dropped: usize,
    /// The visible text (outside scripts, styles, templates, `noscript` and the head), words joined by
    /// single spaces.
    pub visible: String,
    /// The visible text outside navigation, page header and footer and sidebars.
    pub main: String,
    /// Images shown, in document order (at most [`MAX_RAW_IMAGES`]).
    pub images: Vec<RawImage>,
    /// The dates the page declares.
    pub dates: DeclaredDates,
}

/// Images read at most from one page.
pub(crate) const MAX_RAW_IMAGES: usize = 2_000;

/// Reads `html` in one pass.
pub(crate) fn scan(html: &str) -> Scanned {
    crate::html::read(html, State::default()).out
}

#[derive(Default)]
struct State {
    out: Scanned,
    /// Where the page stands with its head (see the module's rules).
    head: Head,
    /// The raw-text element whose content the tokenizer is reading, if any.
    raw: Option<&'static str>,
    /// Open `<template>` and `<noscript>` elements: their text is not the page's.
    templates: u32,
    /// Open `nav`, `header`, `footer` and `aside` elements.
    boilerplate: u32,
    /// Open `article` and `main` elements: the page's content, whatever is around it.
    content: u32,
    /// The text of the JSON-LD script being read (`None` past [`MAX_JSON_LD_BYTES`]).
    json_ld: Option<String>,
    /// JSON-LD scripts met so far.
    json_ld_scripts: usize,
    /// The open link (an `a` or `iframe`) whose text is being read: its index in `links`.
    anchor: Option<usize>,
    /// Whether the first `<title>` is being read.
    reading_title: bool,
    /// The first `srcset` candidate of the `<source>` elements of the open `<picture>`, for
    /// an `<img>` in it that names none of its own.
    picture_source: Option<String>,
}

impl PageReader for State {
    fn wants_text(&self) -> bool {
        // A script's or style's text goes nowhere unless a link holds it or it is JSON-LD:
        // not kept.
        self.anchor.is_some() || self.json_ld.is_some() || !self.in_hidden_raw()
    }

    fn text(&mut self, text: &str) {
        if self.head != Head::Left && self.raw.is_none() && self.templates == 0 {
            // White space before the body is dropped; other text ends the head, and the
            // body gets it.
            if !text_ends_head(text) {
                return;
            }
            self.head = Head::Left;
        }
        if self.reading_title {
            append_bounded(self.out.title.get_or_insert_default(), text);
        }
        if self.raw == Some("script")
            && let Some(script) = &mut self.json_ld
        {
            if script.len() + text.len() > MAX_JSON_LD_BYTES {
                self.json_ld = None;
            } else {
                script.push_str(text);
            }
        }
        if let Some(link) = self.anchor.map(|i| &mut self.out.links[i]) {
            append_bounded(&mut link.text, text);
        }
        if !self.in_hidden_raw() && self.head != Head::In && self.templates == 0 {
            push_words(&mut self.out.visible, text);
            if self.boilerplate == 0 {
                push_words(&mut self.out.main, text);
            }
        }
    }

    fn start(&mut self, tag: &StartTag<'_>) {
        let name = tag.name();
        self.head = self.head.after_start_tag(name);
        if self.anchor.is_some() {
            if name == "a" {
                self.anchor = None;
            } else if let Some(link) = self.anchor.map(|i| &mut self.out.links[i])
                && link.alt.is_none()
            {
                link.alt = alt_of(tag);
            }
        }
        match name {
            "a" | "area" => {
                if let Some(href) = tag.attr("href") {
                    let open = name == "a";
                    self.push_link(href, tag, open);
                }
            }
            "frame" | "iframe" => {
                if let Some(src) = tag.attr("src") {
                    let open = name == "iframe";
                    self.push_link(src, tag, open);
                }
            }
            "base" if self.out.base_href.is_none() => {
                self.out.base_href = tag.attr("href").map(str::to_string);
            }
            "img" => {
                let src = tag
                    .attr("src")
                    .filter(|src| !src.trim().is_empty())
                    .map(str::to_string)
                    .or_else(|| tag.attr("srcset").and_then(widest_candidate))
                    .or_else(|| self.picture_source.clone());
                if let Some(src) = src {
                    self.push_image(src, tag);
                }
            }
            "source" if self.picture_source.is_none() => {
                self.picture_source = tag.attr("srcset").and_then(widest_candidate);
            }
            "picture" => self.picture_source = None,
            "meta" => {
                if let Some(content) = tag.attr("content")
                    && tag
                        .attr("property")
                        .is_some_and(|p| p.trim().eq_ignore_ascii_case("og:image"))
                {
                    self.push_image(content.to_string(), tag);
                }
                if let (Some(property), Some(content)) = (tag.attr("property"), tag.attr("content"))
                    && self.templates == 0
                {
                    self.out.dates.read_meta(property, content);
                }
                if let Some(content) = tag.attr("content") {
                    self.out.metas.push(Meta {
                        name: tag.attr("name").map(str::to_string),
                        http_equiv: tag.attr("http-equiv").map(str::to_string),
                        content: content.to_string(),
                        in_fallback: self.templates > 0,
                    });
                }
            }
            "link" if self.head == Head::In && self.out.canonical_href.is_none() => {
                if let (Some(rel), Some(href)) = (tag.attr("rel"), tag.attr("href"))
                    && super::has_rel(rel, "canonical")
                {
                    self.out.canonical_href = Some(href.to_string());
                }
            }
            "title" if self.out.title.is_none() => {
                self.out.title = Some(String::new());
                self.reading_title = true;
            }
            "script" if self.templates == 0 && self.json_ld_scripts < MAX_JSON_LD_SCRIPTS => {
                let kind = tag.attr("type").unwrap_or_default().trim();
                if kind.eq_ignore_ascii_case("application/ld+json") {
                    self.json_ld_scripts += 1;
                    self.json_ld = Some(String::new());
                }
            }
            "time" if self.templates == 0 && (self.content > 0 || self.boilerplate == 0) => {
                if let Some(datetime) = tag.attr("datetime") {
                    self.out.dates.read_time(datetime, tag.attr("itemprop"));
                }
            }
            "template" | "noscript" => self.templates += 1,
            "nav" | "header" | "footer" | "aside" => self.boilerplate += 1,
            "article" | "main" => self.content += 1,
            _ => {}
        }
        self.raw = Content::of(name).raw_element();
    }

    fn end(&mut self, name: &str) {
        if self.raw == Some(name) {
            self.raw = None;
            self.reading_title = false;
            if let Some(script) = self.json_ld.take() {
                self.out.dates.read_json_ld(&script);
            }
        }
        match name {
            "head" => self.head = Head::Left,
            "a" | "iframe" => self.anchor = None,
            "picture" => self.picture_source = None,
            "template" | "noscript" => self.templates = self.templates.saturating_sub(1),
            "nav" | "header" | "footer" | "aside" => {
                self.boilerplate = self.boilerplate.saturating_sub(1)
            }
            "article" | "main" => self.content = self.content.saturating_sub(1),
            _ => {}
        }
    }
}

impl State {
    fn push_link(&mut self, href: &str, tag: &StartTag<'_>, open: bool) {
        if self.out.links.len() >= MAX_RAW_LINKS {
            self.out.links_dropped += 1;
            return;
        }
        self.out.links.push(RawLink {
            href: href.to_string(),
            rel: tag.attr("rel").unwrap_or_default().to_string(),
            text: String::new(),
            alt: alt_of(tag),
        });
        if open {
            self.anchor = Some(self.out.links.len() - 1);
        }
    }

    fn push_image(&mut self, src: String, tag: &StartTag<'_>) {
        if self.out.images.len() >= MAX_RAW_IMAGES || src.trim().starts_with("data:") {
            return;
        }
        self.out.images.push(RawImage {
            src,
            alt: tag.attr("alt").unwrap_or_default().to_string(),
            title: tag.attr("title").unwrap_or_default().to_string(),
            at: self.out.visible.len(),
        });
    }

    /// Inside a `<script>` or `<style>`: text that is never the page's.
    fn in_hidden_raw(&self) -> bool {
        matches!(self.raw, Some("script" | "style"))
    }
}

/// The `alt`, else `title`, of an element.
fn alt_of(tag: &StartTag<'_>) -> Option<String> {
    tag.attr("alt")
        .or_else(|| tag.attr("title"))
        .map(str::to_string)
}

/// The widest candidate of a `srcset` (`a.png 480w, b.png 960w` or `a.png 1x, b.png 2x`);
/// the first when none says its width.
fn widest_candidate(srcset: &str) -> Option<String> {
    srcset
        .split(',')
        .filter_map(|candidate| {
            let mut parts = candidate.split_whitespace();
            let url = parts.next()?;
            let width = parts
                .next()
                .and_then(|d| d.strip_suffix(['w', 'x']))
                .and_then(|n| n.parse::<f32>().ok())
                .unwrap_or(0.0);
            Some((url, width))
        })
        .fold(None, |best: Option<(&str, f32)>, (url, width)| match best {
            Some((_, best_width)) if best_width >= width => best,
            _ => Some((url, width)),
        })
        .map(|(url, _)| url.to_string())
}

fn append_bounded(out: &mut String, text: &str) {
    let room = MAX_RAW_TEXT.saturating_sub(out.len());
    let mut end = text.len().min(room);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(&text[..end]);
}

/// Appends the words of `text` to `out`, separated by single spaces.
fn push_words(out: &mut String, text: &str) {
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
}
