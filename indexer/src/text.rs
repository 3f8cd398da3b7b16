//! Text extraction: what a reader sees on a page, as title, headings (`h1`-`h4`) and body
//! text ([`PageText`]), with what the ranking's priors need: the share of the text in `<pre>`
//! code listings and the word count of the page's own content (`<main>`, `<article>`).
//! What the page declares of its language and translations is read in the same pass
//! ([`declared`]).
//!
//! Left out: `script`, `style`, `noscript`, `template`, `svg`, `button`, elements with the
//! `hidden` attribute or `aria-hidden="true"`, and page chrome, by structure (no site's own
//! strings):
//! - navigation: `nav`, `aside`, the page's `header` and `footer` (a `header` or `footer`
//!   inside an `article` or `main` belongs to that content, an article's title and byline,
//!   and is kept);
//! - ARIA landmarks that are not the content, [`CHROME_ROLES`]: `navigation`, `banner`
//!   (the page header), `contentinfo` (its footer), `complementary` (an aside), `search`;
//! - ARIA widgets, whose text is control labels: `menu`, `menubar`, `toolbar`, `tablist`
//!   (the tabs, not their panels), `dialog`, `alertdialog`, `tooltip`;
//! - form controls: `select` (with its options: a theme or version picker), `datalist`,
//!   `label`, `textarea` and `dialog`;
//! - a skip link: a link to a place on the page itself (`href="#..."`) before any text.
//!
//! Then, as blocks end ([`blocks`]): the blocks of the host's template ([`HostTemplate`],
//! text repeated on a large share of the host's pages) are taken out, and link-dense blocks
//! (menus, breadcrumbs, language bars, tables of contents) are kept in the body but put
//! last in the snippet source ([`PageText::snippet_source`], stored as `body_start`), so a
//! snippet never starts with one. `chrome_tests` checks this on `fixtures/`, the page
//! layouts of five kinds of sites.
//!
//! Whitespace is collapsed to single spaces; block elements separate words, inline ones do
//! not (`para<b>graph</b>` is one word).
//!
//! The page is read in one streaming pass of a WHATWG tokenizer ([`shared::html`]), without
//! a document tree: the tree and its allocations were a fifth of a build's CPU. What the tree
//! builder would decide and this pass decides alike:
//! - raw text: `<script>`, `<style>`, `<title>`, `<textarea>`, `<iframe>`, `<xmp>`,
//!   `<noembed>`, `<noframes>` and `<plaintext>` switch the tokenizer to their raw states;
//! - the head ends at `</head>`, `<body>`, a start tag that does not belong in a head, or
//!   text other than white space (which then belongs to the body);
//! - a left-out element ends at its own end tag (nested ones of its name counted); a void
//!   element (`<input hidden>`) and a self-closing `<svg/>` have no content to leave out;
//! - a heading start tag ends an open heading;
//! - a comment or a tag ends a text node.
//!
//! What it does not model: end tags a parent implies (`<p hidden>` ends at `</p>`, not at the
//! next block), foreign content and the re-opening of formatting elements. Extraction
//! returns what it could read and never fails.

use std::ops::Range;

use shared::html::{Content, Head, PageReader, StartTag, text_ends_head};

pub use blocks::HostTemplate;
use blocks::{Blocks, Counters};
pub use declared::Declared;

pub(crate) mod blocks;
#[cfg(test)]
mod chrome_tests;
mod declared;

/// ARIA roles of landmarks and widgets that are page chrome, not content: see the module docs.
pub const CHROME_ROLES: [&str; 12] = [
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "menu",
    "menubar",
    "toolbar",
    "tablist",
    "dialog",
    "alertdialog",
    "tooltip",
];

/// Longest body text kept, in bytes; the rest of a huge page is left out.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Longest title or heading kept, in bytes.
const MAX_LINE_BYTES: usize = 1024;
/// Most heading text kept per page, in bytes (API docs can have thousands of headings).
pub const MAX_HEADINGS_BYTES: usize = 64 * 1024;
/// Most section starts kept per page.
pub const MAX_SECTIONS: usize = 4096;

/// The text of one page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageText {
    /// The first `<title>`, whitespace collapsed.
    pub title: String,
    /// `h1`-`h4` outside the boilerplate, in document order, at most [`MAX_HEADINGS_BYTES`]
    /// (`h4` holds the signatures of API docs: a page is about the methods it defines).
    pub headings: Vec<String>,
    /// Visible text, whitespace collapsed, at most [`MAX_BODY_BYTES`].
    pub body: String,
    /// How many bytes of `body` came from inside `<pre>` blocks (code listings).
    pub code_bytes: usize,
    /// Words inside `<main>` and `<article>` elements, when the page has any.
    pub content_words: Option<usize>,
    /// Where in `body` each section starts (a heading `h1`-`h4` or a definition term `dt`:
    /// a manual's option, a reference's entry), in order, at most [`MAX_SECTIONS`].
    pub section_starts: Vec<usize>,
    /// Byte ranges of `body` that are link-dense blocks, in order, not overlapping.
    pub link_dense: Vec<Range<usize>>,
    /// Bytes of text left out because they were the host's template.
    pub template_bytes: usize,
    /// What the page declares of its language and translations.
    pub declared: Declared,
}

impl PageText {
    /// Words of the page's own content: inside its `<main>` or `<article>` when it marks
    /// one (a documentation theme's menus and help texts left out), else of the whole body.
    pub fn content_words(&self) -> usize {
        self.content_words
            .unwrap_or_else(|| self.body.split_whitespace().count())
    }

    /// The text snippets are cut from, at most `max_bytes` (cut at a character): the body
    /// with its link-dense blocks moved behind the rest, so a snippet starts with the page's
    /// own text and a page that is all links (a table of contents) still shows them.
    pub fn snippet_source(&self, max_bytes: usize) -> String {
        let mut out = String::with_capacity(self.body.len().min(max_bytes));
        let mut push = |part: &str| {
            let part = part.trim();
            if part.is_empty() || out.len() >= max_bytes {
                return;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            let mut end = part.len().min(max_bytes - out.len());
            while !part.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(&part[..end]);
        };
        let mut at = 0;
        for range in &self.link_dense {
            if let Some(part) = self.body.get(at..range.start) {
                push(part);
            }
            at = range.end;
        }
        if let Some(part) = self.body.get(at..) {
            push(part);
        }
        for range in &self.link_dense {
            if let Some(part) = self.body.get(range.clone()) {
                push(part);
            }
        }
        out
    }

    /// The share of the body text that is code listings, in percent (0 for an empty body):
    /// a source-code page is nearly all code, an API page has examples between its prose.
    pub fn code_percent(&self) -> u64 {
        if self.body.is_empty() {
            return 0;
        }
        (self.code_bytes.min(self.body.len()) * 100 / self.body.len()) as u64
    }
}

/// Extracts the text of an HTML page (no host template).
#[cfg(test)]
pub fn extract(html: &str) -> PageText {
    extract_with(html, &HostTemplate::default())
}

/// Extracts the text of an HTML page, the blocks of its host's `template` left out.
pub fn extract_with(html: &str, template: &HostTemplate) -> PageText {
    let walker = Walker {
        blocks: Blocks::new(Some(template), false),
        ..Walker::default()
    };
    shared::html::read(html, walker).finish()
}

/// The hashes of a page's blocks, in document order, as a template is learned from them.
pub fn block_hashes(html: &str) -> Vec<u64> {
    let walker = Walker {
        blocks: Blocks::new(None, true),
        ..Walker::default()
    };
    let mut walker = shared::html::read(html, walker);
    walker.close_blocks();
    walker.blocks.learned
}

impl PageReader for Walker<'_> {
    fn wants_text(&self) -> bool {
        self.skipping.is_none()
    }

    /// A text node: its words go where the open elements say.
    fn text(&mut self, text: &str) {
        if self.in_title {
            if let Some(title) = &mut self.title {
                title.push(text, MAX_LINE_BYTES);
            }
            return;
        }
        if self.head != Head::Left {
            // White space before the body is dropped; other text ends the head, and the
            // body gets it.
            if self.raw.is_some() || !text_ends_head(text) {
                return;
            }
            self.head = Head::Left;
        }
        if let Some(heading) = &mut self.heading {
            heading.push(text, MAX_LINE_BYTES);
        }
        let before = self.body.text.len();
        self.body.push(text, MAX_BODY_BYTES);
        if self.body.text.len() > before {
            self.blocks.text(text);
        }
        if self.in_content > 0
            && let Some(words) = &mut self.text.content_words
        {
            *words += text.split_whitespace().count();
        }
        if self.in_pre > 0 {
            self.text.code_bytes += self.body.text.len() - before;
        }
    }

    fn start(&mut self, tag: &StartTag<'_>) {
        let name = tag.name();
        self.head = self.head.after_start_tag(name);
        if self.skipping.is_none() {
            self.text.declared.read(tag);
        }
        if let Some(skipping) = &mut self.skipping {
            if skipping.name == *name {
                skipping.depth += 1;
            }
        } else if self.skips(tag) {
            let empty = is_void(name) || (tag.self_closing() && name == "svg");
            if !empty {
                self.skipping = Some(Skipping {
                    name: name.to_string(),
                    depth: 1,
                });
            }
        } else {
            self.open(name, tag);
        }
        self.raw = Content::of(name).raw_element();
    }

    fn end(&mut self, name: &str) {
        if self.raw == Some(name) {
            self.raw = None;
        }
        if let Some(skipping) = &mut self.skipping {
            if skipping.name == *name {
                skipping.depth -= 1;
                if skipping.depth == 0 {
                    self.skipping = None;
                }
            }
            return;
        }
        if name == "head" {
            self.head = Head::Left;
        }
        self.close(name);
    }
}

/// An element left out with everything inside it.
struct Skipping {
    name: String,
    /// Open elements of that name, itself included.
    depth: u32,
}

#[derive(Default)]
struct Walker<'t> {
    text: PageText,
    blocks: Blocks<'t>,
    head: Head,
    /// The element being left out, if any.
    skipping: Option<Skipping>,
    /// The raw-text element whose content the tokenizer is reading, if any.
    raw: Option<&'static str>,
    /// Open `article` / `main` elements.
    in_content: usize,
    /// Inside a `<title>`.
    in_title: bool,
    /// Open `pre` elements.
    in_pre: usize,
    /// Open `h1`-`h4` elements, with the heading being collected.
    heading: Option<Line>,
    heading_depth: usize,
    headings_bytes: usize,
    /// The first title, while it is read.
    title: Option<Line>,
    body: Line,
}

impl Walker<'_> {
    fn skips(&self, tag: &StartTag<'_>) -> bool {
        let by_name = match tag.name() {
            "script" | "style" | "noscript" | "template" | "svg" | "button" | "nav" | "aside"
            | "select" | "datalist" | "label" | "textarea" | "dialog" => true,
            "header" | "footer" => self.in_content == 0,
            "a" => self.is_skip_link(tag),
            _ => false,
        };
        by_name
            || tag.attrs().any(|(name, value)| match name {
                "hidden" => true,
                "aria-hidden" => value.trim().eq_ignore_ascii_case("true"),
                "role" => value.split_ascii_whitespace().next().is_some_and(|role| {
                    CHROME_ROLES
                        .iter()
                        .any(|chrome| role.eq_ignore_ascii_case(chrome))
                }),
                _ => false,
            })
    }

    /// A link to a place on the page itself before any text ("Skip to content"), outside a
    /// heading (a heading's link to itself is the heading).
    fn is_skip_link(&self, tag: &StartTag<'_>) -> bool {
        self.body.text.is_empty()
            && self.heading.is_none()
            && tag.attrs().any(|(name, value)| {
                name == "href" && value.trim().len() > 1 && value.trim().starts_with('#')
            })
    }

    /// Ends every open block (the end of the page) and takes out the template's blocks.
    fn close_blocks(&mut self) {
        let mut counters = Counters {
            body: &mut self.body,
            code_bytes: &mut self.text.code_bytes,
            content_words: &mut self.text.content_words,
            section_starts: &mut self.text.section_starts,
        };
        self.blocks.close_all(&mut counters);
        self.blocks.take_out_template(&mut counters);
    }

    fn open(&mut self, name: &str, tag: &StartTag<'_>) {
        if name == "a" && tag.attrs().any(|(attr, _)| attr == "href") {
            self.blocks.link_opens();
        } else if !is_inline(name) && !is_void(name) {
            self.blocks.open(
                name,
                self.body.text.len(),
                self.text.code_bytes,
                self.text.content_words.unwrap_or(0),
            );
        }
        match name {
            "article" | "main" => {
                self.in_content += 1;
                self.text.content_words.get_or_insert(0);
            }
            "pre" => self.in_pre += 1,
            "title" => {
                self.in_title = true;
                if self.title.is_none() && self.text.title.is_empty() {
                    self.title = Some(Line::default());
                }
            }
            "h1" | "h2" | "h3" | "h4" => {
                self.end_heading();
                self.heading_depth = 1;
                self.heading = Some(Line::default());
                self.section_starts();
            }
            "dt" => self.section_starts(),
            "h5" | "h6" => self.end_heading(),
            _ => {}
        }
        self.break_words(name);
    }

    fn close(&mut self, name: &str) {
        if name == "a" {
            self.blocks.link_closes();
        } else if !is_inline(name) {
            self.blocks.close(
                name,
                &mut Counters {
                    body: &mut self.body,
                    code_bytes: &mut self.text.code_bytes,
                    content_words: &mut self.text.content_words,
                    section_starts: &mut self.text.section_starts,
                },
            );
        }
        match name {
            "article" | "main" => self.in_content = self.in_content.saturating_sub(1),
            "pre" => self.in_pre = self.in_pre.saturating_sub(1),
            "title" => {
                self.in_title = false;
                if let Some(title) = self.title.take() {
                    self.text.title = title.text;
                }
            }
            "h1" | "h2" | "h3" | "h4" => {
                self.heading_depth = self.heading_depth.saturating_sub(1);
                if self.heading_depth == 0 {
                    self.end_heading();
                }
            }
            _ => {}
        }
        self.break_words(name);
    }

    /// At the edge of an element that is not inline: words on either side stay apart.
    fn break_words(&mut self, name: &str) {
        if !is_inline(name) {
            self.body.space();
            if let Some(heading) = &mut self.heading {
                heading.space();
            }
        }
    }

    /// Notes that a section starts at the end of the body so far.
    fn section_starts(&mut self) {
        let starts = &mut self.text.section_starts;
        let at = self.body.text.len();
        if starts.len() < MAX_SECTIONS && starts.last() != Some(&at) {
            starts.push(at);
        }
    }

    /// Keeps the heading being collected, if any (within [`MAX_HEADINGS_BYTES`]).
    fn end_heading(&mut self) {
        self.heading_depth = 0;
        if let Some(heading) = self.heading.take()
            && !heading.text.is_empty()
            && self.headings_bytes + heading.text.len() <= MAX_HEADINGS_BYTES
        {
            self.headings_bytes += heading.text.len();
            self.text.headings.push(heading.text);
        }
    }

    fn finish(mut self) -> PageText {
        self.end_heading();
        self.close_blocks();
        self.text.link_dense = std::mem::take(&mut self.blocks.link_dense);
        self.text.template_bytes = self.blocks.template_bytes;
        self.text.body = self.body.text;
        self.text
    }
}

/// Elements that never have content or an end tag.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Text being collected with whitespace collapsed.
#[derive(Default)]
struct Line {
    text: String,
    /// A word boundary was seen since the last word.
    pending_space: bool,
}

impl Line {
    fn space(&mut self) {
        self.pending_space = true;
    }

    fn push(&mut self, text: &str, max_bytes: usize) {
        if text.starts_with(char::is_whitespace) {
            self.pending_space = true;
        }
        let mut any_word = false;
        for word in text.split_whitespace() {
            if self.text.len() + word.len() + 1 > max_bytes {
                return;
            }
            if self.pending_space && !self.text.is_empty() {
                self.text.push(' ');
            }
            self.text.push_str(word);
            self.pending_space = true;
            any_word = true;
        }
        if any_word {
            // A word at the very end glues to the text that follows (`para<b>graph</b>`).
            self.pending_space = text.ends_with(char::is_whitespace);
        }
    }
}

/// Elements that flow inside a line of text: no word break at their edges.
fn is_inline(name: &str) -> bool {
    matches!(
        name,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "cite"
            | "code"
            | "data"
            | "del"
            | "dfn"
            | "em"
            | "font"
            | "i"
            | "ins"
            | "kbd"
            | "mark"
            | "q"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "u"
            | "var"
            | "wbr"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_styles_and_navigation_are_left_out() {
        let got = extract(
            "<html><head><title> The \n Page </title><style>p { color: red }</style>\
             <script>var inHead = 1;</script></head><body>\
             <header><a href=/>Site name</a></header>\
             <nav><a href=/>Home</a> <a href=/x>Menu item</a></nav>\
             <div role=navigation>crumbs</div><aside>related</aside>\
             <h1>Big <em>heading</em></h1><p>First para<b>graph</b>   text.</p><p>Second.</p>\
             <noscript>enable js</noscript><template><p>later</p></template>\
             <div hidden>invisible</div><button>Copy</button>\
             <script>var hidden = 1;</script><footer>Copyright</footer></body></html>",
        );
        assert_eq!(got.title, "The Page");
        assert_eq!(got.headings, ["Big heading"]);
        assert_eq!(got.body, "Big heading First paragraph text. Second.");
    }

    #[test]
    fn blocks_separate_words_and_inline_elements_do_not() {
        let got = extract(
            "<table><tr><td>one</td><td>two</td></tr></table><ul><li>a<li>b</ul>x<br>y<span>z</span>",
        );
        assert_eq!(got.body, "one two a b x yz");
    }

    #[test]
    fn an_article_keeps_its_own_header() {
        let got = extract(
            "<header>Site</header><main><article><header><h1>Post title</h1></header>\
             <p>Post text.</p><footer>By someone</footer></article></main><footer>Site footer</footer>",
        );
        assert_eq!(got.headings, ["Post title"]);
        assert_eq!(got.body, "Post title Post text. By someone");
    }

    #[test]
    fn headings_h1_to_h4_only_and_the_first_title() {
        let got = extract(
            "<title>One</title><title>Two</title><h2>Second level</h2><h4>Fourth</h4>\
             <h5>Fifth</h5><h3> Third <small>level</small></h3><svg><title>icon</title></svg>",
        );
        assert_eq!(got.title, "One");
        assert_eq!(got.headings, ["Second level", "Fourth", "Third level"]);
        assert_eq!(got.body, "Second level Fourth Fifth Third level");
    }

    #[test]
    fn broken_html_still_gives_text() {
        let got = extract("<p>unclosed <b>bold <i>italic</p> tail <div><span>deep");
        assert_eq!(got.body, "unclosed bold italic tail deep");
        assert_eq!(extract("").body, "");
        assert_eq!(extract("plain text, no tags").body, "plain text, no tags");
        let nested = "<div>".repeat(5_000) + "bottom";
        assert_eq!(extract(&nested).body, "bottom");
    }

    #[test]
    fn a_left_out_element_ends_at_its_own_end_tag() {
        let got = extract(
            "<div hidden><div>inner</div>still hidden</div>shown \
             <nav><script>if (a<b) { x = '</nav>'; }</script>menu</nav>after",
        );
        assert_eq!(got.body, "shown after");
        // Void elements and a self-closing <svg/> have no content to leave out.
        let got = extract("<p>a <input hidden> b <img role=navigation> c <svg/> d</p>");
        assert_eq!(got.body, "a b c d");
        assert_eq!(extract("<svg><text>icon</text></svg>after").body, "after");
    }

    #[test]
    fn a_heading_start_ends_the_open_heading() {
        let got = extract("<h2>One<h3>Two</h3><p>text<h5>Five</h5>");
        assert_eq!(got.headings, ["One", "Two"]);
        assert_eq!(got.body, "One Two text Five");
    }

    #[test]
    fn text_in_the_head_belongs_to_the_body() {
        let got = extract("<head><title>T</title>\n  stray</head><p>body</p>");
        assert_eq!(got.title, "T");
        assert_eq!(got.body, "stray body");
    }

    #[test]
    fn character_references_do_not_split_words() {
        let got = extract("<main><p>R&amp;D team caf&eacute;</p></main>");
        assert_eq!(got.body, "R&D team café");
        assert_eq!(got.content_words(), 3);
    }

    #[test]
    fn headings_are_bounded() {
        let page = "<h3>twelve bytes</h3>".repeat(10_000);
        let headings = extract(&page).headings;
        assert_eq!(headings.len(), MAX_HEADINGS_BYTES / "twelve bytes".len());
    }

    #[test]
    fn huge_bodies_are_cut() {
        let page = format!("<p>{}</p>", "word ".repeat(MAX_BODY_BYTES));
        let body = extract(&page).body;
        assert!(
            body.len() <= MAX_BODY_BYTES && body.len() > MAX_BODY_BYTES - 10,
            "{}",
            body.len()
        );
        assert!(body.ends_with("word"));
    }

    #[test]
    fn sections_start_at_headings_and_definition_terms() {
        let text = extract(
            "<p>intro</p><h2>Options</h2><dl><dt>--force</dt><dd>force it</dd>\
             <dt>--quiet</dt><dd>say less</dd></dl><h3>Notes</h3><p>end</p>",
        );
        let starts: Vec<&str> = text
            .section_starts
            .iter()
            .map(|&at| text.body[at..].trim_start())
            .collect();
        assert_eq!(
            starts,
            [
                "Options --force force it --quiet say less Notes end",
                "--force force it --quiet say less Notes end",
                "--quiet say less Notes end",
                "Notes end"
            ]
        );
    }

    #[test]
    fn content_words_count_main_when_there_is_one() {
        let themed = extract(
            "<div>Keyboard shortcuts: press S to search, ? for help</div>\
             <main><h1>unique_rc_arc</h1><p>The tracking issue is #1.</p></main>",
        );
        assert_eq!(themed.content_words(), 6);
        let plain = extract("<div>one two</div><p>three</p>");
        assert_eq!(plain.content_words(), 3);
        // Words split across inline elements count as one each side of the tag.
        assert_eq!(
            extract("<article>a <b>b</b> c</article>").content_words(),
            3
        );
    }

    #[test]
    fn code_listings_are_measured() {
        let prose = extract("<p>one two three four</p>");
        assert_eq!(prose.code_percent(), 0);
        let source = extract("<pre><code>fn main() {}</code></pre>");
        assert_eq!(source.code_percent(), 100);
        // "words here" (10 bytes), then " let x = 1;" (11 bytes: the space before the code
        // counts with it).
        let mixed = extract("<p>words here</p><pre>let x = 1;</pre>");
        assert_eq!(mixed.body, "words here let x = 1;");
        assert_eq!(mixed.code_bytes, 11);
        assert_eq!(mixed.code_percent(), 1100 / 21);
        assert_eq!(extract("").code_percent(), 0);
    }
}
